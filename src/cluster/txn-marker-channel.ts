// Kafka's TransactionMarkerChannelManager, for the partitions other brokers lead: the transaction
// coordinator's commit or abort markers go to each partition's leader as WriteTxnMarkers. Markers for the
// partitions this broker leads are written locally (broker.ts) and never come here.

import type { Logger } from '../logger.js';
import { ErrorCode } from '../../protocol/errors.js';
import { API_KEYS } from '../../protocol/messages/index.js';
import { markerKey, type TxnMarker } from '../txn/markers.js';
import { INTER_BROKER_VERSIONS } from './broker-client.js';
import type { MetadataCache } from './metadata-cache.js';
import type { PeerClients } from './peer-clients.js';

/** Markers on their way to other brokers at once; more wait for the coordinator's next retry. */
const MAX_MARKERS_IN_FLIGHT = 10_000;

export class TxnMarkerChannel {
  /** Markers written by their leader, until the coordinator takes note (see send). */
  private readonly written = new Set<string>();
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly cache: MetadataCache,
    private readonly peers: PeerClients,
    private readonly log: Logger,
  ) {}

  /**
   * The marker for a partition another broker leads. True once that leader has written it; false while it is on
   * its way (or the partition has no leader yet): the coordinator keeps the transaction prepared and asks again,
   * and `delivered` is called when the leader answers, so that it does at once.
   */
  send(topic: string, partition: number, marker: TxnMarker, delivered: () => void): boolean {
    const key = markerKey(marker, topic, partition);
    if (this.written.delete(key)) return true;
    if (this.inFlight.has(key)) return false;
    const leader = this.cache.partition(topic, partition)?.leaderId ?? -1;
    const endpoint = this.cache.broker(leader);
    if (!endpoint || this.inFlight.size >= MAX_MARKERS_IN_FLIGHT) return false;
    this.inFlight.add(key);
    this.peers
      .to(endpoint)
      .send(API_KEYS.WriteTxnMarkers, INTER_BROKER_VERSIONS.WriteTxnMarkers, {
        markers: [
          {
            producerId: marker.producerId,
            producerEpoch: marker.producerEpoch,
            transactionResult: marker.commit,
            topics: [{ name: topic, partitionIndexes: [partition] }],
            coordinatorEpoch: marker.coordinatorEpoch,
          },
        ],
      })
      .then(
        (response) => {
          const errorCode = response.markers[0]?.topics[0]?.partitions[0]?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR;
          if (errorCode !== ErrorCode.NONE) {
            this.log.warn({ topic, partition, leader, errorCode }, 'the leader did not write a transaction marker; retrying later');
            return;
          }
          // Consumed by the coordinator's synchronous retry inside delivered(), or dropped: a later transaction of
          // the same producer and epoch must not find it.
          this.written.add(key);
          delivered();
          this.written.delete(key);
        },
        (err) => {
          this.log.warn({ topic, partition, leader, err: (err as Error).message }, 'could not send a transaction marker; retrying later');
        },
      )
      .finally(() => this.inFlight.delete(key));
    return false;
  }
}
