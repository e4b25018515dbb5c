// The embedded API's broker: start a real broker inside a test suite.
//   const broker = await startBroker({ port: 0 });
//   ... new Kafka({ brokers: [broker.bootstrap] }) ...
//   await broker.close();
// With no dataDir the broker lives in a fresh temporary folder that close() removes; with storage 'memory'
// it writes no file at all (krill.storage=memory).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Broker } from './broker.js';
import { BrokerConfig, ConfigError, type ConfigValue } from './config.js';
import { createLogger } from './logger.js';
import type { FaultInjector } from './faults/fault-injector.js';
import type { ListenerEndpoint } from './cluster/cluster-view.js';
import { createTopics, summariseGroup, waitForGroupStable, type GroupSummary, type GroupWait, type TopicSpec } from './test-fixtures.js';

export interface StartOptions {
  host?: string;
  /** 0 picks a free port. Default 9092. */
  port?: number;
  dataDir?: string;
  /** 'memory': the logs live in memory, bounded by krill.storage.memory.max.bytes, gone at close(); default 'disk'. */
  storage?: 'disk' | 'memory';
  /** Kafka broker configs by their Kafka names, e.g. { 'num.partitions': 3 }. */
  config?: Record<string, ConfigValue>;
  /** pino level; default 'warn' when embedded. */
  logLevel?: string;
}

export interface RunningBroker {
  bootstrap: string;
  host: string;
  port: number;
  /** The data dir; with storage 'memory', its volume's name (memory:<n>), which is no path on disk. */
  dataDir: string;
  clusterId: string;
  /** Make the broker fail on purpose: `faults.inject({ api: 'Produce', error: 'NOT_LEADER_OR_FOLLOWER' })`. */
  faults: Pick<FaultInjector, 'inject' | 'freezeLeader' | 'list' | 'clear'>;
  /**
   * Every topic, group, committed offset, transactional id, producer state and fault gone, on the same
   * port; open connections are closed (clients reconnect). Dynamic broker configs and the cluster id stay.
   */
  reset(): Promise<void>;
  /** Topics by name or spec, made with CreateTopics' checks; resolves once they can be produced to. */
  createTopics(topics: readonly (string | TopicSpec)[]): Promise<void>;
  /** Resolves once the group is Stable (with `members` members, if given), on the state change itself. */
  waitForGroupStable(groupId: string, options?: GroupWait): Promise<GroupSummary>;
  /** The group as its coordinator has it now, or null if there is none. */
  describeGroup(groupId: string): GroupSummary | null;
  /** host:port of the HTTP listener (/metrics, /health, /ready) when krill.http.listener is set, else null. */
  http: string | null;
  /** Every client listener (`listeners`) as advertised, with the port bound; the first is `bootstrap`'s. */
  listeners: readonly ListenerEndpoint[];
  close(): Promise<void>;
}

export async function startBroker(options: StartOptions = {}): Promise<RunningBroker> {
  if (options.port !== undefined && !(Number.isInteger(options.port) && options.port >= 0 && options.port <= 65535)) {
    throw new ConfigError(`port: ${options.port} is not a port number (0-65535)`);
  }
  if (options.storage !== undefined && options.storage !== 'disk' && options.storage !== 'memory') {
    throw new ConfigError(`storage: '${String(options.storage)}' is not disk or memory`);
  }
  if (options.storage === 'memory' && options.dataDir !== undefined) throw new ConfigError('storage: memory keeps no data dir, but dataDir is given');
  const config = new BrokerConfig(options.storage === undefined ? options.config : { ...options.config, 'krill.storage': options.storage });
  config.setListenerAddress(options.host, options.port);
  const log = createLogger(options.logLevel ?? 'warn');
  config.warnIgnored(log);
  const inMemory = config.string('krill.storage') === 'memory';
  const temporary = !inMemory && options.dataDir === undefined && options.config?.['log.dirs'] === undefined && options.config?.['log.dir'] === undefined;
  const dataDir = temporary ? fs.mkdtempSync(path.join(os.tmpdir(), 'krill-')) : (options.dataDir ?? config.dataDir);
  if (!inMemory) config.set('log.dirs', dataDir);
  const broker = await Broker.start(config, log).catch((err) => {
    if (temporary) fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  });
  let closing: Promise<void> | null = null;
  return {
    bootstrap: `${broker.advertised.host}:${broker.listener.port}`,
    host: broker.listener.host,
    port: broker.listener.port,
    dataDir: broker.dataDir,
    clusterId: broker.clusterId,
    faults: broker.faults,
    reset: () => broker.reset(),
    createTopics: (topics) => createTopics(broker.connectionHost.services.topics, topics),
    waitForGroupStable: (groupId, waitOptions) => waitForGroupStable(broker.groups, groupId, waitOptions),
    describeGroup: (groupId) => {
      const group = broker.groups.group(groupId);
      return group ? summariseGroup(group) : null;
    },
    http: broker.http && `${broker.http.address.host}:${broker.http.address.port}`,
    listeners: broker.advertisedEndpoints(),
    close() {
      closing ??= broker.close().finally(() => {
        if (temporary) fs.rmSync(dataDir, { recursive: true, force: true });
      });
      return closing;
    },
  };
}
