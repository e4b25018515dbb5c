// Client quotas on a live broker, over the wire: AlterClientQuotas and DescribeClientQuotas with Kafka's
// checks and filters, quotas kept across a restart, and their enforcement: throttle_time_ms as Kafka
// computes it and the connection muted for that long (KIP-219), which another connection is not.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { useTempDirs, withBroker } from '../helpers.js';
import { TestClient, decodeResponse, encodeRequest } from '../server/client.js';
import { API, createTopic, fetchBody, produceBody, produceOk, uniqueTopic } from '../server/kafka.js';
import { buildBatch } from '../../protocol/record-batch.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { Message } from '../../protocol/codec.js';

const tempDirs = useTempDirs('krill-quotas-');

type Entity = { entityType: string; entityName: string | null }[];
const op = (key: string, value: number, remove = false) => ({ key, value, remove });

function alter(client: TestClient, entries: { entity: Entity; ops: ReturnType<typeof op>[] }[], validateOnly = false, version = 1): Promise<Message> {
  return client.request(API.AlterClientQuotas, version, { entries, validateOnly });
}

function describeQuotas(client: TestClient, components: { entityType: string; matchType: number; match: string | null }[], strict = false, version = 1) {
  return client.request(API.DescribeClientQuotas, version, { components, strict });
}

/** The described entities as `user=alice,client-id=<default>` → values. */
function described(res: Message): Record<string, Record<string, number>> {
  expect(res.errorCode, res.errorMessage).toBe(0);
  return Object.fromEntries(
    (res.entries as Message[]).map((e) => [
      (e.entity as Message[]).map((x) => `${x.entityType}=${x.entityName ?? '<default>'}`).join(','),
      Object.fromEntries((e.values as Message[]).map((v) => [v.key, v.value])),
    ]),
  );
}

const user = (name: string | null) => ({ entityType: 'user', entityName: name });
const client = (name: string | null) => ({ entityType: 'client-id', entityName: name });

describe('AlterClientQuotas and DescribeClientQuotas', () => {
  it('set, describe with every match type, remove, and check as Kafka does', async () => {
    const broker = await withBroker();
    const c = await TestClient.connect(broker.port);
    try {
      for (const version of [0, 1]) {
        const res = await alter(
          c,
          [
            { entity: [user('alice')], ops: [op('producer_byte_rate', 1024), op('request_percentage', 12.5)] },
            { entity: [user('alice'), client('app')], ops: [op('consumer_byte_rate', 2048)] },
            { entity: [user(null)], ops: [op('consumer_byte_rate', 4096)] },
            { entity: [client(null)], ops: [op('producer_byte_rate', 8192)] },
          ],
          false,
          version,
        );
        expect((res.entries as Message[]).map((e) => e.errorCode)).toEqual([0, 0, 0, 0]);
      }
      const all = {
        'user=alice': { producer_byte_rate: 1024, request_percentage: 12.5 },
        'user=alice,client-id=app': { consumer_byte_rate: 2048 },
        'user=<default>': { consumer_byte_rate: 4096 },
        'client-id=<default>': { producer_byte_rate: 8192 },
      };
      expect(described(await describeQuotas(c, [], false, 0))).toEqual(all);
      expect(described(await describeQuotas(c, [{ entityType: 'user', matchType: 0, match: 'alice' }]))).toEqual({
        'user=alice': all['user=alice'],
        'user=alice,client-id=app': all['user=alice,client-id=app'],
      });
      expect(described(await describeQuotas(c, [{ entityType: 'user', matchType: 0, match: 'alice' }], true))).toEqual({ 'user=alice': all['user=alice'] });
      expect(described(await describeQuotas(c, [{ entityType: 'user', matchType: 1, match: null }]))).toEqual({ 'user=<default>': all['user=<default>'] });
      expect(Object.keys(described(await describeQuotas(c, [{ entityType: 'user', matchType: 2, match: null }], true)))).toEqual([
        'user=alice',
        'user=<default>',
      ]);
      expect(
        described(
          await describeQuotas(c, [
            { entityType: 'user', matchType: 2, match: null },
            { entityType: 'client-id', matchType: 2, match: null },
          ]),
        ),
      ).toEqual({ 'user=alice,client-id=app': all['user=alice,client-id=app'] });

      // validateOnly checks and changes nothing; remove takes a key away, and the entity with its last one
      await alter(c, [{ entity: [user('alice')], ops: [op('producer_byte_rate', 1, true)] }], true);
      expect(described(await describeQuotas(c, [], false))['user=alice']).toEqual(all['user=alice']);
      await alter(c, [{ entity: [client(null)], ops: [op('producer_byte_rate', 0, true)] }]);
      expect(described(await describeQuotas(c, [{ entityType: 'client-id', matchType: 1, match: null }], true))).toEqual({});

      const refused = await alter(c, [
        { entity: [user('bob')], ops: [op('producer_byte_rate', 10.5)] },
        { entity: [user('bob')], ops: [op('no_such_quota', 1)] },
        { entity: [{ entityType: 'topic', entityName: 'x' }], ops: [op('producer_byte_rate', 1)] },
        { entity: [], ops: [op('producer_byte_rate', 1)] },
        { entity: [user('')], ops: [op('producer_byte_rate', 1)] },
        { entity: [user('bob'), user('carol')], ops: [op('producer_byte_rate', 1)] },
        { entity: [user('bob')], ops: [op('request_percentage', -1)] },
        { entity: [user('dave')], ops: [op('consumer_byte_rate', 100)] },
      ]);
      const entries = refused.entries as Message[];
      expect(entries.map((e) => e.errorCode)).toEqual([...Array(7).fill(ErrorCode.INVALID_REQUEST), 0]);
      expect(entries[0].errorMessage).toBe('Configuration producer_byte_rate must be a Long value');
      expect(entries[1].errorMessage).toBe('Invalid configuration key no_such_quota');
      expect(entries[2].errorMessage).toBe('Unhandled client quota entity type: topic');
      expect(entries[3].errorMessage).toBe('Invalid empty client quota entity');
      expect(entries[4].errorMessage).toBe('Empty user not supported');
      expect(described(await describeQuotas(c, [{ entityType: 'user', matchType: 0, match: 'bob' }]))).toEqual({});
      expect(described(await describeQuotas(c, [{ entityType: 'user', matchType: 0, match: 'dave' }]))).toEqual({ 'user=dave': { consumer_byte_rate: 100 } });

      for (const [components, message] of [
        [[{ entityType: 'user', matchType: 0, match: null }], 'Unexpected null match string for an exact match'],
        [[{ entityType: 'user', matchType: 1, match: 'x' }], 'Unexpected match string for match type 1'],
        [[{ entityType: 'user', matchType: 7, match: null }], 'Unexpected match type: 7'],
        [
          [
            { entityType: 'user', matchType: 2, match: null },
            { entityType: 'user', matchType: 2, match: null },
          ],
          'Duplicate user filter component entity type',
        ],
        [[{ entityType: 'topic', matchType: 2, match: null }], "Custom entity type 'topic' not supported"],
      ] as const) {
        const res = await describeQuotas(c, [...components]);
        expect(res.errorCode).toBe(ErrorCode.INVALID_REQUEST);
        expect(res.errorMessage).toBe(message);
        expect(res.entries).toBeNull();
      }
    } finally {
      c.close();
      await broker.close();
    }
  });

  it('are kept across a restart on the same data dir, and in memory storage', async () => {
    const dataDir = tempDirs();
    let broker = await withBroker({ dataDir });
    let c = await TestClient.connect(broker.port);
    await alter(c, [{ entity: [user('ANONYMOUS'), client('app')], ops: [op('producer_byte_rate', 5000)] }]);
    c.close();
    await broker.close();
    broker = await withBroker({ dataDir });
    c = await TestClient.connect(broker.port);
    expect(described(await describeQuotas(c, []))).toEqual({ 'user=ANONYMOUS,client-id=app': { producer_byte_rate: 5000 } });
    // reset() removes topics and groups; quotas, like broker configs, stay
    await broker.reset();
    expect(described(await describeQuotas(c, []))).toEqual({ 'user=ANONYMOUS,client-id=app': { producer_byte_rate: 5000 } });
    c.close();
    await broker.close();
    // A file that cannot be read stops the start rather than dropping the quotas
    fs.writeFileSync(path.join(dataDir, 'krill-client-quotas.json'), '{"version":1,"entities":{"topics/x":{}}}');
    await expect(withBroker({ dataDir })).rejects.toThrow(/krill-client-quotas.json is unusable \("topics\/x" names no user or client id\)/);

    broker = await withBroker({ storage: 'memory' });
    c = await TestClient.connect(broker.port);
    await alter(c, [{ entity: [client('app')], ops: [op('consumer_byte_rate', 5000)] }]);
    expect(described(await describeQuotas(c, []))).toEqual({ 'client-id=app': { consumer_byte_rate: 5000 } });
    c.close();
    await broker.close();
  });
});

describe('enforcement', () => {
  it('answers a produce over its quota at once with Kafka throttle time, then mutes that connection only', async () => {
    const broker = await withBroker();
    const admin = await TestClient.connect(broker.port);
    const producer = await TestClient.connect(broker.port);
    const other = await TestClient.connect(broker.port);
    try {
      const topic = uniqueTopic('quota');
      await createTopic(admin, topic);
      // TestClient's client id is krill-test; its user, on PLAINTEXT, ANONYMOUS
      await alter(admin, [{ entity: [user('ANONYMOUS'), client('krill-test')], ops: [op('producer_byte_rate', 2_000)] }]);
      const frame = encodeRequest(API.Produce, 9, produceBody(topic, 0, buildBatch([{ key: 'k', value: Buffer.alloc(120_000, 1) }])), 1);
      const res = decodeResponse(API.Produce, 9, (await producer.sendRaw(frame))!).body;
      expect(res.responses[0].partitionResponses[0].errorCode).toBe(0);
      // The first 120 kB over a 10 s window (11 samples of 1 s): rate size/10, throttle (rate - bound) / bound * 10 s,
      // about 50 s: far longer than anything else here takes, so the order below is not a race.
      const size = frame.length - 4;
      expect(res.throttleTimeMs).toBe(Math.round(((size / 10 - 2_000) / 2_000) * 10_000));

      // The producer's next request waits for the mute to end; another connection's, sent after it, does not.
      // (That the mute ends is what the kafkajs and Java quota suites show: every record gets through.)
      const order: string[] = [];
      void producer.request(API.ApiVersions, 3, { clientSoftwareName: 'q', clientSoftwareVersion: '1' }).then(
        () => order.push('muted'),
        () => order.push('closed'),
      );
      await other.request(API.ApiVersions, 3, { clientSoftwareName: 'q', clientSoftwareVersion: '1' });
      expect(order).toEqual([]);
    } finally {
      for (const c of [admin, producer, other]) c.close();
      await broker.close();
    }
  });

  it('throttles a client over request_percentage for at most one window', async () => {
    const broker = await withBroker();
    const c = await TestClient.connect(broker.port);
    try {
      // Any handling time at all is over this: the throttle is the cap, one quota.window.size.seconds
      await alter(c, [{ entity: [client('busy')], ops: [op('request_percentage', 1e-9)] }]);
      const frame = (await c.sendRaw(
        encodeRequest(API.Metadata, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false }, 7, 'busy'),
      ))!;
      expect(decodeResponse(API.Metadata, 12, frame).body.throttleTimeMs).toBe(1000);
    } finally {
      c.close();
      await broker.close();
    }
  });

  it('limits a consumer fetch to its quota window, and answers a fetch over it empty, throttled', async () => {
    const broker = await withBroker();
    const c = await TestClient.connect(broker.port);
    try {
      const topic = uniqueTopic('quota');
      await createTopic(c, topic);
      for (let i = 0; i < 20; i++) await produceOk(c, topic, 0, [{ key: `k${i}`, value: 'x'.repeat(1000) }]);
      // 1000 bytes/s over 11 samples of 1 s: at most 10 windows' worth, 10000 bytes, in a fetch
      await alter(c, [{ entity: [client(null)], ops: [op('consumer_byte_rate', 1000)] }]);
      const fetch = async (fetchOffset: number, partitionMaxBytes: number) => {
        const body = fetchBody(11, topic, [{ partition: 0, fetchOffset, partitionMaxBytes }]);
        const frame = (await c.sendRaw(encodeRequest(API.Fetch, 11, body, 99)))!;
        return { frame, res: decodeResponse(API.Fetch, 11, frame).body };
      };
      const first = await fetch(0, 6000);
      expect(first.res.throttleTimeMs).toBe(0);
      const records = first.res.responses[0].partitions[0].records as Buffer;
      expect(records.length).toBeLessThanOrEqual(6000);
      const next = await fetch(0, 1 << 20);
      // Over the window: no data, a throttle, and the connection muted (so this is the last request on it)
      expect(next.res.throttleTimeMs).toBeGreaterThan(0);
      expect(next.res.responses).toEqual([]);

      // A fetch asking for more than the window allows gets at most that, on a connection of another client id
      const other = await TestClient.connect(broker.port);
      try {
        const frame = (await other.sendRaw(encodeRequest(API.Fetch, 11, fetchBody(11, topic, [{ partition: 0, fetchOffset: 0 }]), 1, 'another')))!;
        const res = decodeResponse(API.Fetch, 11, frame).body;
        const got = res.responses[0].partitions[0].records as Buffer;
        expect(got.length).toBeGreaterThan(6000);
        expect(got.length).toBeLessThanOrEqual(10_000);
      } finally {
        other.close();
      }
    } finally {
      c.close();
      await broker.close();
    }
  });
});
