// Runs the compat/python/*.py drivers with Debian's /usr/bin/python3 (where the Debian packages
// python3-confluent-kafka and python3-kafka live), or any driver with another interpreter (compat/pypi's
// virtual environment), and parses its one JSON line.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runDriver } from '../util.js';
import type { Json } from '../util.js';

export const PYTHON = '/usr/bin/python3';
const HERE = path.dirname(fileURLToPath(import.meta.url));

/** Runs a driver (a path, or a name relative to compat/python) with an interpreter, parsing its one JSON line. */
export type PyRunner = <T = Json>(script: string, command: string, args: object, timeoutMs?: number) => Promise<T>;

/**
 * A runner for one interpreter. `env` is the whole environment it gets (besides the unbuffered, no-bytecode
 * settings); compat/python is on PYTHONPATH so that drivers elsewhere can `import driver`.
 */
export function pythonRunner(python: string, env: NodeJS.ProcessEnv): PyRunner {
  const fullEnv: NodeJS.ProcessEnv = { LANG: 'C.UTF-8', ...env, PYTHONPATH: HERE, PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1' };
  return <T = Json>(script: string, command: string, args: object, timeoutMs = 45_000): Promise<T> =>
    runDriver<T>(`${script} ${command}`, python, [path.resolve(HERE, script), command], args, { timeoutMs, env: fullEnv });
}

// A clean environment for Debian's python: no pyenv/virtualenv variables leaking in.
export const py: PyRunner = pythonRunner(PYTHON, { PATH: '/usr/bin:/bin' });

export const b64 = (s: string | Buffer | null): string | null => (s === null ? null : Buffer.from(s).toString('base64'));
export const unb64 = (s: string | null): string | null => (s === null ? null : Buffer.from(s, 'base64').toString('latin1'));

export interface PyRecord {
  key: string | null;
  value: string | null;
  headers?: [string, string | null][] | null;
  timestamp?: number | null;
  partition?: number | null;
}

/** A record as sent to a driver: bytes as base64. */
export function encodeRecord(r: PyRecord) {
  return {
    key: b64(r.key === null ? null : Buffer.from(r.key, 'latin1')),
    value: b64(r.value === null ? null : Buffer.from(r.value, 'latin1')),
    headers: r.headers ? r.headers.map(([k, v]) => [k, v === null ? null : b64(Buffer.from(v, 'latin1'))]) : r.headers,
    timestamp: r.timestamp ?? null,
    partition: r.partition ?? null,
  };
}
