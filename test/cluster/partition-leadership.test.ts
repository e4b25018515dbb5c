// A cluster broker's partitions: led by nobody until the controller's LeaderAndIsr names this broker, only
// then served (NOT_LEADER_OR_FOLLOWER before and when another broker leads), an older leader epoch ignored,
// and epochs answered from the leader-epoch-checkpoint.
import { afterEach, expect, it } from 'vitest';
import { buildBatch, scanBatches } from '../../protocol/record-batch.js';
import { ErrorCode } from '../../protocol/errors.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { ReplicaManager, clusterStart } from '../../src/partition/replica-manager.js';
import { useTempDirs } from '../helpers.js';

const newDir = useTempDirs('krill-leadership-');
const opened: LogManager[] = [];
afterEach(() => {
  for (const l of opened.splice(0)) l.close();
});

function clustered() {
  const logs = LogManager.open({ dataDir: newDir() });
  opened.push(logs);
  logs.createTopic('t', 1);
  return new ReplicaManager(logs, 2, clusterStart(logs.dataDir));
}

it("leads only once LeaderAndIsr names this broker, and follows the controller's epochs", () => {
  const replicas = clustered();
  expect(replicas.leaderPartition('t', 0)).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
  expect(replicas.leaderPartition('t', 1)).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  const p = replicas.partition('t', 0)!;
  expect(p.setLeaderState({ leaderId: 1, leaderEpoch: 1, replicas: [1, 2], isr: [1] })).toBe(true);
  expect(replicas.leaderPartition('t', 0)).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
  expect(p.setLeaderState({ leaderId: 2, leaderEpoch: 3, replicas: [1, 2], isr: [2] })).toBe(true);
  expect(replicas.leaderPartition('t', 0)).toBe(p);
  // A stale controller's word (an older epoch) changes nothing.
  expect(p.setLeaderState({ leaderId: 1, leaderEpoch: 2, replicas: [1, 2], isr: [1] })).toBe(false);
  expect([p.leaderId, p.leaderEpoch, p.isr]).toEqual([2, 3, [2]]);
});

it("answers where a leader epoch ends from the epochs the log recorded (Kafka's endOffsetFor)", () => {
  const replicas = clustered();
  const p = replicas.partition('t', 0)!;
  p.setLeaderState({ leaderId: 2, leaderEpoch: 4, replicas: [2], isr: [2] });
  const buf = buildBatch([{ key: null, value: Buffer.from('v') }], { partitionLeaderEpoch: 4 });
  replicas.appendValidated(p, buf, scanBatches(buf));
  // Below the first known epoch: the asked epoch, ending where the first known one starts.
  expect(p.endOffsetForEpoch(1)).toEqual({ leaderEpoch: 1, endOffset: 0 });
  expect(p.endOffsetForEpoch(4)).toEqual({ leaderEpoch: 4, endOffset: 1 });
  expect(p.endOffsetForEpoch(5)).toEqual({ leaderEpoch: -1, endOffset: -1 });
});
