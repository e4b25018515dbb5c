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
  /** One LZ4 block, prefixed with the most it may inflate to (u32 LE); larger output is an error. */
  uncompressSync(data: Buffer): Buffer;
}

const lz4 = (): Lz4Module => loadNative<Lz4Module>('lz4-napi', 'lz4');

const FRAME_MAGIC = 0x184d2204;
const FLG_VERSION_SHIFT = 6;
const FLG_BLOCK_INDEPENDENT = 0x20;
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

interface Frame {
  flg: number;
  blockMax: number;
  /** Where each block's data starts, and its size; negative sizes are stored (uncompressed) blocks. */
  blocks: number[];
  /** The most the frame can inflate to (see lz4FrameBound). */
  bound: number;
}

/** The frame's descriptor and block layout, from its headers alone; the descriptor's checksum is verified. */
function readFrame(data: Buffer): Frame {
  if (data.length < 7 || data.readUInt32LE(0) !== FRAME_MAGIC) throw corrupt('has no LZ4 frame magic');
  const flg = data[4];
  const blockMax = BLOCK_MAX_SIZES[(data[5] >> 4) & 0x07];
  if (flg >> FLG_VERSION_SHIFT !== 1 || blockMax === 0) throw corrupt(`descriptor is invalid (FLG ${flg}, BD ${data[5]})`);
  const hcAt = 6 + (flg & FLG_CONTENT_SIZE ? 8 : 0) + (flg & FLG_DICT_ID ? 4 : 0);
  if (hcAt >= data.length) throw corrupt('ends inside its descriptor');
  if (((xxh32(data, 4, hcAt) >>> 8) & 0xff) !== data[hcAt]) throw corrupt('descriptor checksum does not match');
  let at = hcAt + 1;
  const blockTrailer = flg & FLG_BLOCK_CHECKSUM ? 4 : 0;
  const blocks: number[] = [];
  let bound = 0;
  for (;;) {
    if (at + 4 > data.length) throw corrupt('ends before its end mark');
    const word = data.readUInt32LE(at);
    at += 4;
    if (word === 0) break;
    const size = word & ~BLOCK_UNCOMPRESSED;
    const stored = (word & BLOCK_UNCOMPRESSED) !== 0;
    if (size > blockMax || at + size + blockTrailer > data.length) throw corrupt(`block of ${size} bytes overruns the frame`);
    bound += stored ? size : blockMax;
    blocks.push(at, stored ? -size : size);
    at += size + blockTrailer;
  }
  if (at + (flg & FLG_CONTENT_CHECKSUM ? 4 : 0) > data.length) throw corrupt('ends inside its checksum');
  return { flg, blockMax, blocks, bound };
}

/**
 * The most the frame can inflate to, read from its block headers alone: a compressed block yields at most
 * the frame's block maximum (the decoder refuses more), a stored one exactly its size. Encoders fill every
 * block but the last, so for real data this is within one block of the truth.
 */
export function lz4FrameBound(data: Buffer): number {
  return readFrame(data).bound;
}

export function lz4Compress(data: Buffer): Buffer {
  return lz4().compressFrameSync(data);
}

export function lz4Decompress(data: Buffer, maxBytes: number): Buffer {
  const frame = readFrame(data);
  if (frame.bound > maxBytes) throw inflateLimitError('lz4', maxBytes);
  // Independent blocks without checksums (what Kafka's clients write) are decoded block by block, about
  // 3.5 times faster here than lz4_flex's frame decoder; anything else goes through that decoder, which
  // checks block and content checksums and follows linked blocks.
  if ((frame.flg & (FLG_BLOCK_CHECKSUM | FLG_CONTENT_CHECKSUM | FLG_DICT_ID)) !== 0 || (frame.flg & FLG_BLOCK_INDEPENDENT) === 0) {
    return lz4().decompressFrameSync(data);
  }
  const parts: Buffer[] = [];
  let total = 0;
  for (let i = 0; i < frame.blocks.length; i += 2) {
    const at = frame.blocks[i];
    const size = frame.blocks[i + 1];
    let part: Buffer;
    if (size < 0) {
      part = data.subarray(at, at - size);
    } else {
      const input = Buffer.allocUnsafe(4 + size);
      input.writeUInt32LE(frame.blockMax, 0);
      data.copy(input, 4, at, at + size);
      part = lz4().uncompressSync(input);
    }
    parts.push(part);
    total += part.length;
  }
  return parts.length === 1 ? parts[0] : Buffer.concat(parts, total);
}

// xxHash32 (seed 0), for the frame descriptor's checksum byte: a few bytes, so a plain implementation.
const P1 = 0x9e3779b1;
const P2 = 0x85ebca77;
const P3 = 0xc2b2ae3d;
const P4 = 0x27d4eb2f;
const P5 = 0x165667b1;

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

function round(acc: number, lane: number): number {
  return Math.imul(rotl((acc + Math.imul(lane, P2)) | 0, 13), P1);
}

export function xxh32(buf: Buffer, start: number, end: number): number {
  let at = start;
  let h: number;
  const len = end - start;
  if (len >= 16) {
    let v1 = (P1 + P2) | 0;
    let v2 = P2;
    let v3 = 0;
    let v4 = -P1 | 0;
    for (; at + 16 <= end; at += 16) {
      v1 = round(v1, buf.readUInt32LE(at));
      v2 = round(v2, buf.readUInt32LE(at + 4));
      v3 = round(v3, buf.readUInt32LE(at + 8));
      v4 = round(v4, buf.readUInt32LE(at + 12));
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) | 0;
  } else {
    h = P5;
  }
  h = (h + len) | 0;
  for (; at + 4 <= end; at += 4) h = Math.imul(rotl((h + Math.imul(buf.readUInt32LE(at), P3)) | 0, 17), P4);
  for (; at < end; at++) h = Math.imul(rotl((h + Math.imul(buf[at], P5)) | 0, 11), P1);
  h = Math.imul(h ^ (h >>> 15), P2);
  h = Math.imul(h ^ (h >>> 13), P3);
  return (h ^ (h >>> 16)) >>> 0;
}
