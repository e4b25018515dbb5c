import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { LogManager, TOPICS_FILE } from '../../src/storage/log-manager.js';
import {
  CLEAN_SHUTDOWN_FILE,
  LOG_START_OFFSET_CHECKPOINT,
  RECOVERY_POINT_CHECKPOINT,
  formatCheckpoint,
  parseCheckpoint,
  readCheckpointFile,
  writeCheckpointFile,
} from '../../src/storage/checkpoints.js';
import { buildBatch, parseBatches, rmDir, tempDir, toAppend } from './batches.js';

let dataDir: string;
const managers: LogManager[] = [];
beforeEach(() => {
  dataDir = tempDir();
});
afterEach(() => {
  for (const m of managers.splice(0)) m.close();
  rmDir(dataDir);
});

let warnings: string[] = [];
const log = {
  info() {},
  warn(_obj: object, msg?: string) {
    warnings.push(msg ?? '');
  },
};

function openManager(defaults: Record<string, string> = {}): LogManager {
  warnings = [];
  const m = LogManager.open({ dataDir, defaults, log });
  managers.push(m);
  return m;
}

function closeManager(m: LogManager): void {
  m.close();
  managers.splice(managers.indexOf(m), 1);
}

function append(m: LogManager, topic: string, p: number, spec: Parameters<typeof buildBatch>[0] = {}) {
  const { buf, batches } = toAppend(buildBatch(spec));
  return m.partition(topic, p)!.append(buf, batches);
}

describe('checkpoint files', () => {
  it('round-trip in Kafka format, written atomically', () => {
    const entries = [
      { topic: 'a', partition: 0, offset: 10 },
      { topic: 'my-topic.x_y', partition: 12, offset: 123456789012 },
    ];
    expect(formatCheckpoint(entries)).toBe('0\n2\na 0 10\nmy-topic.x_y 12 123456789012\n');
    const file = path.join(dataDir, 'cp');
    writeCheckpointFile(file, entries);
    expect(readCheckpointFile(file)).toEqual(entries);
    expect(fs.readdirSync(dataDir)).toEqual(['cp']);
    writeCheckpointFile(file, []);
    expect(fs.readFileSync(file, 'utf8')).toBe('0\n0\n');
    expect(readCheckpointFile(file)).toEqual([]);
    expect(readCheckpointFile(path.join(dataDir, 'missing'))).toEqual([]);
    expect(() => parseCheckpoint('1\n0\n')).toThrow(/version/);
    expect(() => parseCheckpoint('0\n2\na 0 1\n')).toThrow(/2 entries/);
    expect(() => parseCheckpoint('0\n1\na zero 1\n')).toThrow(/malformed/);
  });
});

describe('LogManager', () => {
  it('creates, looks up and deletes topics', () => {
    const m = openManager({ 'segment.bytes': '1000000', 'compression.type': 'producer' });
    const t = m.createTopic('orders-eu', 3, { 'segment.bytes': '2000', 'retention.ms': '5' });
    expect(t.topicId.length).toBe(16);
    expect(t.partitions).toBe(3);
    expect(t.configs).toEqual({ 'segment.bytes': '2000', 'compression.type': 'producer', 'retention.ms': '5' });
    expect(t.overrides).toEqual({ 'segment.bytes': '2000', 'retention.ms': '5' });
    expect(m.getTopic('orders-eu')).toBe(t);
    expect(m.getTopicById(Buffer.from(t.topicId))).toBe(t);
    expect(m.getTopicById(Buffer.alloc(16))).toBeUndefined();
    expect(m.topics().map((x) => x.name)).toEqual(['orders-eu']);
    expect(m.partition('orders-eu', 2)).toBeDefined();
    expect(m.partition('orders-eu', 3)).toBeUndefined();
    expect(m.partition('nope', 0)).toBeUndefined();
    for (let p = 0; p < 3; p++) {
      expect(fs.readFileSync(path.join(dataDir, `orders-eu-${p}`, 'partition.metadata'), 'utf8')).toBe(
        `version: 0\ntopic_id: ${t.topicId.toString('base64url')}\n`,
      );
    }
    expect(() => m.createTopic('orders-eu', 1, {})).toThrow(KafkaError);
    // segment.bytes override applies to the logs.
    for (let i = 0; i < 10; i++) append(m, 'orders-eu', 1, { valueSize: 300 });
    expect(m.partition('orders-eu', 1)!.segmentBaseOffsets().length).toBeGreaterThan(1);

    m.deleteTopic('orders-eu');
    expect(m.getTopic('orders-eu')).toBeUndefined();
    expect(m.getTopicById(t.topicId)).toBeUndefined();
    // Renamed at once, removed log.segment.delete.delay.ms later (test/storage/retention-deletion.test.ts).
    expect(fs.readdirSync(dataDir).filter((n) => n.startsWith('orders') && !n.endsWith('-delete'))).toEqual([]);
    expect(fs.readdirSync(dataDir).filter((n) => n.startsWith('orders-eu-')).length).toBe(3);
    try {
      m.deleteTopic('orders-eu');
      throw new Error('expected an error');
    } catch (err) {
      expect((err as KafkaError).code).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    }
  });

  it('persists topics, data and checkpoints across reopen', () => {
    let m = openManager({ 'segment.bytes': '600' });
    const t = m.createTopic('a-b', 2, { 'index.interval.bytes': '100' });
    m.createTopic('c', 1, {});
    for (let i = 0; i < 12; i++) append(m, 'a-b', 0, { records: 2, valueSize: 50, timestamp: 100 + i });
    append(m, 'c', 0);
    m.partition('a-b', 0)!.deleteRecordsBefore(3);
    closeManager(m);

    expect(fs.existsSync(path.join(dataDir, CLEAN_SHUTDOWN_FILE))).toBe(true);
    expect(readCheckpointFile(path.join(dataDir, RECOVERY_POINT_CHECKPOINT))).toEqual(
      expect.arrayContaining([
        { topic: 'a-b', partition: 0, offset: 24 },
        { topic: 'a-b', partition: 1, offset: 0 },
        { topic: 'c', partition: 0, offset: 1 },
      ]),
    );
    expect(readCheckpointFile(path.join(dataDir, LOG_START_OFFSET_CHECKPOINT))).toContainEqual({ topic: 'a-b', partition: 0, offset: 3 });
    const persisted = JSON.parse(fs.readFileSync(path.join(dataDir, TOPICS_FILE), 'utf8'));
    expect(persisted.topics[0]).toEqual({ name: 'a-b', topicId: t.topicId.toString('base64url'), partitions: 2, configs: { 'index.interval.bytes': '100' } });

    m = openManager({ 'segment.bytes': '600' });
    expect(warnings).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, CLEAN_SHUTDOWN_FILE))).toBe(false);
    const again = m.getTopic('a-b')!;
    expect(again.topicId.equals(t.topicId)).toBe(true);
    expect(again.configs['segment.bytes']).toBe('600');
    expect(m.topics().map((x) => x.name)).toEqual(['a-b', 'c']);
    const log = m.partition('a-b', 0)!;
    expect(log.logEndOffset).toBe(24);
    expect(log.logStartOffset).toBe(3);
    expect(log.segmentBaseOffsets().length).toBeGreaterThan(2);
    expect(parseBatches(log.read(3, 1 << 20).records).map((b) => b.baseOffset)).toEqual([2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22]);
    expect(log.offsetForTimestamp(105)).toEqual({ offset: 10, timestamp: 105 });
    expect(log.maxTimestampOffset()).toEqual({ offset: 22, timestamp: 111 });
    expect(m.partition('c', 0)!.logEndOffset).toBe(1);
    expect(append(m, 'a-b', 0).baseOffset).toBe(24);
  });

  it('checkpointInBackground writes the offsets of the moment it is called, off the event loop', async () => {
    const m = openManager();
    m.createTopic('t', 2);
    for (let i = 0; i < 4; i++) append(m, 't', 1);
    const cp = (name: string) => readCheckpointFile(path.join(dataDir, name));
    const written = m.checkpointInBackground();
    // Taken now, written later: a change made meanwhile is in the next checkpoint, not this one.
    expect(cp(LOG_START_OFFSET_CHECKPOINT)).toEqual([]);
    m.partition('t', 1)!.deleteRecordsBefore(2);
    await written;
    expect(cp(LOG_START_OFFSET_CHECKPOINT)).toEqual([
      { topic: 't', partition: 0, offset: 0 },
      { topic: 't', partition: 1, offset: 0 },
    ]);
    expect(cp(RECOVERY_POINT_CHECKPOINT)).toEqual([
      { topic: 't', partition: 0, offset: 0 },
      { topic: 't', partition: 1, offset: 0 },
    ]);
    await m.checkpointInBackground();
    expect(cp(LOG_START_OFFSET_CHECKPOINT)).toContainEqual({ topic: 't', partition: 1, offset: 2 });
    expect(fs.readdirSync(dataDir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    closeManager(m);
    // Once closed it writes nothing (close() wrote the final checkpoints).
    const final = fs.readFileSync(path.join(dataDir, RECOVERY_POINT_CHECKPOINT), 'utf8');
    await m.checkpointInBackground();
    expect(fs.readFileSync(path.join(dataDir, RECOVERY_POINT_CHECKPOINT), 'utf8')).toBe(final);
  });

  it('after a clean shutdown, a garbage active index is still detected and rebuilt', () => {
    let m = openManager({ 'index.interval.bytes': '50' });
    m.createTopic('t', 1, {});
    for (let i = 0; i < 30; i++) append(m, 't', 0, { valueSize: 40 });
    closeManager(m);
    const idx = path.join(dataDir, 't-0', '00000000000000000000.index');
    expect(fs.statSync(idx).size).toBeGreaterThan(0);
    fs.writeFileSync(idx, Buffer.from('0123456789abcdef0123456789abcdef'));
    m = openManager({ 'index.interval.bytes': '50' });
    expect(warnings).toEqual(['index files unusable after a clean shutdown; rebuilding them']);
    const log = m.partition('t', 0)!;
    expect(log.logEndOffset).toBe(30);
    for (let o = 0; o < 30; o++) expect(parseBatches(log.read(o, 1).records)[0].baseOffset).toBe(o);
  });

  it('after a clean shutdown, a torn tail is still cut', () => {
    let m = openManager();
    m.createTopic('t', 1, {});
    const sizes = [1, 2, 3].map((n) => {
      const b = buildBatch({ records: n });
      const { buf, batches } = toAppend(b);
      m.partition('t', 0)!.append(buf, batches);
      return b.length;
    });
    closeManager(m);
    fs.truncateSync(path.join(dataDir, 't-0', '00000000000000000000.log'), sizes[0] + sizes[1] + 30);
    m = openManager();
    expect(warnings).toEqual(['truncated invalid bytes at the end of the log']);
    expect(m.partition('t', 0)!.logEndOffset).toBe(3);
    expect(parseBatches(m.partition('t', 0)!.read(0, 1 << 20).records).length).toBe(2);
  });

  it('recovers after a crash (no close): data written before is kept', () => {
    const m = LogManager.open({ dataDir, defaults: { 'segment.bytes': '500' } });
    m.createTopic('t', 1, {});
    for (let i = 0; i < 20; i++) append(m, 't', 0, { valueSize: 60 });
    m.checkpoint();
    // no close(): simulate kill -9 by opening again (descriptors of the old instance stay open)
    const m2 = openManager({ 'segment.bytes': '500' });
    expect(m2.partition('t', 0)!.logEndOffset).toBe(20);
    expect(parseBatches(m2.partition('t', 0)!.read(0, 1 << 20).records).length).toBe(20);
    m.close();
  });

  it('sets a directory of a deleted namesake aside (-stray, data kept) and ignores unknown ones', () => {
    let m = openManager();
    const first = m.createTopic('t', 1, {});
    append(m, 't', 0);
    closeManager(m);
    const oldLog = fs.readFileSync(path.join(dataDir, 't-0', '00000000000000000000.log'));
    // Simulate a crash after krill-topics.json dropped the topic but before its directory was removed,
    // followed by a new topic of the same name.
    const doc = JSON.parse(fs.readFileSync(path.join(dataDir, TOPICS_FILE), 'utf8'));
    doc.topics[0].topicId = Buffer.alloc(16, 7).toString('base64url');
    fs.writeFileSync(path.join(dataDir, TOPICS_FILE), JSON.stringify(doc));
    fs.mkdirSync(path.join(dataDir, 'ghost-0'));
    fs.mkdirSync(path.join(dataDir, 'gone-0.abcd-delete'));
    m = openManager();
    expect(m.getTopic('t')!.topicId.equals(first.topicId)).toBe(false);
    expect(m.partition('t', 0)!.logEndOffset).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'ghost-0'))).toBe(true);
    expect(fs.existsSync(path.join(dataDir, 'gone-0.abcd-delete'))).toBe(false);
    const strays = fs.readdirSync(dataDir).filter((f) => /^t-0\.[0-9a-f]+-stray$/.test(f));
    expect(strays).toHaveLength(1);
    expect(fs.readFileSync(path.join(dataDir, strays[0], '00000000000000000000.log'))).toEqual(oldLog);
    expect(warnings).toContain('setting a partition directory aside: its partition.metadata names another topic id');
  });
});
