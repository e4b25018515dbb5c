// The log loader on its own (log-loader.ts): what it reads of a log at open and what it leaves for later.
// The recovery cases through PartitionLog.open are in partition-log.test.ts and damaged-segments.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { loadLog, type LoadedLog } from '../../src/storage/log-loader.js';
import { OpenFiles } from '../../src/storage/open-files.js';
import type { SegmentConfig } from '../../src/storage/segment.js';
import { readBatch, translateOffset } from '../../src/storage/segment-reader.js';
import { buildBatch, parseBatches, rmDir, tempDir, toAppend } from './batches.js';

let root: string;
let dir: string;
let loaded: LoadedLog | null;
let warnings: string[];
const log = { info() {}, warn: (_obj: object, msg?: string) => warnings.push(msg ?? '') };
const config = (): SegmentConfig => ({ indexIntervalBytes: 100, now: Date.now, openFiles: new OpenFiles() });
const file = (base: number, ext: string) => path.join(dir, `${String(base).padStart(20, '0')}.${ext}`);

beforeEach(() => {
  root = tempDir();
  dir = path.join(root, 'topic-0');
  loaded = null;
  warnings = [];
});
afterEach(() => {
  for (const seg of loaded?.segments ?? []) seg.close();
  rmDir(root);
});

/** 20 one-record batches over several segments, closed cleanly; returns the segments' base offsets. */
function writeLog(): number[] {
  const l = PartitionLog.open(dir, { segmentBytes: 1000, indexIntervalBytes: 100 });
  for (let i = 0; i < 20; i++) {
    const { buf, batches } = toAppend(buildBatch({ records: 1, valueSize: 100 }));
    l.append(buf, batches);
  }
  l.close();
  return l.segmentBaseOffsets();
}

describe('loadLog', () => {
  it('starts an empty directory with one active segment at the log start offset', () => {
    loaded = loadLog(dir, { logStartOffset: 42 }, config());
    expect(loaded.segments.map((s) => [s.baseOffset, s.isActive])).toEqual([[42, true]]);
    expect(loaded.logStartOffset).toBe(42);
    expect(loaded.recoveryPoint).toBe(0);
    expect(fs.existsSync(file(42, 'log'))).toBe(true);
  });

  it("leaves a trusted segment's full index check to its first use", () => {
    const bases = writeLog();
    const garbage = Buffer.alloc(64, 0x5a); // whole entries: passes the cheap check at open
    fs.writeFileSync(file(bases[0], 'index'), garbage);
    loaded = loadLog(dir, { recoveryPoint: 20, cleanShutdown: true, log }, config());
    expect(warnings).toEqual([]);
    expect(fs.readFileSync(file(bases[0], 'index')).equals(garbage)).toBe(true);
    // The first lookup validates the index, finds it broken and rebuilds it from the .log.
    const seg = loaded.segments[0];
    const position = translateOffset(seg, 3);
    expect(parseBatches(readBatch(seg, position))[0].baseOffset).toBe(3);
    expect(fs.readFileSync(file(bases[0], 'index')).equals(garbage)).toBe(false);
  });

  it("after a clean shutdown checks only the active segment's tail, and cuts what is not a batch there", () => {
    const bases = writeLog();
    const active = bases[bases.length - 1];
    const size = fs.statSync(file(active, 'log')).size;
    fs.appendFileSync(file(active, 'log'), Buffer.alloc(30, 1));
    loaded = loadLog(dir, { recoveryPoint: 20, cleanShutdown: true, log }, config());
    expect(warnings).toEqual(['truncated invalid bytes at the end of the log']);
    expect(fs.statSync(file(active, 'log')).size).toBe(size);
    expect(loaded.segments.map((s) => s.baseOffset)).toEqual(bases);
    expect(loaded.segments[loaded.segments.length - 1].nextOffset).toBe(20);
  });
});
