// FindCoordinator: v0-6.
// Behaviour: on a single broker every group's (keyType 0) and every transactional id's (keyType 1)
// coordinator is this broker; the first lookup creates __consumer_offsets or __transaction_state, as in
// Kafka. Other key types are INVALID_REQUEST.
// Version notes: v4+ batches several keys per request (KIP-699); earlier versions carry one key.
// librdkafka only enables LZ4 for brokers that advertise this API, so it matters beyond groups.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import type { ClusterView } from '../cluster/cluster-view.js';
import type { TopicAdmin } from '../topics.js';
import type { TransactionStateTopic } from '../txn/state-topic.js';
import type { FindCoordinatorResponse } from '../../protocol/messages/10-find-coordinator.js';
import type { ElementOf } from '../../protocol/schema.js';

type Coordinator = ElementOf<FindCoordinatorResponse['coordinators']>;
/** Where a key's coordinator is: a v4+ entry without its key, or the whole answer of v0-3 (same names). */
type Location = Omit<Coordinator, 'key'>;

const GROUP = 0;
const TRANSACTION = 1;

function locate(cluster: ClusterView, topics: TopicAdmin, transactionState: TransactionStateTopic, keyType: number): Location {
  if (keyType === GROUP) topics.ensureOffsetsTopic(); // as Kafka creates __consumer_offsets on the first lookup
  else if (keyType === TRANSACTION) transactionState.ensureTopic();
  else return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unknown coordinator type ${keyType}`, nodeId: -1, host: '', port: -1 };
  const { nodeId, host, port } = cluster.localEndpoint();
  return { errorCode: ErrorCode.NONE, errorMessage: null, nodeId, host, port };
}

export default defineHandler({
  apiKey: 10,
  minVersion: 0,
  maxVersion: 6,
  handle({ cluster, topics, transactionState, apiVersion }, req): FindCoordinatorResponse {
    if (apiVersion >= 4) {
      return {
        throttleTimeMs: 0,
        coordinators: req.coordinatorKeys.map((key): Coordinator => ({ key, ...locate(cluster, topics, transactionState, req.keyType) })),
      };
    }
    return { throttleTimeMs: 0, ...locate(cluster, topics, transactionState, req.keyType) };
  },
});
