// The cap on how far a compressed record batch may inflate. Every decompression takes one, so that a
// small batch (a "decompression bomb": a megabyte of gzip can hold a gigabyte of zeros) costs at most the
// cap in memory and time, never what it claims to hold.

import { KafkaError } from '../errors.js';

/** The cap used where a caller names none: stored batches read back (group records, timestamp search). */
export const DEFAULT_MAX_INFLATED_BYTES = 256 * 1024 * 1024;

/**
 * MESSAGE_TOO_LARGE, as for a batch over max.message.bytes: the records are more than the broker accepts,
 * and a Java producer answers it by splitting the batch and sending the halves.
 */
export function inflateLimitError(codecName: string, limit: number, found?: number): KafkaError {
  const size = found === undefined ? 'more than' : `${found} bytes, more than`;
  return new KafkaError('MESSAGE_TOO_LARGE', `the ${codecName} records of the batch inflate to ${size} the ${limit} bytes a batch may hold uncompressed`);
}
