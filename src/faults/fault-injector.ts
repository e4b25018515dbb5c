// Fault injection, as franz-go's kfake and librdkafka's mock cluster offer it: the next N requests of an API
// (optionally only those naming one topic or partition, or from one client id) are answered with an error
// code, answered late, held until the fault is removed, or cut off by closing their connection. A test makes
// the broker fail on purpose to exercise a client's retry logic; the connection asks `match` for every
// request, which costs one length check while no fault is set.
import type { Message, RequestHeader } from '../../protocol/codec.js';
import { ErrorCode, errorName } from '../../protocol/errors.js';
import { API_KEYS, MESSAGES_BY_KEY } from '../../protocol/messages/index.js';
import type { MessageDef } from '../../protocol/schema.js';
import type { Logger } from '../logger.js';
import { namedPartitions, type NamedPartition } from './request-scope.js';

/** What a fault does, and to which requests. Exactly one of error, drop and hold; delayMs may come with any. */
export interface FaultSpec {
  /** The API by Kafka's name ('Produce') or key (0), or several. */
  api: string | number | readonly (string | number)[];
  /** Answer with this error code, by name ('NOT_LEADER_OR_FOLLOWER') or number. */
  error?: string | number;
  /** Close the connection instead of answering. */
  drop?: boolean;
  /** Hold the request unanswered until the fault is removed (or its connection closes). */
  hold?: boolean;
  /** Wait this long before acting (or, alone, before serving the request as usual). */
  delayMs?: number;
  /**
   * Serve the request first, then act on its response: replace it with the error, drop the connection
   * instead of sending it, delay or hold it. What the request did stays done (a produce is appended), as when
   * a response is lost on its way: the case an idempotent producer's retries are for.
   */
  after?: boolean;
  /** How many requests it acts on before it is removed; default 1. */
  count?: number | 'always';
  /** Only requests naming this topic (and this partition of it). */
  topic?: string;
  partition?: number;
  /** Only requests from this client id. */
  clientId?: string;
}

/** A fault as set: to wait for its hits and to remove it. */
export interface Fault {
  readonly id: number;
  readonly spec: Readonly<FaultSpec>;
  /** Requests it has acted on so far. */
  readonly hits: number;
  readonly active: boolean;
  /** Resolves once the fault has acted on `n` requests (default: its count); rejects if it is removed before. */
  fired(n?: number): Promise<void>;
  /** Takes the fault away; requests it holds are then served (a hold is removed only by this). */
  remove(): void;
}

/** What the connection does with one request a fault caught. */
export interface FaultAction {
  /** For the request log: 'fault 3: error NOT_LEADER_OR_FOLLOWER'. */
  label: string;
  errorCode: number | null;
  drop: boolean;
  delayMs: number;
  /** Act on the response rather than the request (FaultSpec.after). */
  after: boolean;
  /** Settles when a held request may go on. */
  held: Promise<void> | null;
}

export class FaultSpecError extends Error {}

/** Where a fault looks up the names of topics a request names by id. */
export interface TopicsById {
  getTopicById(id: Buffer): { name: string } | undefined;
}

/** The longest delay a fault may ask for: a request held longer than any client's timeout is a hold. */
const MAX_DELAY_MS = 600_000;
/** Active faults at most: each is checked on every request. */
const MAX_FAULTS = 1000;

/** The APIs a partition's leader serves for it, which freezeLeader holds. */
export const LEADER_APIS = ['Produce', 'Fetch', 'ListOffsets', 'OffsetForLeaderEpoch', 'DeleteRecords'] as const;

const API_NAMES = new Map(Object.entries(API_KEYS).map(([name, key]) => [name.toLowerCase(), key as number]));

function apiKeyOf(api: string | number): number {
  const key = typeof api === 'number' ? api : API_NAMES.get(api.toLowerCase());
  if (key === undefined || !MESSAGES_BY_KEY.has(key)) {
    throw new FaultSpecError(`api: '${api}' is not an API krill serves (one of ${Object.keys(API_KEYS).join(', ')})`);
  }
  return key;
}

function errorCodeOf(error: string | number): number {
  if (typeof error === 'number') {
    if (!Number.isInteger(error) || errorName(error).startsWith('UNKNOWN_ERROR_')) throw new FaultSpecError(`error: ${error} is not a Kafka error code`);
    return error;
  }
  const code = (ErrorCode as Record<string, number>)[error.toUpperCase()];
  if (code === undefined) throw new FaultSpecError(`error: '${error}' is not a Kafka error name (e.g. NOT_LEADER_OR_FOLLOWER)`);
  return code;
}

const SPEC_FIELDS: Record<keyof FaultSpec, (v: unknown) => boolean> = {
  api: (v) =>
    typeof v === 'string' || typeof v === 'number' || (Array.isArray(v) && v.length > 0 && v.every((a) => typeof a === 'string' || typeof a === 'number')),
  error: (v) => typeof v === 'string' || typeof v === 'number',
  drop: (v) => typeof v === 'boolean',
  hold: (v) => typeof v === 'boolean',
  after: (v) => typeof v === 'boolean',
  delayMs: (v) => typeof v === 'number',
  count: (v) => typeof v === 'number' || v === 'always',
  topic: (v) => typeof v === 'string',
  partition: (v) => typeof v === 'number',
  clientId: (v) => typeof v === 'string',
};

/** A FaultSpec from JSON text (the CLI's --fault, the admin HTTP endpoint), its fields and their types checked. */
export function faultSpecFromJson(text: string): FaultSpec {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new FaultSpecError(`a fault is a JSON object: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new FaultSpecError('a fault is a JSON object, e.g. {"api":"Produce","error":"NOT_LEADER_OR_FOLLOWER"}');
  for (const [key, v] of Object.entries(value)) {
    const check = SPEC_FIELDS[key as keyof FaultSpec];
    if (!check) throw new FaultSpecError(`'${key}' is not a fault field (${Object.keys(SPEC_FIELDS).join(', ')})`);
    if (!check(v)) throw new FaultSpecError(`${key}: ${JSON.stringify(v)} is not of the right type`);
  }
  if (!('api' in value)) throw new FaultSpecError('api: a fault names the API it acts on');
  checkFaultSpec(value as FaultSpec);
  return value as FaultSpec;
}

/** What inject() makes of a spec: throws FaultSpecError, naming the field, when it makes no sense. */
export function checkFaultSpec(spec: FaultSpec): { apis: ReadonlySet<number>; errorCode: number | null; count: number } {
  const actions = [spec.error !== undefined, spec.drop === true, spec.hold === true].filter(Boolean).length;
  if (actions > 1) throw new FaultSpecError('a fault does one of error, drop and hold');
  if (actions === 0 && spec.delayMs === undefined) throw new FaultSpecError('a fault needs one of error, drop, hold or delayMs');
  if (spec.delayMs !== undefined && !(Number.isInteger(spec.delayMs) && spec.delayMs >= 0 && spec.delayMs <= MAX_DELAY_MS)) {
    throw new FaultSpecError(`delayMs: ${spec.delayMs} is not a whole number of milliseconds from 0 to ${MAX_DELAY_MS}`);
  }
  const count = spec.count ?? 1;
  if (count !== 'always' && !(Number.isInteger(count) && count > 0))
    throw new FaultSpecError(`count: ${String(count)} is neither a positive whole number nor 'always'`);
  if (spec.partition !== undefined && (spec.topic === undefined || !Number.isInteger(spec.partition) || spec.partition < 0)) {
    throw new FaultSpecError('partition: needs a topic, and is a partition index (0 or more)');
  }
  const apis = new Set((Array.isArray(spec.api) ? spec.api : [spec.api]).map(apiKeyOf));
  const errorCode = spec.error === undefined ? null : errorCodeOf(spec.error);
  return { apis, errorCode, count: count === 'always' ? Infinity : count };
}

class Rule implements Fault {
  hits = 0;
  active = true;
  /** Still catching requests: false once it has acted `count` times (a hold then keeps what it holds). */
  matching = true;
  held: Promise<void> | null = null;
  private release: (() => void) | null = null;
  private waiters: { n: number; resolve: () => void; reject: (err: Error) => void }[] = [];

  constructor(
    readonly id: number,
    readonly spec: Readonly<FaultSpec>,
    readonly apis: ReadonlySet<number>,
    readonly errorCode: number | null,
    private readonly remaining: number,
    private readonly onRemove: (rule: Rule) => void,
  ) {
    if (spec.hold) this.held = new Promise((resolve) => (this.release = resolve));
  }

  get label(): string {
    const { spec } = this;
    const what = this.errorCode !== null ? `error ${errorName(this.errorCode)}` : spec.drop ? 'drop' : spec.hold ? 'hold' : 'delay';
    return `fault ${this.id}: ${what}${spec.delayMs ? ` after ${spec.delayMs} ms` : ''}${spec.after ? ' once served' : ''}`;
  }

  hit(): void {
    this.hits++;
    this.waiters = this.waiters.filter((w) => (this.hits >= w.n ? (w.resolve(), false) : true));
    if (this.hits < this.remaining) return;
    this.matching = false;
    if (!this.held) this.remove();
  }

  fired(n = this.remaining): Promise<void> {
    if (!Number.isFinite(n)) return Promise.reject(new FaultSpecError(`fault ${this.id} acts until removed: say how many hits to wait for`));
    if (this.hits >= n) return Promise.resolve();
    if (!this.active) return Promise.reject(new Error(`fault ${this.id} was removed after ${this.hits} of ${n} hits`));
    return new Promise((resolve, reject) => this.waiters.push({ n, resolve, reject }));
  }

  remove(): void {
    if (!this.active) return;
    this.active = false;
    this.release?.();
    for (const w of this.waiters) w.reject(new Error(`fault ${this.id} was removed after ${this.hits} of ${w.n} hits`));
    this.waiters = [];
    this.onRemove(this);
  }
}

export class FaultInjector {
  private rules: Rule[] = [];
  private nextId = 1;

  constructor(private readonly log: Logger) {}

  /** Sets a fault; throws FaultSpecError, naming the field, when the spec makes no sense. */
  inject(spec: FaultSpec): Fault {
    const { apis, errorCode, count } = checkFaultSpec(spec);
    if (this.rules.length >= MAX_FAULTS) throw new FaultSpecError(`at most ${MAX_FAULTS} faults may be set at once`);
    const rule = new Rule(this.nextId++, { ...spec }, apis, errorCode, count, (r) => this.removed(r));
    this.rules.push(rule);
    this.log.info({ fault: rule.id, spec }, `fault set: ${rule.label}`);
    return rule;
  }

  /** Holds every request a partition's leader serves for it (produce, fetch, offsets) until removed. */
  freezeLeader(topic: string, partition: number): Fault {
    return this.inject({ api: LEADER_APIS, topic, partition, hold: true, count: 'always' });
  }

  list(): Fault[] {
    return [...this.rules];
  }

  clear(): void {
    for (const rule of [...this.rules]) rule.remove();
  }

  /**
   * The fault that acts on this request, if any: the first set that matches it. `topics` resolves topic ids,
   * for requests that name topics by id.
   */
  match(header: RequestHeader, def: MessageDef, request: Message, topics: TopicsById): FaultAction | null {
    if (this.rules.length === 0) return null;
    let named: NamedPartition[] | undefined;
    for (const rule of this.rules) {
      const { spec } = rule;
      if (!rule.matching || !rule.apis.has(header.apiKey)) continue;
      if (spec.clientId !== undefined && header.clientId !== spec.clientId) continue;
      if (spec.topic !== undefined) {
        named ??= namedPartitions(def, request, (id) => topics.getTopicById(id)?.name);
        if (!named.some((p) => p.topic === spec.topic && (spec.partition === undefined || p.partition === spec.partition))) continue;
      }
      const action: FaultAction = {
        label: rule.label,
        errorCode: rule.errorCode,
        drop: spec.drop === true,
        delayMs: spec.delayMs ?? 0,
        after: spec.after === true,
        held: rule.held,
      };
      rule.hit();
      return action;
    }
    return null;
  }

  private removed(rule: Rule): void {
    this.rules = this.rules.filter((r) => r !== rule);
    this.log.info({ fault: rule.id, hits: rule.hits }, `fault removed: ${rule.label}`);
  }
}
