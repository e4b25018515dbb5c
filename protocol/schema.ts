// The vocabulary of krill's message definitions. It is Kafka's own (validVersions, flexibleVersions,
// per-field versions, nullableVersions, taggedVersions/tag, default) so that each definition in
// protocol/messages/ reads side by side with the upstream JSON, in camelCase.
//
// Definitions are declared `as const satisfies MessageDef`, so their literal types survive and the types of
// the messages follow from them (RequestOf, ResponseOf, DataOf, DataInput below): the codec and the compiler
// read the same definition, and a misspelt field is a compile error.

/** Kafka's field types. `[]X` is an array: of a primitive, or of a struct whose `fields` are given. */
export type FieldType =
  'bool' | 'int8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'int64' | 'float64' | 'string' | 'bytes' | 'records' | 'uuid' | `[]${string}` | string; // a struct type name, with `fields`

export interface FieldDef {
  readonly name: string;
  readonly type: FieldType;
  /** Version range the field exists in: '0+', '3-5', 'none'. */
  readonly versions: string;
  readonly nullableVersions?: string;
  /** Present only as a tagged field, in these versions. */
  readonly taggedVersions?: string;
  readonly tag?: number;
  /** Value when absent from a version. Kafka's defaults apply when omitted (0, '', false, [], zero uuid). */
  readonly default?: unknown;
  /** For struct and struct-array types. */
  readonly fields?: readonly FieldDef[];
}

export interface MessageDef {
  readonly apiKey: number;
  readonly name: string;
  /** Versions krill speaks (from the KIP-896 baseline up). */
  readonly validVersions: string;
  readonly flexibleVersions: string;
  readonly request: readonly FieldDef[];
  readonly response: readonly FieldDef[];
}

/**
 * A versioned struct that stands alone (Kafka's `"type": "data"`): a record key or value in __consumer_offsets
 * or __transaction_state, the consumer protocol's subscription and assignment. The version is not part of the
 * struct: whoever stores it writes it in front (an int16, for all of these).
 */
export interface DataDef {
  readonly name: string;
  readonly validVersions: string;
  readonly flexibleVersions: string;
  readonly fields: readonly FieldDef[];
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

// ---- types derived from a definition ----
//
// What the codec hands over (decode) and what it accepts (encode) differ, so each side has its own type:
// - decoded: every field of the definition is there, whatever the version, since the codec fills a field the
//   version lacks with its default; `| null` where a version allows null, where the default is null, and for a
//   struct (not array) that some version lacks or that is tagged (its default is null). int64 is a number
//   (see primitives.ts); records may be null in any version.
// - to encode: a field may be left out where the codec fills it with the intended value: it has an explicit
//   default, is tagged, or is missing from some version the message speaks. Every other field must be given.
//   int64 also takes a bigint, records a list of buffers (segment slices written back to back).
// A definition whose literal types were widened (plain MessageDef) gives an untyped record instead.

/** Any message, where the definition is not known at compile time: its fields are read as the caller reads them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type UntypedMessage = Record<string, any>;

type Tuple<N extends number, T extends 0[] = []> = T['length'] extends N ? T : Tuple<N, [...T, 0]>;
type AtMost<A extends number, B extends number> = Tuple<B> extends [...Tuple<A>, ...0[]] ? true : false;

/** [min, max] of a version range; max is 'open' for 'N+'. */
type Bounds<S extends string> = S extends `${infer A extends number}+`
  ? [A, 'open']
  : S extends `${infer A extends number}-${infer B extends number}`
    ? [A, B]
    : S extends `${infer A extends number}`
      ? [A, A]
      : ['none', 'none'];

/** Whether a field's `versions` include every version of the message's `validVersions`. */
type Covers<F extends string, V extends string> = [Bounds<F>, Bounds<V>] extends [
  [infer FMin extends number, infer FMax],
  [infer VMin extends number, infer VMax],
]
  ? AtMost<FMin, VMin> extends false
    ? false
    : FMax extends 'open'
      ? true
      : [FMax, VMax] extends [infer FM extends number, infer VM extends number]
        ? AtMost<VM, FM>
        : false
  : false;

type Flat<T> = { [K in keyof T]: T[K] } & {};

type NullWhere<F extends FieldDef> =
  (F extends { nullableVersions: infer N } ? (N extends 'none' ? never : null) : never) | (F extends { default: null | 'null' } ? null : never);

type DecodedScalar<T> = T extends 'bool'
  ? boolean
  : T extends 'string'
    ? string
    : T extends 'bytes' | 'uuid'
      ? Buffer
      : T extends 'records'
        ? Buffer | null
        : number; // the integer types and float64; int64 included

type InputScalar<T> = T extends 'int64' ? number | bigint : T extends 'records' ? Buffer | Buffer[] | null : DecodedScalar<T>;

type DecodedValue<F extends FieldDef, V extends string> = F extends { fields: infer S extends readonly FieldDef[] }
  ? F['type'] extends `[]${string}`
    ? DecodedFields<S, V>[]
    : DecodedFields<S, V> | (F extends { taggedVersions: string } ? null : Covers<F['versions'], V> extends true ? never : null)
  : F['type'] extends `[]${infer E}`
    ? DecodedScalar<E>[]
    : DecodedScalar<F['type']>;

type InputValue<F extends FieldDef, V extends string> = F extends { fields: infer S extends readonly FieldDef[] }
  ? F['type'] extends `[]${string}`
    ? readonly InputFields<S, V>[]
    : InputFields<S, V>
  : F['type'] extends `[]${infer E}`
    ? readonly InputScalar<E>[]
    : InputScalar<F['type']>;

type Fillable<F extends FieldDef, V extends string> = F extends { default: unknown }
  ? true
  : F extends { taggedVersions: string }
    ? true
    : Covers<F['versions'], V> extends true
      ? false
      : true;

export type DecodedFields<Fs extends readonly FieldDef[], V extends string> = Flat<{
  [F in Fs[number] as F['name']]: DecodedValue<F, V> | NullWhere<F>;
}>;

export type InputFields<Fs extends readonly FieldDef[], V extends string> = Flat<
  { [F in Fs[number] as Fillable<F, V> extends true ? never : F['name']]: InputValue<F, V> | NullWhere<F> } & {
    [F in Fs[number] as Fillable<F, V> extends true ? F['name'] : never]?: InputValue<F, V> | NullWhere<F>;
  }
>;

type Typed<D extends { name: string }, T> = string extends D['name'] ? UntypedMessage : T;

/** A request as the codec decodes it. */
export type RequestOf<M extends MessageDef> = Typed<M, DecodedFields<M['request'], M['validVersions']>>;
/** A response as a handler may hand it to the codec. */
export type ResponseOf<M extends MessageDef> = Typed<M, InputFields<M['response'], M['validVersions']>>;
/** A request as a client (the broker-to-broker client) hands it to the codec. */
export type RequestInputOf<M extends MessageDef> = Typed<M, InputFields<M['request'], M['validVersions']>>;
/** A response as the codec decodes it for that client. */
export type DecodedResponseOf<M extends MessageDef> = Typed<M, DecodedFields<M['response'], M['validVersions']>>;
/** A standalone struct as the codec decodes it. */
export type DataOf<D extends DataDef> = Typed<D, DecodedFields<D['fields'], D['validVersions']>>;
/** A standalone struct as it may be handed to the codec. */
export type DataInput<D extends DataDef> = Typed<D, InputFields<D['fields'], D['validVersions']>>;

/** An element of an array field (`ElementOf<FetchResponse['responses']>`), optional or nullable as it may be. */
export type ElementOf<A> = NonNullable<A> extends readonly (infer E)[] ? E : never;
