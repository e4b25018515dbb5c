// `krill --fault JSON`: faults set from the start, for test suites in other languages that start krill as a
// process; each request a fault answers shows it in the debug request log. (Run `npm run build` first.)
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli, useTempDirs } from '../helpers.js';
import { TestClient } from '../server/client.js';
import { API, createTopic, produceBody, uniqueTopic } from '../server/kafka.js';
import { buildBatch } from '../../protocol/record-batch.js';
import { ErrorCode } from '../../protocol/errors.js';

const dir = useTempDirs('krill-cli-faults-');
const clients: TestClient[] = [];
afterAll(() => clients.forEach((c) => c.close()));

describe('krill --fault', () => {
  it('answers the first N matching requests with the error, then serves them, and logs each one', async () => {
    const topic = uniqueTopic('cli-fault');
    const fault = JSON.stringify({ api: 'Produce', topic, error: 'NOT_LEADER_OR_FOLLOWER', count: 2 });
    const b = await spawnCli(['--port', '0', '--data-dir', dir(), '--log-level', 'debug', '--fault', fault]);
    try {
      const c = await TestClient.connect(b.port);
      clients.push(c);
      await createTopic(c, topic);
      const codes: number[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await c.request(API.Produce, 9, produceBody(topic, 0, buildBatch([{ key: 'k', value: `v${i}` }])));
        codes.push(res.responses[0].partitionResponses[0].errorCode);
      }
      expect(codes).toEqual([ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.NONE]);
      const faulted = b
        .stderr()
        .split('\n')
        .filter((line) => line.includes('"msg":"request"') && line.includes('"api":"Produce"'))
        .map((line) => (JSON.parse(line) as { fault?: string }).fault ?? null);
      expect(faulted).toEqual(['fault 1: error NOT_LEADER_OR_FOLLOWER', 'fault 1: error NOT_LEADER_OR_FOLLOWER', null]);
    } finally {
      b.kill('SIGTERM');
      expect(await b.exited).toBe(0);
    }
  });

  it.each([
    ['{"api":"Produse","error":6}', "api: 'Produse' is not an API"],
    ['{"api":"Fetch"}', 'a fault needs one of error, drop, hold or delayMs'],
    ['{"api":"Fetch","drop":"yes"}', 'drop: "yes" is not of the right type'],
    ['{"api":"Fetch","drop":true,"extra":1}', "'extra' is not a fault field"],
    ['not json', 'a fault is a JSON object'],
  ])('--fault %s exits 2 naming the problem', async (spec, message) => {
    const r = await runCli(['--port', '0', '--data-dir', dir(), '--fault', spec]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`krill: --fault: ${message}`);
    expect(r.stdout).not.toContain('krill ready');
  });
});
