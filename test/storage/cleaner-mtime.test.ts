// A cleaned segment keeps the modification time of the last segment it replaces (as Kafka's cleaner sets
// lastModified), so that time retention, which falls back to the .log's mtime for segments without record
// timestamps, ages it as it would have aged the old ones.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { deleteOldSegments, type RetentionConfig } from '../../src/storage/retention.js';
import { closeAll, produce, readAll, setup } from './cleaner-helpers.js';

afterEach(closeAll);

describe('cleaned segments and modification times', () => {
  it("take the last replaced segment's mtime, and time retention still removes them", async () => {
    const f = setup({ 'cleanup.policy': 'compact,delete', 'min.cleanable.dirty.ratio': '0.01' });
    // No record timestamps (-1): retention can only go by the files' mtimes.
    produce(f.log, [
      { key: 'a', value: '1', timestamp: -1 },
      { key: 'a', value: '2', timestamp: -1 },
    ]); // 0-1
    f.log.roll();
    produce(f.log, [
      { key: 'b', value: '1', timestamp: -1 },
      { key: 'b', value: '2', timestamp: -1 },
    ]); // 2-3
    f.log.roll();
    produce(f.log, [{ key: 'c', value: '1', timestamp: Date.now() }]); // active, recent
    const [first, second] = f.log.segmentList();
    const hourAgo = new Date(Date.now() - 3_600_000);
    const halfHourAgo = new Date(Date.now() - 1_800_000);
    fs.utimesSync(first.logPath, hourAgo, hourAgo);
    fs.utimesSync(second.logPath, halfHourAgo, halfHourAgo);

    expect(await f.cleaner.runOnce()).toBe(1);
    const cleaned = f.log.segmentList()[0];
    expect(cleaned).not.toBe(first);
    expect(f.log.segmentList()).toHaveLength(2);
    expect(readAll(f.log).records.map((r) => r.offset)).toEqual([1, 3, 4]);
    expect(Math.round(fs.statSync(cleaned.logPath).mtimeMs)).toBe(halfHourAgo.getTime());

    const retention: RetentionConfig = { cleanupPolicy: ['compact', 'delete'], retentionMs: 600_000, retentionBytes: -1 };
    expect(deleteOldSegments(f.log, retention, Date.now())).toBe(1);
    expect(f.log.logStartOffset).toBe(4);
  });
});
