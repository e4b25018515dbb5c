// Checks every krill definition against Apache Kafka's own message JSON (../shared/kafka-message-schemas):
// version ranges, flexible versions, and, version by version, the exact wire layout: which fields exist, in
// which order, with which type, nullability, tag and default. Upstream "commonStructs" are resolved by name,
// since krill inlines their fields. The standalone structs of protocol/data are checked the same way against
// the "data" schemas (coordinator records under coordinator-records/, the consumer protocol beside the
// messages). Skipped when the schema folder is not there (a bare checkout).
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MESSAGES } from '../../protocol/messages/index.js';
import { DATA } from '../../protocol/data/index.js';
import { inRange, parseVersions, type FieldDef } from '../../protocol/schema.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SCHEMA_DIR = path.resolve(HERE, '../../../shared/kafka-message-schemas');
const HAVE_SCHEMAS = fs.existsSync(SCHEMA_DIR);

interface UpstreamField {
  name: string;
  type: string;
  /** Left out for a field that is only ever tagged: then its taggedVersions. */
  versions?: string;
  nullableVersions?: string;
  taggedVersions?: string;
  tag?: number;
  default?: string | number | boolean;
  fields?: UpstreamField[];
}

interface UpstreamMessage {
  apiKey?: number;
  type: 'request' | 'response' | 'data';
  name: string;
  validVersions: string;
  flexibleVersions: string;
  fields: UpstreamField[];
  commonStructs?: { name: string; versions: string; fields: UpstreamField[] }[];
}

/** Kafka's JSON allows whole-line `//` comments; strip them before parsing. */
function loadUpstream(file: string): UpstreamMessage {
  const text = fs.readFileSync(path.join(SCHEMA_DIR, file), 'utf8');
  const json = text
    .split('\n')
    .filter((line) => !/^\s*\/\//.test(line))
    .join('\n');
  return JSON.parse(json) as UpstreamMessage;
}

const camel = (name: string): string => name[0].toLowerCase() + name.slice(1);
const NUMERIC = new Set(['int8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'float64']);

/** One default, as text both sides can agree on: upstream strings ("-1", "0x7fffffff", "null") vs krill values. */
function normalizeDefault(type: string, d: unknown): string {
  if (d === undefined) return '(none)';
  if (d === null || d === 'null') return 'null';
  if (type === 'bool') return String(d === true || d === 'true');
  if (NUMERIC.has(type)) return String(Number(d));
  return JSON.stringify(String(d));
}

/**
 * The layout of a struct at one version, as lines: regular fields in wire order, then tagged fields by tag.
 * Nested structs follow their parent line, indented by their path.
 */
function layout(
  fields: readonly (UpstreamField | FieldDef)[],
  version: number,
  flexible: boolean,
  common: Map<string, UpstreamField[]>,
  prefix: string,
): string[] {
  const regular: string[] = [];
  const tagged: { tag: number; lines: string[] }[] = [];
  for (const f of fields) {
    if (!inRange(f.versions ?? f.taggedVersions, version)) continue;
    const isTagged = flexible && f.taggedVersions !== undefined && inRange(f.taggedVersions, version);
    const name = camel(f.name);
    const nullable = inRange(f.nullableVersions, version);
    const line =
      `${prefix}${name}: ${f.type}` +
      `${nullable ? ' nullable' : ''}` +
      `${isTagged ? ` tag=${f.tag}` : ''}` +
      ` default=${normalizeDefault(f.type, f.default)}`;
    const base = f.type.startsWith('[]') ? f.type.slice(2) : f.type;
    const sub = f.fields ?? common.get(base);
    const lines = [line, ...(sub ? layout(sub, version, flexible, common, `${prefix}${name}.`) : [])];
    if (isTagged) tagged.push({ tag: f.tag!, lines });
    else regular.push(...lines);
  }
  tagged.sort((a, b) => a.tag - b.tag);
  return [...regular, ...tagged.flatMap((t) => t.lines)];
}

const NONE = new Map<string, UpstreamField[]>();

/** Where Kafka keeps a data schema: coordinator records in their own folder, the rest beside the messages. */
function dataSchemaFile(name: string): string {
  const record = path.join('coordinator-records', `${name}.json`);
  return fs.existsSync(path.join(SCHEMA_DIR, record)) ? record : `${name}.json`;
}

/**
 * Versions below the definition's baseline that krill still has to parse: Produce v0-2 are advertised for old
 * librdkafka (KAFKA-18659), so the handler decodes them with the same definition. Checked like the rest.
 */
const DECODED_BELOW_BASELINE: Record<string, number> = { Produce: 0 };

/**
 * describe(name) when the schemas are beside the project. Without them the check is skipped and says why,
 * except under CI=true: CI has ../shared beside its clone, so a missing folder there is a failure.
 */
function describeWithSchemas(name: string, suite: () => void): void {
  if (HAVE_SCHEMAS) {
    describe(name, suite);
  } else if (process.env.CI === 'true') {
    describe(name, () => {
      it('has ../shared/kafka-message-schemas beside the project (required when CI=true)', () => {
        throw new Error(`Kafka message schemas not found at ${SCHEMA_DIR}`);
      });
    });
  } else {
    describe.skip(`${name} — SKIPPED: Kafka message schemas not found at ${SCHEMA_DIR}; required when CI=true`, () => {
      it('needs ../shared/kafka-message-schemas beside the project', () => {});
    });
  }
}

describeWithSchemas('krill definitions match Kafka message schemas', () => {
  for (const def of MESSAGES) {
    describe(`${def.name} (key ${def.apiKey})`, () => {
      const sides = ['request', 'response'] as const;
      const upstream = Object.fromEntries(
        sides.map((side) => [side, loadUpstream(`${def.name}${side === 'request' ? 'Request' : 'Response'}.json`)]),
      ) as Record<(typeof sides)[number], UpstreamMessage>;

      it('has the upstream api key, version range and flexible versions', () => {
        const ours = parseVersions(def.validVersions);
        for (const side of sides) {
          const up = upstream[side];
          expect(up.apiKey).toBe(def.apiKey);
          expect(up.type).toBe(side);
          const theirs = parseVersions(up.validVersions);
          expect(ours.min).toBeGreaterThanOrEqual(theirs.min);
          expect(ours.min).toBeLessThanOrEqual(ours.max);
          expect(ours.max).toBe(theirs.max);
          expect(def.flexibleVersions).toBe(up.flexibleVersions);
        }
      });

      const range = parseVersions(def.validVersions);
      for (let v = DECODED_BELOW_BASELINE[def.name] ?? range.min; v <= range.max; v++) {
        for (const side of sides) {
          it(`${side} v${v} has the upstream layout`, () => {
            const up = upstream[side];
            const common = new Map((up.commonStructs ?? []).map((s) => [s.name, s.fields]));
            const flexible = inRange(up.flexibleVersions, v);
            const theirs = layout(up.fields, v, flexible, common, '');
            const ours = layout(def[side], v, inRange(def.flexibleVersions, v), NONE, '');
            expect(ours).toEqual(theirs);
          });
        }
      }
    });
  }
});

describeWithSchemas('krill standalone structs match Kafka data schemas', () => {
  for (const def of DATA) {
    describe(def.name, () => {
      const up = loadUpstream(dataSchemaFile(def.name));

      it('has the upstream version range and flexible versions', () => {
        expect(up.type).toBe('data');
        expect(up.name).toBe(def.name);
        expect(def.validVersions).toBe(up.validVersions);
        expect(def.flexibleVersions).toBe(up.flexibleVersions);
      });

      const range = parseVersions(def.validVersions);
      for (let v = range.min; v <= range.max; v++) {
        it(`v${v} has the upstream layout`, () => {
          const common = new Map((up.commonStructs ?? []).map((s) => [s.name, s.fields]));
          const theirs = layout(up.fields, v, inRange(up.flexibleVersions, v), common, '');
          const ours = layout(def.fields, v, inRange(def.flexibleVersions, v), NONE, '');
          expect(ours).toEqual(theirs);
        });
      }
    });
  }
});
