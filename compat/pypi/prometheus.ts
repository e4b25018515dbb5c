// /metrics as a Prometheus scraper reads it: fetched and parsed by prometheus_client's own text-format parser
// (prometheus_scrape.py, run with compat/pypi/.venv), and the samples looked up by family and labels.
import { expect } from 'vitest';
import { pypiDriver, venvPy } from './pypi.js';

const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type Sample = [name: string, labels: Record<string, string>, value: number];
export interface Family {
  type: string;
  documentation: string;
  samples: Sample[];
}
export type Families = Record<string, Family>;

export async function scrape(http: string): Promise<Families> {
  const r = await venvPy<{ content_type: string; families: Families }>(pypiDriver('prometheus_scrape.py'), 'scrape', { url: `http://${http}/metrics` });
  expect(r.content_type).toBe(CONTENT_TYPE);
  return r.families;
}

/**
 * The one sample of `family` named `sample` (default: the family's name, with _total for a counter) whose
 * labels include `labels`; undefined when there is none, an error when several match.
 */
export function value(families: Families, family: string, labels: Record<string, string> = {}, sample?: string): number | undefined {
  const f = families[family];
  if (!f) throw new Error(`no family ${family}`);
  const name = sample ?? (f.type === 'counter' ? `${family}_total` : family);
  const found = f.samples.filter(([n, l]) => n === name && Object.entries(labels).every(([k, v]) => l[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.[2];
}

/** Sum of `family`'s samples named `sample` whose labels include `labels`. */
export function total(families: Families, family: string, labels: Record<string, string>, sample: string): number {
  return families[family].samples.filter(([n, l]) => n === sample && Object.entries(labels).every(([k, v]) => l[k] === v)).reduce((s, x) => s + x[2], 0);
}
