// krill topics list|create|describe|alter|delete: Kafka's kafka-topics, with sizes (DescribeLogDirs) and
// watermarks (ListOffsets) beside the partitions.
import { ErrorCode } from '../../protocol/errors.js';
import { UsageError, intOption, keyValues, listOption, onePositional, type Command, type Context } from './command.js';
import { check, type KafkaClient, type TopicMetadata } from './kafka-client.js';
import { EARLIEST, LATEST, key, listOffsets, partitionsOf } from './offsets.js';
import { describeConfigs, RESOURCE_TOPIC, alterConfigs } from './configs.js';
import { columns } from './table.js';

const list: Command = {
  name: 'topics list',
  summary: 'the topics, with their partition counts and replication factors',
  usage: `[--internal]
  --internal                    include internal topics (__consumer_offsets, __transaction_state)`,
  options: { internal: { type: 'boolean', default: false } },
  async run(ctx) {
    const md = await (await ctx.client()).metadata(null);
    const rows = md.topics
      .filter((t) => ctx.values.internal || !t.isInternal)
      .map((t) => ({ name: t.name, partitions: t.partitions.length, replicationFactor: t.partitions[0]?.replicas.length ?? 0, internal: t.isInternal }));
    ctx.print(rows, columns('name', 'partitions', 'replicationFactor', 'internal'));
  },
};

const create: Command = {
  name: 'topics create',
  summary: 'create a topic',
  usage: `<topic> [--partitions N] [--replication-factor N] [--config key=value]... [--if-not-exists]
  --partitions N                how many partitions (default: the broker's num.partitions)
  --replication-factor N        how many replicas (default: the broker's default.replication.factor)
  --config key=value            a topic config, by Kafka's name (repeatable)
  --if-not-exists               succeed when the topic exists already`,
  options: {
    partitions: { type: 'string' },
    'replication-factor': { type: 'string' },
    config: { type: 'string', multiple: true },
    'if-not-exists': { type: 'boolean', default: false },
  },
  async run(ctx) {
    const name = onePositional(ctx, 'topic');
    const configs = keyValues(ctx.values, 'config').map(([n, value]) => ({ name: n, value }));
    const client = await ctx.client();
    const res = await client.send(19, {
      topics: [
        {
          name,
          numPartitions: intOption(ctx.values, 'partitions', 1) ?? -1,
          replicationFactor: intOption(ctx.values, 'replication-factor', 1) ?? -1,
          assignments: [],
          configs,
        },
      ],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    const t = res.topics[0];
    if (t.errorCode === ErrorCode.TOPIC_ALREADY_EXISTS && ctx.values['if-not-exists']) {
      ctx.print([{ name, created: false }], columns('name', 'created'), { name, created: false });
      return;
    }
    check(t.errorCode, `creating topic '${name}'`, t.errorMessage);
    const result = { name, created: true, topicId: t.topicId.toString('base64url'), partitions: t.numPartitions, replicationFactor: t.replicationFactor };
    ctx.print([result], columns('name', 'topicId', 'partitions', 'replicationFactor'), result);
  },
};

/** Each partition's size on its leader's disk, when the brokers serve DescribeLogDirs. */
async function partitionSizes(client: KafkaClient, topics: TopicMetadata[]): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  if (!client.serves(35)) return sizes;
  const leaders = new Set(topics.flatMap((t) => t.partitions.map((p) => p.leader)).filter((l) => l >= 0));
  const request = { topics: topics.map((t) => ({ topic: t.name, partitions: t.partitions.map((p) => p.partition) })) };
  await Promise.all(
    [...leaders].map(async (leader) => {
      const res = await client.sendTo(leader, 35, request);
      check(res.errorCode, `DescribeLogDirs of broker ${leader}`);
      const leads = new Set(
        partitionsOf(topics, () => true)
          .filter((p) => p.leader === leader)
          .map((p) => key(p.topic, p.partition)),
      );
      for (const dir of res.results) {
        for (const t of dir.topics) {
          for (const p of t.partitions) {
            const k = key(t.name, p.partitionIndex);
            if (leads.has(k) && !p.isFutureKey) sizes.set(k, (sizes.get(k) ?? 0) + p.partitionSize);
          }
        }
      }
    }),
  );
  return sizes;
}

const describe: Command = {
  name: 'topics describe',
  summary: "a topic's partitions (leader, replicas, ISR, watermarks, size) and its configs",
  usage: `[<topic>...]
  <topic>                       the topics to describe (default: every topic but the internal ones, as kafka-topics --describe)`,
  options: {},
  async run(ctx) {
    const client = await ctx.client();
    const topics =
      ctx.positionals.length > 0
        ? await client.topics(ctx.positionals)
        : (await client.metadata(null)).topics.filter((t) => !t.isInternal && t.errorCode === 0);
    // A partition without a leader has no watermarks to ask for; `krill cluster` lists it as offline.
    const parts = partitionsOf(topics).filter((p) => p.leader >= 0);
    const [earliest, latest, sizes, configs] = await Promise.all([
      listOffsets(client, parts, EARLIEST),
      listOffsets(client, parts, LATEST),
      partitionSizes(client, topics),
      Promise.all(topics.map((t) => describeConfigs(client, RESOURCE_TOPIC, t.name, false))),
    ]);
    const described = topics.map((t, i) => ({
      name: t.name,
      topicId: t.topicId,
      internal: t.isInternal,
      partitions: t.partitions.map((p) => ({
        partition: p.partition,
        leader: p.leader,
        leaderEpoch: p.leaderEpoch,
        replicas: p.replicas,
        isr: p.isr,
        offline: p.offline,
        logStartOffset: earliest.get(key(t.name, p.partition)),
        highWatermark: latest.get(key(t.name, p.partition)),
        sizeBytes: sizes.get(key(t.name, p.partition)) ?? null,
      })),
      configs: Object.fromEntries(configs[i].map((c) => [c.name, c.value])),
    }));
    if (ctx.json) return ctx.print([], [], described);
    for (const t of described) {
      const cfg = Object.entries(t.configs)
        .map(([k, v]) => `${k}=${v}`)
        .join(',');
      ctx.line(`Topic: ${t.name}  TopicId: ${t.topicId}  Partitions: ${t.partitions.length}  Configs: ${cfg || '-'}`);
      ctx.print(t.partitions, columns('partition', 'leader', 'replicas', 'isr', 'logStartOffset', 'highWatermark', 'sizeBytes'));
    }
  },
};

const alter: Command = {
  name: 'topics alter',
  summary: 'add partitions to a topic, or change its configs',
  usage: `<topic> [--partitions N] [--config key=value]... [--delete-config key]...
  --partitions N                the new partition count (partitions are only ever added)
  --config key=value            set a topic config (repeatable)
  --delete-config key           return a topic config to its default (repeatable)`,
  options: { partitions: { type: 'string' }, config: { type: 'string', multiple: true }, 'delete-config': { type: 'string', multiple: true } },
  async run(ctx) {
    const name = onePositional(ctx, 'topic');
    const count = intOption(ctx.values, 'partitions', 1);
    const sets = keyValues(ctx.values, 'config');
    const deletes = listOption(ctx.values, 'delete-config');
    if (count === undefined && sets.length === 0 && deletes.length === 0)
      throw new UsageError('nothing to alter: give --partitions, --config or --delete-config');
    const client = await ctx.client();
    if (count !== undefined) {
      const res = await client.send(37, { topics: [{ name, count, assignments: null }], timeoutMs: 30_000, validateOnly: false });
      check(res.results[0].errorCode, `adding partitions to '${name}'`, res.results[0].errorMessage);
    }
    if (sets.length > 0 || deletes.length > 0) await alterConfigs(client, RESOURCE_TOPIC, name, sets, deletes);
    const result = { name, partitions: count ?? null, set: Object.fromEntries(sets), deleted: deletes };
    ctx.print([{ name, altered: true }], columns('name', 'altered'), result);
  },
};

const remove: Command = {
  name: 'topics delete',
  summary: 'delete topics',
  usage: `<topic>... [--if-exists]
  --if-exists                   succeed for a topic that does not exist`,
  options: { 'if-exists': { type: 'boolean', default: false } },
  async run(ctx: Context) {
    if (ctx.positionals.length === 0) throw new UsageError('expected at least one topic');
    const client = await ctx.client();
    const res = await client.send(20, { topicNames: ctx.positionals, timeoutMs: 30_000 }, 5);
    const rows = res.responses.map((r) => {
      const absent = r.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION && ctx.values['if-exists'];
      if (!absent) check(r.errorCode, `deleting topic '${r.name}'`, r.errorMessage);
      return { name: r.name, deleted: !absent };
    });
    ctx.print(rows, columns('name', 'deleted'));
  },
};

export const TOPIC_COMMANDS = [list, create, describe, alter, remove];
