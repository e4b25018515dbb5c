// Shared by the compaction compat suites: waiting for the log cleaner through what it leaves on disk (its
// cleaner-offset-checkpoint), and the latest record of each key among consumed ones.
import fs from 'node:fs';
import path from 'node:path';
import { readCheckpointFile } from '../src/storage/checkpoints.js';

/** The cleaner's checkpointed first dirty offset of a partition, or -1 before its first pass. */
export function cleanedUpTo(dataDir: string, topic: string, partition: number): number {
  try {
    const e = readCheckpointFile(path.join(dataDir, 'cleaner-offset-checkpoint')).find((c) => c.topic === topic && c.partition === partition);
    return e ? e.offset : -1;
  } catch {
    return -1; // being replaced right now
  }
}

export async function waitFor(cond: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The cleaner's files of an unfinished swap in a partition directory (.cleaned / .swap). */
export function swapFiles(dataDir: string, topic: string, partition: number): string[] {
  const dir = path.join(dataDir, `${topic}-${partition}`);
  try {
    return fs.readdirSync(dir).filter((n) => n.endsWith('.cleaned') || n.endsWith('.swap'));
  } catch {
    return [];
  }
}

export interface KeyedRecord {
  offset: number;
  key: string | null;
  value: string | null;
}

/** The last record of each key, in the order given. */
export function latestPerKey<T extends KeyedRecord>(records: T[]): Map<string, T> {
  const out = new Map<string, T>();
  for (const r of records) if (r.key !== null) out.set(r.key, r);
  return out;
}
