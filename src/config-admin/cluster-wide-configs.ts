// Where the cluster-wide dynamic broker configs (AlterConfigs of the "" BROKER resource) go besides this
// broker's own dynamic configs file: in a cluster, ZooKeeper (ZkCluster.share), from which every broker
// applies them; a single broker is the whole cluster, and its file (DynamicBrokerConfigs) is all there is.

export interface ClusterWideConfigs {
  /** Writes checked cluster-wide configs where every other broker reads them; a failure is the request's. */
  share(configs: Record<string, string>): Promise<void>;
}

/** A single broker shares its cluster-wide configs with nobody. */
export const SINGLE_BROKER_WIDE_CONFIGS: ClusterWideConfigs = { share: () => Promise.resolve() };
