// README.md's "Changing configs at run time" against BROKER_CONFIGS' dynamic flags: the broker configs it
// names as changing live are exactly the dynamic ones that are not a topic config's default (those are
// covered by the topic table's broker column), and each it names is dynamic.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.js';
import { BROKER_CONFIGS } from '../../src/config.js';
import { TOPIC_CONFIGS } from '../../src/log-config.js';

function liveBullet(): string {
  const text = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = text.indexOf('- **What changes live.**');
  expect(start).toBeGreaterThan(0);
  return text.slice(start, text.indexOf('\n- **', start + 1));
}

describe('README on dynamic broker configs', () => {
  const named = new Set([...liveBullet().matchAll(/`([^`]+)`/g)].map((m) => m[1]).filter((n) => n in BROKER_CONFIGS));
  const topicDefaults = new Set(Object.values(TOPIC_CONFIGS).map((d) => d.broker));

  it('names every dynamic broker config that is not a topic default', () => {
    const missing = Object.entries(BROKER_CONFIGS)
      .filter(([n, d]) => d.dynamic && !topicDefaults.has(n) && !named.has(n))
      .map(([n]) => n);
    expect(missing).toEqual([]);
  });

  it('names only dynamic ones', () => {
    expect([...named].filter((n) => !BROKER_CONFIGS[n].dynamic)).toEqual([]);
  });
});
