// The PyPI clients' interpreter: compat/pypi/.venv (made by compat/pypi/install.sh with pyenv's python3),
// which runs the drivers here and compat/python's confluent-kafka drivers against the wheel's librdkafka 2.x.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pythonRunner } from '../python/py.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const VENV_PYTHON = path.join(HERE, '.venv', 'bin', 'python');

/** For describeWithToolchain: what is missing, or null when the venv holds requirements.txt's versions. */
export function venvMissing(): string | null {
  const stamp = path.join(HERE, '.venv', 'requirements.installed');
  if (!fs.existsSync(VENV_PYTHON) || !fs.existsSync(stamp)) return 'compat/pypi/.venv: run bash compat/pypi/install.sh';
  if (fs.readFileSync(stamp, 'utf8') !== fs.readFileSync(path.join(HERE, 'requirements.txt'), 'utf8')) {
    return 'compat/pypi/.venv is older than requirements.txt: run bash compat/pypi/install.sh';
  }
  return null;
}

/** Runs a driver (a name relative to compat/python, or `../pypi/<name>`) with the venv's interpreter. */
export const venvPy = pythonRunner(VENV_PYTHON, { PATH: '/usr/bin:/bin' });
export const pypiDriver = (name: string): string => path.join(HERE, name);
