import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { syncInBackground, writeFileAtomic, writeFileAtomicInBackground } from '../../src/storage/atomic-file.js';
import { OpenFiles } from '../../src/storage/open-files.js';
import { rmDir, tempDir } from './batches.js';

let dataDir: string;
beforeEach(() => {
  dataDir = tempDir();
});
afterEach(() => rmDir(dataDir));

describe('atomic files', () => {
  it('syncInBackground fsyncs an existing file and fails for a missing one', async () => {
    const file = path.join(dataDir, 'f');
    fs.writeFileSync(file, 'x');
    await expect(syncInBackground(file)).resolves.toBeUndefined();
    await expect(syncInBackground(path.join(dataDir, 'missing'))).rejects.toThrow(/ENOENT/);
  });

  it('writeFileAtomic replaces a file whole and leaves no temp file', () => {
    const file = path.join(dataDir, 'f');
    writeFileAtomic(file, 'first');
    writeFileAtomic(file, Buffer.from('second'), false);
    expect(fs.readFileSync(file, 'utf8')).toBe('second');
    expect(fs.readdirSync(dataDir)).toEqual(['f']);
  });

  it('writeFileAtomicInBackground writes nothing before the event loop turns, then replaces the file whole', async () => {
    const file = path.join(dataDir, 'f');
    fs.writeFileSync(file, 'old content, longer than the new');
    const written = writeFileAtomicInBackground(file, 'new', new OpenFiles());
    expect(fs.readFileSync(file, 'utf8')).toBe('old content, longer than the new');
    await written;
    expect(fs.readFileSync(file, 'utf8')).toBe('new');
    expect(fs.readdirSync(dataDir)).toEqual(['f']);
    await writeFileAtomicInBackground(path.join(dataDir, 'g'), Buffer.from([1, 2, 3]));
    expect([...fs.readFileSync(path.join(dataDir, 'g'))]).toEqual([1, 2, 3]);
  });

  it('writeFileAtomicInBackground fails when the directory is gone', async () => {
    await expect(writeFileAtomicInBackground(path.join(dataDir, 'missing', 'f'), 'x')).rejects.toThrow(/ENOENT/);
  });
});
