// README.md's "Configuration honoured" tables against the tables krill runs on: the broker table's names and
// defaults against BROKER_CONFIGS (broker-config-defs.ts); the topic table, row for row, as TOPIC_CONFIGS (log-config.ts)
// renders it. On a mismatch the message gives the rows README should have.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.js';
import { BROKER_CONFIGS } from '../../src/config.js';
import { TOPIC_CONFIGS } from '../../src/log-config.js';

/** Defaults README describes in words rather than by value. */
const DESCRIBED_DEFAULTS: Record<string, string> = {
  'advertised.listeners': 'the listeners',
  'listener.security.protocol.map': "Kafka's",
  // Unset means PLAINTEXT; unset, it does not clash with inter.broker.listener.name (Kafka's rule).
  'security.inter.broker.protocol': 'PLAINTEXT',
};

/** The tables of README's configuration section, as rows of trimmed cells (header and rule dropped). */
function readmeTables(): string[][][] {
  const text = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = text.indexOf('## Configuration honoured');
  const end = text.indexOf('\n## ', start + 1);
  const tables: string[][][] = [];
  let current: string[][] | null = null;
  for (const line of text.slice(start, end).split('\n')) {
    if (!line.startsWith('|')) {
      current = null;
      continue;
    }
    if (!current) tables.push((current = []));
    current.push(
      line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  }
  return tables.map((t) => t.slice(2));
}

/** A broker config's default as README shows it. */
function shownDefault(name: string): string {
  const value = BROKER_CONFIGS[name].default;
  if (name in DESCRIBED_DEFAULTS) return DESCRIBED_DEFAULTS[name];
  if (value === null || value === '') return '—';
  return name.endsWith('.hours') ? `${value} h` : value;
}

function topicRow(name: string): string {
  const def = TOPIC_CONFIGS[name];
  return `| \`${name}\` | ${def.default} | ${def.broker ? `\`${def.broker}\`` : '—'} | ${def.doc} |`;
}

describe('README configuration tables', () => {
  const [brokerTable, topicTable] = readmeTables();

  it('name every broker config with its default', () => {
    const listed: string[] = [];
    const wrong: string[] = [];
    for (const [namesCell, defaultCell] of brokerTable) {
      const names = [...namesCell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
      listed.push(...names);
      const unknown = names.filter((n) => !(n in BROKER_CONFIGS));
      if (unknown.length > 0) {
        wrong.push(`${unknown.join(', ')}: not in BROKER_CONFIGS`);
        continue;
      }
      const own = names.filter((n) => !BROKER_CONFIGS[n].aliasOf);
      const shown = defaultCell.replace(/\*\*|`/g, '').split(' / ');
      // One default for several names is the default of the one that has one (log.dirs / log.dir).
      const expected =
        shown.length === own.length
          ? own.map(shownDefault)
          : [
              own
                .map(shownDefault)
                .filter((d) => d !== '—')
                .join(' / '),
            ];
      if (shown.join(' / ') !== expected.join(' / ')) wrong.push(`${own.join(' / ')}: README says ${shown.join(' / ')}, krill ${expected.join(' / ')}`);
    }
    expect(wrong).toEqual([]);
    expect(listed.sort()).toEqual(Object.keys(BROKER_CONFIGS).sort());
  });

  it('give every topic config as TOPIC_CONFIGS has it', () => {
    const readme = topicTable.map((cells) => `| ${cells.join(' | ')} |`).join('\n');
    const expected = Object.keys(TOPIC_CONFIGS).sort().map(topicRow).join('\n');
    expect(readme, `README's topic config rows should be:\n${expected}\n`).toBe(expected);
  });
});
