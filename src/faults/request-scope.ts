// Which topics and partitions a decoded request names, read from its message definition, so that a fault can
// be aimed at one topic or partition of any API. Kafka's schemas keep topics in arrays whose names say so
// (topics, topicData, topicPartitions, topicNames), each entry naming its topic by name or id, and the
// partitions below them as entries with a partition index or as a list of indexes. DescribeConfigs and its
// kin name a topic as a resource of type TOPIC (2).
import type { Message } from '../../protocol/codec.js';
import type { FieldDef, MessageDef } from '../../protocol/schema.js';

export interface NamedPartition {
  topic: string;
  /** Absent where the request names the topic only (Metadata, CreateTopics). */
  partition?: number;
}

const TOPIC_NAME_FIELDS = new Set(['name', 'topic', 'topicName']);
const PARTITION_FIELDS = new Set(['partitionIndex', 'partition', 'index']);
const TOPIC_RESOURCE = 2;

/** `nameOfId`: a topic's name by its id, for requests that name topics by id (Fetch v13+). */
export function namedPartitions(def: MessageDef, request: Message, nameOfId: (id: Buffer) => string | undefined): NamedPartition[] {
  const out: NamedPartition[] = [];

  const partitionsOf = (fields: readonly FieldDef[], entry: Message): number[] => {
    const found: number[] = [];
    for (const f of fields) {
      const value = entry[f.name];
      if (value === undefined || value === null) continue;
      if (PARTITION_FIELDS.has(f.name) && f.type === 'int32') found.push(value as number);
      else if (f.type === '[]int32' && /partition/i.test(f.name)) found.push(...(value as number[]));
      else if (f.type.startsWith('[]') && f.fields) for (const e of value as Message[]) found.push(...partitionsOf(f.fields, e));
    }
    return found;
  };

  const topicOf = (fields: readonly FieldDef[], entry: Message): string | undefined => {
    for (const f of fields) {
      if (TOPIC_NAME_FIELDS.has(f.name) && f.type === 'string' && typeof entry[f.name] === 'string' && entry[f.name] !== '') return entry[f.name] as string;
    }
    const id = fields.find((f) => f.name === 'topicId' && f.type === 'uuid');
    return id && Buffer.isBuffer(entry.topicId) ? nameOfId(entry.topicId) : undefined;
  };

  const visit = (fields: readonly FieldDef[], message: Message): void => {
    if (message.resourceType === TOPIC_RESOURCE && typeof message.resourceName === 'string') out.push({ topic: message.resourceName });
    for (const f of fields) {
      const value = message[f.name];
      if (!Array.isArray(value) || !f.type.startsWith('[]')) continue;
      if (!f.fields) {
        if (f.type === '[]string' && /topic/i.test(f.name)) for (const topic of value as string[]) out.push({ topic });
        continue;
      }
      for (const entry of value as Message[]) {
        const topic = /topic/i.test(f.name) ? topicOf(f.fields, entry) : undefined;
        if (topic === undefined) {
          visit(f.fields, entry);
          continue;
        }
        const partitions = partitionsOf(f.fields, entry);
        if (partitions.length === 0) out.push({ topic });
        for (const partition of partitions) out.push({ topic, partition });
      }
    }
  };

  visit(def.request, request);
  return out;
}
