// The differential test (issue 27): the same requests to Apache Kafka 4.4 (one KRaft process for the whole
// file) and to an embedded krill, at every version both serve, with their decoded responses compared field
// by field. What may differ is compare.ts's ALLOWED list and known-differences.ts; anything else fails.
// KRILL_DIFF_SHOW=1 prints every difference, the known ones too. KRILL_DIFF_KAFKA=host:port uses a Kafka
// already running (for working on cases) instead of starting one.
import crypto from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { describeWithToolchain } from '../toolchain.js';
import { apacheKafkaMissing, startApacheKafka, type ApacheKafka } from '../kafka-tools/apache-kafka.js';
import { sharedVersions, type Case, type CaseContext } from './case.js';
import { CASES } from './cases.js';
import { compareValues, formatDifference, type Difference } from './compare.js';
import { Side } from './harness.js';
import { KNOWN_DIFFERENCES, isKnown } from './known-differences.js';

const SHOW = process.env.KRILL_DIFF_SHOW === '1';
const RUN = crypto.randomBytes(3).toString('hex');

describeWithToolchain('differential: krill against Apache Kafka 4.4, request by request', apacheKafkaMissing, { timeout: 120_000 }, () => {
  let kafkaProcess: ApacheKafka | undefined;
  let broker: RunningBroker;
  let kafka: Side;
  let krill: Side;
  const used = new Set<string>();
  const ran = new Set<string>();

  beforeAll(async () => {
    const external = process.env.KRILL_DIFF_KAFKA;
    [kafkaProcess, broker] = await Promise.all([external ? undefined : startApacheKafka(), startBroker({ port: 0, host: '127.0.0.1' })]);
    const kafkaPort = external ? Number(external.split(':')[1]) : kafkaProcess!.port;
    [kafka, krill] = await Promise.all([Side.connect('kafka', kafkaPort), Side.connect('krill', broker.port)]);
  }, 180_000);
  afterAll(async () => {
    kafka?.close();
    krill?.close();
    await Promise.all([kafkaProcess?.stop(), broker?.close()]);
  });

  async function runCase(c: Case): Promise<Difference[]> {
    const versions = sharedVersions(c, kafka, krill);
    expect(versions.length, `${c.name}: no version both serve`).toBeGreaterThan(0);
    const slug = c.name
      .replace(/[^a-zA-Z0-9]+/g, '-')
      .toLowerCase()
      .slice(0, 40);
    const context = (side: Side, v: number): CaseContext => ({
      side,
      v,
      name: (suffix) => `d${RUN}-${slug}-${suffix}`,
      send: (step, apiKey, version, body) => side.send(`${c.name} v${v} ${step}`, apiKey, version, body),
      sendRaw: (step, frame, apiKey, decodeVersion) => side.sendRaw(`${c.name} v${v} ${step}`, frame, apiKey, decodeVersion),
    });
    const before = [kafka.transcript.length, krill.transcript.length];
    await Promise.all([kafka, krill].map((s) => c.setup?.(context(s, -1))));
    for (const v of versions) await Promise.all([kafka, krill].map((s) => c.run(context(s, v))));
    const [k, r] = [kafka.transcript.slice(before[0]), krill.transcript.slice(before[1])];
    expect(r.map((e) => e.label)).toEqual(k.map((e) => e.label));
    return k.flatMap((e, i) => compareValues(e.label, e.response, r[i].response));
  }

  for (const c of CASES) {
    it(c.name, async () => {
      const diffs = await runCase(c);
      ran.add(c.name);
      const unknown: string[] = [];
      for (const d of diffs) {
        const known = isKnown(d);
        if (known) used.add(known.name);
        else unknown.push(formatDifference(d));
        if (SHOW) console.log(`${known ? `[known: ${known.name}] ` : ''}${formatDifference(d)}`);
      }
      expect(unknown).toEqual([]);
    });
  }

  it('every known difference still occurs', () => {
    if (SHOW) {
      const apis = new Set(kafka.transcript.map((e) => e.apiKey));
      const untried = [...krill.ranges.keys()].filter((k) => kafka.ranges.has(k) && !apis.has(k));
      for (const e of [...kafka.transcript, ...krill.transcript]) if ((e.ms ?? 0) > 200) console.log(`slow: ${e.label}: ${e.ms} ms`);
      console.log(`${ran.size} cases, ${apis.size} APIs, ${kafka.transcript.length} exchanges; not sent: ${untried.join(', ')}`);
    }
    const stale = KNOWN_DIFFERENCES.filter((k) => ran.has(k.case) && !used.has(k.name)).map((k) => k.name);
    expect(stale).toEqual([]);
  });
});
