// Kafka's ClientQuotaManager and ClientRequestQuotaManager: the rates clients produce, fetch and keep
// request handlers busy at, measured per quota entity (quota-entity.ts) over quota.window.num windows of
// quota.window.size.seconds (rate.ts), and the throttle time of a client over its quota:
//   (rate - bound) / bound * the span the rate was taken over
// which is how long the client must stay quiet for its rate to come back to the bound. Request time is
// recorded in percent of one handler (10 ms of handling = 1 percent-second), and its throttle is capped
// at one window, as Kafka's request quota is.
//
// The sensors (one rate per quota type and entity) are bounded: those idle for an hour go, as Kafka's
// inactive sensors expire, and beyond MAX_SENSORS the oldest is dropped.

import { Rate, type RateConfig } from './rate.js';
import { resolveQuota, type ResolvedQuota } from './quota-entity.js';
import type { ClientQuotaStore } from './client-quota-store.js';

/** Kafka's ClientQuotaManager.InactiveSensorExpirationTimeSeconds. */
const INACTIVE_SENSOR_EXPIRATION_MS = 3_600_000;
/** Sensors kept per quota type, whatever the number of users and client ids that come and go. */
export const MAX_SENSORS = 50_000;
const SWEEP_INTERVAL_MS = 60_000;

export type QuotaType = 'produce' | 'fetch' | 'request';

const KEY_OF: Record<QuotaType, string> = {
  produce: 'producer_byte_rate',
  fetch: 'consumer_byte_rate',
  request: 'request_percentage',
};

interface Sensor {
  rate: Rate;
  lastRecordMs: number;
}

interface Resolution {
  version: number;
  quota: ResolvedQuota | null;
}

/** The sensors of one quota type. */
class QuotaSensors {
  private readonly sensors = new Map<string, Sensor>();
  /** What resolveQuota said per (user, client id), until the quotas change (bounded with the sensors). */
  private readonly resolved = new Map<string, Resolution>();
  private lastSweepMs = 0;
  /** Whether any entity sets this type's quota: without one nothing is measured. */
  enabled = false;
  /** Responses throttled, for /metrics. */
  throttled = 0;

  constructor(
    private readonly key: string,
    private readonly store: ClientQuotaStore,
    private readonly config: RateConfig,
    private readonly maxThrottleMs: number,
  ) {}

  refresh(): void {
    this.enabled = this.store.has(this.key);
    if (!this.enabled) {
      this.sensors.clear();
      this.resolved.clear();
    }
  }

  get size(): number {
    return this.sensors.size;
  }

  /** Records `value` for the client and returns its throttle time in ms (0 within its quota). */
  record(user: string, clientId: string, value: number, nowMs: number): number {
    const quota = this.quotaFor(user, clientId);
    if (quota === null) return 0;
    const sensorKey = `${quota.userTag}\u0000${quota.clientTag}`;
    let sensor = this.sensors.get(sensorKey);
    if (!sensor) {
      sensor = { rate: new Rate(this.config), lastRecordMs: nowMs };
      this.bounded(this.sensors).set(sensorKey, sensor);
    }
    sensor.lastRecordMs = nowMs;
    sensor.rate.record(value, nowMs);
    if (nowMs - this.lastSweepMs >= SWEEP_INTERVAL_MS) this.sweep(nowMs);
    const rate = sensor.rate.measure(nowMs);
    if (rate <= quota.bound) return 0;
    this.throttled++;
    const ms = Math.round(((rate - quota.bound) / quota.bound) * sensor.rate.windowSizeMs(nowMs));
    return Math.min(ms, this.maxThrottleMs);
  }

  /** Takes back bytes recorded for a response that was not sent (Kafka's unrecordQuotaSensor). */
  unrecord(user: string, clientId: string, value: number, nowMs: number): void {
    const quota = this.quotaFor(user, clientId);
    if (quota) this.sensors.get(`${quota.userTag}\u0000${quota.clientTag}`)?.rate.record(-value, nowMs);
  }

  /** The most the client's quota lets through in one window (Kafka's getMaxValueInQuotaWindow). */
  maxInWindow(user: string, clientId: string): number {
    const quota = this.enabled ? this.quotaFor(user, clientId) : null;
    return quota ? (quota.bound * (this.config.samples - 1) * this.config.windowMs) / 1000 : Infinity;
  }

  private quotaFor(user: string, clientId: string): ResolvedQuota | null {
    const k = `${user}\u0000${clientId}`;
    const cached = this.resolved.get(k);
    if (cached && cached.version === this.store.version) return cached.quota;
    const quota = resolveQuota(user, clientId, (path) => this.store.get(path, this.key));
    this.bounded(this.resolved).set(k, { version: this.store.version, quota });
    return quota;
  }

  private bounded<V>(map: Map<string, V>): Map<string, V> {
    if (map.size >= MAX_SENSORS) map.delete(map.keys().next().value!);
    return map;
  }

  private sweep(nowMs: number): void {
    this.lastSweepMs = nowMs;
    for (const [k, s] of this.sensors) if (nowMs - s.lastRecordMs >= INACTIVE_SENSOR_EXPIRATION_MS) this.sensors.delete(k);
    if (this.resolved.size > this.sensors.size) this.resolved.clear();
  }
}

/** The three quota managers; `active` is false while no quota is set, and then the request path skips them. */
export class ClientQuotas {
  private readonly types: Record<QuotaType, QuotaSensors>;
  active = false;

  constructor(
    readonly store: ClientQuotaStore,
    config: RateConfig,
  ) {
    const unbounded = Number.MAX_SAFE_INTEGER;
    this.types = {
      produce: new QuotaSensors(KEY_OF.produce, store, config, unbounded),
      fetch: new QuotaSensors(KEY_OF.fetch, store, config, unbounded),
      request: new QuotaSensors(KEY_OF.request, store, config, config.windowMs),
    };
    store.onChange(() => this.refresh());
    this.refresh();
  }

  private refresh(): void {
    for (const t of Object.values(this.types)) t.refresh();
    this.active = Object.values(this.types).some((t) => t.enabled);
  }

  /** Bytes of a produce request, or of a consumer's fetch response. */
  recordBytes(type: 'produce' | 'fetch', user: string, clientId: string, bytes: number, nowMs: number): number {
    const t = this.types[type];
    return t.enabled ? t.record(user, clientId, bytes, nowMs) : 0;
  }

  /** Bytes of a fetch response recorded that was then not sent: a throttled fetch is answered empty. */
  unrecordFetch(user: string, clientId: string, bytes: number, nowMs: number): void {
    if (this.types.fetch.enabled) this.types.fetch.unrecord(user, clientId, bytes, nowMs);
  }

  /** The most a consumer's fetch may return: what its quota allows in one window (Infinity without one). */
  fetchBytesLimit(user: string, clientId: string): number {
    return this.types.fetch.maxInWindow(user, clientId);
  }

  /** Time a request kept the broker busy, in ms. */
  recordRequestTime(user: string, clientId: string, ms: number, nowMs: number): number {
    const t = this.types.request;
    return t.enabled ? t.record(user, clientId, ms / 10, nowMs) : 0;
  }

  /** Responses throttled and sensors kept, per quota type, for /metrics. */
  stats(): Record<QuotaType, { throttled: number; sensors: number }> {
    const s = (t: QuotaSensors) => ({ throttled: t.throttled, sensors: t.size });
    return { produce: s(this.types.produce), fetch: s(this.types.fetch), request: s(this.types.request) };
  }
}
