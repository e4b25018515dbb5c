// Transactions as a partition log sees them: transactional batches open a producer's transaction (holding
// the last stable offset back), a marker ends it; aborted ones are listed; the open ones survive a restart.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { buildMarkerBatch } from '../../protocol/control-record.js';
import { scanBatches } from '../../protocol/record-batch.js';
import { PartitionLog, type PartitionLogOptions } from '../../src/storage/partition-log.js';
import { buildBatch, rmDir, tempDir, toAppend } from './batches.js';

let root: string;
let dir: string;
const open: PartitionLog[] = [];

beforeEach(() => {
  root = tempDir();
  dir = path.join(root, 'topic-0');
});

afterEach(async () => {
  for (const l of open.splice(0)) {
    if (!l.isClosed) l.close();
    await l.flushed();
  }
  rmDir(root);
});

function openLog(opts: PartitionLogOptions = {}): PartitionLog {
  const log = PartitionLog.open(dir, opts);
  open.push(log);
  return log;
}

const TRANSACTIONAL = 0x10;

function sendTxn(log: PartitionLog, producerId: number, baseSequence: number, records = 2, producerEpoch = 0) {
  const { buf, batches } = toAppend(buildBatch({ records, producerId, producerEpoch, baseSequence, attributes: TRANSACTIONAL }));
  return log.append(
    buf,
    batches.map((b) => ({ ...b, isTransactional: true })),
  );
}

function mark(log: PartitionLog, producerId: number, commit: boolean, producerEpoch = 0, coordinatorEpoch = 0) {
  const buf = buildMarkerBatch(producerId, producerEpoch, { commit, coordinatorEpoch }, 1_000);
  return log.append(buf, scanBatches(buf, { fromClient: false }));
}

describe('transactions in a partition log', () => {
  it('holds the first unstable offset at the earliest open transaction until its marker', () => {
    const log = openLog();
    expect(log.firstUnstableOffset()).toBeNull();
    sendTxn(log, 1, 0); // offsets 0-1
    sendTxn(log, 2, 0); // 2-3
    sendTxn(log, 1, 2); // 4-5, same transaction of producer 1
    expect(log.firstUnstableOffset()).toBe(0);
    expect(mark(log, 1, true).baseOffset).toBe(6);
    expect(log.firstUnstableOffset()).toBe(2);
    mark(log, 2, false); // offset 7
    expect(log.firstUnstableOffset()).toBeNull();
    expect(log.abortedTransactions(0, 8)).toEqual([{ producerId: 2, firstOffset: 2, lastOffset: 7, lastStableOffset: 8 }]);
    expect(log.abortedTransactions(0, 2)).toEqual([]); // a fetch ending before the transaction's records
    expect(log.abortedTransactions(8, 9)).toEqual([]); // one starting after its marker
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.txnindex'))).toEqual(['00000000000000000000.txnindex']);
  });

  it('refuses a marker from an older producer epoch or an older coordinator epoch', () => {
    const log = openLog();
    sendTxn(log, 1, 0, 1, 3);
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return (err as KafkaError).code;
      }
      return 0;
    };
    expect(code(() => mark(log, 1, true, 2))).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    mark(log, 1, true, 3, 5);
    sendTxn(log, 1, 1, 1, 3);
    expect(code(() => mark(log, 1, true, 3, 4))).toBe(ErrorCode.TRANSACTION_COORDINATOR_FENCED);
  });

  it('keeps an open transaction across a clean close and a crash, and its end after a crash', () => {
    let log = openLog();
    sendTxn(log, 9, 0); // 0-1
    log.close();
    log = openLog({ cleanShutdown: true });
    expect(log.firstUnstableOffset()).toBe(0); // from the snapshot
    sendTxn(log, 9, 2); // 2-3
    mark(log, 9, false); // 4
    sendTxn(log, 9, 4); // 5-6: a new transaction
    log = openLog({ cleanShutdown: false }); // crash: replay after the snapshot
    expect(log.firstUnstableOffset()).toBe(5);
    expect(log.abortedTransactions(0, 7)).toEqual([{ producerId: 9, firstOffset: 0, lastOffset: 4, lastStableOffset: 5 }]);
    log.close();
    log = openLog({ cleanShutdown: true }); // no replay: the abort comes from the .txnindex
    expect(log.abortedTransactions(0, 7)).toEqual([{ producerId: 9, firstOffset: 0, lastOffset: 4, lastStableOffset: 5 }]);
    expect(log.firstUnstableOffset()).toBe(5);
  });
});
