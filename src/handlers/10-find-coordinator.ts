// FindCoordinator: v0-6.
// Behaviour: on a single broker every group's coordinator is this broker; the first lookup creates
// __consumer_offsets, as in Kafka. Transaction coordinators
// (keyType 1) do not exist yet: those keys get COORDINATOR_NOT_AVAILABLE, which clients treat as retriable.
// Version notes: v4+ batches several keys per request (KIP-699); earlier versions carry one key.
// librdkafka only enables LZ4 for brokers that advertise this API, so it matters beyond groups.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import type { ClusterView } from '../cluster/cluster-view.js';
import type { TopicAdmin } from '../topics.js';
import type { FindCoordinatorResponse } from '../../protocol/messages/10-find-coordinator.js';
import type { ElementOf } from '../../protocol/schema.js';

type Coordinator = ElementOf<FindCoordinatorResponse['coordinators']>;
/** Where a key's coordinator is: a v4+ entry without its key, or the whole answer of v0-3 (same names). */
type Location = Omit<Coordinator, 'key'>;

const GROUP = 0;

function locate(cluster: ClusterView, topics: TopicAdmin, keyType: number): Location {
  if (keyType !== GROUP) {
    return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: 'krill has no transaction coordinator yet', nodeId: -1, host: '', port: -1 };
  }
  topics.ensureOffsetsTopic(); // as Kafka creates __consumer_offsets on the first lookup
  const { nodeId, host, port } = cluster.localEndpoint();
  return { errorCode: ErrorCode.NONE, errorMessage: null, nodeId, host, port };
}

export default defineHandler({
  apiKey: 10,
  minVersion: 0,
  maxVersion: 6,
  handle({ cluster, topics, apiVersion }, req): FindCoordinatorResponse {
    if (apiVersion >= 4) {
      return {
        throttleTimeMs: 0,
        coordinators: req.coordinatorKeys.map((key): Coordinator => ({ key, ...locate(cluster, topics, req.keyType) })),
      };
    }
    return { throttleTimeMs: 0, ...locate(cluster, topics, req.keyType) };
  },
});
