// The README's "The krill CLI" examples, run as written (through a `krill` on PATH that points at a test broker)
// in order: each exits 0 with nothing on stderr, and the error it quotes is the one krill prints.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, useTempDirs, withBroker } from '../helpers.js';
import type { RunningBroker } from '../../src/index.js';
import { run } from '../../compat/util.js';

const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('## The krill CLI'), readme.indexOf('\n## ', readme.indexOf('## The krill CLI') + 1));
const examples = /```sh\n([\s\S]*?)```/
  .exec(section)![1]
  .split('\n')
  .map((line) => line.replace(/\s+# .*$/, ''))
  .filter((line) => line.trim() !== '');

describe("the README's CLI examples", { timeout: 60_000 }, () => {
  let broker: RunningBroker;
  const dirs = useTempDirs('krill-cli-readme-');
  let bin: string;
  const sh = (line: string) => run('/bin/sh', ['-c', line], { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });

  beforeAll(async () => {
    broker = await withBroker();
    bin = dirs();
    fs.writeFileSync(path.join(bin, 'krill'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@" --bootstrap-server ${broker.bootstrap}\n`, { mode: 0o755 });
  });
  afterAll(async () => {
    await broker?.close();
  });

  it('has examples of every command group', () => {
    for (const word of ['topics', 'produce', 'consume', 'groups', 'configs', 'cluster', 'transactions']) {
      expect(examples.some((l) => l.includes(`krill ${word}`))).toBe(true);
    }
  });

  it('runs each example as written', async () => {
    for (const line of examples) {
      const r = await sh(line);
      expect({ line, code: r.code, stderr: r.stderr }).toEqual({ line, code: 0, stderr: '' });
      expect(r.stdout).not.toBe('');
    }
    const quoted = /`(krill topics create: TOPIC_ALREADY_EXISTS: creating topic 'orders': )…`/.exec(section)![1];
    const again = await sh('krill topics create orders');
    expect(again.code).toBe(1);
    expect(again.stderr.startsWith(quoted)).toBe(true);
  });
});
