// Hands out producer ids (InitProducerId), never the same one twice, across restarts too: a reused id would
// let a new producer's batches be taken for retries of an old one's. As Kafka's controller does, ids are
// reserved in blocks of 1,000: the end of the latest block is written (and fsynced) to the data dir before
// any id of it is handed out, so after a restart, clean or not, the next block starts past every id given.
//
// File <dataDir>/latest-producer-id-block.json (the content of Kafka's ZooKeeper node of that name):
//   {"version":1,"broker":<node id>,"block_start":"<first id>","block_end":"<last id>"}

import path from 'node:path';
import { KafkaError } from '../../protocol/errors.js';
import { readTextIfExists, writeFileAtomic } from '../storage/atomic-file.js';

export const PRODUCER_ID_BLOCK_FILE = 'latest-producer-id-block.json';
const BLOCK_SIZE = 1000;

/** Where a cluster's brokers reserve blocks (ZooKeeper's /latest_producer_id_block): unique across brokers. */
export type BlockSource = (blockSize: number) => Promise<{ start: number; end: number }>;

export class ProducerIdManager {
  private next = 0;
  private blockEnd = -1;
  /** In a cluster: the block reserved ahead, and the reservation under way. */
  private prefetched: { start: number; end: number } | null = null;
  private fetching: Promise<void> | null = null;
  private source: BlockSource | null = null;

  constructor(
    private readonly dataDir: string,
    private readonly nodeId: number,
  ) {}

  /**
   * In a cluster, blocks come from ZooKeeper rather than the data dir, as in Kafka, so that no two brokers
   * hand out the same id. Resolves once the first block is reserved.
   */
  async useBlockSource(source: BlockSource): Promise<void> {
    this.source = source;
    this.next = 0;
    this.blockEnd = -1;
    await this.prefetch();
  }

  private prefetch(): Promise<void> {
    this.fetching ??= this.source!(BLOCK_SIZE)
      .then(
        (block) => {
          this.prefetched = block;
        },
        () => undefined, // retried at the next request
      )
      .finally(() => {
        this.fetching = null;
      });
    return this.fetching;
  }

  /** A producer id not handed out before by this data dir (by any broker of the cluster). */
  generateProducerId(): number {
    if (this.source) return this.generateFromSource();
    if (this.next > this.blockEnd) this.reserveBlock();
    return this.next++;
  }

  /** The next id of the current block, switching to the prefetched one; the next block is fetched halfway through. */
  private generateFromSource(): number {
    if (this.next > this.blockEnd) {
      const block = this.prefetched;
      this.prefetched = null;
      if (!block) {
        void this.prefetch();
        throw new KafkaError('COORDINATOR_LOAD_IN_PROGRESS', 'A block of producer ids is being reserved; retry.');
      }
      this.next = block.start;
      this.blockEnd = block.end;
    }
    if (!this.prefetched && this.next >= this.blockEnd - BLOCK_SIZE / 2) void this.prefetch();
    return this.next++;
  }

  private reserveBlock(): void {
    const file = path.join(this.dataDir, PRODUCER_ID_BLOCK_FILE);
    let start = 0;
    const text = readTextIfExists(file);
    if (text !== null) {
      const last = Number(JSON.parse(text).block_end);
      if (!Number.isSafeInteger(last) || last < -1) throw new KafkaError('UNKNOWN_SERVER_ERROR', `${PRODUCER_ID_BLOCK_FILE} is unreadable`);
      start = Math.max(last + 1, this.blockEnd + 1);
    }
    const end = start + BLOCK_SIZE - 1;
    if (!Number.isSafeInteger(end)) throw new KafkaError('UNKNOWN_SERVER_ERROR', 'producer ids are exhausted');
    writeFileAtomic(file, JSON.stringify({ version: 1, broker: this.nodeId, block_start: String(start), block_end: String(end) }) + '\n');
    this.next = start;
    this.blockEnd = end;
  }
}
