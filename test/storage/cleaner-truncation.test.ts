// The log cleaner and a follower's truncation: the cleaner's checkpoint goes back to the active segment of
// a log cut back (Kafka's maybeTruncateCheckpoint), and a pass under way when the log is cut gives up.
import { afterEach, describe, expect, it } from 'vitest';
import { TOPIC, closeAll, produce, setup } from './cleaner-helpers.js';

afterEach(closeAll);

describe('the log cleaner and truncation', () => {
  it('moves its checkpoint back to the active segment of a truncated log', async () => {
    const f = setup({ 'segment.bytes': '200', 'min.cleanable.dirty.ratio': '0.01' });
    for (let i = 0; i < 12; i++) produce(f.log, [{ key: `k${i % 3}`, value: `v${i}` }]);
    expect(await f.cleaner.runOnce()).toBeGreaterThan(0);
    const cleanedTo = f.cleaner.checkpointedOffset(TOPIC, 0)!;
    expect(cleanedTo).toBeGreaterThan(2);
    const target = f.log.segmentBaseOffsets().find((b) => b > 0 && b < cleanedTo)!;
    expect(target).toBeDefined();
    f.log.truncateTo(target + 1);
    const activeBase = f.log.segmentBaseOffsets().at(-1)!;
    expect(activeBase).toBeLessThanOrEqual(target + 1);
    expect(f.cleaner.checkpointedOffset(TOPIC, 0)).toBe(activeBase);
    await f.cleaner.closed();
  });

  it('leaves a checkpoint at or below the truncation alone', async () => {
    const f = setup({ 'segment.bytes': '200', 'min.cleanable.dirty.ratio': '0.01' });
    for (let i = 0; i < 12; i++) produce(f.log, [{ key: `k${i % 3}`, value: `v${i}` }]);
    await f.cleaner.runOnce();
    const cleanedTo = f.cleaner.checkpointedOffset(TOPIC, 0)!;
    f.log.truncateTo(f.log.logEndOffset - 1);
    expect(f.cleaner.checkpointedOffset(TOPIC, 0)).toBe(Math.min(cleanedTo, f.log.segmentBaseOffsets().at(-1)!));
  });

  it('gives up a pass during which the log is truncated', async () => {
    const f = setup({ 'segment.bytes': '200', 'min.cleanable.dirty.ratio': '0.01' });
    for (let i = 0; i < 40; i++) produce(f.log, [{ key: `k${i % 3}`, value: `v${i}` }]);
    const pass = f.cleaner.runOnce();
    const target = f.log.segmentBaseOffsets()[2];
    f.log.truncateTo(target);
    expect(await pass).toBe(0);
    expect(f.log.logEndOffset).toBe(target);
    expect(f.cleaner.checkpointedOffset(TOPIC, 0)).toBeUndefined();
  });
});
