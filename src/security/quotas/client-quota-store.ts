// The client quotas configured, by entity (quota-entity.ts), with Kafka's checks for AlterClientQuotas and
// its filter for DescribeClientQuotas (KIP-546, as Kafka's ZkAdminManager does them). Where they are kept
// is a ClientQuotaPersistence's: the data dir's file on a single broker; a change is persisted before the
// broker applies it, so an answer of success means it survives a restart.

import { ErrorCode } from '../../../protocol/errors.js';
import type { AlterClientQuotasRequest, AlterClientQuotasResponse } from '../../../protocol/messages/49-alter-client-quotas.js';
import type { DescribeClientQuotasRequest, DescribeClientQuotasResponse } from '../../../protocol/messages/48-describe-client-quotas.js';
import { CLIENT_ID, USER, entityPath, parseEntityPath, type QuotaEntity } from './quota-entity.js';

/** The quota keys of user and client-id entities (Kafka's QuotaConfigs), and whether each is whole. */
export const QUOTA_KEYS: Readonly<Record<string, 'long' | 'double'>> = {
  producer_byte_rate: 'long',
  consumer_byte_rate: 'long',
  request_percentage: 'double',
  // Accepted and described as Kafka does; krill does not throttle topic creation (KIP-599).
  controller_mutation_rate: 'double',
};

export type QuotaValues = Record<string, number>;

/** Where quotas are kept; `write` gets every entity changed, with its values after the change ({} when none are left). */
export interface ClientQuotaPersistence {
  write(changed: ReadonlyMap<string, QuotaValues>, all: ReadonlyMap<string, QuotaValues>): Promise<void>;
}

type EntityData = { entityType: string; entityName: string | null };
type AlterResult = AlterClientQuotasResponse['entries'][number];

const MATCH_EXACT = 0;
const MATCH_DEFAULT = 1;
const MATCH_SPECIFIED = 2;

class InvalidQuotaRequest extends Error {}

/** The entity of a request's entity data; throws InvalidQuotaRequest for one Kafka refuses. */
function toEntity(data: readonly EntityData[]): QuotaEntity {
  if (data.length === 0) throw new InvalidQuotaRequest('Invalid empty client quota entity');
  const e: QuotaEntity = {};
  for (const { entityType, entityName } of data) {
    if (entityName !== null && entityName === '') throw new InvalidQuotaRequest(`Empty ${entityType} not supported`);
    if (entityType === USER) {
      if (e.user !== undefined) throw new InvalidQuotaRequest('Duplicate user entity type');
      e.user = entityName;
    } else if (entityType === CLIENT_ID) {
      if (e.clientId !== undefined) throw new InvalidQuotaRequest('Duplicate client-id entity type');
      e.clientId = entityName;
    } else if (entityType === 'ip') throw new InvalidQuotaRequest('IP quotas (connection_creation_rate) are not supported by krill');
    else throw new InvalidQuotaRequest(`Unhandled client quota entity type: ${entityType}`);
  }
  return e;
}

function entityData(e: QuotaEntity): EntityData[] {
  const out: EntityData[] = [];
  if (e.user !== undefined) out.push({ entityType: USER, entityName: e.user });
  if (e.clientId !== undefined) out.push({ entityType: CLIENT_ID, entityName: e.clientId });
  return out;
}

/** Why Kafka refuses `value` for `key`, or null when it takes it. */
function valueProblem(key: string, value: number): string | null {
  const type = QUOTA_KEYS[key];
  if (type === undefined) return `Invalid configuration key ${key}`;
  if (!Number.isFinite(value) || value <= 0) return `Configuration ${key} must be a positive value, not ${value}`;
  if (type === 'long' && (Math.abs(Math.round(value) - value) > 1e-6 || value > Number.MAX_SAFE_INTEGER)) return `Configuration ${key} must be a Long value`;
  return null;
}

/** One filter component: which names of its entity type it takes (undefined: the entity lacks the type). */
type NameMatch = (name: string | null | undefined) => boolean;

function componentMatch(matchType: number, match: string | null): NameMatch {
  if (matchType === MATCH_EXACT) {
    if (match === null) throw new InvalidQuotaRequest('Unexpected null match string for an exact match');
    return (n) => n === match;
  }
  if (match !== null) throw new InvalidQuotaRequest(`Unexpected match string for match type ${matchType}`);
  if (matchType === MATCH_DEFAULT) return (n) => n === null;
  if (matchType === MATCH_SPECIFIED) return (n) => n !== undefined;
  throw new InvalidQuotaRequest(`Unexpected match type: ${matchType}`);
}

export class ClientQuotaStore {
  private readonly quotas = new Map<string, QuotaValues>();
  /** Bumped at every change, so that what was resolved from the quotas before is looked up again. */
  version = 0;
  private listeners: (() => void)[] = [];

  constructor(
    private readonly persistence: ClientQuotaPersistence,
    initial: ReadonlyMap<string, QuotaValues> = new Map(),
  ) {
    for (const [path, values] of initial) this.set(path, values);
  }

  /** Told after every change, wherever it came from. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** The value of `key` an entity (by its config path) has, if any. */
  get(path: string, key: string): number | undefined {
    return this.quotas.get(path)?.[key];
  }

  /** Whether any entity has a value for `key`. */
  has(key: string): boolean {
    for (const values of this.quotas.values()) if (values[key] !== undefined) return true;
    return false;
  }

  all(): ReadonlyMap<string, QuotaValues> {
    return this.quotas;
  }

  /** An entity's values as another broker wrote them (a ZooKeeper notification); {} removes them. */
  replace(path: string, values: QuotaValues): void {
    this.set(path, values);
    this.changed();
  }

  /** Every entity's values as ZooKeeper has them (at a broker's registration): those not in `all` go. */
  replaceAll(all: ReadonlyMap<string, QuotaValues>): void {
    this.quotas.clear();
    for (const [path, values] of all) this.set(path, values);
    this.changed();
  }

  describe(req: DescribeClientQuotasRequest): Omit<DescribeClientQuotasResponse, 'throttleTimeMs'> {
    let byUser: NameMatch | undefined;
    let byClient: NameMatch | undefined;
    try {
      for (const c of req.components) {
        if (c.entityType === USER) {
          if (byUser) throw new InvalidQuotaRequest('Duplicate user filter component entity type');
          byUser = componentMatch(c.matchType, c.match);
        } else if (c.entityType === CLIENT_ID) {
          if (byClient) throw new InvalidQuotaRequest('Duplicate client filter component entity type');
          byClient = componentMatch(c.matchType, c.match);
        } else if (c.entityType === 'ip') throw new InvalidQuotaRequest('IP quotas are not supported by krill');
        else if (c.entityType === '') throw new InvalidQuotaRequest('Unexpected empty filter component entity type');
        else throw new InvalidQuotaRequest(`Custom entity type '${c.entityType}' not supported`);
      }
    } catch (err) {
      if (!(err instanceof InvalidQuotaRequest)) throw err;
      return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: err.message, entries: null };
    }
    // An entity without a component the filter names fails it; without a filter for a type, a strict
    // filter takes only entities without that type.
    const matches = (m: NameMatch | undefined, name: string | null | undefined) => (m ? m(name) : !req.strict || name === undefined);
    const entries: NonNullable<DescribeClientQuotasResponse['entries']>[number][] = [];
    for (const [path, values] of this.quotas) {
      const e = parseEntityPath(path)!;
      if (!matches(byUser, e.user) || !matches(byClient, e.clientId)) continue;
      entries.push({ entity: entityData(e), values: Object.entries(values).map(([key, value]) => ({ key, value })) });
    }
    return { errorCode: ErrorCode.NONE, errorMessage: null, entries };
  }

  /** Each entry checked on its own; those that pass are persisted together, then applied (unless validateOnly). */
  async alter(req: AlterClientQuotasRequest): Promise<AlterResult[]> {
    const results: AlterResult[] = [];
    const changed = new Map<string, QuotaValues>();
    for (const entry of req.entries) {
      const result: AlterResult = { errorCode: ErrorCode.NONE, errorMessage: null, entity: entry.entity };
      results.push(result);
      try {
        const path = entityPath(toEntity(entry.entity));
        const values = { ...(changed.get(path) ?? this.quotas.get(path)) };
        for (const op of entry.ops) {
          if (QUOTA_KEYS[op.key] === undefined) throw new InvalidQuotaRequest(`Invalid configuration key ${op.key}`);
          if (op.remove) delete values[op.key];
          else {
            const problem = valueProblem(op.key, op.value);
            if (problem) throw new InvalidQuotaRequest(problem);
            values[op.key] = op.value;
          }
        }
        changed.set(path, values);
      } catch (err) {
        if (!(err instanceof InvalidQuotaRequest)) throw err;
        result.errorCode = ErrorCode.INVALID_REQUEST;
        result.errorMessage = err.message;
      }
    }
    if (req.validateOnly || changed.size === 0) return results;
    const after = new Map(this.quotas);
    for (const [path, values] of changed) {
      if (Object.keys(values).length === 0) after.delete(path);
      else after.set(path, values);
    }
    await this.persistence.write(changed, after);
    for (const [path, values] of changed) this.set(path, values);
    this.changed();
    return results;
  }

  private set(path: string, values: QuotaValues): void {
    if (Object.keys(values).length === 0) this.quotas.delete(path);
    else this.quotas.set(path, { ...values });
  }

  private changed(): void {
    this.version++;
    for (const l of this.listeners) l();
  }
}
