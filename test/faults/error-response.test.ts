import { describe, expect, it } from 'vitest';
import { Reader } from '../../protocol/primitives.js';
import { decodeMessage, encodeMessage, type Message } from '../../protocol/codec.js';
import { MESSAGES, MESSAGES_BY_KEY, API_KEYS } from '../../protocol/messages/index.js';
import { parseVersions, inRange, type FieldDef, type MessageDef } from '../../protocol/schema.js';
import { ErrorCode } from '../../protocol/errors.js';
import { errorResponseFromDefinition } from '../../src/handlers/error-response.js';
import { namedPartitions } from '../../src/faults/request-scope.js';

/** A request with one entry in every array, every string 't', every number 0, as a client could send it. */
function sampleOf(fields: readonly FieldDef[]): Message {
  const out: Message = {};
  for (const f of fields) {
    const element = f.type.startsWith('[]') ? f.type.slice(2) : null;
    const scalar = (type: string): unknown =>
      type === 'string'
        ? 't'
        : type === 'uuid'
          ? Buffer.alloc(16, 1)
          : type === 'bool'
            ? false
            : type === 'int64'
              ? 0n
              : type === 'bytes' || type === 'records'
                ? null
                : 0;
    if (f.fields) out[f.name] = element ? [sampleOf(f.fields)] : sampleOf(f.fields);
    else if (element) out[f.name] = [scalar(element)];
    else if (f.type !== 'bytes' && f.type !== 'records') out[f.name] = scalar(f.type);
  }
  return out;
}

function roundTrip(def: MessageDef, side: 'request' | 'response', version: number, message: Message): Message {
  const buf = Buffer.concat(encodeMessage(def, side, version, message).finish());
  return decodeMessage(def, side, version, new Reader(buf));
}

/** Every errorCode in a decoded message, with its path. */
function errorCodes(message: unknown, at = ''): [string, number][] {
  if (Array.isArray(message)) return message.flatMap((m, i) => errorCodes(m, `${at}[${i}]`));
  if (message === null || typeof message !== 'object' || Buffer.isBuffer(message)) return [];
  return Object.entries(message as Message).flatMap(([k, v]): [string, number][] =>
    k === 'errorCode' ? [[`${at}.${k}`, v as number]] : errorCodes(v, `${at}.${k}`),
  );
}

function hasErrorCodeField(fields: readonly FieldDef[], version: number): boolean {
  return fields.some((f) => inRange(f.versions, version) && (f.name === 'errorCode' || (f.fields !== undefined && hasErrorCodeField(f.fields, version))));
}

describe('the error response built from a message definition', () => {
  it('encodes at every version of every API, and carries the code where the response has room for one', () => {
    let checked = 0;
    for (const def of MESSAGES as readonly MessageDef[]) {
      const { min, max } = parseVersions(def.validVersions);
      for (let v = min; v <= max; v++) {
        const request = roundTrip(def, 'request', v, sampleOf(def.request));
        const response = roundTrip(def, 'response', v, errorResponseFromDefinition(def, request, v, ErrorCode.NOT_LEADER_OR_FOLLOWER, 'injected'));
        const codes = errorCodes(response);
        expect(
          codes.every(([, c]) => c === 0 || c === ErrorCode.NOT_LEADER_OR_FOLLOWER),
          `${def.name} v${v}`,
        ).toBe(true);
        if (def.response.some((f) => f.name === 'errorCode' && inRange(f.versions, v))) {
          expect(
            codes.some(([, c]) => c === ErrorCode.NOT_LEADER_OR_FOLLOWER),
            `${def.name} v${v}: ${JSON.stringify(codes)}`,
          ).toBe(true);
        }
        if (hasErrorCodeField(def.response, v)) checked++;
      }
    }
    expect(checked).toBeGreaterThan(200);
  });

  const respond = (name: keyof typeof API_KEYS, version: number, request: Message) => {
    const def = MESSAGES_BY_KEY.get(API_KEYS[name])!;
    return roundTrip(
      def,
      'response',
      version,
      errorResponseFromDefinition(def, roundTrip(def, 'request', version, request), version, ErrorCode.NOT_LEADER_OR_FOLLOWER, 'injected'),
    );
  };

  it("puts the code in each partition a Produce or Fetch named, and leaves the Fetch's top level NONE", () => {
    const produce = respond('Produce', 9, {
      acks: -1,
      timeoutMs: 1000,
      topicData: [
        {
          name: 'orders',
          partitionData: [
            { index: 2, records: null },
            { index: 5, records: null },
          ],
        },
      ],
    });
    expect(produce.responses).toEqual([
      expect.objectContaining({
        name: 'orders',
        partitionResponses: [expect.objectContaining({ index: 2, errorCode: 6, baseOffset: -1 }), expect.objectContaining({ index: 5, errorCode: 6 })],
      }),
    ]);
    const id = Buffer.alloc(16, 7);
    const fetch = respond('Fetch', 13, { maxWaitMs: 0, minBytes: 1, topics: [{ topicId: id, partitions: [{ partition: 3, fetchOffset: 0n }] }] });
    expect(fetch.errorCode).toBe(0);
    expect(fetch.responses[0].topicId).toEqual(id);
    expect(fetch.responses[0].partitions[0]).toMatchObject({ partitionIndex: 3, errorCode: 6, highWatermark: -1 });
  });

  it('fills entries from lists of bare keys: group names, transactional ids, partition indexes', () => {
    expect(respond('DeleteGroups', 2, { groupsNames: ['a', 'b'] }).results).toEqual([
      { groupId: 'a', errorCode: 6 },
      { groupId: 'b', errorCode: 6 },
    ]);
    expect(respond('DescribeTransactions', 0, { transactionalIds: ['tx'] }).transactionStates[0]).toMatchObject({ transactionalId: 'tx', errorCode: 6 });
    const fetched = respond('OffsetFetch', 8, { groups: [{ groupId: 'g', topics: [{ name: 't', partitionIndexes: [4] }] }], requireStable: false });
    expect(fetched.groups[0]).toMatchObject({
      groupId: 'g',
      errorCode: 0,
      topics: [{ name: 't', partitions: [expect.objectContaining({ partitionIndex: 4, errorCode: 6 })] }],
    });
    expect(
      respond('JoinGroup', 5, { groupId: 'g', sessionTimeoutMs: 1, rebalanceTimeoutMs: 1, memberId: 'm', protocolType: 'consumer', protocols: [] }),
    ).toMatchObject({
      errorCode: 6,
      memberId: 'm',
    });
  });
});

describe('the topics and partitions a request names', () => {
  const named = (name: keyof typeof API_KEYS, request: Message, nameOfId: (id: Buffer) => string | undefined = () => undefined) =>
    namedPartitions(MESSAGES_BY_KEY.get(API_KEYS[name])!, request, nameOfId);

  it('reads names, ids, partition entries and index lists', () => {
    expect(named('Produce', { topicData: [{ name: 'a', partitionData: [{ index: 1 }, { index: 2 }] }] })).toEqual([
      { topic: 'a', partition: 1 },
      { topic: 'a', partition: 2 },
    ]);
    const id = Buffer.alloc(16, 3);
    expect(named('Fetch', { topics: [{ topic: '', topicId: id, partitions: [{ partition: 0 }] }] }, (i) => (i.equals(id) ? 'b' : undefined))).toEqual([
      { topic: 'b', partition: 0 },
    ]);
    expect(named('OffsetFetch', { groups: [{ groupId: 'g', topics: [{ name: 'c', partitionIndexes: [7] }] }] })).toEqual([{ topic: 'c', partition: 7 }]);
    expect(named('Metadata', { topics: [{ name: 'd' }] })).toEqual([{ topic: 'd' }]);
    expect(named('DeleteTopics', { topicNames: ['e'], topics: [] })).toEqual([{ topic: 'e' }]);
    expect(named('DescribeConfigs', { resources: [{ resourceType: 2, resourceName: 'f' }] })).toEqual([{ topic: 'f' }]);
    expect(named('JoinGroup', { groupId: 'g', protocols: [{ name: 'range' }] })).toEqual([]);
  });
});
