// __consumer_offsets is created when first needed (as Kafka does on the first FindCoordinator), never
// as a plain auto-created topic, and not at start-up.
import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { withBroker } from '../helpers.js';
import { TestClient } from '../server/client.js';
import type { RunningBroker } from '../../src/index.js';

let broker: RunningBroker | null = null;
let client: TestClient | null = null;
afterEach(async () => {
  client?.close();
  await broker?.close();
  client = null;
  broker = null;
});

const offsetsDirs = (dataDir: string) => fs.readdirSync(dataDir).filter((d) => d.startsWith('__consumer_offsets-'));

describe('__consumer_offsets creation', () => {
  it('is not created at start-up', async () => {
    broker = await withBroker();
    expect(offsetsDirs(broker.dataDir)).toEqual([]);
  });

  it('is created by the first FindCoordinator with offsets.topic.num.partitions partitions', async () => {
    broker = await withBroker({ config: { 'offsets.topic.num.partitions': '7' } });
    client = await TestClient.connect(broker.port);
    const res = await client.request(10, 3, { key: 'g1', keyType: 0 });
    expect(res.errorCode).toBe(0);
    expect(offsetsDirs(broker.dataDir)).toHaveLength(7);
  });

  it('a Metadata request that auto-creates it makes the internal topic, not a one-partition plain topic', async () => {
    broker = await withBroker({ config: { 'offsets.topic.num.partitions': '5', 'num.partitions': '1' } });
    client = await TestClient.connect(broker.port);
    const md = await client.request(3, 9, { topics: [{ name: '__consumer_offsets' }], allowAutoTopicCreation: true, includeTopicAuthorizedOperations: false });
    expect(md.topics[0]).toMatchObject({ errorCode: 0, name: '__consumer_offsets', isInternal: true });
    expect(md.topics[0].partitions).toHaveLength(5);
  });
});
