// Config changes are acknowledged only once on disk: the built CLI, killed with SIGKILL right after
// AlterConfigs / IncrementalAlterConfigs answered, starts again with the topic's overrides and the dynamic
// broker configs, and Produce honours them.
import { afterAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { spawnCli, tempDir, type CliBroker } from '../helpers.js';
import { TestClient } from '../server/client.js';
import { createTopic, produce, uniqueTopic } from '../server/kafka.js';
import { buildBatch } from '../../protocol/record-batch.js';
import { ErrorCode } from '../../protocol/errors.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function killed(b: CliBroker): Promise<void> {
  b.kill('SIGKILL');
  expect(await b.exited).toBe('SIGKILL');
}

describe('config changes across a crash', () => {
  it('a topic override and dynamic broker configs survive SIGKILL', { timeout: 60_000 }, async () => {
    const dataDir = tempDir('krill-configs-crash-');
    dirs.push(dataDir);
    const topic = uniqueTopic('crash');
    const plain = uniqueTopic('plain');
    let b = await spawnCli(['--data-dir', dataDir, '--port', '0'], { npx: true });
    let client = await TestClient.connect(b.port);
    try {
      await createTopic(client, topic);
      await createTopic(client, plain);
      const altered = await client.request(33, 2, {
        resources: [{ resourceType: 2, resourceName: topic, configs: [{ name: 'max.message.bytes', value: '1500' }] }],
        validateOnly: false,
      });
      expect(altered.responses[0].errorCode).toBe(0);
      const incremental = await client.request(44, 1, {
        resources: [{ resourceType: 4, resourceName: '', configs: [{ name: 'message.max.bytes', configOperation: 0, value: '2500' }] }],
        validateOnly: false,
      });
      expect(incremental.responses[0].errorCode).toBe(0);
    } finally {
      client.close();
    }
    await killed(b);

    b = await spawnCli(['--data-dir', dataDir, '--port', '0'], { npx: true });
    client = await TestClient.connect(b.port);
    try {
      const batch = (n: number) => buildBatch([{ key: 'k', value: 'x'.repeat(n) }]);
      expect((await produce(client, topic, 0, batch(2000))).errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
      expect((await produce(client, topic, 0, batch(1000))).errorCode).toBe(0);
      expect((await produce(client, plain, 0, batch(3000))).errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
      expect((await produce(client, plain, 0, batch(2000))).errorCode).toBe(0);
      const described = await client.request(32, 4, {
        resources: [{ resourceType: 2, resourceName: plain, configurationKeys: ['max.message.bytes'] }],
        includeSynonyms: false,
        includeDocumentation: false,
      });
      expect(described.results[0].configs).toMatchObject([{ name: 'max.message.bytes', value: '2500', configSource: 3 }]);
    } finally {
      client.close();
      await killed(b);
    }
  });
});
