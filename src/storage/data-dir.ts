// What a broker holds on its data dir while it runs. On disk: the directory, made if need be, and its
// lock (data-dir-lock.ts), which keeps a second broker off the same logs. In memory
// (krill.storage=memory): a fresh volume of its own (storage-fs.ts), which nothing else can reach, so
// there is nothing to lock; releasing it drops every byte the broker stored.

import path from 'node:path';
import type { BrokerConfig } from '../config.js';
import { DataDirLock } from './data-dir-lock.js';
import { mountMemoryVolume, unmountMemoryVolume } from './storage-fs.js';
import fs from './storage-fs.js';

export interface DataDirHold {
  /** The data dir's path: absolute on disk, `memory:<n>` in memory. */
  readonly dataDir: string;
  /** Called once the start may write: the lock file names this process. */
  recordOwner(): void;
  /** Lets the data dir go (unlocked, or dropped from memory). Idempotent. */
  release(): Promise<void>;
}

export async function holdDataDir(config: BrokerConfig): Promise<DataDirHold> {
  if (config.string('krill.storage') === 'memory') {
    const volume = mountMemoryVolume(config.int('krill.storage.memory.max.bytes'));
    return {
      dataDir: volume.name,
      recordOwner: () => undefined,
      release: async () => unmountMemoryVolume(volume),
    };
  }
  const dataDir = path.resolve(config.dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  return DataDirLock.acquire(dataDir);
}
