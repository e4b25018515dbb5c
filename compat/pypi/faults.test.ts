// Fault injection for a suite in another language: krill started as a process with `--fault`, and
// confluent-kafka 2.x (PyPI, librdkafka 2.x) as the client whose retries are tested. The faults answer
// after the batch was appended (`after`), as when a response is lost, so only the idempotent producer's
// sequence numbers keep the retried batches out of the log; a dropped Fetch connection is reconnected.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CliBroker } from '../../test/helpers.js';
import { describeWithToolchain } from '../toolchain.js';
import { BrokerPool } from '../util.js';
import type { Json } from '../util.js';
import { encodeRecord, unb64 } from '../python/py.js';
import { venvMissing, venvPy } from './pypi.js';

const ck = <T = Json>(command: string, args: object, timeoutMs?: number) => venvPy<T>('ck_client.py', command, args, timeoutMs);
const TOPIC = 'faults-ck2';
const RECORDS = 20;

const pool = new BrokerPool();
let broker: CliBroker;

describeWithToolchain('confluent-kafka 2.x against faults set with krill --fault', venvMissing, { timeout: 90_000 }, () => {
  beforeAll(async () => {
    const faults = [
      { api: 'Produce', topic: TOPIC, error: 'NOT_LEADER_OR_FOLLOWER', after: true, count: 2 },
      { api: 'Produce', topic: TOPIC, drop: true, after: true },
      { api: 'Fetch', topic: TOPIC, drop: true },
    ];
    broker = await pool.start(['--data-dir', pool.dir('krill-ck2-faults-'), '--log-level', 'debug', ...faults.flatMap((f) => ['--fault', JSON.stringify(f)])]);
  });
  afterAll(() => pool.cleanup());

  it('an idempotent producer retries through lost answers and delivers each record once; the consumer reconnects', async () => {
    const created = await ck('create_topics', { bootstrap: broker.bootstrap, topics: [{ name: TOPIC, partitions: 1, config: {} }] });
    expect(created.results[TOPIC]).toEqual({ ok: true });
    const records = Array.from({ length: RECORDS }, (_, i) => encodeRecord({ key: `k${i}`, value: `v${i}` }));
    const produced = await ck<{ reports: { error?: string }[]; undelivered: number; client_errors: Json[] }>('produce', {
      bootstrap: broker.bootstrap,
      topic: TOPIC,
      records,
      linger_ms: 0,
      conf: { 'enable.idempotence': true, 'retry.backoff.ms': 50 },
    });
    expect(produced.undelivered).toBe(0);
    expect(produced.reports.filter((r) => r.error)).toEqual([]);
    const consumed = await ck<{ messages: { offset: number; value: string; extra?: boolean }[]; errors: string[] }>('consume', {
      bootstrap: broker.bootstrap,
      topic: TOPIC,
      partitions: [0],
      count: RECORDS,
    });
    const values = consumed.messages.map((m) => (m.extra ? `extra@${m.offset}` : unb64(m.value)));
    expect(values).toEqual(Array.from({ length: RECORDS }, (_, i) => `v${i}`));
    // Each fault acted, as the request log says: two error answers, one dropped produce, one dropped fetch.
    const faulted = broker
      .stderr()
      .split('\n')
      .filter((l) => l.includes('"fault":"'))
      .map((l) => (JSON.parse(l) as { fault: string }).fault);
    expect(faulted.sort()).toEqual([
      'fault 1: error NOT_LEADER_OR_FOLLOWER once served',
      'fault 1: error NOT_LEADER_OR_FOLLOWER once served',
      'fault 2: drop once served',
      'fault 3: drop',
    ]);
  });
});
