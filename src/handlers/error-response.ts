// An error response for any request, built from its message definition alone: the response mirrors the
// request's entries (the topics and partitions a Produce named come back, each with the error), the way
// Kafka's AbstractRequest.getErrorResponse answers a request it refuses. It answers the requests whose
// handler has no errorResponse of its own, and every request a fault injection fails (src/faults/), so
// that one mechanism serves every API at every version.
//
// The code goes where the request's own entries are deepest: a Produce's partitions, a CreateTopics' topics,
// a JoinGroup's top level. An entry that holds error-carrying entries of its own (a Fetch's top level around
// its partitions) is left NONE, as Kafka sets its top-level codes only for errors of the whole request.
import type { Message } from '../../protocol/codec.js';
import { inRange, type FieldDef, type MessageDef } from '../../protocol/schema.js';

/** Names Kafka's schemas give the same key in a request and in its response. */
const KEY_ALIASES: readonly (readonly string[])[] = [
  ['name', 'topic', 'topicName'],
  ['partitionIndex', 'partition', 'index'],
];

function keyOf(name: string): string {
  return KEY_ALIASES.find((names) => names.includes(name))?.[0] ?? name;
}

const PARTITION_KEY = keyOf('partition');

/** Fields that identify an entry, copied from a request's entry to the response's. */
function isKey(field: FieldDef): boolean {
  return field.type === 'string' || field.type === 'uuid' || keyOf(field.name) === PARTITION_KEY || field.name === 'resourceType';
}

const isStructArray = (f: FieldDef) => f.type.startsWith('[]') && f.fields !== undefined;
const isPrimitiveArray = (f: FieldDef) => f.type.startsWith('[]') && f.fields === undefined;
const isStruct = (f: FieldDef) => !f.type.startsWith('[]') && f.fields !== undefined;

function keyNames(fields: readonly FieldDef[]): Set<string> {
  return new Set(fields.filter((f) => !f.type.startsWith('[]') && isKey(f)).map((f) => keyOf(f.name)));
}

/**
 * The request field whose entries a response array lists: the array of the same name, else the one whose
 * entries share a key with the response's, else a list of bare keys (a DeleteGroups' group names, an
 * OffsetFetch's partition indexes) whose type fits one of the response entry's keys.
 */
function sourceOf(target: FieldDef, requestFields: readonly FieldDef[]): FieldDef | undefined {
  const arrays = requestFields.filter((f) => f.type.startsWith('[]'));
  const targetKeys = keyNames(target.fields!);
  return (
    arrays.find((f) => isStructArray(f) && f.name === target.name) ??
    arrays.find((f) => isStructArray(f) && [...keyNames(f.fields!)].some((k) => targetKeys.has(k))) ??
    arrays.find((f) => isPrimitiveArray(f) && bareKeyField(target.fields!, f) !== undefined)
  );
}

/** The response entry's field that an element of the list of bare keys `list` fills. */
function bareKeyField(fields: readonly FieldDef[], list: FieldDef): FieldDef | undefined {
  const type = list.type.slice(2);
  if (type === 'int32') return fields.find((f) => keyOf(f.name) === PARTITION_KEY);
  if (type === 'string') return fields.find((f) => f.type === 'string');
  return undefined;
}

interface Built {
  value: Message;
  /** Whether an entry below this one carries the error. */
  carries: boolean;
}

interface Answer {
  version: number;
  code: number;
  message: string;
}

function build(allFields: readonly FieldDef[], request: Message, allRequestFields: readonly FieldDef[], answer: Answer): Built {
  const fields = allFields.filter((f) => inRange(f.versions, answer.version));
  const requestFields = allRequestFields.filter((f) => inRange(f.versions, answer.version));
  const value: Message = {};
  let nested = false;
  for (const f of fields) {
    if (isStructArray(f)) {
      const source = sourceOf(f, requestFields);
      const entries: unknown[] = source ? ((request[source.name] as unknown[] | null | undefined) ?? []) : [];
      value[f.name] = entries.map((entry) => {
        let built: Built;
        if (isStructArray(source!)) built = build(f.fields!, entry as Message, source!.fields!, answer);
        else {
          built = build(f.fields!, {}, [], answer);
          built.value[bareKeyField(f.fields!, source!)!.name] = entry;
        }
        nested ||= built.carries || 'errorCode' in built.value;
        return built.value;
      });
    } else if (isStruct(f)) {
      const source = requestFields.find((r) => r.name === f.name && isStruct(r));
      const built = build(f.fields!, (request[f.name] as Message | undefined) ?? {}, source?.fields ?? [], answer);
      nested ||= built.carries;
      value[f.name] = built.value;
    } else if (isKey(f)) {
      const source = requestFields.find((r) => keyOf(r.name) === keyOf(f.name) && r.type === f.type);
      if (source && request[source.name] !== undefined) value[f.name] = request[source.name];
    } else if (f.type === 'int64' && f.default === undefined) {
      // Offsets and timestamps an error answers with: Kafka's INVALID_OFFSET and NO_TIMESTAMP, both -1.
      value[f.name] = -1;
    }
  }
  const has = (name: string) => fields.some((f) => f.name === name);
  if (!nested && has('errorCode')) {
    value.errorCode = answer.code;
    if (has('errorMessage')) value.errorMessage = answer.message;
  }
  return { value, carries: nested };
}

/**
 * The response to `request` (as decoded with `def` at `version`) that fails every entry it names with
 * `code`, and says `message` where the response has room for one. Fields it does not set are encoded as
 * their defaults.
 */
export function errorResponseFromDefinition(def: MessageDef, request: Message, version: number, code: number, message: string): Message {
  const { value } = build(def.response, request, def.request, { version, code, message });
  return { throttleTimeMs: 0, ...value };
}
