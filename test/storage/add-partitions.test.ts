// LogManager.addPartitions: the new partition directories, the topics file and the topic's copy, and what
// open() makes of a data directory where a crash cut the change short at each step.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { LogManager, TOPICS_FILE } from '../../src/storage/log-manager.js';
import { TOPIC_COPY_FILE } from '../../src/storage/topics-file.js';
import { buildBatch, rmDir, tempDir, toAppend } from './batches.js';

let dataDir: string;
const managers: LogManager[] = [];
beforeEach(() => {
  dataDir = tempDir();
});
afterEach(() => {
  for (const m of managers.splice(0)) m.close();
  rmDir(dataDir);
});

const log = { info() {}, warn() {} };

function open(): LogManager {
  const m = LogManager.open({ dataDir, log });
  managers.push(m);
  return m;
}

function close(m: LogManager): void {
  m.close();
  managers.splice(managers.indexOf(m), 1);
}

function listed(): { name: string; partitions: number }[] {
  return JSON.parse(fs.readFileSync(path.join(dataDir, TOPICS_FILE), 'utf8')).topics;
}

function copyOf(topic: string): { partitions: number } {
  return JSON.parse(fs.readFileSync(path.join(dataDir, `${topic}-0`, TOPIC_COPY_FILE), 'utf8'));
}

function append(m: LogManager, topic: string, p: number): number {
  const { buf, batches } = toAppend(buildBatch());
  return m.partition(topic, p)!.append(buf, batches).baseOffset;
}

describe('LogManager.addPartitions', () => {
  it('creates the new partitions, keeps the old ones and their data, and persists the count', () => {
    const m = open();
    const created = m.createTopic('grow', 2, { 'cleanup.policy': 'compact' });
    append(m, 'grow', 1);
    const grown = m.addPartitions('grow', 5);
    expect(grown.partitions).toBe(5);
    expect(grown.topicId.equals(created.topicId)).toBe(true);
    expect(grown.overrides).toEqual({ 'cleanup.policy': 'compact' });
    expect(m.getTopic('grow')!.partitions).toBe(5);
    for (let p = 0; p < 5; p++) expect(fs.existsSync(path.join(dataDir, `grow-${p}`, 'partition.metadata'))).toBe(true);
    expect(m.partition('grow', 4)!.logEndOffset).toBe(0);
    expect(append(m, 'grow', 4)).toBe(0);
    expect(listed().find((t) => t.name === 'grow')!.partitions).toBe(5);
    expect(copyOf('grow').partitions).toBe(5);

    close(m);
    const again = open();
    expect(again.getTopic('grow')!.partitions).toBe(5);
    expect(again.partition('grow', 1)!.logEndOffset).toBe(1);
    expect(again.partition('grow', 4)!.logEndOffset).toBe(1);
  });

  it('refuses an unknown topic and a count that is not an increase', () => {
    const m = open();
    m.createTopic('t', 3);
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return (err as KafkaError).code;
      }
      return null;
    };
    expect(code(() => m.addPartitions('nope', 4))).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect(code(() => m.addPartitions('t', 3))).toBe(ErrorCode.INVALID_PARTITIONS);
    expect(code(() => m.addPartitions('t', 2))).toBe(ErrorCode.INVALID_PARTITIONS);
    expect(m.getTopic('t')!.partitions).toBe(3);
  });

  it('sets aside a directory already where a new partition goes, keeping its data for the operator', () => {
    const m = open();
    m.createTopic('t', 1);
    fs.mkdirSync(path.join(dataDir, 't-1'));
    fs.writeFileSync(path.join(dataDir, 't-1', 'left-over'), 'x');
    m.addPartitions('t', 2);
    expect(fs.existsSync(path.join(dataDir, 't-1', 'left-over'))).toBe(false);
    const stray = fs.readdirSync(dataDir).filter((d) => d.startsWith('t-1.') && d.endsWith('-stray'));
    expect(stray).toHaveLength(1);
    expect(fs.existsSync(path.join(dataDir, stray[0], 'left-over'))).toBe(true);
  });

  it('a crash after the topics file, before the directories: open() creates them', () => {
    const m = open();
    m.createTopic('t', 1);
    m.addPartitions('t', 3);
    close(m);
    // What the disk holds when the process died right after writing the topics file.
    for (const p of [1, 2]) rmDir(path.join(dataDir, `t-${p}`));
    fs.writeFileSync(path.join(dataDir, 't-0', TOPIC_COPY_FILE), JSON.stringify({ name: 't', partitions: 1, configs: {} }));
    const again = open();
    expect(again.getTopic('t')!.partitions).toBe(3);
    for (const p of [1, 2]) expect(again.partition('t', p)!.logEndOffset).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 't-2', 'partition.metadata'))).toBe(true);
  });

  it('a lost topics file with a stale copy: the directories count, so the new partitions with data survive', () => {
    const m = open();
    m.createTopic('t', 1);
    m.addPartitions('t', 3);
    append(m, 't', 2);
    close(m);
    fs.writeFileSync(path.join(dataDir, 't-0', TOPIC_COPY_FILE), JSON.stringify({ name: 't', partitions: 1, configs: {} }));
    fs.rmSync(path.join(dataDir, TOPICS_FILE));
    const again = open();
    expect(again.getTopic('t')!.partitions).toBe(3);
    expect(again.partition('t', 2)!.logEndOffset).toBe(1);
  });
});

describe('a partition that cannot be opened', () => {
  it('puts the old count back: on disk, in the topic, and a retry adds the partitions', async () => {
    const { vi } = await import('vitest');
    const { PartitionLog } = await import('../../src/storage/partition-log.js');
    const m = open();
    m.createTopic('t', 1);
    // Fault injection: a disk error (ENOSPC, EMFILE) opening the third new partition cannot be caused here.
    const real = PartitionLog.open.bind(PartitionLog);
    let calls = 0;
    const spy = vi.spyOn(PartitionLog, 'open').mockImplementation((dir, options) => {
      if (++calls === 3) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
      return real(dir, options);
    });
    try {
      expect(() => m.addPartitions('t', 4)).toThrow(/ENOSPC/);
    } finally {
      spy.mockRestore();
    }
    expect(m.getTopic('t')!.partitions).toBe(1);
    expect(m.partition('t', 1)).toBeUndefined();
    expect(listed().find((t) => t.name === 't')!.partitions).toBe(1);
    expect(m.addPartitions('t', 4).partitions).toBe(4);
    expect(m.partition('t', 3)!.logEndOffset).toBe(0);
    expect(listed().find((t) => t.name === 't')!.partitions).toBe(4);
  });
});
