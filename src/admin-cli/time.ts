// The times a reset or a consume starts from, written as kafka-consumer-groups takes them.
import { UsageError } from './command.js';

/**
 * A datetime `YYYY-MM-DDTHH:mm:SS[.sss][Z|±HH:MM]` (local time without a zone, as Kafka's tool reads it) or
 * milliseconds since the epoch, as ms since the epoch.
 */
export function parseTimestamp(text: string): number {
  if (/^\d+$/.test(text)) return Number(text);
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,3})?(Z|[+-]\d{2}:?\d{2})?$/.exec(text);
  const ms = m ? Date.parse(m[8] ? text : `${text}${m[7] ? '' : '.000'}`) : NaN;
  if (Number.isNaN(ms)) throw new UsageError(`'${text}' is not a datetime like 2026-01-31T12:00:00.000 (optionally with Z or +01:00), nor ms since the epoch`);
  return ms;
}

/** An ISO-8601 duration as java.time.Duration parses it (PnDTnHnMn.nS), in ms. */
export function parseDuration(text: string): number {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(text);
  if (!m || text === 'P' || text.endsWith('T')) throw new UsageError(`'${text}' is not an ISO-8601 duration like PT1H or P1DT30M`);
  const [d, h, min, s] = m.slice(1).map((v) => Number(v ?? 0));
  return Math.round(((d * 24 + h) * 60 + min) * 60_000 + s * 1000);
}
