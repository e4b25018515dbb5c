// One side of the differential test: a connection to a broker (Apache Kafka or krill) that sends raw
// requests with krill's codec and records each decoded response, so that the same steps run against both
// brokers leave two transcripts to compare. Setup requests (creating topics, finding coordinators) go
// through `quiet` and stay out of the transcript: they only bring both brokers to the same state.
import { Reader } from '../../protocol/primitives.js';
import { decodeMessage, type Message } from '../../protocol/codec.js';
import { MESSAGES_BY_KEY } from '../../protocol/messages/index.js';
import { buildBatch, type EncodeBatchSpec, type SimpleRecord } from '../../protocol/record-batch.js';
import { TestClient, encodeRequest } from '../../test/server/client.js';
import { eventually } from '../util.js';

/** Far above any answer either broker gives on loopback; a request that waits this long gets none. */
const REQUEST_TIMEOUT_MS = 15_000;

export type SideName = 'kafka' | 'krill';

export interface Exchange {
  label: string;
  apiKey: number;
  response: Message;
  /** How long the answer took (KRILL_DIFF_SHOW lists the slow ones). */
  ms?: number;
}

/** The API versions a broker advertised: key → [min, max]. */
export type ApiRanges = Map<number, [number, number]>;

export class Side {
  readonly transcript: Exchange[] = [];
  private readonly topicIds = new Map<string, Buffer>();

  private constructor(
    readonly name: SideName,
    readonly port: number,
    private client: TestClient,
    readonly ranges: ApiRanges,
  ) {}

  static async connect(name: SideName, port: number): Promise<Side> {
    const client = await TestClient.connect(port);
    const res = await client.request(18, 3, { clientSoftwareName: 'krill-differential', clientSoftwareVersion: '1' });
    const ranges: ApiRanges = new Map(res.apiKeys.map((k: Message) => [k.apiKey, [k.minVersion, k.maxVersion]]));
    return new Side(name, port, client, ranges);
  }

  /**
   * Sends a request and records its response under `label`. A broker that closes the connection instead of
   * answering (as Kafka does for a request it cannot parse) is recorded as such, and the next request
   * connects again.
   */
  async send(label: string, apiKey: number, version: number, body: Message): Promise<Message> {
    let response: Message;
    const start = Date.now();
    try {
      response = await this.quiet(apiKey, version, body);
    } catch (err) {
      if (!this.client.closed) throw err;
      response = { connectionClosed: true };
    }
    this.transcript.push({ label, apiKey, response, ms: Date.now() - start });
    return response;
  }

  /** Sends a request whose response is not compared (setup and waiting). */
  async quiet(apiKey: number, version: number, body: Message): Promise<Message> {
    if (this.client.closed) this.client = await TestClient.connect(this.port);
    return this.answered(`${MESSAGES_BY_KEY.get(apiKey)!.name} v${version}`, this.client.request(apiKey, version, body));
  }

  /** A broker that never answers fails the case naming the request, rather than at the test's timeout. */
  private answered<T>(what: string, reply: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${this.name} did not answer ${what} in ${REQUEST_TIMEOUT_MS} ms`)), REQUEST_TIMEOUT_MS);
    });
    return Promise.race([reply, timeout]).finally(() => clearTimeout(timer));
  }

  /** Sends a frame made by hand (a version the codec has no definition for) and decodes its answer at `decodeVersion`. */
  async sendRaw(label: string, frame: Buffer, apiKey: number, decodeVersion: number): Promise<Message> {
    if (this.client.closed) this.client = await TestClient.connect(this.port);
    const answer = await this.answered(`a hand-made frame`, this.client.sendRaw(frame));
    if (!answer) {
      this.transcript.push({ label, apiKey, response: { connectionClosed: true } });
      return { connectionClosed: true };
    }
    const r = new Reader(answer, 4);
    const response = decodeMessage(MESSAGES_BY_KEY.get(apiKey)!, 'response', decodeVersion, r);
    this.transcript.push({ label, apiKey, response });
    return response;
  }

  /** Creates topics and waits until this broker's metadata names a leader for each partition. */
  async createTopics(topics: { name: string; partitions?: number; configs?: Record<string, string> }[]): Promise<void> {
    const res = await this.quiet(19, 5, {
      topics: topics.map((t) => ({
        name: t.name,
        numPartitions: t.partitions ?? 1,
        replicationFactor: 1,
        assignments: [],
        configs: Object.entries(t.configs ?? {}).map(([name, value]) => ({ name, value })),
      })),
      timeoutMs: 30_000,
      validateOnly: false,
    });
    for (const t of res.topics) if (t.errorCode !== 0) throw new Error(`${this.name}: creating ${t.name} failed with ${t.errorCode}`);
    await eventually(`${this.name}: metadata of ${topics.map((t) => t.name).join(', ')}`, async () => {
      const md = await this.quiet(3, 12, {
        topics: topics.map((t) => ({ topicId: null, name: t.name })),
        allowAutoTopicCreation: false,
        includeTopicAuthorizedOperations: false,
      });
      const ready = md.topics.every(
        (t: Message) =>
          t.errorCode === 0 &&
          t.partitions.length === (topics.find((x) => x.name === t.name)?.partitions ?? 1) &&
          t.partitions.every((p: Message) => p.errorCode === 0 && p.leaderId >= 0),
      );
      if (!ready) return undefined;
      for (const t of md.topics) this.topicIds.set(t.name, t.topicId);
      return true;
    });
    // Kafka's metadata can name a leader before the leader has opened the log (NOT_LEADER_OR_FOLLOWER then).
    await eventually(`${this.name}: logs of ${topics.map((t) => t.name).join(', ')}`, async () => {
      const res = await this.quiet(2, 7, {
        replicaId: -1,
        isolationLevel: 0,
        topics: topics.map((t) => ({
          name: t.name,
          partitions: Array.from({ length: t.partitions ?? 1 }, (_, partitionIndex) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp: -1n })),
        })),
      });
      return res.topics.every((t: Message) => t.partitions.every((p: Message) => p.errorCode === 0)) ? true : undefined;
    });
  }

  /** The id this broker gave `topic` (each broker makes its own). */
  topicId(topic: string): Buffer {
    const id = this.topicIds.get(topic);
    if (id === undefined) throw new Error(`${this.name}: ${topic} was not created by createTopics`);
    return id;
  }

  /** Waits until the coordinator of `key` (0 group, 1 transaction) is available, as a client retries. */
  async awaitCoordinator(key: string, keyType: 0 | 1): Promise<void> {
    await eventually(`${this.name}: coordinator of ${key}`, async () => {
      const res = await this.quiet(10, 4, { keyType, coordinatorKeys: [key] });
      return res.coordinators[0].errorCode === 0 ? true : undefined;
    });
  }

  /**
   * A producer id (and epoch) as a client gets one, retrying while the broker cannot give one yet (a fresh
   * Kafka answers COORDINATOR_NOT_AVAILABLE until its producer id blocks are there).
   */
  async initProducerId(transactionalId: string | null = null, transactionTimeoutMs = 60_000): Promise<{ producerId: number; producerEpoch: number }> {
    if (transactionalId !== null) await this.awaitCoordinator(transactionalId, 1);
    return eventually(`${this.name}: a producer id`, async () => {
      const res = await this.quiet(22, 4, { transactionalId, transactionTimeoutMs, producerId: -1n, producerEpoch: -1 });
      return res.errorCode === 0 ? { producerId: res.producerId, producerEpoch: res.producerEpoch } : undefined;
    });
  }

  /** Produces one batch (acks=-1) outside the transcript and returns its partition response. */
  async produce(topic: string, partition: number, records: SimpleRecord[], opts: Omit<EncodeBatchSpec, 'records'> = {}): Promise<Message> {
    const res = await this.quiet(0, 9, produceBody(topic, partition, buildBatch(records, opts)));
    const p = res.responses[0].partitionResponses[0];
    if (p.errorCode !== 0) throw new Error(`${this.name}: producing to ${topic}-${partition} failed with ${p.errorCode}`);
    return p;
  }

  /** Sends without reading a response: acks=0. */
  fireAndForget(apiKey: number, version: number, body: Message): void {
    this.client.fireAndForget(apiKey, version, body);
  }

  close(): void {
    this.client.close();
  }
}

/** A Produce body for one batch to one partition (v3+ field names; `transactionalId` null). */
export function produceBody(topic: string, partition: number, records: Buffer, acks = -1, transactionalId: string | null = null): Message {
  return {
    transactionalId,
    acks,
    timeoutMs: 30_000,
    topicData: [{ name: topic, partitionData: [{ index: partition, records }] }],
  };
}

/** A request frame at a version the definitions may not have: `body` encoded at `bodyVersion`, header saying `version`. */
export function frameAtVersion(apiKey: number, version: number, bodyVersion: number, body: Message, correlationId: number): Buffer {
  const frame = encodeRequest(apiKey, bodyVersion, body, correlationId);
  frame.writeInt16BE(version, 6);
  return frame;
}
