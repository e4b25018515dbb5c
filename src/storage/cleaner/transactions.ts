// What the cleaner tracks of transactions while it walks a log in offset order (Kafka's
// CleanedTransactionMetadata), from the aborted transactions of the range (the segments' .txnindex):
//   - a transactional data batch of a producer whose aborted transaction has begun (its first offset is
//     reached) and not yet ended (its abort marker not yet met) belongs to that aborted transaction: it is
//     removed;
//   - an abort marker whose transaction still had batches in this pass is kept, and its entry goes to the
//     cleaned segment's .txnindex (those batches are removed by this very pass, so the next pass finds the
//     transaction empty);
//   - a commit marker whose transaction had no batch in this pass, and an abort marker whose transaction had
//     none, end an empty transaction: the marker may go once its delete horizon has passed.
// Transactions still open have no .txnindex entry: their batches stay. The aborted transactions are given
// group by group (addAborted), each time those of the offsets the group's rewrite covers, which may lie past
// the pass's end offset; a transaction given twice (spanning two groups) is taken once.

import type { BatchInfo } from '../../../protocol/record-batch.js';
import type { TransactionMarker } from '../../../protocol/control-record.js';
import type { AbortedTxn } from '../transaction-index.js';

interface OngoingAbort {
  txn: AbortedTxn;
  /** Whether a batch of the transaction was met in this pass. */
  hadBatches: boolean;
}

export interface MarkerVerdict {
  /** The marker ends a transaction with no batch left: it may be removed once past its delete horizon. */
  canDiscard: boolean;
  /** The aborted transaction to keep in the cleaned segment's .txnindex, when the marker stays for it. */
  keepInIndex: AbortedTxn | null;
}

export class CleanedTransactionMetadata {
  /** Aborted transactions given and not yet begun, by first offset. */
  private readonly pending: AbortedTxn[] = [];
  private readonly given = new Set<string>();
  private readonly ongoingAborted = new Map<number, OngoingAbort>();
  private readonly ongoingCommitted = new Set<number>();

  /** `aborted`: aborted transactions with records in the range about to be read. */
  constructor(aborted: readonly AbortedTxn[] = []) {
    this.addAborted(aborted);
  }

  /** More aborted transactions, with records in the next range to be read (those given before are ignored). */
  addAborted(aborted: readonly AbortedTxn[]): void {
    for (const txn of aborted) {
      const id = `${txn.producerId}:${txn.firstOffset}`;
      if (this.given.has(id)) continue;
      this.given.add(id);
      this.pending.push(txn);
    }
    this.pending.sort((a, b) => a.firstOffset - b.firstOffset);
  }

  private consumeAbortedUpTo(offset: number): void {
    while (this.pending.length > 0 && this.pending[0].firstOffset <= offset) {
      const txn = this.pending.shift()!;
      if (!this.ongoingAborted.has(txn.producerId)) this.ongoingAborted.set(txn.producerId, { txn, hadBatches: false });
    }
  }

  /** A data batch: whether it belongs to an aborted transaction (and is to be removed). */
  onBatchRead(b: BatchInfo): boolean {
    this.consumeAbortedUpTo(b.baseOffset + b.lastOffsetDelta);
    if (!b.isTransactional) return false;
    const abort = this.ongoingAborted.get(b.producerId);
    if (abort) {
      abort.hadBatches = true;
      return true;
    }
    this.ongoingCommitted.add(b.producerId);
    return false;
  }

  /** A control batch, with its marker (null for a control record of another type, which is kept). */
  onControlBatchRead(b: BatchInfo, marker: TransactionMarker | null): MarkerVerdict {
    this.consumeAbortedUpTo(b.baseOffset + b.lastOffsetDelta);
    if (!marker) return { canDiscard: false, keepInIndex: null };
    if (!marker.commit) {
      const abort = this.ongoingAborted.get(b.producerId);
      this.ongoingAborted.delete(b.producerId);
      if (abort?.hadBatches) return { canDiscard: false, keepInIndex: abort.txn };
      return { canDiscard: true, keepInIndex: null };
    }
    const hadBatches = this.ongoingCommitted.delete(b.producerId);
    return { canDiscard: !hadBatches, keepInIndex: null };
  }
}
