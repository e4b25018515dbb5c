// Damage krill does not repair but must not keep quiet about at start: an older segment (below the recovery
// point, so trusted and not scanned) cut or rotten, a segment file missing from the middle of a log, and a
// log start offset checkpoint past the log end.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PartitionLog, type PartitionLogOptions } from '../../src/storage/partition-log.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { LOG_START_OFFSET_CHECKPOINT, writeCheckpointFile } from '../../src/storage/checkpoints.js';
import { buildBatch, parseBatches, rmDir, tempDir, toAppend } from './batches.js';

let root: string;
let dir: string;
let warnings: { obj: Record<string, unknown>; msg: string }[];
const log = { info() {}, warn: (obj: object, msg?: string) => warnings.push({ obj: obj as Record<string, unknown>, msg: msg ?? '' }) };
const opened: { close(): void }[] = [];

beforeEach(() => {
  root = tempDir();
  dir = path.join(root, 'topic-0');
  warnings = [];
});
afterEach(() => {
  for (const l of opened.splice(0)) l.close();
  rmDir(root);
});

const OPTS = { segmentBytes: 1000, indexIntervalBytes: 100 };
const file = (base: number, ext: string) => path.join(dir, `${String(base).padStart(20, '0')}.${ext}`);

/** 20 one-record batches over several segments, closed cleanly; returns the segments' base offsets. */
function writeLog(): number[] {
  const l = PartitionLog.open(dir, OPTS);
  for (let i = 0; i < 20; i++) {
    const { buf, batches } = toAppend(buildBatch({ records: 1, valueSize: 100 }));
    l.append(buf, batches);
  }
  l.close();
  const bases = l.segmentBaseOffsets();
  expect(bases.length).toBeGreaterThan(3);
  return bases;
}

/** Opens as after a crash whose last checkpoint covered everything: every older segment is trusted. */
function reopenAfterCrash(opts: PartitionLogOptions = { recoveryPoint: 20 }): PartitionLog {
  const l = PartitionLog.open(dir, { ...OPTS, ...opts, log });
  opened.push(l);
  return l;
}

function flipByte(f: string, position: number): void {
  const fd = fs.openSync(f, 'r+');
  const b = Buffer.alloc(1);
  fs.readSync(fd, b, 0, 1, position);
  b[0] ^= 0xff;
  fs.writeSync(fd, b, 0, 1, position);
  fs.closeSync(fd);
}

describe('start-up checks of older segments after a crash', () => {
  it('say nothing about a healthy log', () => {
    writeLog();
    const l = reopenAfterCrash();
    expect(warnings).toEqual([]);
    expect(l.logEndOffset).toBe(20);
  });

  it('warn about an older segment cut mid-batch, and leave it as it is', () => {
    const bases = writeLog();
    const cut = fs.statSync(file(bases[1], 'log')).size - 5;
    fs.truncateSync(file(bases[1], 'log'), cut);
    const l = reopenAfterCrash();
    expect(warnings.map((w) => w.msg)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^segment ${bases[1]} of topic-0, below the recovery point, is damaged \\(batch at position \\d+ \\(\\d+ bytes\\) runs past the end of the file \\(${cut}\\)\\)`,
        ),
      ),
    ]);
    expect(warnings[0].obj).toMatchObject({ partition: 'topic-0', segment: bases[1] });
    expect(fs.statSync(file(bases[1], 'log')).size).toBe(cut);
    expect(l.segmentBaseOffsets()).toEqual(bases);
    expect(l.logEndOffset).toBe(20);
    // The records before the damage and in later segments are still served.
    expect(parseBatches(l.read(bases[1], 1).records)[0].baseOffset).toBe(bases[1]);
    expect(parseBatches(l.read(bases[2], 1).records)[0].baseOffset).toBe(bases[2]);
  });

  it('warn about an older segment cut before what its offset index points at', () => {
    const bases = writeLog();
    fs.truncateSync(file(bases[0], 'log'), 150);
    reopenAfterCrash();
    expect(warnings.map((w) => w.msg)).toEqual([
      expect.stringMatching(
        /^segment 0 of topic-0, below the recovery point, is damaged \(the \.log \(150 bytes\) ends before the batch its offset index places at position \d+\)/,
      ),
    ]);
  });

  it('warn about a rotten last batch of an older segment', () => {
    const bases = writeLog();
    flipByte(file(bases[0], 'log'), fs.statSync(file(bases[0], 'log')).size - 20);
    reopenAfterCrash();
    expect(warnings.map((w) => w.msg)).toEqual([
      expect.stringMatching(/^segment 0 of topic-0, below the recovery point, is damaged \(CRC mismatch in the batch at position \d+\)/),
    ]);
  });

  it('are skipped after a clean shutdown (older segments are trusted, as Kafka does)', () => {
    const bases = writeLog();
    fs.truncateSync(file(bases[1], 'log'), fs.statSync(file(bases[1], 'log')).size - 5);
    reopenAfterCrash({ recoveryPoint: 20, cleanShutdown: true });
    expect(warnings).toEqual([]);
  });
});

describe('a segment missing from the middle of a log', () => {
  for (const [when, recoveryPoint] of [
    ['trusted', 20],
    ['scanned', 0],
  ] as const) {
    it(`is reported with the offsets consumers will skip (older segments ${when})`, () => {
      const bases = writeLog();
      for (const ext of ['log', 'index', 'timeindex']) fs.rmSync(file(bases[1], ext));
      const l = reopenAfterCrash({ recoveryPoint });
      expect(warnings.map((w) => w.msg)).toEqual([
        `offsets ${bases[1]} to ${bases[2] - 1} of topic-0 are missing (segment 0 ends before the next one, ${bases[2]}, starts: ` +
          'a segment file missing or cut?); consumers will skip them',
      ]);
      expect(warnings[0].obj).toMatchObject({ partition: 'topic-0', missingFrom: bases[1], missingTo: bases[2] - 1 });
      expect(l.logEndOffset).toBe(20);
      expect(parseBatches(l.read(bases[1], 1).records)[0].baseOffset).toBe(bases[2]);
    });
  }
});

describe('a log start offset checkpoint past the log end', () => {
  it('is clamped to the log end with a warning naming the partition and both offsets', () => {
    let m = LogManager.open({ dataDir: root, log });
    m.createTopic('t', 2);
    for (let i = 0; i < 3; i++) {
      const { buf, batches } = toAppend(buildBatch({ records: 1 }));
      m.partition('t', 1)!.append(buf, batches);
    }
    m.close();
    writeCheckpointFile(path.join(root, LOG_START_OFFSET_CHECKPOINT), [
      { topic: 't', partition: 0, offset: 0 },
      { topic: 't', partition: 1, offset: 50 },
    ]);
    m = LogManager.open({ dataDir: root, log });
    opened.push(m);
    expect(warnings.map((w) => w.msg)).toEqual(['the log start offset 50 of t-1 (from the checkpoint) is past its log end offset 3; using 3']);
    expect(warnings[0].obj).toMatchObject({ partition: 't-1', logStartOffset: 50, logEndOffset: 3 });
    expect(m.partition('t', 1)!.logStartOffset).toBe(3);
    expect(m.partition('t', 1)!.logEndOffset).toBe(3);
  });
});
