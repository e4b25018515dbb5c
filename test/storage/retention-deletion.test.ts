// How deleted segments and topics leave the disk, on real files: renamed .deleted (segments, with the
// producer snapshots below the new log start) or -delete (a topic's partition directories) at once,
// removed after file.delete.delay.ms / log.segment.delete.delay.ms in the background, leftovers removed
// at open; descriptors released; the moved log start offset kept across a restart; DeleteRecords through
// the ReplicaManager (its errors, and the fetches it wakes); a topic re-created under a deleted one's name.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ErrorCode } from '../../protocol/errors.js';
import type { PartitionLog } from '../../src/storage/partition-log.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { OpenFiles } from '../../src/storage/open-files.js';
import { ReplicaManager } from '../../src/partition/replica-manager.js';
import { LOG_START_OFFSET_CHECKPOINT, readCheckpointFile } from '../../src/storage/checkpoints.js';
import { buildBatch, parseBatches, toAppend, type BatchSpec } from './batches.js';
import { expectKafkaError, usePartitionLogs } from './partition-logs.js';

const logs = usePartitionLogs({ segmentBytes: 300 });
const openLog = logs.open;
const dirOf = () => logs.dir();
const managers: LogManager[] = [];
afterEach(() => {
  for (const m of managers.splice(0)) m.close();
});

function append(log: PartitionLog, count: number, spec: BatchSpec = {}): void {
  for (let i = 0; i < count; i++) {
    const { buf, batches } = toAppend(
      buildBatch({ records: 1, valueSize: 150, ...spec, ...(spec.baseSequence !== undefined ? { baseSequence: spec.baseSequence + i } : {}) }),
    );
    log.append(buf, batches);
  }
}

const files = (dir = dirOf()) => fs.readdirSync(dir).sort();

describe('segment deletion', () => {
  it('renames the files to .deleted at once and removes them after file.delete.delay.ms', async () => {
    const log = openLog({ fileDeleteDelayMs: 300 });
    append(log, 4);
    expect(log.deleteOldestSegments(2)).toBe(2);
    expect(log.logStartOffset).toBe(2);
    const names = files();
    for (const base of ['00000000000000000000', '00000000000000000001']) {
      expect(names).toContain(`${base}.log.deleted`);
      expect(names).toContain(`${base}.index.deleted`);
      expect(names).toContain(`${base}.timeindex.deleted`);
      expect(names).not.toContain(`${base}.log`);
    }
    await vi.waitFor(() => expect(files().filter((n) => n.endsWith('.deleted'))).toEqual([]), { timeout: 5_000, interval: 50 });
    expect(files().filter((n) => n.endsWith('.log'))).toEqual(['00000000000000000002.log', '00000000000000000003.log']);
  });

  it('renames the producer snapshots below the new first segment too', async () => {
    const log = openLog({ fileDeleteDelayMs: 60_000 });
    append(log, 4, { producerId: 7, producerEpoch: 0, baseSequence: 0 });
    const snapshots = () => files().filter((n) => n.endsWith('.snapshot'));
    const before = snapshots();
    const below = before.filter((n) => Number(n.slice(0, 20)) < 3);
    expect(below.length).toBeGreaterThan(0);
    log.deleteOldestSegments(3);
    expect(snapshots()).toEqual(before.filter((n) => !below.includes(n)));
    for (const n of below) expect(files()).toContain(`${n}.deleted`);
    // The producer's state survives: its next sequence is still expected.
    log.close();
    const reopened = openLog();
    expect(reopened.activeProducers().map((p) => p.producerId)).toEqual([7]);
  });

  it('leftover .deleted files (a restart before their removal) are removed at open; the log start is kept', () => {
    let log = openLog({ fileDeleteDelayMs: 60_000 });
    append(log, 4);
    log.deleteRecordsBefore(3);
    expect(files().filter((n) => n.endsWith('.deleted')).length).toBeGreaterThanOrEqual(9);
    log.close();
    log = openLog({ logStartOffset: 3 });
    expect(files().filter((n) => n.endsWith('.deleted'))).toEqual([]);
    expect(log.segmentBaseOffsets()).toEqual([3]);
    expect(log.logStartOffset).toBe(3);
    expect(log.logEndOffset).toBe(4);
  });

  it('releases the descriptors of deleted segments', () => {
    const openFiles = new OpenFiles(100);
    const log = openLog({ openFiles, fileDeleteDelayMs: 60_000 });
    append(log, 6);
    for (let o = 0; o < 6; o++) log.read(o, 1 << 20); // opens every segment's .log
    const before = openFiles.count;
    log.deleteOldestSegments(4);
    expect(openFiles.count).toBeLessThanOrEqual(before - 4);
  });

  it('a reader positioned in a deleted segment gets OFFSET_OUT_OF_RANGE, then reads on from the new start', () => {
    const log = openLog();
    append(log, 5);
    expect(parseBatches(log.read(0, 1).records)[0].baseOffset).toBe(0); // the next read would continue in segment 0
    log.deleteRecordsBefore(3);
    expectKafkaError(() => log.read(1, 1 << 20), ErrorCode.OFFSET_OUT_OF_RANGE);
    expect(parseBatches(log.read(3, 1 << 20).records).map((b) => b.baseOffset)).toEqual([3, 4]);
  });
});

describe('through the log manager and the replica manager', () => {
  function openManager(defaults: Record<string, string> = {}): { m: LogManager; replicas: ReplicaManager } {
    const m = LogManager.open({ dataDir: logs.root(), defaults });
    managers.push(m);
    return { m, replicas: new ReplicaManager(m, 1) };
  }

  function produce(m: LogManager, topic: string, count: number, timestamp = 1_000): void {
    for (let i = 0; i < count; i++) {
      const { buf, batches } = toAppend(buildBatch({ records: 1, valueSize: 150, timestamp }));
      m.partition(topic, 0)!.append(buf, batches);
    }
  }

  it('retention moves the log start offset, which a restart keeps (checkpoint and segments)', async () => {
    let { m, replicas } = openManager();
    m.createTopic('t', 1, { 'segment.bytes': '300', 'retention.ms': '1000', 'file.delete.delay.ms': '0' });
    produce(m, 't', 3, 1_000);
    produce(m, 't', 2, Date.now());
    expect(replicas.deleteOldSegments(Date.now())).toBe(3);
    const partition = replicas.partition('t', 0)!;
    expect(partition.logStartOffset).toBe(3);
    expect(partition.highWatermark).toBe(5);
    await m.checkpointInBackground();
    expect(readCheckpointFile(path.join(logs.root(), LOG_START_OFFSET_CHECKPOINT))).toEqual([{ topic: 't', partition: 0, offset: 3 }]);
    await vi.waitFor(() => expect(files(path.join(logs.root(), 't-0')).filter((n) => n.endsWith('.deleted'))).toEqual([]), { timeout: 5_000, interval: 50 });
    m.close();
    ({ m, replicas } = openManager());
    expect(m.partition('t', 0)!.logStartOffset).toBe(3);
    expect(m.partition('t', 0)!.logEndOffset).toBe(5);
    expectKafkaError(() => m.partition('t', 0)!.read(2, 1 << 20), ErrorCode.OFFSET_OUT_OF_RANGE);
  });

  it('DeleteRecords: -1 is the high watermark; past it or below -1 is OFFSET_OUT_OF_RANGE; compact only is POLICY_VIOLATION', () => {
    const { m, replicas } = openManager();
    m.createTopic('d', 1, { 'segment.bytes': '300' });
    m.createTopic('c', 1, { 'cleanup.policy': 'compact' });
    produce(m, 'd', 4);
    const p = replicas.partition('d', 0)!;
    expect(replicas.deleteRecords(p, 2)).toBe(2);
    expect(replicas.deleteRecords(p, 1)).toBe(2); // never backwards
    expectKafkaError(() => replicas.deleteRecords(p, 5), ErrorCode.OFFSET_OUT_OF_RANGE);
    expectKafkaError(() => replicas.deleteRecords(p, -2), ErrorCode.OFFSET_OUT_OF_RANGE);
    expect(replicas.deleteRecords(p, -1)).toBe(4);
    expect(p.highWatermark).toBe(4);
    expectKafkaError(() => replicas.deleteRecords(replicas.partition('c', 0)!, 0), ErrorCode.POLICY_VIOLATION);
  });

  it('the last stable offset never stays below the log start offset (an open transaction began below it)', () => {
    const { m, replicas } = openManager();
    m.createTopic('x', 1, { 'segment.bytes': '300' });
    const TRANSACTIONAL = 0x10;
    const { buf, batches } = toAppend(buildBatch({ records: 2, producerId: 9, producerEpoch: 0, baseSequence: 0, attributes: TRANSACTIONAL }));
    m.partition('x', 0)!.append(
      buf,
      batches.map((b) => ({ ...b, isTransactional: true })),
    );
    produce(m, 'x', 2);
    const p = replicas.partition('x', 0)!;
    expect(p.lastStableOffset).toBe(0);
    replicas.deleteRecords(p, 3);
    expect(p.lastStableOffset).toBe(3);
  });

  it('a fetch waiting on a partition is woken when DeleteRecords or retention moves its log start offset', async () => {
    const { m, replicas } = openManager();
    m.createTopic('w', 1, { 'segment.bytes': '300', 'retention.bytes': '0' });
    produce(m, 'w', 3);
    const p = replicas.partition('w', 0)!;
    const signal = new AbortController().signal;
    let waiting = replicas.awaitChange([p], 30_000, signal);
    replicas.deleteRecords(p, 1);
    expect(await waiting).toBe(true);
    waiting = replicas.awaitChange([p], 30_000, signal);
    replicas.deleteOldSegments(Date.now());
    expect(await waiting).toBe(true);
    expect(p.logStartOffset).toBe(3);
  });

  it('deleting a topic renames its directories at once, removes them after the delay, and frees the name at once', async () => {
    const { m } = openManager({ 'file.delete.delay.ms': '300' });
    m.createTopic('gone', 2, { 'segment.bytes': '300' });
    produce(m, 'gone', 3);
    m.deleteTopic('gone');
    const doomed = () => fs.readdirSync(logs.root()).filter((n) => n.startsWith('gone-') && n.endsWith('-delete'));
    expect(doomed().length).toBe(2);
    expect(fs.existsSync(path.join(logs.root(), 'gone-0'))).toBe(false);
    // The same name again, right away: an empty topic whose directories the pending removal leaves alone.
    m.createTopic('gone', 1, {});
    expect(m.partition('gone', 0)!.logEndOffset).toBe(0);
    produce(m, 'gone', 1);
    await vi.waitFor(() => expect(doomed()).toEqual([]), { timeout: 5_000, interval: 50 });
    expect(m.partition('gone', 0)!.logEndOffset).toBe(1);
    expect(parseBatches(m.partition('gone', 0)!.read(0, 1 << 20).records).map((b) => b.baseOffset)).toEqual([0]);
  });
});
