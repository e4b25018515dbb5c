// The embedded API, the package's entry (`import { startBroker, startCluster } from 'krill'`): a broker
// (embedded-broker.ts) or a whole ZooKeeper cluster of them (embedded-cluster.ts) inside a test suite.
export { startBroker, type StartOptions, type RunningBroker } from './embedded-broker.js';
export { startCluster, type ClusterStartOptions, type ClusterBroker, type RunningCluster } from './embedded-cluster.js';
export { startZooKeeper, zookeeperInstalled, type ZooKeeperServer } from './cluster/zookeeper-server.js';
export { BrokerConfig, ConfigError } from './config.js';
export { DataDirError } from './storage/topics-file.js';
export { DataDirLockedError } from './storage/data-dir-lock.js';
export { FaultSpecError, type Fault, type FaultSpec } from './faults/fault-injector.js';
export type { TopicSpec, GroupSummary, GroupMemberSummary, GroupWait } from './test-fixtures.js';
export type { ListenerEndpoint } from './cluster/cluster-view.js';
