import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { syncInBackground } from '../../src/storage/atomic-file.js';
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
});
