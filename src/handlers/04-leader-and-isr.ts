// LeaderAndIsr: v7 only, the version krill's controller sends (cluster/broker-client.ts INTER_BROKER_VERSIONS).
// Behaviour: from the controller only, in a cluster only (registered when zookeeper.connect is set): this
// broker's role for each partition named (cluster/zk-cluster.ts applyLeaderAndIsr). A request of an older
// controller epoch, or for an older registration of this broker, is refused whole (STALE_CONTROLLER_EPOCH,
// STALE_BROKER_EPOCH), as Kafka refuses it.
import { defineHandler } from './registry.js';
import type { LeaderAndIsrResponse } from '../../protocol/messages/04-leader-and-isr.js';

export default defineHandler({
  apiKey: 4,
  minVersion: 7,
  maxVersion: 7,
  async handle({ controllerRequests }, req): Promise<LeaderAndIsrResponse> {
    const { errorCode, partitions } = await controllerRequests.applyLeaderAndIsr(req);
    const byTopic = new Map<string, { topicId: Buffer; partitionErrors: { topicName: string; partitionIndex: number; errorCode: number }[] }>();
    for (const p of partitions) {
      const entry = byTopic.get(p.topicName) ?? { topicId: p.topicId, partitionErrors: [] };
      entry.partitionErrors.push({ topicName: p.topicName, partitionIndex: p.partitionIndex, errorCode: p.errorCode });
      byTopic.set(p.topicName, entry);
    }
    return { errorCode, partitionErrors: [], topics: [...byTopic.values()] };
  },
  errorResponse(_req, code): LeaderAndIsrResponse {
    return { errorCode: code, partitionErrors: [], topics: [] };
  },
});
