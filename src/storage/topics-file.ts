// The topic list of a data directory (what Kafka keeps in its metadata log), and how it is rebuilt when lost.
//
//   <dataDir>/krill-topics.json        the list, replaced atomically and fsynced:
//       {"version":1,"topics":[{"name":"t","topicId":"<base64url of 16 bytes>","partitions":3,
//                               "configs":{"segment.bytes":"1048576"}}]}
//     ("configs" holds only the topic's overrides; defaults come from the broker config at open.)
//   <dataDir>/<topic>-0/krill-topic.json   that topic's own entry, without its id (partition.metadata has
//     it): a copy written when the topic is created or its configs change, read only to rebuild the list.
//
// A missing list is rebuilt from the partition directories: every "<topic>-<n>" directory holding a
// partition.metadata or a segment is a partition; a topic has max(n) + 1 partitions (or what its copy
// says, when more); its id is the one most of its partition.metadata files name; its configs come from
// its copy. A list that cannot be parsed stops the start instead: rebuilding over it could lose what only
// it knows, and the operator should choose.

import fs from './storage-fs.js';
import path from 'node:path';
import { readTextIfExists, writeFileAtomic } from './atomic-file.js';
import { randomKafkaUuid } from './meta-properties.js';
import type { OpenFiles } from './open-files.js';
import { PARTITION_METADATA_FILE, parsePartitionDirName, parseSegmentFileName, partitionDirName } from './file-names.js';

export const TOPICS_FILE = 'krill-topics.json';
export const TOPIC_COPY_FILE = 'krill-topic.json';

export interface PersistedTopic {
  name: string;
  /** base64url of 16 bytes */
  topicId: string;
  partitions: number;
  configs: Record<string, string>;
}

/** The data directory is in a state krill must not start on; the message says what to do. */
export class DataDirError extends Error {}

/** The topic id in a partition.metadata file, or null when absent/unreadable. */
export function readPartitionMetadata(dir: string): Buffer | null {
  try {
    const text = fs.readFileSync(path.join(dir, PARTITION_METADATA_FILE), 'utf8');
    const m = /^topic_id:\s*(\S+)\s*$/m.exec(text);
    if (!m) return null;
    const id = Buffer.from(m[1], 'base64url');
    return id.length === 16 ? id : null;
  } catch {
    return null;
  }
}

function isConfigMap(v: unknown): v is Record<string, string> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');
}

/** The topics in krill-topics.json; null when the file does not exist. Throws DataDirError when it is unusable. */
export function readTopicsFile(dataDir: string): PersistedTopic[] | null {
  const file = path.join(dataDir, TOPICS_FILE);
  const text = readTextIfExists(file);
  if (text === null) return null;
  const unusable = (why: string) =>
    new DataDirError(
      `${file} is unusable (${why}). krill will not start on it: restore it, or move it away to have the topic list rebuilt from the partition directories.`,
    );
  let doc: { topics?: unknown };
  try {
    doc = JSON.parse(text) as { topics?: unknown };
  } catch (err) {
    throw unusable((err as Error).message);
  }
  if (!Array.isArray(doc?.topics)) throw unusable('no "topics" array');
  for (const t of doc.topics as PersistedTopic[]) {
    if (typeof t?.name !== 'string' || typeof t.topicId !== 'string' || !Number.isInteger(t.partitions) || t.partitions < 1) {
      throw unusable(`malformed topic entry ${JSON.stringify(t)}`);
    }
    if (Buffer.from(t.topicId, 'base64url').length !== 16) throw unusable(`topic ${t.name} has a malformed topicId`);
    t.configs ??= {};
    if (!isConfigMap(t.configs)) throw unusable(`topic ${t.name} has malformed configs`);
  }
  return doc.topics as PersistedTopic[];
}

export function writeTopicsFile(dataDir: string, topics: PersistedTopic[], files?: OpenFiles): void {
  writeFileAtomic(path.join(dataDir, TOPICS_FILE), JSON.stringify({ version: 1, topics }, null, 2) + '\n', true, files);
}

/**
 * Writes a topic's copy into its partition 0 directory. Not fsynced, as partition.metadata: the durable
 * home is krill-topics.json, and the copy only matters when that file is lost.
 */
export function writeTopicCopy(dataDir: string, topic: Omit<PersistedTopic, 'topicId'>, files?: OpenFiles): void {
  const { name, partitions, configs } = topic;
  writeFileAtomic(path.join(dataDir, partitionDirName(name, 0), TOPIC_COPY_FILE), JSON.stringify({ name, partitions, configs }) + '\n', false, files);
}

function readTopicCopy(dir: string, name: string): { partitions: number; configs: Record<string, string> } | null {
  try {
    const doc = JSON.parse(fs.readFileSync(path.join(dir, TOPIC_COPY_FILE), 'utf8')) as Partial<PersistedTopic>;
    if (doc.name !== name || !Number.isInteger(doc.partitions) || !isConfigMap(doc.configs)) return null;
    return { partitions: doc.partitions!, configs: doc.configs };
  } catch {
    return null;
  }
}

/** A partition directory krill (or Kafka) made: it holds partition.metadata or a segment. */
function looksLikePartition(dir: string): boolean {
  try {
    return fs.readdirSync(dir).some((f) => f === PARTITION_METADATA_FILE || parseSegmentFileName(f) !== null);
  } catch {
    return false;
  }
}

/** The topic list the partition directories of dataDir describe (see the header). Reads only. */
export function rebuildTopics(dataDir: string): PersistedTopic[] {
  const found = new Map<string, Map<number, Buffer | null>>();
  for (const entry of fs.readdirEntries(dataDir)) {
    const parsed = entry.isDirectory() ? parsePartitionDirName(entry.name) : null;
    if (!parsed) continue;
    const dir = path.join(dataDir, entry.name);
    if (!looksLikePartition(dir)) continue;
    let partitions = found.get(parsed.topic);
    if (!partitions) found.set(parsed.topic, (partitions = new Map()));
    partitions.set(parsed.partition, readPartitionMetadata(dir));
  }
  const topics: PersistedTopic[] = [];
  for (const [name, partitions] of [...found].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const copy = readTopicCopy(path.join(dataDir, partitionDirName(name, 0)), name);
    const count = Math.max(Math.max(...partitions.keys()) + 1, copy?.partitions ?? 0);
    topics.push({ name, topicId: majorityId(partitions), partitions: count, configs: copy?.configs ?? {} });
  }
  return topics;
}

/** The id most partitions name (ties: the lowest partition's); a fresh one when none names any. */
function majorityId(partitions: Map<number, Buffer | null>): string {
  const votes = new Map<string, { count: number; first: number }>();
  for (const [p, id] of partitions) {
    if (!id) continue;
    const k = id.toString('base64url');
    const v = votes.get(k);
    if (v) {
      v.count++;
      v.first = Math.min(v.first, p);
    } else {
      votes.set(k, { count: 1, first: p });
    }
  }
  let best: [string, { count: number; first: number }] | undefined;
  for (const e of votes) {
    if (!best || e[1].count > best[1].count || (e[1].count === best[1].count && e[1].first < best[1].first)) best = e;
  }
  return best ? best[0] : randomKafkaUuid().text;
}
