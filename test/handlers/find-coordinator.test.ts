import { describe, expect, it } from 'vitest';
import { useBrokerAndClient } from '../helpers.js';

const live = useBrokerAndClient({ config: { 'node.id': '3' } });

describe('FindCoordinator', () => {
  it('names this broker as the coordinator of a group (v0-3)', async () => {
    for (const version of [0, 1, 2, 3]) {
      const res = await live.client.request(10, version, { key: 'orders-group', keyType: 0 });
      expect(res.errorCode).toBe(0);
      expect(res.nodeId).toBe(3);
      expect(res.host).toBe('127.0.0.1');
      expect(res.port).toBe(live.broker.port);
    }
  });

  it('answers batched keys (v4+, KIP-699)', async () => {
    const res = await live.client.request(10, 6, { keyType: 0, coordinatorKeys: ['a', 'b'] });
    expect(res.coordinators.map((c: { key: string }) => c.key)).toEqual(['a', 'b']);
    for (const c of res.coordinators) {
      expect(c.errorCode).toBe(0);
      expect(c.nodeId).toBe(3);
      expect(c.port).toBe(live.broker.port);
    }
  });

  it('is the transaction coordinator too (key type 1), creating __transaction_state; another key type is INVALID_REQUEST', async () => {
    const res = await live.client.request(10, 3, { key: 'txn-1', keyType: 1 });
    expect([res.errorCode, res.nodeId, res.port]).toEqual([0, 3, live.broker.port]);
    const meta = await live.client.request(3, 12, {
      topics: [{ name: '__transaction_state', topicId: Buffer.alloc(16) }],
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    expect(meta.topics[0].errorCode).toBe(0);
    expect(meta.topics[0].partitions).toHaveLength(50);
    const v4 = await live.client.request(10, 4, { keyType: 2, coordinatorKeys: ['x'] });
    expect(v4.coordinators[0].errorCode).toBe(42); // INVALID_REQUEST
  });
});
