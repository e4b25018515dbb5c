// Small files replaced atomically: written to <name>.tmp, fsynced, renamed over the old one, and the
// directory fsynced, so that a reader (or the next start, after a crash or a power loss) sees the old
// content or the new one, never a mix. Checkpoints, meta.properties, krill-topics.json, partition.metadata
// and the clean-shutdown marker are written this way. Writes on the request path or at shutdown are
// synchronous; periodic ones (the checkpoints) go through the thread pool (writeFileAtomicInBackground).

import fs from './storage-fs.js';
import path from 'node:path';
import type { OpenFiles } from './open-files.js';

/**
 * Writes `content` to file atomically: tmp file, fsync, rename, directory fsync. With durable false,
 * no fsync: still all-or-nothing for readers, but a power loss may leave the old content, an empty file
 * or no file; only for files krill rebuilds from others when they are missing or wrong. With `files`, an
 * open failing for want of descriptors closes that bound's segment files and is tried again (open-files.ts).
 */
export function writeFileAtomic(file: string, content: string | Buffer, durable = true, files?: OpenFiles): void {
  const tmp = `${file}.tmp`;
  const fd = openFile(tmp, 'w', files);
  try {
    const buf = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    let done = 0;
    while (done < buf.length) done += fs.writeSync(fd, buf, done, buf.length - done);
    if (durable) fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  if (durable) fsyncDir(path.dirname(file), files);
}

/**
 * writeFileAtomic(file, content, true, files) off the event loop: open, write, fsync, rename and the
 * directory's fsync go through the thread pool, so a slow disk delays no request. Nothing else may write
 * `file` meanwhile (both would use <file>.tmp).
 */
export async function writeFileAtomicInBackground(file: string, content: string | Buffer, files?: OpenFiles): Promise<void> {
  const tmp = `${file}.tmp`;
  const fh = files ? await files.openHandleMakingRoom(tmp, 'w') : await fs.promises.open(tmp, 'w');
  try {
    await fh.writeFile(content);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fs.promises.rename(tmp, file);
  await fsyncDirInBackground(path.dirname(file));
}

function openFile(file: string, flags: string, files: OpenFiles | undefined): number {
  return files ? files.openMakingRoom(file, flags) : fs.openSync(file, flags);
}

/** Makes a file written with writeFileAtomic(…, false) durable, off the event loop: the file, then its directory. */
export async function syncInBackground(file: string): Promise<void> {
  await fs.syncPath(file, false);
  await fs.syncPath(path.dirname(file), true);
}

/** fsyncDir() through the thread pool. */
export function fsyncDirInBackground(dir: string): Promise<void> {
  return fs.syncPath(dir, true);
}

/** fsync of a directory (new or removed entries), ignoring platforms that refuse it. */
export function fsyncDir(dir: string, files?: OpenFiles): void {
  let fd: number | null = null;
  try {
    fd = openFile(dir, 'r', files);
    fs.fsyncSync(fd);
  } catch {
    // best effort (not supported on every platform)
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

/** A file's text, or null when it does not exist. */
export function readTextIfExists(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
