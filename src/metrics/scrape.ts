// What /metrics answers: the request path's counters (broker-metrics.ts), and gauges read from the broker's
// services when scraped (partitions, leaders, ISR state, purgatories, group lag, connections) rather than kept
// up to date as they change. Names are Kafka's MBeans as Prometheus's JMX exporter renders them with the
// rules Kafka deployments use (lowercased `kafka_<domain>_<type>_<name>`, a meter's count as `_total` without
// its PerSec, its tags as labels); consumer group lag, which Kafka's broker does not export, is named as
// kafka_exporter names it. The README lists every metric with its MBean.

import type { GroupCoordinator } from '../group/coordinator.js';
import type { ReplicaManager } from '../partition/replica-manager.js';
import type { ClusterView } from '../cluster/cluster-view.js';
import { splitPartitionKey } from '../topic-partition.js';
import { REQUEST_TIME_BUCKETS_MS, type BrokerMetrics } from './broker-metrics.js';
import { Exposition } from './exposition.js';

/** What a scrape reads, all of it the broker's own services. */
export interface MetricsSources {
  readonly metrics: BrokerMetrics;
  readonly replicas: ReplicaManager;
  readonly groups: GroupCoordinator;
  readonly cluster: ClusterView;
  /** The client listener's name (PLAINTEXT) and its open connections. */
  readonly listenerName: string;
  connectionCount(): number;
  /** The client quotas' throttled responses and sensors, by quota type. */
  quotaStats(): Record<'produce' | 'fetch' | 'request', { throttled: number; sensors: number }>;
}

/** Kafka's quota types (its quota sensors' MBean type) by krill's names. */
const QUOTA_TYPE = { produce: 'Produce', fetch: 'Fetch', request: 'Request' } as const;

function quotaFamilies(out: Exposition, sources: MetricsSources): void {
  const throttled = out.family('kafka_server_quota_throttled_total', 'counter', 'Responses that put their client over a client quota and were throttled.');
  const sensors = out.family('kafka_server_quota_sensors', 'gauge', 'Client quota rates kept (one per quota entity measured).');
  for (const [type, stats] of Object.entries(sources.quotaStats())) {
    throttled.sample(stats.throttled, { quota: QUOTA_TYPE[type as keyof typeof QUOTA_TYPE] });
    sensors.sample(stats.sensors, { quota: QUOTA_TYPE[type as keyof typeof QUOTA_TYPE] });
  }
}

function topicFamilies(out: Exposition, metrics: BrokerMetrics): void {
  const messagesIn = out.family('kafka_server_brokertopicmetrics_messagesin_total', 'counter', 'Records appended by produce requests (MessagesInPerSec).');
  const bytesIn = out.family('kafka_server_brokertopicmetrics_bytesin_total', 'counter', 'Bytes of record batches produced (BytesInPerSec).');
  const bytesOut = out.family('kafka_server_brokertopicmetrics_bytesout_total', 'counter', 'Bytes of records fetched by consumers (BytesOutPerSec).');
  const replicationBytesOut = out.family(
    'kafka_server_brokertopicmetrics_replicationbytesout_total',
    'counter',
    'Bytes of records fetched by followers (ReplicationBytesOutPerSec).',
  );
  for (const [topic, t] of metrics.topics) {
    messagesIn.sample(t.messagesIn, { topic });
    bytesIn.sample(t.bytesIn, { topic });
    bytesOut.sample(t.bytesOut, { topic });
    replicationBytesOut.sample(t.replicationBytesOut, { topic });
  }
}

function requestFamilies(out: Exposition, metrics: BrokerMetrics): void {
  const requests = out.family('kafka_network_requestmetrics_requests_total', 'counter', 'Requests answered, by request type and version (RequestsPerSec).');
  const totalTime = out.family(
    'kafka_network_requestmetrics_totaltimems',
    'histogram',
    'Time from receiving a request to its response being ready, in milliseconds (TotalTimeMs).',
  );
  for (const [request, r] of metrics.requests) {
    r.byVersion.forEach((count, version) => {
      if (count !== undefined) requests.sample(count, { request, version });
    });
    totalTime.histogram(REQUEST_TIME_BUCKETS_MS, r.bucketCounts, r.totalTimeMs, { request });
  }
}

/** The ReplicaManager's gauges, the controller's, and the topics that exist (for forgetTopicsBut). */
function partitionFamilies(out: Exposition, sources: MetricsSources): Set<string> {
  const { replicas, cluster } = sources;
  const topics = new Set<string>();
  let partitions = 0;
  let leaders = 0;
  let underReplicated = 0;
  let underMinIsr = 0;
  let offline = 0;
  const activeController = cluster.controllerId === cluster.localNodeId;
  for (const { topic, partition } of replicas.allPartitions()) {
    topics.add(topic.name);
    // As the controller counts OfflinePartitionsCount: partitions the cluster's metadata gives no leader.
    if (activeController && cluster.partitionMetadata(topic.name, partition.index)?.leaderId === -1) offline++;
    if (partition.log.isClosed || partition.replicas.length === 0) continue;
    partitions++;
    if (!partition.isLeader) continue;
    leaders++;
    if (partition.isr.length < partition.replicas.length) underReplicated++;
    if (partition.isr.length < topic.logConfig.minInsyncReplicas) underMinIsr++;
  }
  const gauge = (name: string, help: string, value: number) => out.family(name, 'gauge', help).sample(value);
  gauge('kafka_server_replicamanager_partitioncount', 'Partitions this broker holds a replica of (PartitionCount).', partitions);
  gauge('kafka_server_replicamanager_leadercount', 'Partitions this broker leads (LeaderCount).', leaders);
  gauge('kafka_server_replicamanager_underreplicatedpartitions', 'Partitions led here whose ISR lacks replicas (UnderReplicatedPartitions).', underReplicated);
  gauge(
    'kafka_server_replicamanager_underminisrpartitioncount',
    'Partitions led here with fewer in-sync replicas than min.insync.replicas (UnderMinIsrPartitionCount).',
    underMinIsr,
  );
  out.family('kafka_server_replicamanager_isrshrinks_total', 'counter', 'ISR shrinks this leader made (IsrShrinksPerSec).').sample(replicas.isrChanges.shrinks);
  out
    .family('kafka_server_replicamanager_isrexpands_total', 'counter', 'ISR expansions this leader made (IsrExpandsPerSec).')
    .sample(replicas.isrChanges.expands);
  gauge('kafka_controller_kafkacontroller_activecontrollercount', 'Whether this broker is the active controller (ActiveControllerCount).', +activeController);
  gauge(
    'kafka_controller_kafkacontroller_offlinepartitionscount',
    'Partitions without a leader, as the active controller sees them; 0 on other brokers (OfflinePartitionsCount).',
    offline,
  );
  const purgatorySize = out.family(
    'kafka_server_delayedoperationpurgatory_purgatorysize',
    'gauge',
    'Requests waiting in the purgatory, counted once per partition each watches (PurgatorySize).',
  );
  const delayed = out.family(
    'kafka_server_delayedoperationpurgatory_numdelayedoperations',
    'gauge',
    'Requests waiting in the purgatory (NumDelayedOperations).',
  );
  for (const purgatory of [replicas.producePurgatory, replicas.fetchPurgatory]) {
    purgatorySize.sample(purgatory.watchedCount(), { delayedOperation: purgatory.name });
    delayed.sample(purgatory.delayedCount(), { delayedOperation: purgatory.name });
  }
  return topics;
}

/**
 * kafka_exporter's group metrics, for the groups this broker coordinates: the committed offsets and the lag
 * behind the high watermark of each partition held here (a follower's high watermark trails its leader's).
 */
function groupFamilies(out: Exposition, sources: MetricsSources): void {
  const members = out.family('kafka_consumergroup_members', 'gauge', 'Members of the consumer group.');
  const current = out.family('kafka_consumergroup_current_offset', 'gauge', 'Offset the group committed for the partition.');
  const lag = out.family('kafka_consumergroup_lag', 'gauge', "Records between the group's committed offset and the partition's high watermark.");
  for (const group of sources.groups.allGroups()) {
    const consumergroup = group.groupId;
    members.sample(group.members.size, { consumergroup });
    for (const [key, committed] of group.offsets) {
      const [topic, partition] = splitPartitionKey(key);
      const labels = { consumergroup, topic, partition };
      current.sample(committed.offset, labels);
      const replica = sources.replicas.partition(topic, partition);
      if (replica && !replica.log.isClosed && committed.offset >= 0) lag.sample(Math.max(0, replica.highWatermark - committed.offset), labels);
    }
  }
}

export function scrape(sources: MetricsSources): string {
  const out = new Exposition();
  const topics = partitionFamilies(out, sources);
  sources.metrics.forgetTopicsBut(topics);
  topicFamilies(out, sources.metrics);
  requestFamilies(out, sources.metrics);
  groupFamilies(out, sources);
  quotaFamilies(out, sources);
  out
    .family('kafka_server_socket_server_metrics_connection_count', 'gauge', 'Open client connections (socket-server-metrics connection-count).')
    .sample(sources.connectionCount(), { listener: sources.listenerName });
  return out.render();
}
