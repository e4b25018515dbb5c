// Codec round trips, plus frames produced by other implementations (CLI tools, python's zlib,
// @platformatic/kafka's wasm codecs, hand-encoded snappy) so a symmetric bug cannot hide.
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { compressionsAlgorithms } from '@platformatic/kafka';
import {
  CODEC_GZIP,
  CODEC_LZ4,
  CODEC_NAMES,
  CODEC_NONE,
  CODEC_SNAPPY,
  CODEC_ZSTD,
  codecFromName,
  codecName,
  compress,
  decompress,
  isXerialFramed,
  snappyCompressXerial,
} from '../../protocol/compression/index.js';
import { KafkaError, ErrorCode } from '../../protocol/errors.js';
import { xxh32 } from '../../protocol/compression/lz4.js';

function hasTool(cmd: string, args: string[] = ['--version']): boolean {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const HAS_LZ4 = hasTool('lz4', ['-V']);
const HAS_ZSTD = hasTool('zstd');
const HAS_PYTHON = hasTool('python3');

function sample(n: number): Buffer {
  const parts: string[] = [];
  let len = 0;
  for (let i = 0; len < n; i++) {
    const s = `{"id":${i},"name":"user-${i % 97}","score":${(i * 7919) % 1000}}`;
    parts.push(s);
    len += s.length;
  }
  return Buffer.from(parts.join('').slice(0, n));
}

function random(n: number, seed = 1): Buffer {
  const b = Buffer.allocUnsafe(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (s * 1664525 + 1013904223) >>> 0;
    b[i] = s >>> 24;
  }
  return b;
}

const INPUTS: [string, Buffer][] = [
  ['empty', Buffer.alloc(0)],
  ['one byte', Buffer.from([42])],
  ['small text', Buffer.from('hello kafka hello kafka hello kafka')],
  ['200 KiB json', sample(200 * 1024)],
  ['100 KiB random', random(100 * 1024)],
];

function expectKafkaError(fn: () => unknown, code: number): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(KafkaError);
    expect((err as KafkaError).code).toBe(code);
    return;
  }
  throw new Error('expected a KafkaError');
}

describe('codec names', () => {
  it('maps names and ids both ways', () => {
    expect(CODEC_NAMES).toEqual(['none', 'gzip', 'snappy', 'lz4', 'zstd']);
    expect(codecFromName('none')).toBe(CODEC_NONE);
    expect(codecFromName('uncompressed')).toBe(CODEC_NONE);
    expect(codecFromName('gzip')).toBe(CODEC_GZIP);
    expect(codecFromName('SNAPPY')).toBe(CODEC_SNAPPY);
    expect(codecFromName('lz4')).toBe(CODEC_LZ4);
    expect(codecFromName('zstd')).toBe(CODEC_ZSTD);
    expect(codecName(CODEC_ZSTD)).toBe('zstd');
    expectKafkaError(() => codecFromName('producer'), ErrorCode.INVALID_CONFIG);
    expectKafkaError(() => codecName(5), ErrorCode.UNSUPPORTED_COMPRESSION_TYPE);
  });

  it('rejects unknown codec ids', () => {
    expectKafkaError(() => compress(5, Buffer.from('x')), ErrorCode.UNSUPPORTED_COMPRESSION_TYPE);
    expectKafkaError(() => decompress(7, Buffer.from('x')), ErrorCode.UNSUPPORTED_COMPRESSION_TYPE);
  });
});

describe.each([CODEC_NONE, CODEC_GZIP, CODEC_SNAPPY, CODEC_LZ4, CODEC_ZSTD])('codec %i round trip', (codec) => {
  it.each(INPUTS)('%s', (_name, data) => {
    const c = compress(codec, data);
    expect(decompress(codec, c).equals(data)).toBe(true);
  });

  it('compresses repetitive data', () => {
    if (codec === CODEC_NONE) return;
    const data = sample(64 * 1024);
    expect(compress(codec, data).length).toBeLessThan(data.length / 2);
  });

  it('garbage input is CORRUPT_MESSAGE', () => {
    if (codec === CODEC_NONE) return;
    const garbage = Buffer.from('definitely not a compressed frame, not at all, no');
    expectKafkaError(() => decompress(codec, garbage), ErrorCode.CORRUPT_MESSAGE);
  });
});

describe('gzip', () => {
  it.skipIf(!HAS_PYTHON)('reads gzip written by python', () => {
    const data = sample(50_000);
    const gz = execFileSync('python3', ['-c', 'import sys,gzip; sys.stdout.buffer.write(gzip.compress(sys.stdin.buffer.read(), 9))'], { input: data });
    expect(gz[0]).toBe(0x1f);
    expect(decompress(CODEC_GZIP, gz).equals(data)).toBe(true);
  });

  it('reads concatenated gzip members', () => {
    const a = Buffer.from('first member;');
    const b = Buffer.from('second member');
    const two = Buffer.concat([compress(CODEC_GZIP, a), compress(CODEC_GZIP, b)]);
    expect(decompress(CODEC_GZIP, two).toString()).toBe('first member;second member');
  });
});

describe('snappy', () => {
  // Hand-encoded raw snappy: preamble 12, literal "abcd" (tag (4-1)<<2), copy len 8 offset 4 (tag 0x11, 0x04).
  const HAND_RAW = Buffer.from([0x0c, 0x0c, 0x61, 0x62, 0x63, 0x64, 0x11, 0x04]);
  // Hand-encoded raw snappy literal "xyz": preamble 3, literal tag (3-1)<<2.
  const HAND_RAW_2 = Buffer.from([0x03, 0x08, 0x78, 0x79, 0x7a]);
  const XERIAL_HEADER = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1]);
  const len = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeInt32BE(n);
    return b;
  };

  it('reads hand-encoded raw snappy', () => {
    expect(decompress(CODEC_SNAPPY, HAND_RAW).toString()).toBe('abcdabcdabcd');
  });

  it('writes raw (unframed) snappy', () => {
    const c = compress(CODEC_SNAPPY, Buffer.from('hello'));
    expect(isXerialFramed(c)).toBe(false);
    expect(c[0]).toBe(5); // uvarint uncompressed length
  });

  it('reads xerial-framed snappy with several blocks and a concatenated stream', () => {
    const framed = Buffer.concat([
      XERIAL_HEADER,
      len(HAND_RAW.length),
      HAND_RAW,
      len(HAND_RAW_2.length),
      HAND_RAW_2,
      XERIAL_HEADER,
      len(HAND_RAW_2.length),
      HAND_RAW_2,
    ]);
    expect(isXerialFramed(framed)).toBe(true);
    expect(decompress(CODEC_SNAPPY, framed).toString()).toBe('abcdabcdabcdxyzxyz');
  });

  it('reads a header-only xerial stream as empty', () => {
    expect(decompress(CODEC_SNAPPY, XERIAL_HEADER).length).toBe(0);
  });

  it('xerial writer round-trips across 32 KiB blocks', () => {
    const data = sample(100_000);
    const framed = snappyCompressXerial(data);
    expect(isXerialFramed(framed)).toBe(true);
    // 4 blocks: 32K, 32K, 32K, rest
    let at = 16;
    let blocks = 0;
    while (at < framed.length) {
      at += 4 + framed.readInt32BE(at);
      blocks++;
    }
    expect(blocks).toBe(4);
    expect(decompress(CODEC_SNAPPY, framed).equals(data)).toBe(true);
  });

  it('truncated xerial block is CORRUPT_MESSAGE', () => {
    const framed = Buffer.concat([XERIAL_HEADER, len(100), HAND_RAW]);
    expectKafkaError(() => decompress(CODEC_SNAPPY, framed), ErrorCode.CORRUPT_MESSAGE);
    expectKafkaError(() => decompress(CODEC_SNAPPY, Buffer.concat([XERIAL_HEADER, Buffer.from([0, 0])])), ErrorCode.CORRUPT_MESSAGE);
  });

  it('interoperates with @platformatic/kafka (wasm snappy)', () => {
    const data = sample(70_000);
    const theirs = compressionsAlgorithms.snappy.compressSync(data) as Buffer;
    expect(decompress(CODEC_SNAPPY, theirs).equals(data)).toBe(true);
    const ours = compress(CODEC_SNAPPY, data);
    expect(Buffer.from(compressionsAlgorithms.snappy.decompressSync(ours) as Buffer).equals(data)).toBe(true);
  });
});

describe('lz4', () => {
  it('writes an LZ4 frame with independent blocks and a valid header', () => {
    const c = compress(CODEC_LZ4, sample(10_000));
    expect(c.readUInt32LE(0)).toBe(0x184d2204);
    const flg = c[4];
    expect(flg >> 6).toBe(1); // version 01
    expect(flg & 0x20).toBe(0x20); // block independence: Java's KafkaLZ4BlockInputStream requires it
    const blockMax = (c[5] >> 4) & 7;
    expect(blockMax).toBeGreaterThanOrEqual(4);
    expect(blockMax).toBeLessThanOrEqual(7);
  });

  it.skipIf(!HAS_LZ4)('reads frames from the lz4 CLI (content checksum, block checksums, dependent blocks)', () => {
    const data = sample(300_000);
    for (const args of [['-c'], ['-c', '-BX'], ['-c', '-BD', '-B4'], ['-c', '-9', '--no-frame-crc']]) {
      const frame = execFileSync('lz4', [...args, '-'], { input: data, stdio: ['pipe', 'pipe', 'ignore'] });
      expect(decompress(CODEC_LZ4, frame).equals(data)).toBe(true);
    }
  });

  it.skipIf(!HAS_LZ4)("reads independent 64 KiB blocks without checksums block by block (librdkafka's frames), stored blocks too", () => {
    for (const data of [sample(300_000), random(200_000)]) {
      const frame = execFileSync('lz4', ['-B4', '-BI', '--no-frame-crc', '-c', '-q'], { input: data });
      expect(frame[4]).toBe(0x60); // independent blocks, no checksums: the block-by-block path
      expect(decompress(CODEC_LZ4, frame).equals(data)).toBe(true);
    }
  });

  it('xxh32 (the descriptor checksum) gives the reference values', () => {
    const h = (s: string) => xxh32(Buffer.from(s), 0, Buffer.byteLength(s));
    expect([h(''), h('a'), h('abc'), h('Nobody inspects the spammish repetition')]).toEqual([0x02cc5d05, 0x550d7456, 0x32d153ff, 0xe2293b2f]);
  });

  it("a block that inflates past the frame's block size is CORRUPT_MESSAGE on the block-by-block path", () => {
    // one sequence: literal 'a', then a match of 100,000 bytes at offset 1, then 5 literals; BD says 64 KiB
    const seq: number[] = [0x1f, 0x61, 1, 0];
    let ml = 100_000 - 4 - 15;
    for (; ml >= 255; ml -= 255) seq.push(255);
    seq.push(ml, 0x50, 0x62, 0x62, 0x62, 0x62, 0x62);
    const block = Buffer.from(seq);
    const header = Buffer.from([0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0]);
    header[6] = (xxh32(header, 4, 6) >>> 8) & 0xff;
    const size = Buffer.alloc(4);
    size.writeUInt32LE(block.length);
    const frame = Buffer.concat([header, size, block, Buffer.alloc(4)]);
    expectKafkaError(() => decompress(CODEC_LZ4, frame), ErrorCode.CORRUPT_MESSAGE);
  });

  it.skipIf(!HAS_LZ4)('the lz4 CLI reads our frames', () => {
    const data = sample(300_000);
    const out = execFileSync('lz4', ['-d', '-c', '-'], { input: compress(CODEC_LZ4, data), stdio: ['pipe', 'pipe', 'ignore'] });
    expect(out.equals(data)).toBe(true);
  });

  it('interoperates with @platformatic/kafka (wasm lz4)', () => {
    const data = sample(70_000);
    const theirs = compressionsAlgorithms.lz4.compressSync(data) as Buffer;
    expect(decompress(CODEC_LZ4, theirs).equals(data)).toBe(true);
    const ours = compress(CODEC_LZ4, data);
    expect(Buffer.from(compressionsAlgorithms.lz4.decompressSync(ours) as Buffer).equals(data)).toBe(true);
  });

  it('a frame with a corrupted header checksum is CORRUPT_MESSAGE', () => {
    const c = Buffer.from(compress(CODEC_LZ4, sample(1000)));
    c[6] ^= 0xff; // HC byte (no content size)
    expectKafkaError(() => decompress(CODEC_LZ4, c), ErrorCode.CORRUPT_MESSAGE);
  });
});

describe('zstd', () => {
  it.skipIf(!HAS_ZSTD)('reads streamed frames (no content size) from the zstd CLI', () => {
    const data = sample(300_000);
    const frame = execFileSync('zstd', ['-c', '-q', '-'], { input: data });
    // Frame header descriptor: content-size flag bits 6-7 are 0 for a stream of unknown size
    expect(frame.readUInt32LE(0)).toBe(0xfd2fb528);
    expect(decompress(CODEC_ZSTD, frame).equals(data)).toBe(true);
  });

  it.skipIf(!HAS_ZSTD)('the zstd CLI reads our frames', () => {
    const data = sample(300_000);
    const out = execFileSync('zstd', ['-d', '-c', '-q', '-'], { input: compress(CODEC_ZSTD, data) });
    expect(out.equals(data)).toBe(true);
  });

  it('reads concatenated frames', () => {
    const two = Buffer.concat([compress(CODEC_ZSTD, Buffer.from('ab')), compress(CODEC_ZSTD, Buffer.from('cd'))]);
    expect(decompress(CODEC_ZSTD, two).toString()).toBe('abcd');
  });
});

describe('the inflate cap', () => {
  const data = sample(200_000);

  for (const codec of [CODEC_GZIP, CODEC_SNAPPY, CODEC_LZ4, CODEC_ZSTD]) {
    it(`${CODEC_NAMES[codec]}: output up to the cap passes, one byte more is MESSAGE_TOO_LARGE`, () => {
      const c = compress(codec, data);
      // lz4 is judged by its block headers alone: each of the frame's 4 blocks may yield 64 KiB
      const cap = codec === CODEC_LZ4 ? 4 * 64 * 1024 : data.length;
      expect(decompress(codec, c, cap).equals(data)).toBe(true);
      expectKafkaError(() => decompress(codec, c, cap - 1), ErrorCode.MESSAGE_TOO_LARGE);
    });
  }

  it('xerial snappy counts every block against the cap', () => {
    const c = snappyCompressXerial(data);
    expect(decompress(CODEC_SNAPPY, c, data.length).equals(data)).toBe(true);
    expectKafkaError(() => decompress(CODEC_SNAPPY, c, data.length - 1), ErrorCode.MESSAGE_TOO_LARGE);
  });

  it.skipIf(!HAS_ZSTD)('zstd: a streamed frame without a content size stops at the cap', () => {
    const frame = execFileSync('zstd', ['-c', '-q', '-'], { input: Buffer.alloc(8 * 1024 * 1024) });
    expectKafkaError(() => decompress(CODEC_ZSTD, frame, 1024 * 1024), ErrorCode.MESSAGE_TOO_LARGE);
    expect(decompress(CODEC_ZSTD, frame, 8 * 1024 * 1024).length).toBe(8 * 1024 * 1024);
  });

  it.skipIf(!HAS_ZSTD)('zstd: a frame that asks for a 1 GiB window is refused, not allocated', () => {
    const frame = execFileSync('zstd', ['--long=30', '-c', '-q', '-'], { input: Buffer.alloc(100_000) });
    expectKafkaError(() => decompress(CODEC_ZSTD, frame, 1024 * 1024), ErrorCode.MESSAGE_TOO_LARGE);
  });

  it('zstd: a frame cut short is CORRUPT_MESSAGE, and the next frame decodes (the context is reset)', () => {
    const c = compress(CODEC_ZSTD, data);
    expectKafkaError(() => decompress(CODEC_ZSTD, c.subarray(0, c.length - 10)), ErrorCode.CORRUPT_MESSAGE);
    expect(decompress(CODEC_ZSTD, c).equals(data)).toBe(true);
  });

  it('lz4: a frame cut before its end mark is CORRUPT_MESSAGE', () => {
    const c = compress(CODEC_LZ4, data);
    expectKafkaError(() => decompress(CODEC_LZ4, c.subarray(0, c.length - 4)), ErrorCode.CORRUPT_MESSAGE);
  });
});
