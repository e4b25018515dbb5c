// The command line's argument rules at their edges: each case exits before any broker starts.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers.js';

async function usageError(args: string[]): Promise<string> {
  const r = await runCli(args);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toContain('usage: krill');
  return r.stderr.split('\n')[0];
}

describe('krill arguments', () => {
  it('refuses what is no option by the argument as given', async () => {
    expect(await usageError(['--bogus=3'])).toBe("krill: unknown argument '--bogus=3'");
    expect(await usageError(['--'])).toBe("krill: unknown argument '--'");
    expect(await usageError(['-hx'])).toBe("krill: unknown argument '-hx'");
    expect(await usageError(['-h=1'])).toBe("krill: unknown argument '-h=1'");
    expect(await usageError(['serve'])).toBe("krill: unknown argument 'serve'");
  });

  it('names an option whose value is missing, and takes an inline value', async () => {
    expect(await usageError(['--port'])).toBe('krill: --port needs a value');
    expect(await usageError(['--set'])).toBe('krill: --set needs a value');
    expect(await usageError(['--port=abc'])).toBe("krill: --port must be a port number from 0 to 65535, got 'abc'");
    expect(await usageError(['--set', '=x'])).toBe("krill: --set expects key=value, got '=x'");
  });

  it('stops at the first bad argument, before a --version after it', async () => {
    expect(await usageError(['--bogus', '--version'])).toBe("krill: unknown argument '--bogus'");
    const r = await runCli(['--version', '--bogus']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });
});
