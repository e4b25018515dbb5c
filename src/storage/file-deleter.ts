// Removal of files and directories that left the log, as Kafka does it: the caller renames them first (a
// segment's files to <name>.deleted, a deleted topic's partition directory to <dir>.<id>-delete), so that
// nothing reads them by their old name and a restart recognises them as garbage (the log loader removes
// leftover *.deleted files, the log manager leftover -delete directories); this module removes them
// later, off the request path: after file.delete.delay.ms (a segment), or log.segment.delete.delay.ms (a
// deleted topic's directories), through the thread pool.
//
// A removal that fails is logged and tried again after the same delay: the files are garbage already,
// and a restart removes them anyway. close() stops every timer: what was still pending stays on disk
// until the next open, as in Kafka. Timers are unref'd, so pending removals never keep a process alive.

import fs from './storage-fs.js';
import { DELETED_SUFFIX } from './file-names.js';

export interface FileDeleterLogger {
  warn(obj: object, msg?: string): void;
}

/** After this many failed tries a removal is left to the next restart (and logged once more). */
const MAX_TRIES = 10;

export class FileDeleter {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly log: FileDeleterLogger | null = null) {}

  /** Removes `paths` (files or directories, recursively) after `delayMs`; missing ones are fine. */
  schedule(paths: readonly string[], delayMs: number, tries = 1): void {
    if (this.closed || paths.length === 0) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        const run = this.remove(paths, delayMs, tries);
        this.running.add(run);
        void run.finally(() => this.running.delete(run));
      },
      Math.min(Math.max(0, delayMs), 2_147_483_647),
    );
    timer.unref();
    this.timers.add(timer);
  }

  /** Removals waiting for their delay or under way. */
  get pending(): number {
    return this.timers.size + this.running.size;
  }

  /** Stops every pending removal (the files stay until the next open) and waits for those under way. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await Promise.all([...this.running]);
  }

  private async remove(paths: readonly string[], delayMs: number, tries: number): Promise<void> {
    const failed: string[] = [];
    for (const p of paths) {
      try {
        await fs.promises.rm(p, { recursive: true, force: true });
      } catch (err) {
        failed.push(p);
        this.log?.warn(
          { path: p, err: (err as Error).message, tries },
          `removing ${p} failed; ${tries < MAX_TRIES ? 'trying again later' : 'leaving it to the next restart'}`,
        );
      }
    }
    if (failed.length > 0 && tries < MAX_TRIES) this.schedule(failed, Math.max(delayMs, 1_000), tries + 1);
  }
}

/**
 * Renames `file` to `<file>.deleted` (Kafka's LogFileUtils.DELETED_FILE_SUFFIX); returns the new path, or
 * null when the file does not exist.
 */
export function renameForDeletion(file: string): string | null {
  const doomed = file + DELETED_SUFFIX;
  try {
    fs.renameSync(file, doomed);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  return doomed;
}
