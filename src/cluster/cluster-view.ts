// What a broker knows of its cluster: its id, the cluster's, which broker is the controller and where
// clients reach each broker (Metadata, DescribeCluster, FindCoordinator). Kafka keeps this in its
// MetadataCache, fed by the controller (cluster/metadata-cache.ts); a single krill is its own cluster and
// controller.

import type { SecurityProtocol } from '../listeners.js';

/** Where one listener of a broker is reached. */
export interface ListenerEndpoint {
  listener: string;
  securityProtocol: SecurityProtocol;
  host: string;
  port: number;
}

/** A broker; `host`/`port` are its inter-broker listener's, what other brokers connect to. */
export interface BrokerEndpoint {
  nodeId: number;
  host: string;
  port: number;
  rack: string | null;
  /** Every listener the broker advertises. */
  endpoints: readonly ListenerEndpoint[];
}

/**
 * The brokers as a client that came in on `listener` must see them: each at its endpoint on that listener,
 * and those without it left out (Kafka's MetadataCache.getAliveBrokerNodes(listenerName)).
 */
export function onListener(brokers: readonly BrokerEndpoint[], listener: string): BrokerEndpoint[] {
  const out: BrokerEndpoint[] = [];
  for (const b of brokers) {
    const e = b.endpoints.find((x) => x.listener === listener);
    if (e) out.push({ ...b, host: e.host, port: e.port });
  }
  return out;
}

/** The inter-broker listener's endpoint among `endpoints` (the first one when it is missing: a single broker). */
export function interBrokerEndpoint(endpoints: readonly ListenerEndpoint[], listener: string): { host: string; port: number } {
  const e = endpoints.find((x) => x.listener === listener) ?? endpoints[0];
  return e ? { host: e.host, port: e.port } : { host: '', port: -1 };
}

export interface ClusterView {
  readonly clusterId: string;
  readonly localNodeId: number;
  readonly controllerId: number;
  /** Every live broker, at its inter-broker endpoint (see onListener for what clients are told). */
  brokers(): BrokerEndpoint[];
  /**
   * In a cluster, a partition as the controller last described it (leader, replicas, ISR); undefined on a
   * single broker, whose partitions describe themselves.
   */
  partitionMetadata(topic: string, partition: number): PartitionMetadata | undefined;
  /**
   * Whether this broker's metadata names the topic. A single broker's metadata is its own topics; a broker
   * of a cluster may hold a topic's logs before the controller's metadata names it (LeaderAndIsr comes first).
   */
  hasTopic(name: string): boolean;
  /** The partition's leader as this broker's metadata has it (itself on a single broker); undefined before it has it. */
  partitionLeader(topic: string, partition: number): number | undefined;
}

/** A partition as Metadata describes it. leaderId -1: no leader (offline, or not elected yet). */
export interface PartitionMetadata {
  leaderId: number;
  leaderEpoch: number;
  replicas: readonly number[];
  isr: readonly number[];
  offlineReplicas: readonly number[];
}

/** The cluster of one broker: itself, the controller too. */
export class SingleBrokerCluster implements ClusterView {
  constructor(
    readonly clusterId: string,
    readonly localNodeId: number,
    /** The advertised endpoints, read when asked: the ports are known only once bound. */
    private readonly advertised: () => ListenerEndpoint[],
  ) {}

  get controllerId(): number {
    return this.localNodeId;
  }

  brokers(): BrokerEndpoint[] {
    const endpoints = this.advertised();
    return [{ nodeId: this.localNodeId, host: endpoints[0].host, port: endpoints[0].port, rack: null, endpoints }];
  }

  partitionMetadata(): undefined {
    return undefined;
  }

  hasTopic(): boolean {
    return true;
  }

  partitionLeader(): number {
    return this.localNodeId;
  }
}
