// The offset checkpoint files at the top of the data directory, in Kafka's format:
//
//   recovery-point-offset-checkpoint, log-start-offset-checkpoint
//       0                      (format version)
//       <n>                    (number of entries)
//       <topic> <partition> <offset>     × n
//     The recovery point of a partition is the offset below which its log is known to be fsynced;
//     segments from there on are scanned on start-up. The log start offset is the first offset still
//     readable (advanced by DeleteRecords/retention, possibly inside the first segment).
//
//   .kafka_cleanshutdown — present only between a clean close and the next open; its presence lets the
//     next open skip recovery scans (only the active segment's tail is checked).
//
// Each is replaced atomically (atomic-file.ts).

import type { OpenFiles } from './open-files.js';
import { readTextIfExists, writeFileAtomic, writeFileAtomicInBackground } from './atomic-file.js';

export const RECOVERY_POINT_CHECKPOINT = 'recovery-point-offset-checkpoint';
export const LOG_START_OFFSET_CHECKPOINT = 'log-start-offset-checkpoint';
export const CLEAN_SHUTDOWN_FILE = '.kafka_cleanshutdown';

export interface CheckpointEntry {
  topic: string;
  partition: number;
  offset: number;
}

export function formatCheckpoint(entries: CheckpointEntry[]): string {
  const lines = ['0', String(entries.length)];
  for (const e of entries) lines.push(`${e.topic} ${e.partition} ${e.offset}`);
  return lines.join('\n') + '\n';
}

/** Parses checkpoint text; throws on anything malformed. */
export function parseCheckpoint(text: string): CheckpointEntry[] {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines[0] !== '0') throw new Error(`unsupported checkpoint version '${lines[0]}'`);
  if (lines.length < 2 || !/^\d+$/.test(lines[1])) throw new Error('malformed checkpoint entry count');
  const count = Number(lines[1]);
  if (lines.length - 2 !== count) throw new Error(`checkpoint says ${count} entries but has ${lines.length - 2}`);
  const out: CheckpointEntry[] = [];
  for (let i = 2; i < lines.length; i++) {
    const m = /^(\S+) (\d+) (-?\d+)$/.exec(lines[i]);
    if (!m) throw new Error(`malformed checkpoint line ${i + 1}: '${lines[i]}'`);
    out.push({ topic: m[1], partition: Number(m[2]), offset: Number(m[3]) });
  }
  return out;
}

export function writeCheckpointFile(file: string, entries: CheckpointEntry[], files?: OpenFiles): void {
  writeFileAtomic(file, formatCheckpoint(entries), true, files);
}

/** writeCheckpointFile() off the event loop (see writeFileAtomicInBackground). */
export function writeCheckpointFileInBackground(file: string, entries: CheckpointEntry[], files?: OpenFiles): Promise<void> {
  return writeFileAtomicInBackground(file, formatCheckpoint(entries), files);
}

/** The entries of a checkpoint file; [] when it does not exist. Throws when it is malformed. */
export function readCheckpointFile(file: string): CheckpointEntry[] {
  const text = readTextIfExists(file);
  if (text === null) return [];
  return parseCheckpoint(text);
}
