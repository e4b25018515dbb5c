import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readMetaProperties, readOrCreateMetaProperties } from '../../src/storage/meta-properties.js';
import { rmDir, tempDir } from './batches.js';

let dataDir: string;
beforeEach(() => {
  dataDir = tempDir();
});
afterEach(() => rmDir(dataDir));

describe('meta.properties', () => {
  it('is created once and checked', () => {
    const meta = readOrCreateMetaProperties(dataDir, 3);
    expect(meta.clusterId).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
    expect(meta.nodeId).toBe(3);
    const text = fs.readFileSync(path.join(dataDir, 'meta.properties'), 'utf8');
    expect(text).toContain('version=1\n');
    expect(text).toContain(`cluster.id=${meta.clusterId}\n`);
    expect(text).toContain('node.id=3\n');
    // Written now, made durable by the caller: the path says which file; a second read creates nothing.
    expect(meta.created).toBe(path.join(dataDir, 'meta.properties'));
    const again = readOrCreateMetaProperties(dataDir, 3);
    expect(again.clusterId).toBe(meta.clusterId);
    expect(again.created).toBeUndefined();
    expect(readMetaProperties(dataDir)!.clusterId).toBe(meta.clusterId);
    expect(() => readOrCreateMetaProperties(dataDir, 4)).toThrow(/node.id/);
    expect(fs.readdirSync(dataDir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});
