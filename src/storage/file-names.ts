// File and directory names of the on-disk log, as Kafka lays them out.
//
//   <dataDir>/<topic>-<partition>/                 one directory per partition; topic names may contain
//                                                  '-', so a directory name is split at its LAST '-'
//   <dataDir>/<topic>-<partition>.<id>-delete/     a partition being deleted (removed at start-up)
//   <dataDir>/<topic>-<partition>.<id>-stray/      a partition directory set aside, kept for the operator
//   .../00000000000000000000.log                   segment data: record batches back to back
//   .../00000000000000000000.index                 sparse offset index of that segment
//   .../00000000000000000000.timeindex             sparse time index of that segment
//   .../partition.metadata                         "version: 0\ntopic_id: <base64url topic id>\n"
//
// A segment is named by its base offset (the first offset it may hold), zero-padded to 20 digits so
// that names sort in offset order.

import path from 'node:path';

export const LOG_SUFFIX = '.log';
export const INDEX_SUFFIX = '.index';
export const TIME_INDEX_SUFFIX = '.timeindex';
export const TXN_INDEX_SUFFIX = '.txnindex';
/** Kafka's LogFileUtils.DELETED_FILE_SUFFIX: a file renamed so is garbage, removed later or at the next open. */
export const DELETED_SUFFIX = '.deleted';
/** Suffixes of leftovers of interrupted operations; such files are deleted when a partition is opened. */
export const TEMP_SUFFIXES = [DELETED_SUFFIX, '.cleaned', '.swap', '.tmp'] as const;
export const DELETE_DIR_SUFFIX = '-delete';
export const STRAY_DIR_SUFFIX = '-stray';
export const PARTITION_METADATA_FILE = 'partition.metadata';

export type SegmentFileKind = 'log' | 'index' | 'timeindex' | 'txnindex';

const SUFFIX_OF: Record<SegmentFileKind, string> = { log: LOG_SUFFIX, index: INDEX_SUFFIX, timeindex: TIME_INDEX_SUFFIX, txnindex: TXN_INDEX_SUFFIX };

/** The 20-digit zero-padded form of an offset: 42 → "00000000000000000042". */
export function offsetToName(offset: number): string {
  if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`invalid base offset ${offset}`);
  return String(offset).padStart(20, '0');
}

export function segmentFileName(baseOffset: number, kind: SegmentFileKind): string {
  return offsetToName(baseOffset) + SUFFIX_OF[kind];
}

export function segmentFilePath(dir: string, baseOffset: number, kind: SegmentFileKind): string {
  return path.join(dir, segmentFileName(baseOffset, kind));
}

/** Parses "00000000000000000042.log" → { baseOffset: 42, kind: 'log' }; null for any other name. */
export function parseSegmentFileName(name: string): { baseOffset: number; kind: SegmentFileKind } | null {
  const m = /^(\d{20})\.(log|index|timeindex|txnindex)$/.exec(name);
  if (!m) return null;
  const baseOffset = Number(m[1]);
  if (!Number.isSafeInteger(baseOffset)) return null;
  return { baseOffset, kind: m[2] as SegmentFileKind };
}

/** "<topic>-<partition>" */
export function partitionDirName(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

/**
 * Parses "<topic>-<partition>" (split at the last '-'); null when the name is not of that form, or is a
 * directory being deleted ("...-delete") or another leftover ("...-stray", "...-future").
 */
export function parsePartitionDirName(name: string): { topic: string; partition: number } | null {
  const dash = name.lastIndexOf('-');
  if (dash <= 0 || dash === name.length - 1) return null;
  const digits = name.slice(dash + 1);
  if (!/^\d+$/.test(digits)) return null;
  const partition = Number(digits);
  if (!Number.isSafeInteger(partition) || partition > 0x7fffffff) return null;
  if (digits.length > 1 && digits.startsWith('0')) return null;
  return { topic: name.slice(0, dash), partition };
}

/** True for a partition directory renamed for deletion: "<topic>-<partition>.<id>-delete". */
export function isDeletedDirName(name: string): boolean {
  return name.endsWith(DELETE_DIR_SUFFIX) && name.includes('.');
}

/**
 * The name a partition directory is renamed to before removal. Like Kafka, the topic part is shortened so
 * the whole name stays within the 255-byte file-name limit (topic names may be 249 characters).
 */
export function deletedDirName(topic: string, partition: number, uniqueId: string): string {
  return renamedDirName(topic, partition, uniqueId, DELETE_DIR_SUFFIX);
}

/** The name a partition directory krill must not use but may not delete is renamed to (Kafka's stray logs). */
export function strayDirName(topic: string, partition: number, uniqueId: string): string {
  return renamedDirName(topic, partition, uniqueId, STRAY_DIR_SUFFIX);
}

/** "<topic>-<partition>.<uniqueId><suffix>", the topic shortened to keep the name within 255 bytes. */
function renamedDirName(topic: string, partition: number, uniqueId: string, dirSuffix: string): string {
  const suffix = `-${partition}.${uniqueId}${dirSuffix}`;
  return `${topic.slice(0, Math.max(0, 255 - suffix.length))}${suffix}`;
}
