// The Apache Kafka Java client (kafka-clients 4.x and 3.x) under client quotas on one real krill CLI
// process, through compat/java's driver: its Admin sets client-id quotas (AlterClientQuotas) and describes
// them; a producer and a consumer over those quotas then deliver and read every record, and their own
// throttle-time metrics (produce-throttle-time-max, fetch-throttle-time-max) show the broker's
// throttle_time_ms.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CliBroker } from '../../test/helpers.js';
import { describeWithToolchain } from '../toolchain.js';
import { BrokerPool } from '../util.js';
import { CLIENTS, java, javaMissing } from './java.js';

const pool = new BrokerPool();
let broker: CliBroker;

describeWithToolchain('Java client under client quotas', javaMissing, { timeout: 120_000 }, () => {
  beforeAll(async () => {
    broker = await pool.start(['--data-dir', pool.dir('krill-java-quotas-')]);
  });
  afterAll(() => pool.cleanup());

  for (const client of CLIENTS) {
    it(`${client.name}: every record produced and consumed over a 10 kB/s quota, throttled`, async () => {
      const id = `${client.major}-${process.pid}`;
      const res = await java(
        client,
        'quotas',
        {
          bootstrap: broker.bootstrap,
          topic: `java-quotas-${id}`,
          group: `java-quotas-${id}`,
          producerClientId: `java-producer-${id}`,
          consumerClientId: `java-consumer-${id}`,
          // 130 kB against 10 kB/s over the 10 s the first window spans
          records: 13,
          size: 10_000,
          byteRate: 10_000,
        },
        90_000,
      );
      expect(res.described).toMatchObject({
        [`{client-id=java-producer-${id}}`]: { producer_byte_rate: 10_000 },
        [`{client-id=java-consumer-${id}}`]: { consumer_byte_rate: 10_000 },
      });
      expect(res.acked).toBe(13);
      expect(res.read).toBe(13);
      expect(res.produceThrottleTimeMax).toBeGreaterThan(0);
      expect(res.fetchThrottleTimeMax).toBeGreaterThan(0);
    });
  }
});
