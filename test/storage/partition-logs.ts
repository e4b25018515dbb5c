// Test fixture: partition logs on real files, in a fresh temporary directory per test (`<root>/topic-0`),
// closed (their background flushes awaited) and removed after each test; and the check of a KafkaError's code.
import path from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { KafkaError } from '../../protocol/errors.js';
import { PartitionLog, type PartitionLogOptions } from '../../src/storage/partition-log.js';
import { rmDir, tempDir } from './batches.js';

export interface PartitionLogs {
  /** This test's temporary directory. */
  root(): string;
  /** The partition directory the logs open: `<root>/topic-0`. */
  dir(): string;
  /** Opens the log in dir() (closed after the test). */
  open(opts?: PartitionLogOptions): PartitionLog;
  /** Closes the logs opened so far and waits for their background flushes (also done after each test). */
  closeAll(): Promise<void>;
}

/** Registers the hooks; call at the top of a test file. `defaults` are options every open() gets. */
export function usePartitionLogs(defaults: PartitionLogOptions = {}): PartitionLogs {
  let root = '';
  const opened: PartitionLog[] = [];
  const closeAll = async () => {
    for (const l of opened.splice(0)) {
      if (!l.isClosed) l.close();
      await l.flushed();
    }
  };
  beforeEach(() => {
    root = tempDir();
  });
  afterEach(async () => {
    await closeAll();
    rmDir(root);
  });
  const dir = () => path.join(root, 'topic-0');
  return {
    root: () => root,
    dir,
    open(opts = {}) {
      const log = PartitionLog.open(dir(), { ...defaults, ...opts });
      opened.push(log);
      return log;
    },
    closeAll,
  };
}

/** Runs `fn`, which must throw a KafkaError with `code`. */
export function expectKafkaError(fn: () => unknown, code: number): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(KafkaError);
    expect((err as KafkaError).code).toBe(code);
    return;
  }
  throw new Error(`expected a KafkaError with code ${code}`);
}
