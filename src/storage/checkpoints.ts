// Small files at the top of the data directory, in Kafka's formats:
//
//   recovery-point-offset-checkpoint, log-start-offset-checkpoint — Kafka's offset checkpoint files:
//       0                      (format version)
//       <n>                    (number of entries)
//       <topic> <partition> <offset>     × n
//     The recovery point of a partition is the offset below which its log is known to be fsynced;
//     segments from there on are scanned on start-up. The log start offset is the first offset still
//     readable (advanced by DeleteRecords/retention, possibly inside the first segment).
//
//   meta.properties — Java properties identifying the directory:
//       version=1
//       cluster.id=<22-char base64url UUID>
//       node.id=<n>
//
//   .kafka_cleanshutdown — present only between a clean close and the next open; its presence lets the
//     next open skip recovery scans (only the active segment's tail is checked).
//
// Every file is replaced atomically: written to <name>.tmp, fsynced, renamed over the old one, and the
// directory fsynced.

import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from './random.js';
import type { OpenFiles } from './open-files.js';

export const RECOVERY_POINT_CHECKPOINT = 'recovery-point-offset-checkpoint';
export const LOG_START_OFFSET_CHECKPOINT = 'log-start-offset-checkpoint';
export const META_PROPERTIES = 'meta.properties';
export const CLEAN_SHUTDOWN_FILE = '.kafka_cleanshutdown';

export interface CheckpointEntry {
  topic: string;
  partition: number;
  offset: number;
}

/**
 * Writes `content` to file atomically: tmp file, fsync, rename, directory fsync. With durable false,
 * no fsync: still all-or-nothing for readers, but a power loss may leave the old content, an empty file
 * or no file; only for files krill rebuilds from others when they are missing or wrong. With `files`, an
 * open failing for want of descriptors closes that bound's segment files and is tried again (open-files.ts).
 */
export function writeFileAtomic(file: string, content: string | Buffer, durable = true, files?: OpenFiles): void {
  const tmp = `${file}.tmp`;
  const fd = openFile(tmp, 'w', files);
  try {
    const buf = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    let done = 0;
    while (done < buf.length) done += fs.writeSync(fd, buf, done, buf.length - done);
    if (durable) fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  if (durable) fsyncDir(path.dirname(file), files);
}

function openFile(file: string, flags: string, files: OpenFiles | undefined): number {
  return files ? files.openMakingRoom(file, flags) : fs.openSync(file, flags);
}

/** fsync of one file or directory through the thread pool (callback API: fs/promises costs a load). */
function fsyncPath(p: string, ignoreErrors: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    fs.open(p, 'r', (err, fd) => {
      if (err) return ignoreErrors ? resolve() : reject(err);
      fs.fsync(fd, (syncErr) => {
        fs.close(fd, () => (syncErr && !ignoreErrors ? reject(syncErr) : resolve()));
      });
    });
  });
}

/** Makes a file written with writeFileAtomic(…, false) durable, off the event loop: the file, then its directory. */
export async function syncInBackground(file: string): Promise<void> {
  await fsyncPath(file, false);
  await fsyncPath(path.dirname(file), true);
}

/** fsync of a directory (new or removed entries), ignoring platforms that refuse it. */
export function fsyncDir(dir: string, files?: OpenFiles): void {
  let fd: number | null = null;
  try {
    fd = openFile(dir, 'r', files);
    fs.fsyncSync(fd);
  } catch {
    // best effort (not supported on every platform)
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

/** A file's text, or null when it does not exist. */
export function readTextIfExists(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
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

/** The entries of a checkpoint file; [] when it does not exist. Throws when it is malformed. */
export function readCheckpointFile(file: string): CheckpointEntry[] {
  const text = readTextIfExists(file);
  if (text === null) return [];
  return parseCheckpoint(text);
}

// --- meta.properties ------------------------------------------------------------------------------------

export interface MetaProperties {
  version: number;
  clusterId: string;
  nodeId: number;
  /** Every key of the file, including the three above and any others (e.g. directory.id). */
  raw: Record<string, string>;
}

/** A random UUID in Kafka's string form: 16 bytes, base64url, no padding (22 chars), never starting with '-'. */
export function randomKafkaUuid(): { bytes: Buffer; text: string } {
  for (;;) {
    const bytes = randomBytes(16);
    const text = bytes.toString('base64url');
    // Kafka reserves the all-zero id and 1 (the metadata topic), and avoids a leading '-' (confuses CLIs).
    if (text.startsWith('-')) continue;
    if (bytes.subarray(0, 15).every((b) => b === 0) && bytes[15] <= 1) continue;
    return { bytes, text };
  }
}

function parseProps(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const t = line.trim();
    if (!t || t.startsWith('#') || t.startsWith('!')) continue;
    const m = /^([^=:\s]+)\s*[=:]\s*(.*)$/.exec(t);
    if (m) out[m[1]] = m[2];
  }
  return out;
}

export function readMetaProperties(dataDir: string): MetaProperties | null {
  const text = readTextIfExists(path.join(dataDir, META_PROPERTIES));
  if (text === null) return null;
  const raw = parseProps(text);
  const version = Number(raw['version'] ?? '0');
  const clusterId = raw['cluster.id'];
  const nodeId = Number(raw['node.id'] ?? raw['broker.id']);
  if (!clusterId) throw new Error(`${META_PROPERTIES} in ${dataDir} has no cluster.id`);
  if (!Number.isInteger(nodeId)) throw new Error(`${META_PROPERTIES} in ${dataDir} has no valid node.id`);
  return { version, clusterId, nodeId, raw };
}

export function writeMetaProperties(
  dataDir: string,
  meta: { clusterId: string; nodeId: number; version?: number; raw?: Record<string, string> },
  durable = true,
): void {
  const props: Record<string, string> = {
    ...(meta.raw ?? {}),
    'version': String(meta.version ?? 1),
    'cluster.id': meta.clusterId,
    'node.id': String(meta.nodeId),
  };
  const lines = ['#', `#${new Date().toString()}`];
  for (const [k, v] of Object.entries(props)) lines.push(`${k}=${v}`);
  fs.mkdirSync(dataDir, { recursive: true });
  writeFileAtomic(path.join(dataDir, META_PROPERTIES), lines.join('\n') + '\n', durable);
}

/**
 * Reads meta.properties, creating it (with a fresh cluster id) when missing. Throws when the stored
 * node.id differs from the configured one, as Kafka refuses to start in that case. A new file is written
 * atomically but not yet fsynced (two fsyncs would delay every first start): `created` is then set and the
 * caller makes it durable with syncInBackground().
 */
export function readOrCreateMetaProperties(dataDir: string, nodeId: number, clusterId?: string): MetaProperties & { created?: string } {
  const existing = readMetaProperties(dataDir);
  if (existing) {
    if (existing.nodeId !== nodeId) {
      throw new Error(`Stored node.id ${existing.nodeId} in ${path.join(dataDir, META_PROPERTIES)} doesn't match configured node.id ${nodeId}`);
    }
    if (clusterId !== undefined && existing.clusterId !== clusterId) {
      throw new Error(`Stored cluster.id ${existing.clusterId} doesn't match the requested ${clusterId}`);
    }
    return existing;
  }
  const meta = { version: 1, clusterId: clusterId ?? randomKafkaUuid().text, nodeId };
  writeMetaProperties(dataDir, meta, false);
  return {
    ...meta,
    raw: { 'version': '1', 'cluster.id': meta.clusterId, 'node.id': String(nodeId) },
    created: path.join(dataDir, META_PROPERTIES),
  };
}
