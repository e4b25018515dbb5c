// The logger front: pino records on stderr, with child bindings, created only when a record passes the level.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.js';

const LOGGER = path.join(ROOT, 'dist', 'src', 'logger.js');

function run(level: string, body: string): { lines: Record<string, unknown>[]; stdout: string } {
  const script = `import { createLogger } from ${JSON.stringify(LOGGER)};
const log = createLogger(${JSON.stringify(level)});
${body}
log.flush();`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  const lines = r.stderr
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { lines, stdout: r.stdout };
}

describe('logger', () => {
  it('writes pino JSON records with the bindings of every child level', () => {
    const { lines } = run(
      'info',
      `
const conn = log.child({ client: '127.0.0.1:5000' });
const req = conn.child({ api: 'Fetch' });
log.info('plain message');
req.warn({ topic: 't' }, 'with fields');
conn.error({ err: new Error('boom') }, 'an error');`,
    );
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({ level: 30, name: 'krill', msg: 'plain message' });
    expect(lines[1]).toMatchObject({ level: 40, name: 'krill', client: '127.0.0.1:5000', api: 'Fetch', topic: 't', msg: 'with fields' });
    expect(lines[2]).toMatchObject({ level: 50, client: '127.0.0.1:5000', msg: 'an error' });
    expect((lines[2].err as { message: string }).message).toBe('boom');
  });

  it('drops records below the level and reports enabled levels', () => {
    const { lines, stdout } = run(
      'warn',
      `
const child = log.child({ client: 'x' });
log.debug('no'); log.info({ a: 1 }, 'no'); child.info('no'); child.warn('yes');
console.log(JSON.stringify([log.level, log.isLevelEnabled('info'), log.isLevelEnabled('warn'), log.isLevelEnabled('fatal')]));`,
    );
    expect(lines.map((l) => l.msg)).toEqual(['yes']);
    expect(JSON.parse(stdout)).toEqual(['warn', false, true, true]);
  });

  it('loads pino only when a record passes the level', () => {
    const { stdout } = run(
      'warn',
      `
const { createRequire } = await import('node:module');
const require = createRequire(${JSON.stringify(LOGGER)});
const pinoPath = require.resolve('pino');
const loaded = () => Boolean(require.cache[pinoPath]);
log.child({ a: 1 }).info('below the level');
const before = loaded();
log.warn('passes');
console.log(JSON.stringify([before, loaded()]));`,
    );
    expect(JSON.parse(stdout)).toEqual([false, true]);
  });

  it('a failed write (stderr on a full device) loses the record, not the process', () => {
    const script = `import { createLogger } from ${JSON.stringify(LOGGER)};
const log = createLogger('info');
log.warn('lost');
log.info('lost too');
log.flush();
console.log('still running');`;
    const full = fs.openSync('/dev/full', 'w');
    try {
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', full], timeout: 10_000 });
      expect(r.status).toBe(0);
      expect(r.stdout).toBe('still running\n');
    } finally {
      fs.closeSync(full);
    }
  }, 15_000);

  it('is silent at level silent', () => {
    const { lines } = run('silent', `log.fatal('no'); log.child({}).error('no');`);
    expect(lines).toEqual([]);
  });
});
