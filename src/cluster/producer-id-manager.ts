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

export class ProducerIdManager {
  private next = 0;
  private blockEnd = -1;

  constructor(
    private readonly dataDir: string,
    private readonly nodeId: number,
  ) {}

  /** A producer id not handed out before by this data dir. */
  generateProducerId(): number {
    if (this.next > this.blockEnd) this.reserveBlock();
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
