// krill produce: records from arguments, files or stdin lines, to one topic, each to its partition's leader.
// A record's partition is --partition, else its key's (murmur2, as Kafka's clients), else one partition
// chosen at random for the whole run (Kafka's sticky choice for keyless records, kept for the run).
import fs from 'node:fs';
import readline from 'node:readline';
import { buildBatch, type SimpleRecord } from '../../protocol/record-batch.js';
import { codecFromName } from '../../protocol/compression/index.js';
import { InputError, UsageError, intOption, keyValues, listOption, onePositional, stringOption, type Command } from './command.js';
import { check, type KafkaClient, type TopicMetadata } from './kafka-client.js';
import { partitionForKey } from './partitioner.js';
import { Progress } from './progress.js';
import { columns } from './table.js';

/** Records per produced batch, and bytes: well under the default max.message.bytes of 1 MiB. */
const BATCH_RECORDS = 500;
const BATCH_BYTES = 512 * 1024;

// acks=0 is left out: the broker sends no response to it, and the run could not say what was written.
const ACKS: Record<string, number> = { all: -1, '-1': -1, '1': 1 };

interface Sent {
  partition: number;
  records: number;
  firstOffset: number | null;
  lastOffset: number | null;
}

class PartitionedSender {
  private readonly pending = new Map<number, { records: SimpleRecord[]; bytes: number }>();
  private readonly sent = new Map<number, Sent>();
  private inFlight: Promise<void>[] = [];
  records = 0;
  bytes = 0;

  constructor(
    private readonly client: KafkaClient,
    private readonly topic: TopicMetadata,
    private readonly acks: number,
    private readonly compression: number,
  ) {}

  async add(partition: number, record: SimpleRecord): Promise<void> {
    const size = (record.value?.length ?? 0) + (record.key?.length ?? 0);
    const batch = this.pending.get(partition) ?? { records: [], bytes: 0 };
    batch.records.push(record);
    batch.bytes += size;
    this.pending.set(partition, batch);
    this.records++;
    this.bytes += size;
    if (batch.records.length >= BATCH_RECORDS || batch.bytes >= BATCH_BYTES) await this.flush(partition);
  }

  private async flush(partition: number): Promise<void> {
    const batch = this.pending.get(partition);
    if (!batch || batch.records.length === 0) return;
    this.pending.delete(partition);
    // A few batches in flight at once; a request's failure fails the run.
    if (this.inFlight.length >= 8) await this.inFlight.shift();
    const sending = this.send(partition, batch.records);
    // Handled when awaited in turn; until then a failure must not count as unhandled.
    sending.catch(() => {});
    this.inFlight.push(sending);
  }

  private async send(partition: number, records: SimpleRecord[]): Promise<void> {
    const leader = this.topic.partitions[partition].leader;
    const body = {
      transactionalId: null,
      acks: this.acks,
      timeoutMs: 30_000,
      topicData: [{ name: this.topic.name, partitionData: [{ index: partition, records: buildBatch(records, { compression: this.compression }) }] }],
    };
    const s = this.sent.get(partition) ?? { partition, records: 0, firstOffset: null, lastOffset: null };
    this.sent.set(partition, s);
    s.records += records.length;
    const res = await this.client.sendTo(leader, 0, body, 11);
    const p = res.responses[0].partitionResponses[0];
    check(p.errorCode, `producing to ${this.topic.name}-${partition}`, p.errorMessage);
    if (s.firstOffset === null || p.baseOffset < s.firstOffset) s.firstOffset = p.baseOffset;
    s.lastOffset = Math.max(s.lastOffset ?? -1, p.baseOffset + records.length - 1);
  }

  async finish(): Promise<Sent[]> {
    for (const p of [...this.pending.keys()]) await this.flush(p);
    await Promise.all(this.inFlight);
    return [...this.sent.values()].sort((a, b) => a.partition - b.partition);
  }
}

/** The values to send, in order: --value arguments, else each --file whole, else stdin's lines. */
async function* values(args: { values: string[]; files: string[] }): AsyncGenerator<Buffer> {
  if (args.values.length > 0) {
    for (const v of args.values) yield Buffer.from(v);
    return;
  }
  if (args.files.length > 0) {
    for (const f of args.files) {
      try {
        yield fs.readFileSync(f);
      } catch (err) {
        throw new InputError(`cannot read ${f}: ${(err as Error).message}`);
      }
    }
    return;
  }
  for await (const line of readline.createInterface({ input: process.stdin, crlfDelay: Infinity })) yield Buffer.from(line);
}

const produce: Command = {
  name: 'produce',
  summary: 'send records: values from --value, --file or stdin lines',
  usage: `<topic> [--value V]... [--file F]... [--key K | --key-separator S] [--header k=v]... [--partition N] [--acks all|1] [--compression C]
  --value V                     a record's value (repeatable); without --value or --file, each stdin line is one
  --file F                      a file whose whole content is one record's value (repeatable)
  --key K                       every record's key
  --key-separator S             stdin lines are key S value
  --header k=v                  a header of every record (repeatable)
  --partition N                 the partition (default: by key, as Kafka's clients; keyless: one at random)
  --timestamp T                 every record's timestamp, ms since the epoch (default: now)
  --acks all|1                  acknowledgements to wait for (default all)
  --compression C               none, gzip, snappy, lz4 or zstd (default none)`,
  options: {
    value: { type: 'string', multiple: true },
    file: { type: 'string', multiple: true },
    key: { type: 'string' },
    'key-separator': { type: 'string' },
    header: { type: 'string', multiple: true },
    partition: { type: 'string' },
    timestamp: { type: 'string' },
    acks: { type: 'string', default: 'all' },
    compression: { type: 'string', default: 'none' },
  },
  async run(ctx) {
    const topicName = onePositional(ctx, 'topic');
    const acks = ACKS[stringOption(ctx.values, 'acks')!];
    if (acks === undefined) throw new UsageError(`--acks must be all or 1, got '${ctx.values.acks}'`);
    let compression: number;
    try {
      compression = codecFromName(stringOption(ctx.values, 'compression')!);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const headers = keyValues(ctx.values, 'header').map(([key, value]) => ({ key, value }));
    const fixedKey = stringOption(ctx.values, 'key');
    const separator = stringOption(ctx.values, 'key-separator');
    if (fixedKey !== undefined && separator !== undefined) throw new UsageError('give --key or --key-separator, not both');
    const timestamp = intOption(ctx.values, 'timestamp', 0);
    const chosen = intOption(ctx.values, 'partition', 0);
    const client = await ctx.client();
    const [topic] = await client.topics([topicName], true);
    const count = topic.partitions.length;
    if (chosen !== undefined && chosen >= count) throw new UsageError(`--partition ${chosen}: topic '${topicName}' has ${count} partitions`);
    const sticky = Math.floor(Math.random() * count);
    const sender = new PartitionedSender(client, topic, acks, compression);
    const progress = new Progress('produced');
    for await (const raw of values({ values: listOption(ctx.values, 'value'), files: listOption(ctx.values, 'file') })) {
      let key: Buffer | null = fixedKey === undefined ? null : Buffer.from(fixedKey);
      let value = raw;
      if (separator !== undefined) {
        const at = raw.indexOf(separator);
        if (at < 0) throw new InputError(`line ${sender.records + 1} has no key separator '${separator}'`);
        key = raw.subarray(0, at);
        value = raw.subarray(at + Buffer.byteLength(separator));
      }
      const partition = chosen ?? (key === null ? sticky : partitionForKey(key, count));
      await sender.add(partition, { key, value, headers, timestamp });
      progress.update(sender.records, sender.bytes);
    }
    const sent = await sender.finish();
    progress.done();
    ctx.print(
      sent.map((s) => ({ topic: topicName, ...s })),
      columns('topic', 'partition', 'records', 'firstOffset', 'lastOffset'),
    );
  },
};

export const PRODUCE_COMMANDS = [produce];
