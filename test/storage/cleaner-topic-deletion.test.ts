// Deleting a topic makes the log cleaner forget it: its cleaner-offset-checkpoint entry goes at once, so
// that a topic created again under the same name is cleaned from its start, after a restart too.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readCheckpointFile } from '../../src/storage/checkpoints.js';
import { CLEANER_OFFSET_CHECKPOINT } from '../../src/storage/cleaner/log-cleaner.js';
import { TOPIC, closeAll, produce, readAll, setup, type Fixture } from './cleaner-helpers.js';

afterEach(closeAll);

const CONFIGS = { 'cleanup.policy': 'compact', 'min.cleanable.dirty.ratio': '0.01' };

function checkpointed(f: Fixture): [string, number, number][] {
  return readCheckpointFile(path.join(f.root, CLEANER_OFFSET_CHECKPOINT)).map((e) => [e.topic, e.partition, e.offset]);
}

describe('the cleaner and a deleted topic', () => {
  it('drops its checkpoint; the topic created again under its name is cleaned from its start after a restart', async () => {
    const f = setup(CONFIGS);
    for (let i = 0; i < 10; i++) produce(f.log, [{ key: 'old', value: `${i}` }]); // 0-9
    f.log.roll();
    expect(await f.cleaner.runOnce()).toBe(1);
    await f.cleaner.closed();
    expect(checkpointed(f)).toEqual([[TOPIC, 0, 10]]);

    f.mgr.deleteTopic(TOPIC);
    await f.cleaner.closed();
    expect(checkpointed(f)).toEqual([]);
    expect(f.cleaner.checkpointedOffset(TOPIC, 0)).toBeUndefined();

    f.mgr.createTopic(TOPIC, 1, CONFIGS);
    const log = f.mgr.partition(TOPIC, 0)!;
    for (let i = 0; i < 10; i++) produce(log, [{ key: 'x', value: `${i}` }]); // 0-9
    produce(log, [{ key: 'y', value: '0' }]); // 10
    produce(log, [{ key: 'y', value: '1' }]); // 11
    log.roll();
    f.reopen(); // a restart: a new log manager and cleaner, reading the checkpoint file
    expect(f.cleaner.checkpointedOffset(TOPIC, 0)).toBeUndefined();
    expect(await f.cleaner.runOnce()).toBe(1);
    expect(readAll(f.log).records.map((r) => [r.offset, r.key, r.value])).toEqual([
      [9, 'x', '9'],
      [11, 'y', '1'],
    ]);
    expect(f.cleaner.checkpointedOffset(TOPIC, 0)).toBe(12);
  });
});
