// Kafka's AlterPartitionManager: how a leader's ISR changes reach the controller. The ReplicaManager decides
// that a partition's ISR should change (a follower fell behind, or caught up) and hands the new ISR here;
// this module is the only writer of the partition's pending ISR (Partition.beginIsrChange/endIsrChange),
// sends AlterPartition, and makes the controller's answer the partition's state.

import type { Logger } from '../logger.js';
import { ErrorCode } from '../../protocol/errors.js';
import { API_KEYS } from '../../protocol/messages/index.js';
import type { Partition } from '../partition/partition.js';
import type { ReplicaManager } from '../partition/replica-manager.js';
import { INTER_BROKER_VERSIONS } from './broker-client.js';
import type { BrokerEndpoint } from './cluster-view.js';
import type { PeerClients } from './peer-clients.js';

const ALTER_PARTITION_RETRY_MS = 1000;

export interface AlterPartitionManagerOptions {
  localNodeId: number;
  /** This broker's registration epoch, which the controller checks. */
  brokerEpoch: () => number;
  /** Where the controller listens, as this broker's metadata has it (undefined when it knows none). */
  controller: () => BrokerEndpoint | undefined;
  peers: PeerClients;
  replicas: ReplicaManager;
  log: Logger;
}

export class AlterPartitionManager {
  private closed = false;

  constructor(private readonly options: AlterPartitionManagerOptions) {}

  /**
   * Asks the controller for `isr`. A refusal drops the request (the next ISR check, or a catching-up fetch, asks
   * again); a failed send is retried while the change is still the partition's pending one.
   */
  submit(partition: Partition, isr: number[]): void {
    if (this.closed) return;
    partition.beginIsrChange(isr);
    this.send(partition, isr);
  }

  /** No more requests, and no more retries of those in flight (the broker is leaving the cluster). */
  close(): void {
    this.closed = true;
  }

  private send(partition: Partition, isr: number[]): void {
    const { options } = this;
    const controller = options.controller();
    if (!controller) {
      partition.endIsrChange(isr);
      return;
    }
    const leaderEpoch = partition.leaderEpoch;
    options.peers
      .to(controller)
      .send(API_KEYS.AlterPartition, INTER_BROKER_VERSIONS.AlterPartition, {
        brokerId: options.localNodeId,
        brokerEpoch: options.brokerEpoch(),
        topics: [
          {
            topicName: partition.topic,
            partitions: [{ partitionIndex: partition.index, leaderEpoch, newIsr: isr, leaderRecoveryState: 0, partitionEpoch: partition.partitionEpoch }],
          },
        ],
      })
      .then(
        (response) => {
          if (!partition.endIsrChange(isr)) return;
          const r = response.topics[0]?.partitions[0];
          const errorCode = r?.errorCode ?? response.errorCode;
          if (errorCode !== ErrorCode.NONE || !r) {
            options.log.info({ topic: partition.topic, partition: partition.index, isr, errorCode }, 'the controller did not change the ISR');
            return;
          }
          if (!partition.isLeader || r.leaderEpoch !== partition.leaderEpoch || r.leaderId !== options.localNodeId) return;
          options.replicas.isrChanged(partition.isr, r.isr);
          partition.setLeaderState({
            leaderId: r.leaderId,
            leaderEpoch: r.leaderEpoch,
            replicas: partition.replicas,
            isr: r.isr,
            partitionEpoch: r.partitionEpoch,
          });
          options.replicas.highWatermarkMoved(partition);
        },
        (err) => {
          options.log.warn(
            { topic: partition.topic, partition: partition.index, err: (err as Error).message },
            'could not send AlterPartition to the controller; retrying',
          );
          // As Kafka's leader: the controller may still apply it, so the ISR in flight keeps counting (the larger
          // set) and the request is sent again, until an answer or a new LeaderAndIsr ends it.
          const retry = setTimeout(() => {
            if (!this.closed && partition.pendingIsr === isr && partition.isLeader && partition.leaderEpoch === leaderEpoch) this.send(partition, isr);
          }, ALTER_PARTITION_RETRY_MS);
          retry.unref();
        },
      );
  }
}
