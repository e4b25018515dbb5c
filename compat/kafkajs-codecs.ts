// Compression codecs for kafkajs. kafkajs builds in only gzip; applications register the others in
// CompressionCodecs. These adapters do what the usual companion packages do, on the packages installed here:
//   - kafkajs-snappy: compress writes one raw snappy block; decompress accepts raw blocks and xerial
//     framing (the 16-byte 0x82 SNAPPY header, then [int32 length][raw block]... chunks, as Java writes).
//   - kafkajs-lz4:    the LZ4 frame format (lz4-napi compressFrame / decompressFrame).
//   - @kafkajs/zstd:  one zstd frame (zstd-napi compress / decompress).
// The built-in gzip codec is wrapped too. Every codec counts its calls (codecCalls), so a test can tell
// that a batch really travelled compressed with a given codec.

import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { CompressionTypes, CompressionCodecs } = require('kafkajs');
const snappy = require('snappy');
const lz4 = require('lz4-napi');
const zstd = require('zstd-napi');

interface Codec {
  compress(encoder: { buffer: Buffer }): Promise<Buffer>;
  decompress(buffer: Buffer): Promise<Buffer>;
}

/** Calls per codec id (kafkajs CompressionTypes: 1 gzip, 2 snappy, 3 lz4, 4 zstd). */
export const codecCalls = { compress: new Map<number, number>(), decompress: new Map<number, number>() };
const bump = (m: Map<number, number>, type: number) => m.set(type, (m.get(type) ?? 0) + 1);

const XERIAL_HEADER = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);

const snappyCodec = (): Codec => ({
  async compress(encoder) {
    return snappy.compress(encoder.buffer);
  },
  async decompress(buffer) {
    if (!buffer.subarray(0, 8).equals(XERIAL_HEADER)) return snappy.uncompress(buffer);
    const out: Buffer[] = [];
    let offset = 16;
    while (offset + 4 <= buffer.length) {
      const size = buffer.readUInt32BE(offset);
      offset += 4;
      out.push(await snappy.uncompress(buffer.subarray(offset, offset + size)));
      offset += size;
    }
    return Buffer.concat(out);
  },
});

const lz4Codec = (): Codec => ({
  async compress(encoder) {
    return lz4.compressFrame(encoder.buffer);
  },
  async decompress(buffer) {
    return lz4.decompressFrame(buffer);
  },
});

const zstdCodec = (): Codec => ({
  async compress(encoder) {
    return zstd.compress(encoder.buffer);
  },
  async decompress(buffer) {
    return zstd.decompress(buffer);
  },
});

function counting(type: number, make: () => Codec): () => Codec {
  return () => {
    const inner = make();
    return {
      async compress(encoder) {
        bump(codecCalls.compress, type);
        return inner.compress(encoder);
      },
      async decompress(buffer) {
        bump(codecCalls.decompress, type);
        return inner.decompress(buffer);
      },
    };
  };
}

let registered = false;

/** Registers snappy, lz4 and zstd (and a counting wrapper around the built-in gzip) with kafkajs. */
export function registerKafkajsCodecs(): void {
  if (registered) return;
  registered = true;
  const builtinGzip = CompressionCodecs[CompressionTypes.GZIP];
  CompressionCodecs[CompressionTypes.GZIP] = counting(CompressionTypes.GZIP, builtinGzip);
  CompressionCodecs[CompressionTypes.Snappy] = counting(CompressionTypes.Snappy, snappyCodec);
  CompressionCodecs[CompressionTypes.LZ4] = counting(CompressionTypes.LZ4, lz4Codec);
  CompressionCodecs[CompressionTypes.ZSTD] = counting(CompressionTypes.ZSTD, zstdCodec);
}
