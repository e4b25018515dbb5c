// What a broker knows of its cluster: its id, the cluster's, which broker is the controller and where
// clients reach each broker (Metadata, DescribeCluster, FindCoordinator). Kafka keeps this in its
// MetadataCache, fed by the controller (cluster/metadata-cache.ts); a single krill is its own cluster and
// controller.

export interface BrokerEndpoint {
  nodeId: number;
  host: string;
  port: number;
  rack: string | null;
}

export interface ClusterView {
  readonly clusterId: string;
  readonly localNodeId: number;
  readonly controllerId: number;
  /** Every live broker, with the address clients are told to use. */
  brokers(): BrokerEndpoint[];
  /** This broker's advertised endpoint. */
  localEndpoint(): BrokerEndpoint;
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
    /** The advertised address, read when asked: the port is known only once bound. */
    private readonly advertised: () => { host: string; port: number },
  ) {}

  get controllerId(): number {
    return this.localNodeId;
  }

  localEndpoint(): BrokerEndpoint {
    const { host, port } = this.advertised();
    return { nodeId: this.localNodeId, host, port, rack: null };
  }

  brokers(): BrokerEndpoint[] {
    return [this.localEndpoint()];
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
