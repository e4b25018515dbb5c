// lz4 (codec 3): the LZ4 frame format (magic 0x184D2204). Magic-2 batches carry a correct frame
// header checksum (the "broken" checksum of KafkaLZ4BlockOutputStream only ever applied to magic 0).
// lz4-napi (lz4_flex) writes independent 64 KiB-class blocks with no block/content checksums, which is
// what Java's KafkaLZ4BlockInputStream requires (it refuses dependent blocks); reading accepts any
// valid frame, including content and block checksums.

import { loadNative } from './native.js';

interface Lz4Module {
  compressFrameSync(data: Buffer): Buffer;
  decompressFrameSync(data: Buffer): Buffer;
}

const lz4 = (): Lz4Module => loadNative<Lz4Module>('lz4-napi', 'lz4');

export function lz4Compress(data: Buffer): Buffer {
  return lz4().compressFrameSync(data);
}

export function lz4Decompress(data: Buffer): Buffer {
  return lz4().decompressFrameSync(data);
}
