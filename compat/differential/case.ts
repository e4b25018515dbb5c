// What a differential case is: the API whose versions it walks, an optional setup run once per broker, and
// the steps run at each version both brokers serve. Steps send through `ctx.send`, which records the response
// under the case's name, the version and the step's name; the two brokers' records are then compared.
import type { Message } from '../../protocol/codec.js';
import { parseVersions } from '../../protocol/schema.js';
import { MESSAGES_BY_KEY } from '../../protocol/messages/index.js';
import type { Side } from './harness.js';

export interface CaseContext {
  side: Side;
  /** The version under test (steps of other APIs pick their own). */
  v: number;
  /** A name unique to this run, case and `suffix`, the same on both brokers. */
  name(suffix: string): string;
  send(step: string, apiKey: number, version: number, body: Message): Promise<Message>;
  /** Sends a frame made by hand and records its answer decoded at `decodeVersion`. */
  sendRaw(step: string, frame: Buffer, apiKey: number, decodeVersion: number): Promise<Message>;
}

export interface Case {
  name: string;
  api: number;
  /** The versions to walk, within both brokers' ranges; default all of them. */
  versions?: string;
  /** Run once per broker before the versions (topics, coordinators); its names are shared by every version. */
  setup?(ctx: Omit<CaseContext, 'v'>): Promise<void>;
  run(ctx: CaseContext): Promise<void>;
}

/** The versions of `c` that krill's definitions, Kafka and krill all serve. */
export function sharedVersions(c: Case, kafka: Side, krill: Side): number[] {
  const ours = parseVersions(MESSAGES_BY_KEY.get(c.api)!.validVersions);
  const wanted = c.versions ? parseVersions(c.versions) : ours;
  const k = kafka.ranges.get(c.api);
  const r = krill.ranges.get(c.api);
  if (!k || !r) return [];
  const lo = Math.max(ours.min, wanted.min, k[0], r[0]);
  const hi = Math.min(ours.max, wanted.max, k[1], r[1]);
  return Array.from({ length: Math.max(0, hi - lo + 1) }, (_, i) => lo + i);
}
