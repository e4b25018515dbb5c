// lz4 (codec 3): the LZ4 frame format (magic 0x184D2204). Magic-2 batches carry a correct frame
// header checksum (the "broken" checksum of KafkaLZ4BlockOutputStream only ever applied to magic 0).
// lz4-napi (lz4_flex) writes independent 64 KiB-class blocks with no block/content checksums, which is
// what Java's KafkaLZ4BlockInputStream requires (it refuses dependent blocks); reading accepts any
// valid frame, including content and block checksums.

import { KafkaError } from '../errors.js';
import { loadNative } from './native.js';
import { inflateLimitError } from './inflate-limit.js';

interface Lz4Module {
  compressFrameSync(data: Buffer): Buffer;
  decompressFrameSync(data: Buffer): Buffer;
}

const lz4 = (): Lz4Module => loadNative<Lz4Module>('lz4-napi', 'lz4');

const FRAME_MAGIC = 0x184d2204;
const FLG_BLOCK_CHECKSUM = 0x10;
const FLG_CONTENT_SIZE = 0x08;
const FLG_CONTENT_CHECKSUM = 0x04;
const FLG_DICT_ID = 0x01;
const BLOCK_UNCOMPRESSED = 0x80000000;
/** Block maximum sizes by the BD byte's bits 4-6 (values 4-7). */
const BLOCK_MAX_SIZES = [0, 0, 0, 0, 64 * 1024, 256 * 1024, 1024 * 1024, 4 * 1024 * 1024];

function corrupt(message: string): KafkaError {
  return new KafkaError('CORRUPT_MESSAGE', `lz4 frame ${message}`);
}

/**
 * The most the frame can inflate to, read from its block headers alone: a compressed block yields at most
 * the frame's block maximum (the decoder refuses more), a stored one exactly its size. Encoders fill every
 * block but the last, so for real data this is within one block of the truth.
 */
export function lz4FrameBound(data: Buffer): number {
  if (data.length < 7 || data.readUInt32LE(0) !== FRAME_MAGIC) throw corrupt('has no LZ4 frame magic');
  const flg = data[4];
  const blockMax = BLOCK_MAX_SIZES[(data[5] >> 4) & 0x07];
  if (flg >> 6 !== 1 || blockMax === 0) throw corrupt(`descriptor is invalid (FLG ${flg}, BD ${data[5]})`);
  let at = 6 + (flg & FLG_CONTENT_SIZE ? 8 : 0) + (flg & FLG_DICT_ID ? 4 : 0) + 1;
  const blockTrailer = flg & FLG_BLOCK_CHECKSUM ? 4 : 0;
  let bound = 0;
  for (;;) {
    if (at + 4 > data.length) throw corrupt('ends before its end mark');
    const word = data.readUInt32LE(at);
    at += 4;
    if (word === 0) break;
    const size = word & ~BLOCK_UNCOMPRESSED;
    bound += word & BLOCK_UNCOMPRESSED ? size : blockMax;
    at += size + blockTrailer;
  }
  if (at + (flg & FLG_CONTENT_CHECKSUM ? 4 : 0) > data.length) throw corrupt('ends inside its checksum');
  return bound;
}

export function lz4Compress(data: Buffer): Buffer {
  return lz4().compressFrameSync(data);
}

export function lz4Decompress(data: Buffer, maxBytes: number): Buffer {
  if (lz4FrameBound(data) > maxBytes) throw inflateLimitError('lz4', maxBytes);
  return lz4().decompressFrameSync(data);
}
