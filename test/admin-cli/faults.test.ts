// `krill faults`: a running krill's faults set through its HTTP listener's /faults (krill.http.faults=true),
// as a suite in another language would, seen by a raw Kafka client. (Run `npm run build` first.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, spawnCli, useTempDirs, type CliBroker } from '../helpers.js';
import { eventually, run } from '../../compat/util.js';
import { TestClient } from '../server/client.js';
import { API, createTopic, produceBody } from '../server/kafka.js';
import { buildBatch } from '../../protocol/record-batch.js';
import { ErrorCode } from '../../protocol/errors.js';

const dir = useTempDirs('krill-faults-cli-');
let broker: CliBroker;
let http: string;
let client: TestClient;

const faults = (args: string[], address = http) => run(process.execPath, [CLI, 'faults', ...args, '--http', address], { timeoutMs: 30_000 });
const faultsJson = async (args: string[]) => {
  const r = await faults([...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};
const produceCode = async (topic: string) =>
  (await client.request(API.Produce, 9, produceBody(topic, 0, buildBatch([{ key: 'k', value: 'v' }])))).responses[0].partitionResponses[0].errorCode;

beforeAll(async () => {
  broker = await spawnCli(['--port', '0', '--data-dir', dir(), '--set', 'krill.http.listener=127.0.0.1:0', '--set', 'krill.http.faults=true']);
  http = /, http: ([^)]+)\)/.exec(broker.readyLine)![1];
  client = await TestClient.connect(broker.port);
  await createTopic(client, 'aimed');
});
afterAll(async () => {
  client?.close();
  broker?.kill('SIGTERM');
  await broker?.exited;
});

describe('krill faults', () => {
  it('adds a fault the next requests meet, lists it with its hits, and removes it', async () => {
    const [added] = await faultsJson(['add', '{"api":"Produce","topic":"aimed","error":"NOT_LEADER_OR_FOLLOWER","count":"always"}']);
    expect(added).toMatchObject({ spec: { api: 'Produce', error: 'NOT_LEADER_OR_FOLLOWER' }, hits: 0, active: true });
    expect([await produceCode('aimed'), await produceCode('aimed')]).toEqual([ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.NOT_LEADER_OR_FOLLOWER]);
    expect(await faultsJson(['list'])).toEqual([expect.objectContaining({ id: added.id, hits: 2 })]);
    const table = await faults(['list']);
    expect(table.stdout).toMatch(/^ID\s+HITS\s+ACTIVE\s+SPEC\n/);
    const [removed] = await faultsJson(['remove', String(added.id)]);
    expect(removed).toMatchObject({ id: added.id, active: false, hits: 2 });
    expect(await produceCode('aimed')).toBe(ErrorCode.NONE);
    expect(await faultsJson(['list'])).toEqual([]);
  });

  it('freezes a leader until the fault is removed, and clears every fault', async () => {
    const [frozen] = await faultsJson(['freeze-leader', 'aimed', '--partition', '0']);
    let answered = false;
    const produced = produceCode('aimed').then((code) => ((answered = true), code));
    // The produce has reached the broker, and is held there, once the fault counts a hit.
    await eventually('the produce held', async () => ((await faultsJson(['list']))[0].hits === 1 ? true : undefined));
    expect(answered).toBe(false);
    const cleared = await faults(['clear']);
    expect(cleared.stdout).toBe('Removed 1 fault(s)\n');
    expect(await produced).toBe(ErrorCode.NONE);
    expect(frozen.spec).toMatchObject({ topic: 'aimed', partition: 0, hold: true, count: 'always' });
  });

  it('exits 2 for a fault that makes no sense, 1 for an unknown id, 3 when /faults is not served', async () => {
    const bad = await faults(['add', '{"api":"Produse","error":6}']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("krill faults add: api: 'Produse' is not an API");
    const unknown = await faults(['remove', '999']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('krill faults remove: no fault 999\n');
    const plain = await spawnCli(['--port', '0', '--data-dir', dir(), '--set', 'krill.http.listener=127.0.0.1:0']);
    try {
      const off = await faults(['list'], /, http: ([^)]+)\)/.exec(plain.readyLine)![1]);
      expect(off.code).toBe(3);
      expect(off.stderr).toMatch(/not served \(is krill\.http\.faults=true set\?\)/);
    } finally {
      plain.kill('SIGTERM');
      await plain.exited;
    }
  });
});
