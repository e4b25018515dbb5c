// FindCoordinator: v0-6.
// Behaviour: a group's (keyType 0) coordinator is the leader of its __consumer_offsets partition, a
// transactional id's (keyType 1) the leader of its __transaction_state partition: this broker on a single
// broker, the leader the cluster's metadata names in a cluster (COORDINATOR_NOT_AVAILABLE while the
// partition has none). The first lookup creates the topic, as in Kafka; in a cluster once as many brokers
// are alive as its replication factor, answering COORDINATOR_NOT_AVAILABLE until it exists. Other key types
// are INVALID_REQUEST.
// Version notes: v4+ batches several keys per request (KIP-699); earlier versions carry one key.
// librdkafka only enables LZ4 for brokers that advertise this API, so it matters beyond groups.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import { onListener, type ClusterView } from '../cluster/cluster-view.js';
import type { TopicAdmin } from '../topics.js';
import { TRANSACTION_STATE_TOPIC, partitionForTransactionalId } from '../txn/state-topic.js';
import { OFFSETS_TOPIC } from '../group/offsets-topic.js';
import { partitionForGroup } from '../group/records.js';
import { asKafkaError } from './error-result.js';
import type { FindCoordinatorResponse } from '../../protocol/messages/10-find-coordinator.js';
import type { ElementOf } from '../../protocol/schema.js';

type Coordinator = ElementOf<FindCoordinatorResponse['coordinators']>;
/** Where a key's coordinator is: a v4+ entry without its key, or the whole answer of v0-3 (same names). */
type Location = Omit<Coordinator, 'key'>;

const GROUP = 0;
const TRANSACTION = 1;

const unavailable = (errorCode: number, errorMessage: string): Location => ({ errorCode, errorMessage, nodeId: -1, host: '', port: -1 });

function locate(cluster: ClusterView, listener: string, topics: TopicAdmin, key: string, keyType: number): Location {
  let topic: string;
  let partition: number;
  try {
    // As Kafka creates __consumer_offsets / __transaction_state on the first lookup.
    if (keyType === GROUP) {
      topics.ensureOffsetsTopic();
      topic = OFFSETS_TOPIC;
      partition = partitionForGroup(key, topics.getTopic(OFFSETS_TOPIC)!.partitions);
    } else if (keyType === TRANSACTION) {
      topics.ensureTransactionStateTopic();
      topic = TRANSACTION_STATE_TOPIC;
      partition = partitionForTransactionalId(key, topics.getTopic(TRANSACTION_STATE_TOPIC)!.partitions);
    } else {
      return unavailable(ErrorCode.INVALID_REQUEST, `Unknown coordinator type ${keyType}`);
    }
  } catch (err) {
    const { code, message } = asKafkaError(err);
    return unavailable(code, message);
  }
  // The partition's leader coordinates (a single broker: itself), once the controller's metadata has reached
  // this broker (its logs may exist before: LeaderAndIsr comes first).
  const leader = cluster.partitionLeader(topic, partition);
  if (leader === undefined)
    return unavailable(ErrorCode.COORDINATOR_NOT_AVAILABLE, `The coordinator's partition ${topic}-${partition} is not in this broker's metadata yet.`);
  const endpoint = onListener(cluster.brokers(), listener).find((b) => b.nodeId === leader);
  if (!endpoint) return unavailable(ErrorCode.COORDINATOR_NOT_AVAILABLE, `The coordinator's partition ${topic}-${partition} has no leader.`);
  return { errorCode: ErrorCode.NONE, errorMessage: null, nodeId: endpoint.nodeId, host: endpoint.host, port: endpoint.port };
}

export default defineHandler({
  apiKey: 10,
  minVersion: 0,
  maxVersion: 6,
  handle({ cluster, topics, apiVersion, session }, req): FindCoordinatorResponse {
    if (apiVersion >= 4) {
      return {
        throttleTimeMs: 0,
        coordinators: req.coordinatorKeys.map((key): Coordinator => ({ key, ...locate(cluster, session.listener.name, topics, key, req.keyType) })),
      };
    }
    return { throttleTimeMs: 0, ...locate(cluster, session.listener.name, topics, req.key, req.keyType) };
  },
});
