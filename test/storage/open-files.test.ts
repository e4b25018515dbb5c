// The bound on open segment files (open-files.ts), shared by the logs given it: more partitions and segments
// than the bound allows stay readable and appendable, with the descriptors this process really holds (/proc/self/fd)
// never more than the bound.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { OpenFiles } from '../../src/storage/open-files.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { buildBatch, parseBatches, rmDir, tempDir, toAppend } from './batches.js';

const PROC_FD = '/proc/self/fd';

let root: string;
const logs: PartitionLog[] = [];
beforeEach(() => {
  root = tempDir();
});
afterEach(() => {
  for (const l of logs.splice(0)) l.close();
  rmDir(root);
});

/** Descriptors of this process open on files under `root` (what the kernel says, not krill's count). */
function descriptorsUnder(dir: string): number {
  let n = 0;
  for (const fd of fs.readdirSync(PROC_FD)) {
    try {
      if (fs.readlinkSync(path.join(PROC_FD, fd)).startsWith(dir + path.sep)) n++;
    } catch {
      // closed meanwhile (the descriptor readdir itself used)
    }
  }
  return n;
}

function append(log: PartitionLog, partition: number, i: number): void {
  const { buf, batches } = toAppend(buildBatch({ records: 1, valueSize: 60, timestamp: partition * 1000 + i }));
  log.append(buf, batches);
}

/** Every batch of the log, as [baseOffset, timestamp] pairs. */
function contents(log: PartitionLog): number[][] {
  return parseBatches(log.read(0, 1 << 20).records).map((b) => [b.baseOffset, b.maxTimestamp]);
}

const expected = (partition: number, n: number) => Array.from({ length: n }, (_, i) => [i, partition * 1000 + i]);

describe.skipIf(!fs.existsSync(PROC_FD))('the bound on open segment files', () => {
  it('holds across many partitions and segments, and reads and appends reopen what was closed', () => {
    const bound = 10;
    const openFiles = new OpenFiles(bound);
    expect(openFiles.max).toBe(bound);
    // 12 partitions of about 4 segments each: about 150 files, all created and written through the bound.
    for (let p = 0; p < 12; p++) {
      const log = PartitionLog.open(path.join(root, `t-${p}`), { segmentBytes: 600, indexIntervalBytes: 100, openFiles });
      logs.push(log);
      for (let i = 0; i < 15; i++) append(log, p, i);
      expect(log.segmentBaseOffsets().length).toBeGreaterThan(3);
      expect(descriptorsUnder(root)).toBeLessThanOrEqual(bound);
    }
    expect(openFiles.count).toBeLessThanOrEqual(bound);

    // Every active segment has been closed at least once by now; reading everything reopens them in turn.
    for (let round = 0; round < 2; round++) {
      logs.forEach((log, p) => {
        expect(contents(log)).toEqual(expected(p, 15));
        expect(log.offsetForTimestamp(p * 1000 + 7)).toEqual({ offset: 7, timestamp: p * 1000 + 7 });
        expect(descriptorsUnder(root)).toBeLessThanOrEqual(bound);
      });
    }
    // Appends to active segments whose files were closed go to the end, at the next offsets.
    logs.forEach((log, p) => append(log, p, 15));
    logs.forEach((log, p) => expect(contents(log)).toEqual(expected(p, 16)));
    expect(descriptorsUnder(root)).toBeLessThanOrEqual(bound);
    expect(descriptorsUnder(root)).toBe(openFiles.count);

    // Reopened after a clean close: the start-up checks go through the bound too.
    for (const l of logs.splice(0)) l.close();
    expect(descriptorsUnder(root)).toBe(0);
    for (let p = 0; p < 12; p++)
      logs.push(
        PartitionLog.open(path.join(root, `t-${p}`), { segmentBytes: 600, indexIntervalBytes: 100, cleanShutdown: true, recoveryPoint: 16, openFiles }),
      );
    expect(descriptorsUnder(root)).toBeLessThanOrEqual(bound);
    logs.forEach((log, p) => expect(contents(log)).toEqual(expected(p, 16)));
  });

  it('lowering the bound closes files at once', () => {
    const openFiles = new OpenFiles();
    for (let p = 0; p < 6; p++) {
      const log = PartitionLog.open(path.join(root, `t-${p}`), { openFiles });
      logs.push(log);
      append(log, p, 0);
    }
    expect(descriptorsUnder(root)).toBe(18);
    openFiles.setMax(4);
    expect(descriptorsUnder(root)).toBeLessThanOrEqual(4);
    logs.forEach((log, p) => expect(contents(log)).toEqual(expected(p, 1)));
  });

  it('is one per log manager: two in one process each keep their own bound', () => {
    const managers = ['a', 'b'].map((name) => LogManager.open({ dataDir: path.join(root, name), maxOpenFiles: 3 }));
    try {
      managers.forEach((m, i) => {
        m.createTopic('t', 4);
        for (let p = 0; p < 4; p++) append(m.partition('t', p)!, p, i);
      });
      expect(managers[0].openFiles).not.toBe(managers[1].openFiles);
      for (const [i, name] of ['a', 'b'].entries()) {
        expect(managers[i].openFiles.count).toBe(3);
        expect(descriptorsUnder(path.join(root, name))).toBe(3);
      }
      // Lowering one bound leaves the other manager's files open.
      managers[0].openFiles.setMax(1);
      expect(descriptorsUnder(path.join(root, 'a'))).toBeLessThanOrEqual(1);
      expect(descriptorsUnder(path.join(root, 'b'))).toBe(3);
    } finally {
      for (const m of managers) m.close();
    }
  });
});
