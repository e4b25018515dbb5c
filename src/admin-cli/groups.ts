// krill groups list|describe|reset-offsets|delete: Kafka's kafka-consumer-groups for classic groups.
// Each group request goes to the group's coordinator (FindCoordinator); the lag of a partition is its
// log-end offset (ListOffsets, latest) less the group's committed offset.
import { ConsumerProtocolAssignment } from '../../protocol/data/consumer-protocol.js';
import { readVersioned } from '../../protocol/data/versioned.js';
import { ErrorCode } from '../../protocol/errors.js';
import { UsageError, intOption, listOption, onePositional, stringOption, type Command, type Context } from './command.js';
import { BrokerError, COORDINATOR_GROUP, check, type KafkaClient } from './kafka-client.js';
import { EARLIEST, LATEST, key, listOffsets, partitionsOf, type PartitionRef } from './offsets.js';
import { parseDuration, parseTimestamp } from './time.js';
import { columns } from './table.js';

const list: Command = {
  name: 'groups list',
  summary: 'the groups of every broker, with their states',
  usage: '',
  options: {},
  async run(ctx) {
    const answers = await (await ctx.client()).sendToEach(16, { statesFilter: [], typesFilter: [] }, 4);
    const rows = answers
      .flatMap(({ nodeId, response }) => {
        check(response.errorCode, `ListGroups of broker ${nodeId}`);
        return response.groups.map((g) => ({ group: g.groupId, state: g.groupState || null, protocolType: g.protocolType, coordinator: nodeId }));
      })
      .sort((a, b) => a.group.localeCompare(b.group));
    ctx.print(rows, columns('group', 'state', 'protocolType', 'coordinator'));
  },
};

/** Every error code of an OffsetFetch response (v7 and below: one group). */
export function offsetFetchErrors(r: { errorCode: number; topics: { partitions: { errorCode: number }[] }[] }): number[] {
  return [r.errorCode, ...r.topics.flatMap((t) => t.partitions.map((p) => p.errorCode))];
}

/**
 * Commits offsets for a group as an admin does: generation -1 and no member, which the coordinator takes
 * only while the group has no members (Kafka's ConsumerGroupCommand, and a consumer that assigns itself partitions).
 */
export async function commitOffsets(client: KafkaClient, group: string, offsets: { topic: string; partition: number; offset: number }[]): Promise<void> {
  const topics = new Map<string, { partitionIndex: number; committedOffset: number; committedLeaderEpoch: number; committedMetadata: string }[]>();
  for (const o of offsets) {
    topics.set(o.topic, [
      ...(topics.get(o.topic) ?? []),
      { partitionIndex: o.partition, committedOffset: o.offset, committedLeaderEpoch: -1, committedMetadata: '' },
    ]);
  }
  const body = {
    groupId: group,
    generationIdOrMemberEpoch: -1,
    memberId: '',
    groupInstanceId: null,
    topics: [...topics].map(([name, partitions]) => ({ name, partitions })),
  };
  const { response } = await client.sendToCoordinator(group, COORDINATOR_GROUP, 8, body, (r) => r.topics.flatMap((t) => t.partitions.map((p) => p.errorCode)));
  for (const t of response.topics) {
    for (const p of t.partitions) check(p.errorCode, `committing the offset of ${key(t.name, p.partitionIndex)} for group '${group}'`);
  }
}

interface DescribedGroup {
  group: string;
  state: string;
  protocolType: string;
  protocol: string;
  coordinator: number;
  members: { memberId: string; groupInstanceId: string | null; clientId: string; host: string; assignment: { topic: string; partition: number }[] }[];
  offsets: { topic: string; partition: number; committedOffset: number | null; logEndOffset: number; lag: number | null; memberId: string | null }[];
}

async function describeGroup(client: KafkaClient, group: string): Promise<DescribedGroup> {
  const { coordinator, response: described } = await client.sendToCoordinator(
    group,
    COORDINATOR_GROUP,
    15,
    { groups: [group], includeAuthorizedOperations: false },
    (r) => r.groups.map((g) => g.errorCode),
  );
  const { response: fetched } = await client.sendToCoordinator(
    group,
    COORDINATOR_GROUP,
    9,
    { groupId: group, topics: null, requireStable: false },
    offsetFetchErrors,
    7,
  );
  const g = described.groups[0];
  check(g.errorCode, `describing group '${group}'`);
  if (g.groupState === 'Dead') throw new BrokerError(ErrorCode.GROUP_ID_NOT_FOUND, `group '${group}'`);
  check(fetched.errorCode, `fetching the offsets of group '${group}'`);
  const members = g.members.map((m) => {
    let assignment: { topic: string; partition: number }[] = [];
    if (g.protocolType === 'consumer' && m.memberAssignment.length > 0) {
      assignment = readVersioned(ConsumerProtocolAssignment, m.memberAssignment).assignedPartitions.flatMap((a) =>
        a.partitions.map((partition) => ({ topic: a.topic, partition })),
      );
    }
    return { memberId: m.memberId, groupInstanceId: m.groupInstanceId, clientId: m.clientId, host: m.clientHost, assignment };
  });
  const owner = new Map(members.flatMap((m) => m.assignment.map((a) => [key(a.topic, a.partition), m.memberId])));
  const committed = new Map<string, number>();
  for (const t of fetched.topics) {
    for (const p of t.partitions) {
      check(p.errorCode, `the committed offset of ${key(t.name, p.partitionIndex)}`);
      if (p.committedOffset >= 0) committed.set(key(t.name, p.partitionIndex), p.committedOffset);
    }
  }
  const wanted = new Set([...committed.keys(), ...owner.keys()]);
  const topicNames = [...new Set(fetched.topics.map((t) => t.name).concat(members.flatMap((m) => m.assignment.map((a) => a.topic))))];
  const md = topicNames.length > 0 ? await client.metadata(topicNames) : { topics: [] };
  const parts = partitionsOf(
    md.topics.filter((t) => t.errorCode === 0),
    (t, p) => wanted.has(key(t, p)),
  );
  const ends = await listOffsets(client, parts, LATEST);
  const offsets = parts.map((p) => {
    const k = key(p.topic, p.partition);
    const end = ends.get(k)!;
    const c = committed.get(k) ?? null;
    return {
      topic: p.topic,
      partition: p.partition,
      committedOffset: c,
      logEndOffset: end,
      lag: c === null ? null : Math.max(0, end - c),
      memberId: owner.get(k) ?? null,
    };
  });
  return { group, state: g.groupState, protocolType: g.protocolType, protocol: g.protocolData, coordinator, members, offsets };
}

const describe: Command = {
  name: 'groups describe',
  summary: "a group's state, members and assignments, committed offsets and lag per partition",
  usage: '<group>',
  options: {},
  async run(ctx) {
    const d = await describeGroup(await ctx.client(), onePositional(ctx, 'group'));
    if (ctx.json) return ctx.print([], [], d);
    const totalLag = d.offsets.reduce((s, o) => s + (o.lag ?? 0), 0);
    ctx.line(
      `Group: ${d.group}  State: ${d.state}  Protocol: ${d.protocol || '-'}  Coordinator: ${d.coordinator}  Members: ${d.members.length}  Lag: ${totalLag}`,
    );
    if (d.members.length > 0) {
      const rows = d.members.map((m) => ({ ...m, assignment: m.assignment.map((a) => key(a.topic, a.partition)) }));
      ctx.print(rows, columns('memberId', 'clientId', 'host', 'assignment'));
    }
    ctx.print(d.offsets, columns('topic', 'partition', 'committedOffset', 'logEndOffset', 'lag', 'memberId'));
  },
};

/** `topic` or `topic:0,2`: its partitions, or every one of them. */
function topicFilter(specs: string[]): { topics: string[]; only: (t: string, p: number) => boolean } {
  const chosen = new Map<string, Set<number> | null>();
  for (const spec of specs) {
    const [topic, list] = spec.split(':');
    if (list === undefined) chosen.set(topic, null);
    else {
      if (!/^\d+(,\d+)*$/.test(list)) throw new UsageError(`--topic is topic or topic:0,1,2, got '${spec}'`);
      chosen.set(topic, new Set(list.split(',').map(Number)));
    }
  }
  return { topics: [...chosen.keys()], only: (t, p) => chosen.get(t)?.has(p) ?? chosen.has(t) };
}

const RESET_TARGETS = ['to-earliest', 'to-latest', 'to-offset', 'to-datetime', 'by-duration', 'shift-by', 'to-current'] as const;

/** Where a reset moves each partition: Kafka's ResetOffsetsOptions, one of them. */
async function resetTargets(ctx: Context, client: KafkaClient, parts: PartitionRef[], current: Map<string, number>): Promise<Map<string, number>> {
  const given = RESET_TARGETS.filter((t) => ctx.values[t] !== undefined && ctx.values[t] !== false);
  if (given.length !== 1) throw new UsageError(`give exactly one of ${RESET_TARGETS.map((t) => `--${t}`).join(', ')}`);
  const [earliest, latest] = await Promise.all([listOffsets(client, parts, EARLIEST), listOffsets(client, parts, LATEST)]);
  // As Kafka's tool does, a target outside the log is moved to its nearest end.
  const clamp = (k: string, o: number) => Math.min(Math.max(o, earliest.get(k)!), latest.get(k)!);
  const out = new Map<string, number>();
  const byTime = async (ts: number) => {
    const found = await listOffsets(client, parts, ts);
    for (const p of parts) {
      const k = key(p.topic, p.partition);
      out.set(k, found.get(k)! < 0 ? latest.get(k)! : found.get(k)!);
    }
  };
  switch (given[0]) {
    case 'to-earliest':
      return earliest;
    case 'to-latest':
      return latest;
    case 'to-current':
      for (const p of parts) out.set(key(p.topic, p.partition), current.get(key(p.topic, p.partition)) ?? latest.get(key(p.topic, p.partition))!);
      return out;
    case 'to-offset': {
      const o = intOption(ctx.values, 'to-offset', 0)!;
      for (const p of parts) out.set(key(p.topic, p.partition), clamp(key(p.topic, p.partition), o));
      return out;
    }
    case 'shift-by': {
      const n = intOption(ctx.values, 'shift-by', Number.MIN_SAFE_INTEGER)!;
      for (const p of parts) {
        const k = key(p.topic, p.partition);
        out.set(k, clamp(k, (current.get(k) ?? latest.get(k)!) + n));
      }
      return out;
    }
    case 'to-datetime':
      await byTime(parseTimestamp(stringOption(ctx.values, 'to-datetime')!));
      return out;
    case 'by-duration':
      await byTime(Date.now() - parseDuration(stringOption(ctx.values, 'by-duration')!));
      return out;
  }
}

const reset: Command = {
  name: 'groups reset-offsets',
  summary: "move an inactive group's committed offsets (a dry run unless --execute)",
  usage: `<group> (--topic T[:P,P]... | --all-topics) <target> [--dry-run | --execute]
  --topic T or T:0,1            the topic, or some of its partitions (repeatable)
  --all-topics                  every topic the group has committed offsets for
  --to-earliest | --to-latest   the log's start or end
  --to-offset N                 an offset (moved into the log's range)
  --to-datetime T               the first offset at or after a time: 2026-01-31T12:00:00[.000][Z|+01:00], or ms since the epoch
  --by-duration D               the first offset at or after now less an ISO-8601 duration, e.g. PT1H, P1DT30M
  --shift-by N                  the committed offset plus N (back: --shift-by=-N)
  --to-current                  the committed offset (no change; with --execute, commits it again)
  --dry-run                     show the new offsets only (the default, as in kafka-consumer-groups)
  --execute                     commit the new offsets`,
  options: {
    topic: { type: 'string', multiple: true },
    'all-topics': { type: 'boolean', default: false },
    'to-earliest': { type: 'boolean', default: false },
    'to-latest': { type: 'boolean', default: false },
    'to-current': { type: 'boolean', default: false },
    'to-offset': { type: 'string' },
    'shift-by': { type: 'string' },
    'to-datetime': { type: 'string' },
    'by-duration': { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
    execute: { type: 'boolean', default: false },
  },
  async run(ctx) {
    const group = onePositional(ctx, 'group');
    const specs = listOption(ctx.values, 'topic');
    if (specs.length > 0 === (ctx.values['all-topics'] === true)) throw new UsageError('give --topic or --all-topics');
    if (ctx.values['dry-run'] && ctx.values.execute) throw new UsageError('give --dry-run or --execute, not both');
    const client = await ctx.client();
    const d = await describeGroup(client, group);
    if (!['Empty', 'Dead'].includes(d.state)) {
      throw new BrokerError(ErrorCode.NON_EMPTY_GROUP, `group '${group}'`, `offsets can only be reset while the group is inactive, and it is ${d.state}`);
    }
    const current = new Map(d.offsets.filter((o) => o.committedOffset !== null).map((o) => [key(o.topic, o.partition), o.committedOffset!]));
    let parts: PartitionRef[];
    if (specs.length > 0) {
      const filter = topicFilter(specs);
      parts = partitionsOf(await client.topics(filter.topics, true), filter.only);
    } else {
      const topics = [...new Set(d.offsets.map((o) => o.topic))];
      parts = topics.length === 0 ? [] : partitionsOf(await client.topics(topics, true), (t, p) => current.has(key(t, p)));
    }
    const targets = await resetTargets(ctx, client, parts, current);
    const rows = parts.map((p) => ({
      topic: p.topic,
      partition: p.partition,
      currentOffset: current.get(key(p.topic, p.partition)) ?? null,
      newOffset: targets.get(key(p.topic, p.partition))!,
    }));
    if (ctx.values.execute && rows.length > 0) {
      await commitOffsets(
        client,
        group,
        rows.map((r) => ({ topic: r.topic, partition: r.partition, offset: r.newOffset })),
      );
    } else if (!ctx.values['dry-run'] && !ctx.values.execute) {
      process.stderr.write('krill: nothing committed: this is a dry run; give --execute to commit the new offsets\n');
    }
    ctx.print(rows, columns('topic', 'partition', 'currentOffset', 'newOffset'), { group, executed: ctx.values.execute === true, offsets: rows });
  },
};

const remove: Command = {
  name: 'groups delete',
  summary: 'delete empty groups and their committed offsets',
  usage: '<group>...',
  options: {},
  async run(ctx) {
    if (ctx.positionals.length === 0) throw new UsageError('expected at least one group');
    const client = await ctx.client();
    const rows = [];
    for (const group of ctx.positionals) {
      const { response: res } = await client.sendToCoordinator(group, COORDINATOR_GROUP, 42, { groupsNames: [group] }, (r) =>
        r.results.map((g) => g.errorCode),
      );
      check(res.results[0].errorCode, `deleting group '${group}'`);
      rows.push({ group, deleted: true });
    }
    ctx.print(rows, columns('group', 'deleted'));
  },
};

export const GROUP_COMMANDS = [list, describe, reset, remove];
