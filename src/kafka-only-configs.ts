// Kafka broker configs that mean nothing on krill, so that a stock Kafka server.properties (or a Docker
// setup's KAFKA_* list) starts as it is. Each is accepted, its value checked as Kafka checks it (a typo in
// a value is still reported), and the names given are listed in one warning at start. A config that asks
// for something krill cannot do (a SASL listener, a controller-only node, a quorum of other
// nodes) is refused instead: see config.ts and listeners.ts.
import { configTable, type ValueRule } from './config-value.js';

const int = (min?: number): ValueRule => ({ kind: 'int', min });
const long = (min?: number): ValueRule => ({ kind: 'long', min });

export const KAFKA_ONLY_CONFIGS: Readonly<Record<string, ValueRule>> = configTable({
  // Threads, queues and socket buffers: krill is one event loop and leaves buffers to the OS.
  'num.network.threads': int(1),
  'num.io.threads': int(1),
  'num.recovery.threads.per.data.dir': int(1),
  'background.threads': int(1),
  'queued.max.requests': int(1),
  'socket.send.buffer.bytes': int(-1),
  'socket.receive.buffer.bytes': int(-1),
  'socket.listen.backlog.size': int(1),
  // Replication: krill's follower fetches one leader's partitions on one connection, and __transaction_state
  // takes the broker's min.insync.replicas.
  'num.replica.fetchers': int(1),
  'transaction.state.log.min.isr': int(1),
  'share.coordinator.state.topic.replication.factor': int(1),
  'share.coordinator.state.topic.min.isr': int(1),
  // Flushing: krill's durability does not depend on these (see "The command line" in README.md).
  'log.flush.interval.messages': long(1),
  'log.flush.interval.ms': long(0),
  'log.flush.scheduler.interval.ms': long(0),
  // Cluster membership: krill is a single node and its own controller (checked in config.ts).
  'process.roles': { kind: 'list', choices: ['broker', 'controller'] },
  'controller.quorum.voters': { kind: 'list' },
  'controller.quorum.bootstrap.servers': { kind: 'list' },
});
