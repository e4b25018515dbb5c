// meta.properties, the file identifying a data directory, in Kafka's format (Java properties):
//
//   version=1
//   cluster.id=<22-char base64url UUID>
//   node.id=<n>
//
// and the random UUIDs of Kafka's string form (cluster ids, topic ids). Replaced atomically (atomic-file.ts).

import fs from './storage-fs.js';
import path from 'node:path';
import { randomBytes } from './random.js';
import { readTextIfExists, writeFileAtomic } from './atomic-file.js';
import { parseProperties } from '../properties.js';

export const META_PROPERTIES = 'meta.properties';

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

export function readMetaProperties(dataDir: string): MetaProperties | null {
  const text = readTextIfExists(path.join(dataDir, META_PROPERTIES));
  if (text === null) return null;
  const raw = parseProperties(text).values;
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
    version: String(meta.version ?? 1),
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
    raw: { version: '1', 'cluster.id': meta.clusterId, 'node.id': String(nodeId) },
    created: path.join(dataDir, META_PROPERTIES),
  };
}
