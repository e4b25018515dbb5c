// How `krill` tells a client command from a broker start, --help on every level, the exit codes, and that the
// broker's bundle holds none of the client commands (they are a bundle of their own, loaded on demand).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers.js';
import { SUBCOMMANDS } from '../../src/admin-cli/subcommands.js';
import { COMMAND_WORDS } from '../../src/admin-cli/main.js';
import { freePort } from '../../bench/processes.js';

describe('krill <command>', () => {
  it('routes exactly the command words to the client, everything else to the broker', () => {
    expect(new Set([...COMMAND_WORDS, 'help'])).toEqual(SUBCOMMANDS);
  });

  it('prints help at every level with exit code 0', async () => {
    const top = await runCli(['help']);
    expect(top.code).toBe(0);
    for (const word of COMMAND_WORDS) expect(top.stdout).toContain(`krill ${word}`);
    const group = await runCli(['topics', '--help']);
    expect(group.code).toBe(0);
    expect(group.stdout).toMatch(/^usage: krill topics <command> \[options\]\n/);
    expect(group.stdout).not.toContain('krill groups');
    const cmd = await runCli(['groups', 'reset-offsets', '--help']);
    expect(cmd.code).toBe(0);
    expect(cmd.stdout).toMatch(/^usage: krill groups reset-offsets <group> /);
    expect(cmd.stdout).toContain('--bootstrap-server');
    const broker = await runCli(['--help']);
    expect(broker.stdout).toContain('krill <command> [options]');
  });

  it('exits 2 on a usage error, with the usage', async () => {
    const sub = await runCli(['topics', 'frobnicate']);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toMatch(/^krill: unknown command 'krill topics frobnicate'\nusage: krill topics <command>/);
    const missing = await runCli(['topics', 'create']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^krill topics create: expected one topic, got none\nusage: krill topics create <topic>/);
    const bad = await runCli(['cluster', '--bootstrap-server', 'nohost']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("krill cluster: a bootstrap server is host:port, got 'nohost'\n");
  });

  it('exits 3 when no broker answers', async () => {
    // A port the OS just handed out and took back: nothing listens on it.
    const port = await freePort();
    const r = await runCli(['topics', 'list', '--bootstrap-server', `127.0.0.1:${port}`]);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^krill topics list: connection to 127\\.0\\.0\\.1:${port} failed: connect ECONNREFUSED`));
  });

  it('keeps the commands out of the bundle a broker start loads', () => {
    const cli = fs.readFileSync(path.join(ROOT, 'dist', 'krill-cli.cjs'), 'utf8');
    const admin = fs.readFileSync(path.join(ROOT, 'dist', 'krill-admin.cjs'), 'utf8');
    expect(admin).toContain('groups reset-offsets');
    expect(cli).not.toContain('groups reset-offsets');
    expect(cli).toContain('require("./krill-admin.cjs")');
  });
});
