// What a broker knows of its cluster: its id, the cluster's, which broker is the controller and where
// clients reach each broker (Metadata, DescribeCluster, FindCoordinator). Kafka keeps this in its
// MetadataCache, fed by the controller; a single krill is its own cluster and controller.

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
}
