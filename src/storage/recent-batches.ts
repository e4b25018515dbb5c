// Where the batches last appended to a segment start, so that a fetch near the end of the log (the
// usual consumer) can read exactly the whole batches that fit its budget. Without it a read takes the
// whole budget from the file and cuts it at the last whole batch, and the cut-off part is read again by
// the next fetch: with batches of about the budget's size, that is nearly twice the bytes.
// Bounded (positions of the last LIMIT batches); emptied when the segment stops being active.

import { lastIndexWhere } from './binary-search.js';

const LIMIT = 1024;

export class RecentBatches {
  private starts: number[] = [];
  private first = 0;

  /** Records a batch that starts at `position` (positions only increase). */
  add(position: number): void {
    this.starts.push(position);
    if (this.starts.length - this.first > LIMIT) {
      this.first++;
      if (this.first >= LIMIT) {
        this.starts = this.starts.slice(this.first);
        this.first = 0;
      }
    }
  }

  clear(): void {
    this.starts = [];
    this.first = 0;
  }

  /**
   * The end of the last whole batch in [position, limit], for a `position` that is a recorded batch start,
   * given the segment's size (the end of its last batch); -1 when unknown or when not even the first batch
   * ends by `limit`.
   */
  wholeBatchesEnd(position: number, limit: number, size: number): number {
    const n = this.starts.length;
    if (n === this.first || position < this.starts[this.first]) return -1;
    if (limit >= size) return size > position ? size : -1;
    // The largest recorded start <= limit: every batch before it ends by then.
    const i = lastIndexWhere(this.first, n - 1, (j) => this.starts[j] <= limit);
    const end = i < this.first ? -1 : this.starts[i];
    return end > position && end <= limit ? end : -1;
  }
}
