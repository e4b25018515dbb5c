// `krill --storage memory` as users start it (npx, in a project that has krill installed): it serves
// records and writes no file (the project's directory, where the default data dir would be, is the same
// before and after), and stops cleanly; `--storage memory` with `--data-dir` is a usage error.
import { describe, expect, it } from 'vitest';
import { dirSnapshot, projectWithKrill, runCli, spawnCli } from '../helpers.js';
import { TestClient } from '../server/client.js';
import { createTopic, fetchOne, produceOk, recordsOf, values } from '../server/kafka.js';

describe('krill --storage memory', () => {
  it('refuses --data-dir beside it, and a storage it does not know, with exit code 2', async () => {
    const both = await runCli(['--storage', 'memory', '--data-dir', 'somewhere']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('krill: --storage memory keeps no data dir: drop --data-dir');
    const unknown = await runCli(['--storage', 'tape']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("krill: --storage must be disk or memory, got 'tape'");
    const viaConfig = await runCli(['--set', 'krill.storage=memory', '--set', 'log.dirs=somewhere']);
    expect(viaConfig.code).toBe(2);
    expect(viaConfig.stderr).toContain('krill.storage: memory keeps no data dir, but log.dirs or log.dir is set');
  });

  it('serves produce and fetch under npx, writes no file, and exits 0 on SIGTERM', async () => {
    const project = projectWithKrill();
    const before = dirSnapshot(project);
    const b = await spawnCli(['--storage', 'memory', '--port', '0'], { npx: true });
    expect(b.dataDir).toMatch(/^memory:\d+$/);
    const client = await TestClient.connect(b.port);
    try {
      await createTopic(client, 'in-memory', 1);
      expect(await produceOk(client, 'in-memory', 0, values(3))).toBe(0);
      const fetched = await fetchOne(client, 'in-memory', 0, 0);
      expect(recordsOf(fetched.records).map((r) => [r.offset, r.value])).toEqual([
        [0, 'v0'],
        [1, 'v1'],
        [2, 'v2'],
      ]);
    } finally {
      client.close();
    }
    b.kill('SIGTERM');
    expect(await b.exited).toBe(0);
    expect(dirSnapshot(project)).toEqual(before);
  });
});
