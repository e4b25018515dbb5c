// The vocabulary of krill's message definitions. It is Kafka's own (validVersions, flexibleVersions,
// per-field versions, nullableVersions, taggedVersions/tag, default) so that each definition in
// protocol/messages/ reads side by side with the upstream JSON, in camelCase.

/** Kafka's field types. `[]X` is an array: of a primitive, or of a struct whose `fields` are given. */
export type FieldType =
  | 'bool' | 'int8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'int64' | 'float64'
  | 'string' | 'bytes' | 'records' | 'uuid'
  | `[]${string}`
  | string; // a struct type name, with `fields`

export interface FieldDef {
  name: string;
  type: FieldType;
  /** Version range the field exists in: '0+', '3-5', 'none'. */
  versions: string;
  nullableVersions?: string;
  /** Present only as a tagged field, in these versions. */
  taggedVersions?: string;
  tag?: number;
  /** Value when absent from a version. Kafka's defaults apply when omitted (0, '', false, [], zero uuid). */
  default?: unknown;
  /** For struct and struct-array types. */
  fields?: FieldDef[];
}

export interface MessageDef {
  apiKey: number;
  name: string;
  /** Versions krill speaks (from the KIP-896 baseline up). */
  validVersions: string;
  flexibleVersions: string;
  request: FieldDef[];
  response: FieldDef[];
}

export interface VersionRange {
  min: number;
  max: number;
}

const NONE: VersionRange = { min: 1, max: 0 };
const rangeCache = new Map<string, VersionRange>();

export function parseVersions(spec: string | undefined): VersionRange {
  if (spec === undefined || spec === 'none') return NONE;
  let r = rangeCache.get(spec);
  if (r) return r;
  if (spec.endsWith('+')) r = { min: Number(spec.slice(0, -1)), max: Infinity };
  else if (spec.includes('-')) {
    const [a, b] = spec.split('-');
    r = { min: Number(a), max: Number(b) };
  } else r = { min: Number(spec), max: Number(spec) };
  if (Number.isNaN(r.min) || Number.isNaN(r.max)) throw new Error(`bad version range '${spec}'`);
  rangeCache.set(spec, r);
  return r;
}

export function inRange(spec: string | undefined, version: number): boolean {
  const r = parseVersions(spec);
  return version >= r.min && version <= r.max;
}
