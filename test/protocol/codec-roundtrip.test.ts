// The generic codec against every definition: for each API, version and side (and each standalone struct of
// protocol/data and version), a sample message with a non-default value in every field of that version (tagged fields included, arrays of two, null wherever the
// version allows it) must encode, decode to the same values and re-encode to the same bytes.
// Then golden bytes worked out by hand from the protocol spec, to pin the classic and compact encodings and
// the tagged-field sections independently of the codec's own round trip.
import { describe, expect, it } from 'vitest';
import { MESSAGES, MESSAGES_BY_KEY } from '../../protocol/messages/index.js';
import { DATA } from '../../protocol/data/index.js';
import { inRange, parseVersions, type FieldDef, type MessageDef } from '../../protocol/schema.js';
import {
  decodeData,
  decodeMessage,
  decodeRequestHeaderStart,
  encodeData,
  encodeMessage,
  isFlexible,
  skipTaggedFields,
  writeEmptyTaggedFields,
  type Side,
} from '../../protocol/codec.js';
import { Reader, Writer } from '../../protocol/primitives.js';

/** Produce v0-2 are advertised for old librdkafka (KAFKA-18659) and decoded with the v3+ definition. */
const DECODED_BELOW_BASELINE: Record<string, number> = { Produce: 0 };

// ---- sample generation ----

const PRIMITIVE = new Set(['bool', 'int8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'float64', 'string', 'bytes', 'records', 'uuid']);

/** A value of a primitive type that differs from the field's default (so tagged fields really go on the wire). */
function primitiveSample(type: string, seed: number, def: unknown): unknown {
  switch (type) {
    case 'bool':
      return !(def === true);
    case 'int8':
      return 10 + (seed % 100);
    case 'int16':
      return 1000 + seed;
    case 'uint16':
      return 40000 + seed;
    case 'int32':
      return 100000 + seed;
    case 'uint32':
      return 3_000_000_000 + seed;
    case 'int64':
      return 2 ** 40 + seed; // above 2^32, below 2^53
    case 'float64':
      return 1.5 + seed;
    case 'string':
      return `s${seed}-é`; // multi-byte character: lengths are in bytes
    case 'bytes':
      return Buffer.from([seed & 0xff, 1, 2, 3]);
    case 'records':
      return Buffer.from([0xca, 0xfe, seed & 0xff, 0, 0, 7]);
    case 'uuid':
      return Buffer.alloc(16, (seed % 250) + 1);
  }
  throw new Error(`no sample for ${type}`);
}

/**
 * A sample struct for `version`. With `nulls`, every field nullable at this version is null; arrays of
 * structs alternate, so one element has nulls and the other values, at every depth.
 */
function sampleStruct(fields: readonly FieldDef[], version: number, nulls: boolean, seed: { n: number }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    if (!inRange(f.versions, version)) continue;
    const n = ++seed.n;
    if (nulls && inRange(f.nullableVersions, version)) {
      out[f.name] = null;
      continue;
    }
    if (f.type.startsWith('[]')) {
      const element = f.type.slice(2);
      out[f.name] = f.fields
        ? [sampleStruct(f.fields, version, nulls, seed), sampleStruct(f.fields, version, !nulls, seed)]
        : [primitiveSample(element, n, undefined), primitiveSample(element, n + 1, undefined)];
    } else if (f.fields) {
      out[f.name] = sampleStruct(f.fields, version, nulls, seed);
    } else if (PRIMITIVE.has(f.type)) {
      out[f.name] = primitiveSample(f.type, n, f.default);
    } else throw new Error(`field ${f.name} has struct type ${f.type} without fields`);
  }
  return out;
}

/** Buffers become hex so they compare by content, whatever their backing store or offset. */
function normalize(v: unknown): unknown {
  if (Buffer.isBuffer(v)) return { hex: v.toString('hex') };
  if (Array.isArray(v)) return v.map(normalize);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalize(x)]));
  return v;
}

/** `decoded` restricted to the keys `like` has, recursively (decoding also fills absent fields with defaults). */
function pick(decoded: unknown, like: unknown): unknown {
  if (Array.isArray(like) && Array.isArray(decoded)) return decoded.map((d, i) => pick(d, like[i]));
  if (like && typeof like === 'object' && !Buffer.isBuffer(like) && decoded && typeof decoded === 'object') {
    return Object.fromEntries(Object.keys(like).map((k) => [k, pick((decoded as Record<string, unknown>)[k], (like as Record<string, unknown>)[k])]));
  }
  return decoded;
}

/** Every field the definition has at any version: decoding fills the ones absent at this version. */
function expectAllKeys(decoded: Record<string, unknown>, fields: readonly FieldDef[], version: number): void {
  for (const f of fields) {
    expect(decoded, `field ${f.name}`).toHaveProperty(f.name);
    const v = decoded[f.name];
    if (f.fields && inRange(f.versions, version)) {
      if (Array.isArray(v)) for (const item of v) expectAllKeys(item as Record<string, unknown>, f.fields, version);
      else if (v) expectAllKeys(v as Record<string, unknown>, f.fields, version);
    }
  }
}

function roundTrip(def: MessageDef, side: Side, version: number, msg: Record<string, unknown>) {
  const bytes = encodeMessage(def, side, version, msg).toBuffer();
  const r = new Reader(bytes);
  const decoded = decodeMessage(def, side, version, r);
  expect(r.remaining, 'decode consumed every byte').toBe(0);
  const again = encodeMessage(def, side, version, decoded).toBuffer();
  return { bytes, decoded, again };
}

describe('codec round trip of every definition', () => {
  it('registry is sorted by api key without duplicates', () => {
    const keys = MESSAGES.map((m) => m.apiKey);
    expect(keys).toEqual([...keys].sort((a, b) => a - b));
    expect(new Set(keys).size).toBe(keys.length);
    expect(MESSAGES_BY_KEY.size).toBe(keys.length);
  });

  for (const def of MESSAGES) {
    const range = parseVersions(def.validVersions);
    describe(`${def.name} (key ${def.apiKey})`, () => {
      for (let v = DECODED_BELOW_BASELINE[def.name] ?? range.min; v <= range.max; v++) {
        for (const side of ['request', 'response'] as const) {
          for (const nulls of [false, true]) {
            it(`${side} v${v}${nulls ? ' with nulls' : ''}`, () => {
              const msg = sampleStruct(def[side], v, nulls, { n: 0 });
              const { bytes, decoded, again } = roundTrip(def, side, v, msg);
              expect(normalize(pick(decoded, msg))).toEqual(normalize(msg));
              expectAllKeys(decoded, def[side], v);
              expect(again.equals(bytes), 're-encoding the decoded message gives the same bytes').toBe(true);
            });
          }
        }
      }
    });
  }
});

describe('fields left out of a message', () => {
  for (const def of MESSAGES) {
    const range = parseVersions(def.validVersions);
    it(`${def.name}: an empty message encodes at every version, each field as its Kafka default`, () => {
      for (let v = range.min; v <= range.max; v++) {
        for (const side of ['request', 'response'] as const) {
          const { bytes, decoded, again } = roundTrip(def, side, v, {});
          expectAllKeys(decoded, def[side], v);
          expect(again.equals(bytes)).toBe(true);
        }
      }
    });
  }

  it('use the declared default, not the zero value of the type', () => {
    const produce = MESSAGES_BY_KEY.get(0)!;
    const bytes = encodeMessage(produce, 'response', 8, {
      responses: [{ name: 't', partitionResponses: [{ index: 0, errorCode: 0, baseOffset: 5 }] }],
    }).toBuffer();
    const p = decodeMessage(produce, 'response', 8, new Reader(bytes)).responses[0].partitionResponses[0];
    expect(p.logAppendTimeMs).toBe(-1); // 0 would tell the client the broker stamped LogAppendTime 0
    expect(p.logStartOffset).toBe(-1);
    expect(p.errorMessage).toBeNull();

    const fetch = MESSAGES_BY_KEY.get(1)!;
    const fb = encodeMessage(fetch, 'response', 11, { responses: [{ topic: 't', partitions: [{ partitionIndex: 0 }] }] }).toBuffer();
    const fp = decodeMessage(fetch, 'response', 11, new Reader(fb)).responses[0].partitions[0];
    expect(fp.preferredReadReplica).toBe(-1); // 0 would send the consumer to broker 0
    expect(fp.lastStableOffset).toBe(-1);
  });
});

describe('codec round trip of every standalone struct (protocol/data)', () => {
  for (const def of DATA) {
    const range = parseVersions(def.validVersions);
    describe(def.name, () => {
      for (let v = range.min; v <= range.max; v++) {
        for (const sample of ['values', 'nulls', 'empty'] as const) {
          it(`v${v} ${sample}`, () => {
            const value = sample === 'empty' ? {} : sampleStruct(def.fields, v, sample === 'nulls', { n: 0 });
            const bytes = encodeData(def, v, value).toBuffer();
            const r = new Reader(bytes);
            const decoded = decodeData(def, v, r);
            expect(r.remaining, 'decode consumed every byte').toBe(0);
            expect(normalize(pick(decoded, value))).toEqual(normalize(value));
            expectAllKeys(decoded, def.fields, v);
            expect(encodeData(def, v, decoded).toBuffer().equals(bytes)).toBe(true);
          });
        }
      }
      it('refuses a version it does not have', () => {
        expect(() => decodeData(def, range.max + 1, new Reader(Buffer.alloc(64)))).toThrow(/has no version/);
      });
    });
  }
});

// ---- golden bytes ----

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const def = (key: number): MessageDef => MESSAGES_BY_KEY.get(key)!;

describe('golden bytes', () => {
  it('Metadata v1 request: classic header, int32 array length, int16 string lengths', () => {
    const frame = hex(`
      0003 0001 0000002a 0001 63
      00000002 0002 6162 0001 63`);
    // apiKey 3, version 1, correlation id 42, client id "c"; topics ["ab", "c"]
    const r = new Reader(frame);
    expect(decodeRequestHeaderStart(r)).toEqual({ apiKey: 3, apiVersion: 1, correlationId: 42, clientId: 'c' });
    expect(isFlexible(def(3), 1)).toBe(false);
    const body = decodeMessage(def(3), 'request', 1, r);
    expect(r.remaining).toBe(0);
    expect(body.topics.map((t: { name: string }) => t.name)).toEqual(['ab', 'c']);
    expect(body.allowAutoTopicCreation).toBe(true); // v4+ field: absent, so Kafka's default

    const w = new Writer();
    w.int16(3).int16(1).int32(42).string('c', false);
    encodeMessage(def(3), 'request', 1, { topics: [{ name: 'ab' }, { name: 'c' }] }, w);
    expect(w.toBuffer().toString('hex')).toBe(frame.toString('hex'));

    // From v1 a null topic list means "all topics": int32 -1.
    expect(encodeMessage(def(3), 'request', 1, { topics: null }).toBuffer().toString('hex')).toBe('ffffffff');
    expect(decodeMessage(def(3), 'request', 1, new Reader(hex('ffffffff'))).topics).toBeNull();
  });

  it('ApiVersions v3 request: header v2 (classic client id + tagged fields), compact strings', () => {
    const frame = hex(`
      0012 0003 00000007 0002 6b63 00
      06 6b72696c6c 04 312e30 00`);
    // header: apiKey 18, version 3, correlation 7, client id "kc" (int16 length even in header v2), no tags
    // body: clientSoftwareName "krill" = uvarint(5+1) + bytes, clientSoftwareVersion "1.0", no tags
    const r = new Reader(frame);
    expect(decodeRequestHeaderStart(r)).toEqual({ apiKey: 18, apiVersion: 3, correlationId: 7, clientId: 'kc' });
    skipTaggedFields(r);
    const body = decodeMessage(def(18), 'request', 3, r);
    expect(r.remaining).toBe(0);
    expect(body).toEqual({ clientSoftwareName: 'krill', clientSoftwareVersion: '1.0' });

    const w = new Writer();
    w.int16(18).int16(3).int32(7).string('kc', false);
    writeEmptyTaggedFields(w);
    encodeMessage(def(18), 'request', 3, body, w);
    expect(w.toBuffer().toString('hex')).toBe(frame.toString('hex'));
  });

  it('ApiVersions v3 response: compact array and a tagged field section', () => {
    const bytes = hex(`
      0000
      02 0012 0000 0004 00
      00000000
      01 01 08 0000000000000005`);
    // errorCode 0; apiKeys: uvarint(1+1), {18, 0, 4, no tags}; throttle 0;
    // tagged section: one field, tag 1 (finalizedFeaturesEpoch), 8 bytes, int64 5
    const msg = { errorCode: 0, apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 4 }], throttleTimeMs: 0, finalizedFeaturesEpoch: 5 };
    expect(encodeMessage(def(18), 'response', 3, msg).toBuffer().toString('hex')).toBe(bytes.toString('hex'));
    const decoded = decodeMessage(def(18), 'response', 3, new Reader(bytes));
    expect(decoded.finalizedFeaturesEpoch).toBe(5);
    expect(decoded.supportedFeatures).toEqual([]); // tagged, absent: default
    expect(decoded.zkMigrationReady).toBe(false);

    // A tagged field at its default value is left out entirely.
    const plain = encodeMessage(def(18), 'response', 3, { ...msg, finalizedFeaturesEpoch: -1 }).toBuffer();
    expect(plain.toString('hex')).toBe(hex('0000 02 0012 0000 0004 00 00000000 00').toString('hex'));

    // Unknown tags are skipped.
    const withUnknown = hex('0000 01 00000000 01 1f 02 abcd');
    expect(decodeMessage(def(18), 'response', 3, new Reader(withUnknown)).apiKeys).toEqual([]);
  });

  it('Produce v9 request: flexible body with nullable compact string and compact records', () => {
    const big = Buffer.alloc(200, 0x11); // length 200: compact length uvarint(201) takes two bytes, c9 01
    const frame = Buffer.concat([
      hex(`
        0000 0009 00000001 ffff 00
        00
        ffff
        000003e8
        02
          02 74
          03
            00000000 05 deadbeef 00
            00000001 c901`),
      big,
      hex(`   00
          00
        00`),
    ]);
    // header: Produce v9, correlation 1, null client id (int16 -1), no tags
    // body: transactionalId null (compact: uvarint 0); acks -1; timeoutMs 1000;
    //   topicData: 1 topic "t", partitionData: [{0, 4 bytes}, {1, 200 bytes}], each struct closing with 00
    const r = new Reader(frame);
    expect(decodeRequestHeaderStart(r)).toEqual({ apiKey: 0, apiVersion: 9, correlationId: 1, clientId: null });
    skipTaggedFields(r);
    const body = decodeMessage(def(0), 'request', 9, r);
    expect(r.remaining).toBe(0);
    expect(body.transactionalId).toBeNull();
    expect(body.acks).toBe(-1);
    expect(body.timeoutMs).toBe(1000);
    expect(body.topicData).toHaveLength(1);
    expect(body.topicData[0].name).toBe('t');
    expect(body.topicData[0].partitionData.map((p: { index: number }) => p.index)).toEqual([0, 1]);
    expect(body.topicData[0].partitionData[0].records.toString('hex')).toBe('deadbeef');
    expect(body.topicData[0].partitionData[1].records.equals(big)).toBe(true);

    const w = new Writer();
    w.int16(0).int16(9).int32(1).string(null, false);
    writeEmptyTaggedFields(w);
    encodeMessage(
      def(0),
      'request',
      9,
      {
        transactionalId: null,
        acks: -1,
        timeoutMs: 1000,
        topicData: [
          {
            name: 't',
            partitionData: [
              { index: 0, records: hex('deadbeef') },
              { index: 1, records: big },
            ],
          },
        ],
      },
      w,
    );
    expect(w.toBuffer().toString('hex')).toBe(frame.toString('hex'));
  });

  it('Produce v3 request (not flexible): int16 nullable string, int32 records length', () => {
    const bytes = hex('0002 7478 0001 00001388 00000001 0001 74 00000001 00000000 00000002 abcd');
    const msg = { transactionalId: 'tx', acks: 1, timeoutMs: 5000, topicData: [{ name: 't', partitionData: [{ index: 0, records: hex('abcd') }] }] };
    expect(encodeMessage(def(0), 'request', 3, msg).toBuffer().toString('hex')).toBe(bytes.toString('hex'));
    expect(normalize(decodeMessage(def(0), 'request', 3, new Reader(bytes)))).toEqual(normalize(msg));
  });

  it('Fetch v12 response: tagged struct fields inside a partition', () => {
    const bytes = hex(`
      00000000 0000 00000000
      02
        02 74
        02
          00000000 0000 0000000000000064 0000000000000064 0000000000000000
          00
          ffffffff
          00
          01 01 09 00000002 00000005 00
        00
      00`);
    // throttle 0, error 0, session 0; one topic "t" with one partition: index 0, error 0, hw 100, lso 100,
    // logStart 0, abortedTransactions null (compact 0), preferredReadReplica -1, records null (compact 0);
    // the partition's tagged section comes after all its regular fields: currentLeader (tag 1), 9 bytes =
    // leaderId 2, leaderEpoch 5 and the struct's own (empty) tagged section. Then the topic's and the
    // response's empty tagged sections.
    const msg = {
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: 0,
      responses: [
        {
          topic: 't',
          partitions: [
            {
              partitionIndex: 0,
              errorCode: 0,
              highWatermark: 100,
              lastStableOffset: 100,
              logStartOffset: 0,
              currentLeader: { leaderId: 2, leaderEpoch: 5 },
              abortedTransactions: null,
              preferredReadReplica: -1,
              records: null,
            },
          ],
        },
      ],
    };
    expect(encodeMessage(def(1), 'response', 12, msg).toBuffer().toString('hex')).toBe(bytes.toString('hex'));
    const decoded = decodeMessage(def(1), 'response', 12, new Reader(bytes));
    expect(decoded.responses[0].partitions[0].currentLeader).toEqual({ leaderId: 2, leaderEpoch: 5 });
    expect(decoded.responses[0].partitions[0].records).toBeNull();
  });
});
