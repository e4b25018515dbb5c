// The dynamic broker configs of a data directory (what Kafka keeps as broker ConfigRecords in its metadata
// log), set with AlterConfigs / IncrementalAlterConfigs on a BROKER resource:
//
//   <dataDir>/krill-broker-configs.json   replaced atomically and fsynced:
//       {"version":1,"cluster":{"log.retention.ms":"3600000"},"brokers":{"1":{"message.max.bytes":"2000000"}}}
//     "cluster" holds the cluster-wide defaults (resource name ""), "brokers" each node id's own configs
//     (resource name "<node.id>"); a node reads its own entry and the cluster's, so a data dir started
//     again under another node.id keeps the cluster-wide values only, as in Kafka.
//
// A missing file is no dynamic config. A file that cannot be parsed stops the start (DataDirError), as a
// broken krill-topics.json does: starting without it would silently drop the operator's settings.

import path from 'node:path';
import { readTextIfExists, writeFileAtomic } from './atomic-file.js';
import { DataDirError } from './topics-file.js';

export const BROKER_CONFIGS_FILE = 'krill-broker-configs.json';

export interface PersistedBrokerConfigs {
  cluster: Record<string, string>;
  brokers: Record<string, Record<string, string>>;
}

function isStringMap(v: unknown): v is Record<string, string> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');
}

export function readBrokerConfigsFile(dataDir: string): PersistedBrokerConfigs {
  const file = path.join(dataDir, BROKER_CONFIGS_FILE);
  const text = readTextIfExists(file);
  if (text === null) return { cluster: {}, brokers: {} };
  const unusable = (why: string) =>
    new DataDirError(
      `${file} is unusable (${why}). krill will not start on it: fix or restore it, or move it away to start without the dynamic broker configs it holds.`,
    );
  let doc: { cluster?: unknown; brokers?: unknown };
  try {
    doc = JSON.parse(text) as typeof doc;
  } catch (err) {
    throw unusable((err as Error).message);
  }
  const cluster = doc?.cluster ?? {};
  const brokers = doc?.brokers ?? {};
  if (!isStringMap(cluster)) throw unusable('"cluster" is not a map of strings');
  if (typeof brokers !== 'object' || brokers === null || Array.isArray(brokers) || !Object.values(brokers).every(isStringMap)) {
    throw unusable('"brokers" is not a map of node ids to maps of strings');
  }
  return { cluster, brokers: brokers as Record<string, Record<string, string>> };
}

export function writeBrokerConfigsFile(dataDir: string, configs: PersistedBrokerConfigs): void {
  writeFileAtomic(path.join(dataDir, BROKER_CONFIGS_FILE), JSON.stringify({ version: 1, ...configs }, null, 2) + '\n');
}
