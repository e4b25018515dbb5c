// The Apache Kafka Java client (org.apache.kafka:kafka-clients 4.x and 3.x, unmodified, its defaults unless a
// test is about a setting) against one real krill CLI process, through compat/java's driver:
// - producer defaults (idempotent, acks=all) with each codec, a consumer in a classic group with the default
//   assignors, reading back exactly what was sent; krill keeps the producer's codec on disk;
// - transactions: read-process-write with sendOffsetsToTransaction, committed and aborted;
// - the consumer API: seek, offsetsForTimes, beginning/end offsets, commitSync/committed;
// - static membership: a static member restarted within session.timeout gets its partitions back with no
//   rebalance;
// - the Admin API krill serves.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliBroker } from '../../test/helpers.js';
import { describeWithToolchain } from '../toolchain.js';
import { BrokerPool, readBatchHeaders } from '../util.js';
import type { Json } from '../util.js';
import { CLIENTS, java, javaMissing } from './java.js';

const TIMEOUT = 120_000;
const pool = new BrokerPool();
let broker: CliBroker;
let seq = 0;
const unique = (label: string) => `java-${label}-${process.pid}-${++seq}`;

const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
const CODEC_IDS: Record<string, number> = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 };

/** Records across 3 partitions: keyed and null keys, headers (one with a null value), explicit timestamps. */
function records(prefix: string) {
  const out = [];
  for (let i = 0; i < 30; i++) {
    out.push({
      partition: i % 3,
      key: i % 5 === 0 ? null : `${prefix}-k${i}`,
      value: `${prefix}-value-${i}-${'x'.repeat(i * 7)}`,
      headers:
        i % 2 === 0
          ? [
              ['h1', `hv${i}`],
              ['empty', null],
            ]
          : [],
      timestamp: 1_700_000_000_000 + i,
    });
  }
  return out;
}

describeWithToolchain('Java client (kafka-clients) against a krill broker', javaMissing, { timeout: TIMEOUT }, () => {
  beforeAll(async () => {
    broker = await pool.start(['--data-dir', pool.dir('krill-java-'), '--set', 'group.initial.rebalance.delay.ms=0']);
  });
  afterAll(() => pool.cleanup());

  for (const client of CLIENTS) {
    describe(client.name, () => {
      it('produces with its defaults and each codec; a classic group with the default assignors reads exactly what was sent', async () => {
        const runs = CODECS.map((codec) => ({ codec, topic: unique(`codec-${codec}`), group: unique('g') }));
        const sent = records('r');
        const res = await java(client, 'produce_consume', {
          bootstrap: broker.bootstrap,
          create: runs.map((r) => ({ name: r.topic, partitions: 3 })),
          runs,
          records: sent,
        });
        expect(res.clientVersion.startsWith(`${client.major}.`)).toBe(true);
        for (const [i, run] of runs.entries()) {
          const r = res.runs[i];
          expect(r.acks).toBe('-1');
          expect(r.enableIdempotence).toBe(true);
          expect(r.compressionType).toBe(run.codec);
          // Range first, then cooperative-sticky (both clients' default list): the group runs range.
          expect(r.defaultAssignors).toEqual([
            'org.apache.kafka.clients.consumer.RangeAssignor',
            'org.apache.kafka.clients.consumer.CooperativeStickyAssignor',
          ]);
          expect(r.groupProtocol).toBe('classic');
          expect(r.groupAssignor).toBe('range');
          expect(r.groupMembers).toBe(1);
          expect(r.generation).toBeGreaterThanOrEqual(1);
          // Each partition's records in send order at offsets 0..9.
          expect(r.sent.map((s: Json) => [s.partition, s.offset, s.timestamp])).toEqual(sent.map((s, j) => [s.partition, Math.floor(j / 3), s.timestamp]));
          const received = [...r.received].sort((a: Json, b: Json) => a.partition - b.partition || a.offset - b.offset);
          const expected = sent
            .map((s, j) => ({
              partition: s.partition,
              offset: Math.floor(j / 3),
              key: s.key,
              value: s.value,
              timestamp: s.timestamp,
              timestampType: 'CreateTime',
              headers: s.headers,
              leaderEpoch: 0,
            }))
            .sort((a, b) => a.partition - b.partition || a.offset - b.offset);
          expect(received).toEqual(expected);
          expect(r.committed).toEqual({ [`${run.topic}/0`]: 10, [`${run.topic}/1`]: 10, [`${run.topic}/2`]: 10 });
          // krill stores the producer's batches as they came (compression.type=producer): the codec asked for.
          for (let p = 0; p < 3; p++) {
            const dir = path.join(broker.dataDir, `${run.topic}-${p}`);
            const logs = fs.readdirSync(dir).filter((f) => f.endsWith('.log'));
            const headers = logs.flatMap((f) => readBatchHeaders(path.join(dir, f)));
            expect(headers.length).toBeGreaterThan(0);
            expect(new Set(headers.map((h) => h.codec))).toEqual(new Set([CODEC_IDS[run.codec]]));
            expect(headers.every((h) => h.producerId >= 0n)).toBe(true); // idempotent by default
          }
        }
      });

      it('read-process-write transactions: a committed and an aborted one; read_committed sees only committed output', async () => {
        const input = unique('txn-in');
        const output = unique('txn-out');
        const res = await java(client, 'transactions', {
          bootstrap: broker.bootstrap,
          create: [
            { name: input, partitions: 1 },
            { name: output, partitions: 1 },
          ],
          input,
          output,
          group: unique('txn-g'),
          transactionalId: unique('txn-id'),
          count: 10,
        });
        const outs = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `out-${from + i}`);
        expect(res.polled).toBe(10);
        // The group's offsets are what each committed transaction sent; the aborted one's did not count.
        expect(res.committedAfterFirst).toEqual({ [`${input}/0`]: 5 });
        expect(res.committedAfterAbort).toEqual({ [`${input}/0`]: 5 });
        expect(res.reprocessedFrom).toBe(5);
        expect(res.committedAfterRetry).toEqual({ [`${input}/0`]: 10 });
        expect(res.readCommitted).toEqual(outs(0, 10));
        expect(res.readUncommitted).toEqual([...outs(0, 5), ...outs(5, 10), ...outs(5, 10)]);
        // 15 records and a marker after each of the three transactions.
        expect(res.outputEnd).toEqual({ [`${output}/0`]: 18 });
      });

      it('consumer API: beginning/end offsets, offsetsForTimes, seek, commitSync and committed', async () => {
        const topic = unique('capi');
        const res = await java(client, 'consumer_api', {
          bootstrap: broker.bootstrap,
          create: [{ name: topic, partitions: 1 }],
          topic,
          group: unique('capi-g'),
          count: 10,
          t0: 1_700_000_000_000,
        });
        const p0 = `${topic}/0`;
        expect(res.beginning).toEqual({ [p0]: 0 });
        expect(res.end).toEqual({ [p0]: 10 });
        expect(res.forTime).toEqual({ offset: 4, timestamp: 1_700_000_004_000 });
        expect(res.forTimeAfterEnd).toBe('null');
        expect(res.firstAfterSeek).toBe('7:v7');
        expect(res.firstAfterSeekToBeginning).toBe('0:v0');
        expect(res.positionAfterSeekToEnd).toBe(10);
        expect(res.committed).toEqual({ offset: 5, metadata: 'meta-5' });
        expect(res.firstAfterSeek3).toBe('3:v3');
        expect(res.committedAfterPollCommit).toBe(res.positionAfterPollCommit);
        expect(res.resumedAt).toBe(res.committedAfterPollCommit);
      });

      it('static membership: a member restarted within session.timeout.ms takes its partitions back without a rebalance', async () => {
        const topic = unique('static');
        const res = await java(client, 'static_members', {
          bootstrap: broker.bootstrap,
          create: [{ name: topic, partitions: 4 }],
          topic,
          group: unique('static-g'),
          partitions: 4,
          sessionTimeoutMs: 30_000,
          heartbeatMs: 300,
          observeHeartbeats: 5,
        });
        expect([...res.aAssignment, ...res.bAssignment].sort()).toEqual([0, 1, 2, 3].map((p) => `${topic}/${p}`));
        expect(res.aAssignment.length).toBe(2);
        // The restarted member b: same partitions, same generation, a new member id; a saw nothing.
        expect(res.b2Assignment).toEqual(res.bAssignment);
        expect(res.b2Generation).toBe(res.generation);
        expect(res.aGenerationAfter).toBe(res.generation);
        expect(res.aAssignmentAfter).toEqual(res.aAssignment);
        expect(res.aCallbacks.length).toBe(res.aCallbacksBefore);
        expect(res.b2SameMemberId).toBe(false);
        expect(res.members.map((m: Json) => m.instanceId).sort()).toEqual(['member-a', 'member-b']);
      });

      it('cooperative-sticky: a joining member takes half without the other losing the rest; admin on a live group, static member removal', async () => {
        const topic = unique('coop');
        const group = unique('coop-g');
        const other = unique('coop-other');
        const all = [0, 1, 2, 3].map((p) => `${topic}/${p}`);
        const res = await java(client, 'groups', {
          bootstrap: broker.bootstrap,
          create: [{ name: topic, partitions: 4 }],
          topic,
          group,
          otherGroup: other,
          partitions: 4,
        });
        expect(res.aAlone).toEqual(all);
        expect(res.aAfterJoin).toHaveLength(2);
        expect([...res.aAfterJoin, ...res.bAfterJoin].sort()).toEqual(all);
        // Incremental: a gave up exactly what b took, nothing else, and lost nothing.
        const events = res.aCallbacksAtJoin as Json[];
        expect(events[0]).toEqual({ assigned: all });
        expect(events.filter((e) => e.revoked).flatMap((e) => e.revoked)).toEqual(res.bAfterJoin);
        expect(events.some((e) => e.lost)).toBe(false);
        expect(res.describeLive).toEqual({ state: 'Stable', assignor: 'cooperative-sticky', members: ['coop-b=2', 'dynamic=2'] });
        expect(res.deleteLiveGroup.error).toMatch(/^GroupNotEmptyException/);
        expect(res.alterLiveGroupOffsets.error).toMatch(/^UnknownMemberIdException/);
        expect(res.listOffsetsOfTwoGroups).toEqual({ [group]: Object.fromEntries(all.map((p) => [p, 5])), [other]: { [`${topic}/1`]: 3 } });
        expect(res.describeUnknownGroup).toEqual({ state: 'Dead', members: 0 });
        expect(res.removeStaticMember).toBe('removed');
        expect(res.aAfterRemove).toEqual(all);
        expect(res.removeUnknownMember.error).toMatch(/^UnknownMemberIdException/);
      });

      it('Admin API: topics, partitions, configs, records, offsets, groups, cluster, log dirs, producers, transactions', async () => {
        const prefix = unique('admin');
        const res = await java(client, 'admin', { bootstrap: broker.bootstrap, prefix });
        const [a, b] = [`${prefix}-a`, `${prefix}-b`];
        expect(res.createTopics).toBe('ok');
        expect(res.listTopics).toEqual([a, b]);
        expect(res.describeTopics).toEqual({ name: a, partitions: 3, topicIdSet: true, leaders: [1, 1, 1], replicas: [1, 1, 1] });
        expect(res.createPartitions).toEqual({ name: a, partitions: 5, topicIdSet: true, leaders: [1, 1, 1, 1, 1], replicas: [1, 1, 1, 1, 1] });
        expect(res.describeConfigs).toBe('86400000');
        expect(res.incrementalAlterConfigs).toEqual({ 'retention.ms': '123456', 'cleanup.policy': 'compact', source: 'DYNAMIC_TOPIC_CONFIG' });
        expect(res.deleteConfig).toEqual({ value: 'delete', source: 'DEFAULT_CONFIG' });
        expect(res.describeBrokerConfig).toBe('168');
        expect(res.deleteRecords).toBe(4);
        expect(res.listOffsets).toEqual({ earliest: 4, latest: 10, maxTimestampOffset: 9, maxTimestamp: 1_000_009, forTimestamp: 6 });
        expect(res.groupConsumed).toBe(6);
        expect(res.listConsumerGroups).toEqual({ groupId: `${prefix}-g`, state: 'Empty' });
        expect(res.describeConsumerGroups).toEqual({ state: 'Empty', members: 0, coordinator: 1 });
        expect(res.listConsumerGroupOffsets).toEqual({ [`${b}/0`]: 10 });
        expect(res.alterConsumerGroupOffsets).toEqual({ [`${b}/0`]: 6 });
        expect(res.deleteConsumerGroupOffsets).toEqual({});
        expect(res.deleteConsumerGroups).toBe('gone');
        expect(res.describeCluster).toEqual({ clusterId: expect.any(String), controller: 1, nodes: [1] });
        // Every partition of both topics in the one log dir; the size of b/0 (10 records and more) is above 0.
        expect(res.describeLogDirs.dirs).toBe(1);
        expect(res.describeLogDirs.partitions.slice(0, 5)).toEqual([0, 1, 2, 3, 4].map((p) => `${a}/${p}`));
        expect(res.describeLogDirs.partitions.slice(5).map((x: string) => x.replace(/=[1-9]\d*$/, '=size'))).toEqual([`${b}/0=size`]);
        expect(res.describeProducers).toEqual([{ producerId: expect.any(Number), epoch: 0, lastSequence: 9 }]);
        expect(res.listTransactions).toEqual({ state: 'Ongoing', producerId: expect.any(Number) });
        expect(res.describeTransactions).toEqual({ state: 'Ongoing', partitions: [`${b}/0`], producerId: res.listTransactions.producerId, epoch: 0 });
        expect(res.lsoWhileOpen).toBe(10);
        // Admin.abortTransaction ends the hanging transaction: a marker at 11, the last stable offset past it.
        expect(res.abortTransaction).toEqual({ lsoAfter: 12, latestAfter: 12, stillOpen: false });
        expect(res.deleteTopics).toBe('gone');
      });

      it('Admin API: topic ids, error answers, the newer ListOffsets specs, config synonyms, fenceProducers', async () => {
        const prefix = unique('admin2');
        const res = await java(client, 'admin_more', { bootstrap: broker.bootstrap, prefix });
        expect(res.createTopics).toEqual({ numPartitions: 2, replicationFactor: 1, topicIdSet: true, maxMessageBytes: '200000', t2Partitions: 2 });
        expect(res.validateOnly).toBe('not created');
        expect(res.createExisting.error).toMatch(/^TopicExistsException/);
        expect(res.createTooManyReplicas.error).toMatch(/^InvalidReplicationFactorException/);
        expect(res.describeUnknown.error).toMatch(/^UnknownTopicOrPartitionException/);
        expect(res.deleteUnknown.error).toMatch(/^UnknownTopicOrPartitionException/);
        // By id: Metadata v12 with the id set and the name "" (the Java default).
        expect(res.describeById).toEqual({ name: `${prefix}-a`, partitions: 2 });
        expect(res.describeUnknownId.error).toMatch(/^UnknownTopicIdException/);
        expect(res.tooLargeRecord.error).toMatch(/^RecordTooLargeException/);
        expect(res.listOffsetsSpecs).toEqual({ earliest: 0, earliestLocal: 0, latestTiered: -1, maxTimestampOffset: 4, forTimestampAfterEnd: -1 });
        expect(res.deleteRecordsPastEnd.error).toMatch(/^OffsetOutOfRangeException/);
        expect(res.deleteRecordsToEnd).toBe(5);
        expect(res.describeConfigsSynonyms).toEqual({
          value: '200000',
          source: 'DYNAMIC_TOPIC_CONFIG',
          synonyms: ['max.message.bytes:DYNAMIC_TOPIC_CONFIG', 'message.max.bytes:DEFAULT_CONFIG'],
          hasDoc: true,
          type: 'INT',
        });
        expect(res.alterConfigsInvalid.error).toMatch(/^InvalidConfigurationException/);
        expect(res.listTransactionsFiltered).toEqual({ ongoing: [`${prefix}-tx`], completeCommit: [], longRunning: [] });
        expect(res.createWithBrokerDefaults).toEqual({ numPartitions: 1, replicationFactor: 1 });
        expect(res.appendSubtract).toEqual({ appended: 'delete,compact', subtracted: 'compact' });
        expect(res.brokerDynamicConfig).toEqual({
          backoff: '16000:DYNAMIC_BROKER_CONFIG',
          retention: '7200000:DYNAMIC_DEFAULT_BROKER_CONFIG',
          backoffAfter: 'DEFAULT_CONFIG',
        });
        expect(res.describeBrokerLogger).toBeGreaterThan(0);
        expect(res.describeUnknownTransaction.error).toMatch(/^TransactionalIdNotFoundException/);
        // fenceProducers bumps the epoch (the open transaction aborted); the old producer is fenced.
        expect(res.fenceProducers).toBe('Empty');
        expect(res.fencedProducerCommits.error).toMatch(/^ProducerFencedException/);
        // Without an authorizer, as Kafka: every operation each resource type supports (a group's configs
        // among them since Kafka 4), and nothing unasked.
        expect(res.authorizedOperations).toEqual({
          cluster: ['ALTER', 'ALTER_CONFIGS', 'CLUSTER_ACTION', 'CREATE', 'DESCRIBE', 'DESCRIBE_CONFIGS', 'IDEMPOTENT_WRITE'],
          topic: ['ALTER', 'ALTER_CONFIGS', 'CREATE', 'DELETE', 'DESCRIBE', 'DESCRIBE_CONFIGS', 'READ', 'WRITE'],
          group: ['ALTER_CONFIGS', 'DELETE', 'DESCRIBE', 'DESCRIBE_CONFIGS', 'READ'],
          notAsked: 'null',
        });
        expect(res.deleteById).toBe('gone');
      });
    });
  }
});
