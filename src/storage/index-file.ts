// Shared machinery of the two sparse index files (.index and .timeindex): a file of fixed-size entries
// appended one at a time, file size = entries × entrySize (no preallocation, unlike Kafka, whose mmapped
// files are preallocated and trimmed on close). Entries are not held in memory: lookups binary-search
// the file with positional reads (page cache), and only the last entry is cached, so a partition costs
// no memory per indexed byte and a tail lookup costs no read at all. File descriptors are opened lazily
// ('a+': appends go to the end, reads are positional), counted against the bound of open-files.ts on
// behalf of their owner (the segment), and can be released and reopened at will.

import fs from './storage-fs.js';
import { lastIndexWhere } from './binary-search.js';
import { OpenFiles, type FileOwner } from './open-files.js';

export abstract class IndexFile<E> implements FileOwner {
  private fd: number | null = null;
  private count = -1;
  private last: E | null = null;
  private readonly scratch: Buffer;
  private readonly owner: FileOwner;

  /** `owner` is the segment the file belongs to, `files` its log manager's bound; a standalone index owns itself. */
  protected constructor(
    readonly path: string,
    readonly baseOffset: number,
    readonly entrySize: number,
    private readonly files: OpenFiles = new OpenFiles(),
    owner?: FileOwner,
  ) {
    this.scratch = Buffer.alloc(entrySize);
    this.owner = owner ?? this;
  }

  protected abstract decode(buf: Buffer, at: number): E;

  /** Whether the file exists and holds whole entries only (the cheap check done when a log is opened). */
  sane(): boolean {
    try {
      const st = fs.statSync(this.path);
      return st.isFile() && st.size % this.entrySize === 0;
    } catch {
      return false;
    }
  }

  private handle(): number {
    if (this.fd !== null) this.files.touch(this.owner);
    else {
      this.fd = this.files.open(this.owner, this.path, 'a+');
      const size = fs.fstatSync(this.fd).size;
      if (size % this.entrySize !== 0) {
        // A torn entry from an interrupted write: drop it (the entries before it are whole).
        fs.ftruncateSync(this.fd, size - (size % this.entrySize));
      }
      this.count = Math.floor(size / this.entrySize);
      this.last = null;
    }
    return this.fd;
  }

  get entries(): number {
    this.handle();
    return this.count;
  }

  entry(i: number): E {
    const fd = this.handle();
    if (i < 0 || i >= this.count) throw new RangeError(`index entry ${i} of ${this.count}`);
    const n = fs.readSync(fd, this.scratch, 0, this.entrySize, i * this.entrySize);
    if (n !== this.entrySize) throw new Error(`short read of ${this.path}`);
    return this.decode(this.scratch, 0);
  }

  lastEntry(): E | null {
    if (this.entries === 0) return null;
    this.last ??= this.entry(this.count - 1);
    return this.last;
  }

  /** The largest i for which before(entry(i)) holds, given before() is true on a prefix; -1 if none. */
  protected searchLast(before: (e: E) => boolean): number {
    return lastIndexWhere(0, this.entries - 1, (i) => before(this.entry(i)));
  }

  protected appendEncoded(buf: Buffer, entry: E): void {
    const fd = this.handle();
    let done = 0;
    while (done < buf.length) done += fs.writeSync(fd, buf, done, buf.length - done);
    this.count++;
    this.last = entry;
  }

  /** Keeps the first n entries. */
  truncateEntries(n: number): void {
    const fd = this.handle();
    if (n >= this.count) return;
    fs.ftruncateSync(fd, Math.max(n, 0) * this.entrySize);
    this.count = Math.max(n, 0);
    this.last = null;
  }

  reset(): void {
    this.truncateEntries(0);
  }

  /** Reads every entry (chunked) and calls visit(entry, i); stops early when visit returns a string, which is returned. */
  scan(visit: (e: E, i: number) => string | null): string | null {
    const fd = this.handle();
    const per = Math.max(1, Math.floor(65536 / this.entrySize));
    const chunk = Buffer.alloc(per * this.entrySize);
    for (let first = 0; first < this.count; first += per) {
      const n = Math.min(per, this.count - first);
      const got = fs.readSync(fd, chunk, 0, n * this.entrySize, first * this.entrySize);
      if (got !== n * this.entrySize) return `short read of ${this.path}`;
      for (let j = 0; j < n; j++) {
        const problem = visit(this.decode(chunk, j * this.entrySize), first + j);
        if (problem) return problem;
      }
    }
    return null;
  }

  flush(): void {
    fs.fsyncSync(this.handle());
  }

  /** Closes the descriptor; the next use reopens it. */
  close(): void {
    if (this.fd !== null) {
      const fd = this.fd;
      this.fd = null;
      this.files.close(this.owner, fd);
    }
  }

  closeFiles(): void {
    this.close();
  }

  delete(): void {
    this.close();
    fs.rmSync(this.path, { force: true });
  }
}
