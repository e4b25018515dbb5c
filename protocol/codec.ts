// One generic encoder/decoder, driven by the definitions in protocol/messages/ (requests and responses) and
// protocol/data/ (standalone versioned structs: coordinator records, the consumer protocol). A definition is
// compiled once per (definition, version, side) into a flat plan; the codec never branches on the API key.

import { inRange, type DataDef, type DataInput, type DataOf, type FieldDef, type MessageDef, type UntypedMessage } from './schema.js';
import { ProtocolError, Reader, Writer } from './primitives.js';
import { ZERO_UUID } from './sentinels.js';

type Kind = 'bool' | 'int8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'int64' | 'float64' | 'string' | 'bytes' | 'records' | 'uuid' | 'struct' | 'array';

interface Plan {
  name: string;
  kind: Kind;
  /** For arrays, the kind of each element. */
  elementKind?: Kind;
  nullable: boolean;
  tag: number | null;
  defaultValue: () => unknown;
  struct?: StructPlan;
}

interface StructPlan {
  flexible: boolean;
  fields: Plan[];
  tagged: Map<number, Plan>;
  /** Fields not in this version: filled with their default on decode. */
  absent: Plan[];
}

const PRIMITIVES = new Set(['bool', 'int8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'float64', 'string', 'bytes', 'records', 'uuid']);

function kindOf(type: string, hasFields: boolean): Kind {
  if (PRIMITIVES.has(type)) return type as Kind;
  if (hasFields) return 'struct';
  throw new Error(`unknown field type '${type}'`);
}

function defaultFor(field: FieldDef, kind: Kind, elementKind?: Kind): () => unknown {
  const d = field.default;
  if (d === null || d === 'null') return () => null;
  if (kind === 'array') return () => [];
  if (kind === 'struct') return () => null;
  if (d !== undefined) {
    if (kind === 'bool') {
      const v = d === true || d === 'true';
      return () => v;
    }
    if (kind === 'string') {
      const v = String(d);
      return () => v;
    }
    if (typeof d === 'number' || typeof d === 'string') {
      const v = Number(d);
      return () => v;
    }
  }
  switch (kind) {
    case 'bool':
      return () => false;
    case 'string':
      return () => '';
    case 'bytes':
      return () => Buffer.alloc(0);
    case 'records':
      return () => null;
    case 'uuid':
      return () => ZERO_UUID;
    default:
      return elementKind ? () => [] : () => 0;
  }
}

function compileStruct(fields: readonly FieldDef[], version: number, flexible: boolean): StructPlan {
  const plan: StructPlan = { flexible, fields: [], tagged: new Map(), absent: [] };
  for (const field of fields) {
    let kind: Kind;
    let elementKind: Kind | undefined;
    if (field.type.startsWith('[]')) {
      kind = 'array';
      elementKind = kindOf(field.type.slice(2), !!field.fields);
    } else kind = kindOf(field.type, !!field.fields);
    const p: Plan = {
      name: field.name,
      kind,
      elementKind,
      nullable: inRange(field.nullableVersions, version),
      tag: null,
      defaultValue: defaultFor(field, kind, elementKind),
    };
    if (field.fields) p.struct = compileStruct(field.fields, version, flexible);
    const present = inRange(field.versions, version);
    if (flexible && field.taggedVersions !== undefined && inRange(field.taggedVersions, version) && present) {
      p.tag = field.tag!;
      plan.tagged.set(field.tag!, p);
      plan.absent.push(p); // default unless the tag is present
    } else if (present) plan.fields.push(p);
    else plan.absent.push(p);
  }
  return plan;
}

// ---- decode ----

function readValue(r: Reader, kind: Kind, p: Plan, flexible: boolean): unknown {
  switch (kind) {
    case 'bool':
      return r.bool();
    case 'int8':
      return r.int8();
    case 'int16':
      return r.int16();
    case 'uint16':
      return r.uint16();
    case 'int32':
      return r.int32();
    case 'uint32':
      return r.uint32();
    case 'int64':
      return r.int64();
    case 'float64':
      return r.float64();
    case 'uuid':
      return r.uuid();
    case 'string': {
      const s = r.string(flexible);
      if (s === null && !p.nullable) throw new ProtocolError(`non-nullable field ${p.name} is null`);
      return s;
    }
    case 'bytes':
    case 'records': {
      const b = r.bytes(flexible);
      if (b === null && !p.nullable && kind === 'bytes') throw new ProtocolError(`non-nullable field ${p.name} is null`);
      return b;
    }
    case 'struct': {
      if (p.nullable && r.int8() < 0) return null;
      return readStruct(r, p.struct!);
    }
    case 'array': {
      const n = r.arrayLength(flexible);
      if (n < 0) {
        if (!p.nullable) throw new ProtocolError(`non-nullable array ${p.name} is null`);
        return null;
      }
      const out = new Array(n);
      const ek = p.elementKind!;
      for (let i = 0; i < n; i++) {
        out[i] = ek === 'struct' ? readStruct(r, p.struct!) : readValue(r, ek, ELEMENT, flexible);
      }
      return out;
    }
  }
}

const ELEMENT: Plan = { name: 'element', kind: 'int32', nullable: false, tag: null, defaultValue: () => 0 };

function readStruct(r: Reader, plan: StructPlan): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of plan.fields) out[p.name] = readValue(r, p.kind, p, plan.flexible);
  for (const p of plan.absent) out[p.name] = p.defaultValue();
  if (plan.flexible) readTaggedFields(r, plan, out);
  return out;
}

function readTaggedFields(r: Reader, plan: StructPlan | null, out: Record<string, unknown>): void {
  const count = r.uvarint();
  let lastTag = -1;
  for (let i = 0; i < count; i++) {
    const tag = r.uvarint();
    if (tag <= lastTag) throw new ProtocolError(`tagged fields out of order: ${tag} after ${lastTag}`);
    lastTag = tag;
    const size = r.uvarint();
    const p = plan?.tagged.get(tag);
    if (!p) {
      r.raw(size); // unknown tags are skipped, as Kafka does
      continue;
    }
    const sub = new Reader(r.buf, r.offset, r.offset + size);
    r.raw(size);
    out[p.name] = readValue(sub, p.kind, p, true);
  }
}

// ---- encode ----

function writeValue(w: Writer, kind: Kind, p: Plan, v: unknown, flexible: boolean): void {
  switch (kind) {
    case 'bool':
      w.bool(!!v);
      return;
    case 'int8':
      w.int8((v as number) ?? 0);
      return;
    case 'int16':
      w.int16((v as number) ?? 0);
      return;
    case 'uint16':
      w.uint16((v as number) ?? 0);
      return;
    case 'int32':
      w.int32((v as number) ?? 0);
      return;
    case 'uint32':
      w.uint32((v as number) ?? 0);
      return;
    case 'int64':
      w.int64((v as number | bigint) ?? 0);
      return;
    case 'float64':
      w.float64((v as number) ?? 0);
      return;
    case 'uuid':
      w.uuid((v as Buffer) ?? null);
      return;
    case 'string':
      if (v === null || v === undefined) {
        if (!p.nullable && v === null) throw new ProtocolError(`non-nullable field ${p.name} is null`);
        w.string(v === null ? null : '', flexible);
      } else w.string(v as string, flexible);
      return;
    case 'bytes':
    case 'records':
      w.bytes((v as Buffer | Buffer[] | null) ?? (kind === 'records' || p.nullable ? null : Buffer.alloc(0)), flexible);
      return;
    case 'struct':
      if (p.nullable) {
        if (v === null || v === undefined) {
          w.int8(-1);
          return;
        }
        w.int8(1);
      }
      writeStruct(w, p.struct!, (v ?? {}) as Record<string, unknown>);
      return;
    case 'array': {
      if (v === null || v === undefined) {
        if (p.nullable && v === null) w.arrayLength(-1, flexible);
        else w.arrayLength(0, flexible);
        return;
      }
      const arr = v as unknown[];
      w.arrayLength(arr.length, flexible);
      const ek = p.elementKind!;
      for (const item of arr) {
        if (ek === 'struct') writeStruct(w, p.struct!, item as Record<string, unknown>);
        else writeValue(w, ek, ELEMENT, item, flexible);
      }
    }
  }
}

function isDefault(p: Plan, v: unknown): boolean {
  if (v === undefined) return true;
  const d = p.defaultValue();
  if (Array.isArray(v)) return Array.isArray(d) && v.length === 0;
  if (Buffer.isBuffer(v) && Buffer.isBuffer(d)) return v.equals(d);
  return v === d;
}

function writeStruct(w: Writer, plan: StructPlan, obj: Record<string, unknown>): void {
  for (const p of plan.fields) {
    // A field left out of the message is written as Kafka's default for it (-1 for logAppendTimeMs, null for a
    // nullable errorMessage), as Kafka's own generated classes do, not as the zero value of its type.
    const v = obj[p.name];
    writeValue(w, p.kind, p, v === undefined ? p.defaultValue() : v, plan.flexible);
  }
  if (!plan.flexible) return;
  const present: Plan[] = [];
  for (const p of plan.tagged.values()) if (!isDefault(p, obj[p.name])) present.push(p);
  present.sort((a, b) => a.tag! - b.tag!);
  w.uvarint(present.length);
  for (const p of present) {
    const sub = new Writer();
    writeValue(sub, p.kind, p, obj[p.name], true);
    const bytes = sub.toBuffer();
    w.uvarint(p.tag!);
    w.uvarint(bytes.length);
    w.raw(bytes);
  }
}

// ---- public API ----

export type Side = 'request' | 'response';
export type Message = UntypedMessage;

const plans = new Map<string, StructPlan>();

function planFor(def: MessageDef, side: Side, version: number): StructPlan {
  const key = `${def.apiKey}:${side}:${version}`;
  let plan = plans.get(key);
  if (!plan) {
    plan = compileStruct(def[side], version, isFlexible(def, version));
    plans.set(key, plan);
  }
  return plan;
}

export function isFlexible(def: MessageDef, version: number): boolean {
  return inRange(def.flexibleVersions, version);
}

export function decodeMessage(def: MessageDef, side: Side, version: number, r: Reader): Message {
  return readStruct(r, planFor(def, side, version));
}

export function encodeMessage(def: MessageDef, side: Side, version: number, msg: Message, w = new Writer()): Writer {
  writeStruct(w, planFor(def, side, version), msg);
  return w;
}

const dataPlans = new WeakMap<DataDef, Map<number, StructPlan>>();

function dataPlanFor(def: DataDef, version: number): StructPlan {
  let byVersion = dataPlans.get(def);
  if (!byVersion) dataPlans.set(def, (byVersion = new Map()));
  let plan = byVersion.get(version);
  if (!plan) {
    if (!inRange(def.validVersions, version)) throw new ProtocolError(`${def.name} has no version ${version}`);
    plan = compileStruct(def.fields, version, inRange(def.flexibleVersions, version));
    byVersion.set(version, plan);
  }
  return plan;
}

/** A standalone struct at `version` (the version itself is not read: it sits in front, in the caller's format). */
export function decodeData<D extends DataDef>(def: D, version: number, r: Reader): DataOf<D> {
  return readStruct(r, dataPlanFor(def, version)) as DataOf<D>;
}

/** Writes a standalone struct at `version`, without the version. */
export function encodeData<D extends DataDef>(def: D, version: number, value: DataInput<D>, w = new Writer()): Writer {
  writeStruct(w, dataPlanFor(def, version), value as Record<string, unknown>);
  return w;
}

export interface RequestHeader {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
}

/** Reads the fixed part of the request header (v1 layout, which v2 extends with tagged fields). */
export function decodeRequestHeaderStart(r: Reader): RequestHeader {
  const apiKey = r.int16();
  const apiVersion = r.int16();
  const correlationId = r.int32();
  const clientId = r.string(false); // clientId keeps its int16 length even in header v2
  return { apiKey, apiVersion, correlationId, clientId };
}

/** A whole request frame as a client sends it: size prefix, request header (v2 when flexible, else v1), body. */
export function encodeRequestFrame(def: MessageDef, header: RequestHeader, body: Message): Buffer {
  const w = new Writer();
  const size = w.reserveInt32();
  w.int16(header.apiKey).int16(header.apiVersion).int32(header.correlationId).string(header.clientId, false);
  if (isFlexible(def, header.apiVersion)) writeEmptyTaggedFields(w);
  encodeMessage(def, 'request', header.apiVersion, body, w);
  size.buf.writeInt32BE(w.length - 4, size.at);
  return w.toBuffer();
}

export function skipTaggedFields(r: Reader): void {
  readTaggedFields(r, null, {});
}

export function writeEmptyTaggedFields(w: Writer): void {
  w.uvarint(0);
}
