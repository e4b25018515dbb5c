// The client quota model alone: Kafka's precedence of the eight entity combinations, its sampled rate and
// throttle time, and the bound on the sensors kept.
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENTITY, entityPath, parseEntityPath, resolveQuota, sanitize } from '../../src/security/quotas/quota-entity.js';
import { Rate } from '../../src/security/quotas/rate.js';
import { ClientQuotaStore, type QuotaValues } from '../../src/security/quotas/client-quota-store.js';
import { ClientQuotas, MAX_SENSORS } from '../../src/security/quotas/client-quotas.js';

const D = DEFAULT_ENTITY;
const memory = { write: () => Promise.resolve() };

describe('quota entities', () => {
  it('are named by their ZooKeeper config paths, names sanitized as Kafka does', () => {
    expect(entityPath({ user: 'alice' })).toBe('users/alice');
    expect(entityPath({ clientId: null })).toBe(`clients/${D}`);
    expect(entityPath({ user: null, clientId: 'app' })).toBe(`users/${D}/clients/app`);
    expect(sanitize('CN=a b,O=c*')).toBe('CN%3Da%20b%2CO%3Dc%2A');
    expect(entityPath({ user: D })).toBe('users/%3Cdefault%3E'); // a user called <default> is not the default
    expect(parseEntityPath('users/CN%3Da%20b/clients/x')).toEqual({ user: 'CN=a b', clientId: 'x' });
    expect(parseEntityPath('topics/t')).toBeNull();
  });

  it('resolve in the order of Kafka: user+client, user+<default>, user, <default>+client, ... <default> client', () => {
    const order = [
      [`users/u/clients/c`, 'u', 'c'],
      [`users/u/clients/${D}`, 'u', 'c'],
      [`users/u`, 'u', ''],
      [`users/${D}/clients/c`, 'u', 'c'],
      [`users/${D}/clients/${D}`, 'u', 'c'],
      [`users/${D}`, 'u', ''],
      [`clients/c`, '', 'c'],
      [`clients/${D}`, '', 'c'],
    ] as const;
    // With entities set from the lowest precedence up, each one newly set wins.
    const set = new Map<string, number>();
    expect(resolveQuota('u', 'c', (p) => set.get(p))).toBeNull();
    for (let i = order.length - 1; i >= 0; i--) {
      const [path, userTag, clientTag] = order[i];
      set.set(path, i + 1);
      expect(resolveQuota('u', 'c', (p) => set.get(p))).toEqual({ bound: i + 1, userTag, clientTag });
    }
    // Another user and client id fall through to the defaults only.
    expect(resolveQuota('v', 'd', (p) => set.get(p))).toEqual({ bound: 5, userTag: 'v', clientTag: 'd' });
  });
});

describe('rate', () => {
  it('spreads a first burst over samples-1 windows, then over the time the samples span', () => {
    const r = new Rate({ samples: 11, windowMs: 1000 });
    r.record(10_000, 0);
    expect(r.windowSizeMs(0)).toBe(10_000);
    expect(r.measure(0)).toBe(1000);
    r.record(10_000, 12_500); // every window since has passed: the first sample no longer counts
    expect(r.measure(12_500)).toBe(1000);
    for (let t = 13_000; t <= 25_000; t += 1000) r.record(1000, t);
    // 11 live samples of 1000 bytes, the oldest started at 15000: 11000 bytes over 10 s + 0
    expect(r.windowSizeMs(25_000)).toBe(10_000);
    expect(r.measure(25_000)).toBe(1100);
  });
});

function quotas(entities: Record<string, QuotaValues>): ClientQuotas {
  return new ClientQuotas(new ClientQuotaStore(memory, new Map(Object.entries(entities))), { samples: 11, windowMs: 1000 });
}

describe('throttle time', () => {
  it('is (rate - bound) / bound * window, Kafka formula, for bytes over the quota', () => {
    const q = quotas({ 'clients/app': { producer_byte_rate: 1000 } });
    expect(q.active).toBe(true);
    expect(q.recordBytes('produce', 'ANONYMOUS', 'app', 10_000, 0)).toBe(0); // exactly the bound
    // 15000 bytes in 10 s: 1500/s, half over the bound: 5 s of the 10 s window
    expect(q.recordBytes('produce', 'ANONYMOUS', 'app', 5000, 0)).toBe(5000);
    expect(q.recordBytes('fetch', 'ANONYMOUS', 'app', 1e9, 0)).toBe(0); // no consumer quota
    expect(q.recordBytes('produce', 'ANONYMOUS', 'other', 1e9, 0)).toBe(0);
    expect(q.stats().produce).toEqual({ throttled: 1, sensors: 1 });
  });

  it('shares one rate between the clients of a user quota, and keeps one per client id of a default quota', () => {
    const q = quotas({ 'users/ANONYMOUS': { consumer_byte_rate: 1000 }, [`clients/${D}`]: { consumer_byte_rate: 1000 } });
    expect(q.recordBytes('fetch', 'ANONYMOUS', 'a', 10_000, 0)).toBe(0);
    expect(q.recordBytes('fetch', 'ANONYMOUS', 'b', 10_000, 0)).toBe(10_000); // the same user's rate
    expect(q.recordBytes('fetch', 'bob', 'a', 10_000, 0)).toBe(0);
    expect(q.recordBytes('fetch', 'bob', 'b', 10_000, 0)).toBe(0); // per client id for others
  });

  it('takes back the bytes of a fetch answered empty, and limits a fetch to a window of the quota', () => {
    const q = quotas({ 'clients/app': { consumer_byte_rate: 1000 } });
    expect(q.fetchBytesLimit('u', 'app')).toBe(10_000);
    expect(q.fetchBytesLimit('u', 'other')).toBe(Infinity);
    expect(q.recordBytes('fetch', 'u', 'app', 20_000, 0)).toBe(10_000);
    q.unrecordFetch('u', 'app', 20_000, 0);
    expect(q.recordBytes('fetch', 'u', 'app', 10_000, 0)).toBe(0);
  });

  it('caps a request quota throttle at one window, and counts handling time in percent', () => {
    const q = quotas({ 'users/u': { request_percentage: 10 } });
    // 1000 ms of handling in a 10 s window is 10 percent: at the bound
    expect(q.recordRequestTime('u', 'c', 1000, 0)).toBe(0);
    expect(q.recordRequestTime('u', 'c', 100_000, 0)).toBe(1000);
  });

  it('is off while no quota is set, and follows changes to the store', async () => {
    const store = new ClientQuotaStore(memory);
    const q = new ClientQuotas(store, { samples: 11, windowMs: 1000 });
    expect(q.active).toBe(false);
    await store.alter({
      entries: [{ entity: [{ entityType: 'client-id', entityName: 'c' }], ops: [{ key: 'producer_byte_rate', value: 100, remove: false }] }],
      validateOnly: false,
    });
    expect(q.active).toBe(true);
    expect(q.recordBytes('produce', 'u', 'c', 2000, 0)).toBe(10_000);
    await store.alter({
      entries: [{ entity: [{ entityType: 'client-id', entityName: 'c' }], ops: [{ key: 'producer_byte_rate', value: 0, remove: true }] }],
      validateOnly: false,
    });
    expect(q.active).toBe(false);
  });

  it('keeps at most MAX_SENSORS rates, however many client ids come', () => {
    const q = quotas({ [`clients/${D}`]: { producer_byte_rate: 1e9 } });
    for (let i = 0; i < MAX_SENSORS + 10; i++) q.recordBytes('produce', 'u', `c${i}`, 1, 0);
    expect(q.stats().produce.sensors).toBe(MAX_SENSORS);
  });

  it('lets sensors idle for an hour go', () => {
    const q = quotas({ [`clients/${D}`]: { producer_byte_rate: 1e9 } });
    q.recordBytes('produce', 'u', 'a', 1, 0);
    q.recordBytes('produce', 'u', 'b', 1, 3_000_000);
    q.recordBytes('produce', 'u', 'b', 1, 3_700_000);
    expect(q.stats().produce.sensors).toBe(1);
  });
});
