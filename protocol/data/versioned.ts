// A standalone struct as it is stored: an int16 version, then the struct at that version. Record keys and values
// in __consumer_offsets and __transaction_state, and the consumer protocol's metadata, all take this form.
import { decodeData, encodeData } from '../codec.js';
import { Reader, Writer } from '../primitives.js';
import { parseVersions, type DataDef, type DataInput, type DataOf } from '../schema.js';

export function writeVersioned<D extends DataDef>(def: D, version: number, value: DataInput<D>): Buffer {
  return encodeData(def, version, value, new Writer().int16(version)).toBuffer();
}

/**
 * The struct behind the version in `buf`. A version newer than the definition knows is read as the newest one:
 * later versions only append fields, and Kafka's ConsumerProtocol reads newer metadata the same way. Bytes after
 * the struct are left unread.
 */
export function readVersioned<D extends DataDef>(def: D, buf: Buffer): DataOf<D> {
  const r = new Reader(buf);
  const version = Math.min(r.int16(), parseVersions(def.validVersions).max);
  return decodeData(def, version, r);
}
