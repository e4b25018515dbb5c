// The data directory: every topic's partition logs plus the bookkeeping files. Layout:
//
//   <dataDir>/krill-topics.json                  topic metadata (topics-file.ts)
//   <dataDir>/<topic>-<partition>/                 a partition log (partition-log.ts, segment.ts), with
//       partition.metadata                         "version: 0\ntopic_id: <base64url topic id>\n"
//   <dataDir>/recovery-point-offset-checkpoint     checkpoints (checkpoints.ts)
//   <dataDir>/log-start-offset-checkpoint
//   <dataDir>/.kafka_cleanshutdown                 written by close(), removed by open()
//   <dataDir>/meta.properties                      (meta-properties.ts; read/created by the broker)
//
// Creating a topic writes krill-topics.json first, then the partition directories; deleting one writes
// krill-topics.json first, then renames each directory to <dir>.<id>-delete at once and removes it in the
// background log.segment.delete.delay.ms later (file-deleter.ts, as Kafka's LogManager.asyncDelete), so the
// name is free for a new topic right away. Segments that retention or DeleteRecords delete go the same
// way (renamed .deleted, removed file.delete.delay.ms later). At open,
// "-delete" directories are removed, missing partition directories are created, and directories of
// unknown topics are left alone (logged). A lost krill-topics.json is rebuilt from the directories.
// Only DeleteTopics removes a partition directory: one that is in the way (its partition.metadata names
// another topic id, or a new topic's name is taken by a directory no topic has) is renamed
// <dir>.<id>-stray and kept, as Kafka does with stray logs, for the operator to inspect or remove.

import fs, { isMemoryPath } from './storage-fs.js';
import path from 'node:path';
import { KafkaError } from '../../protocol/errors.js';
import { writeFileAtomic } from './atomic-file.js';
import {
  CLEAN_SHUTDOWN_FILE,
  LOG_START_OFFSET_CHECKPOINT,
  RECOVERY_POINT_CHECKPOINT,
  readCheckpointFile,
  writeCheckpointFile,
  writeCheckpointFileInBackground,
  type CheckpointEntry,
} from './checkpoints.js';
import { randomKafkaUuid } from './meta-properties.js';
import { DEFAULT_MAX_OPEN_FILES, OpenFiles } from './open-files.js';
import { PARTITION_METADATA_FILE, isDeletedDirName, parsePartitionDirName, partitionDirName, strayDirName } from './file-names.js';
import { PartitionLog, type StorageLogger } from './partition-log.js';
import { FileDeleter } from './file-deleter.js';
import { buildLogConfig, type LogConfig } from '../log-config.js';
import { randomBytes } from './random.js';
import {
  TOPICS_FILE,
  TOPIC_COPY_FILE,
  readPartitionMetadata,
  readTopicsFile,
  rebuildTopics,
  writeTopicCopy,
  writeTopicsFile,
  type PersistedTopic,
} from './topics-file.js';
import { partitionKey } from '../topic-partition.js';

export { DataDirError, TOPICS_FILE } from './topics-file.js';

export interface TopicInfo {
  name: string;
  /** 16 bytes. */
  topicId: Buffer<ArrayBuffer>;
  partitions: number;
  /** Effective configs: broker defaults overlaid with the topic's overrides. */
  configs: Record<string, string>;
  /** Only the configs set on the topic itself (what is persisted). */
  overrides: Record<string, string>;
  /** The configs read once (log-config.ts), for Produce and the partition logs. */
  logConfig: LogConfig;
}

export interface LogManagerOptions {
  dataDir: string;
  /** Broker-level defaults of topic configs, by topic config name (segment.bytes, segment.ms, ...). */
  defaults?: Record<string, string>;
  log?: StorageLogger;
  /** Clock for segment.ms rolling; default Date.now. */
  now?: () => number;
  /** krill.log.max.open.files: this manager's bound on open segment files (open-files.ts). */
  maxOpenFiles?: number;
}

interface TopicState {
  info: TopicInfo;
  logs: PartitionLog[];
}

export function formatPartitionMetadata(topicId: Buffer): string {
  return `version: 0\ntopic_id: ${topicId.toString('base64url')}\n`;
}

/**
 * Kafka sets no hard limit, but one request asking for millions of partitions would stall a broker
 * creating directories; krill refuses more than this per topic (CreateTopics, CreatePartitions, and a
 * controller's request naming more).
 */
export const MAX_PARTITIONS_PER_TOPIC = 10_000;

export class LogManager {
  private readonly byName = new Map<string, TopicState>();
  private readonly byId = new Map<string, TopicState>();
  private closed = false;
  /** The bound on open segment files of every log of this manager, and its other files' EMFILE relief. */
  readonly openFiles: OpenFiles;
  /** Removes, after their delay, the files of deleted segments and the directories of deleted topics. */
  readonly deleter: FileDeleter;
  /** The checkpoint write under way: one at a time (the periodic one, and retention's). */
  private checkpointing: Promise<void> = Promise.resolve();
  /** Told of each topic deleted, once it is gone from the manager (the log cleaner forgets its state). */
  private readonly topicDeletedListeners = new Set<(topic: string) => void>();
  private readonly truncationListeners = new Set<(topic: string, partition: number, activeSegmentBaseOffset: number) => void>();

  private constructor(
    readonly dataDir: string,
    private defaults: Record<string, string>,
    private readonly options: LogManagerOptions,
  ) {
    this.openFiles = new OpenFiles(options.maxOpenFiles ?? DEFAULT_MAX_OPEN_FILES, options.log ?? null);
    this.deleter = new FileDeleter(options.log ?? null);
  }

  /** Creates dataDir if needed, loads topic metadata and opens (recovering) every partition log. */
  static open(options: LogManagerOptions): LogManager {
    const dataDir = isMemoryPath(options.dataDir) ? options.dataDir : path.resolve(options.dataDir);
    fs.mkdirSync(dataDir, { recursive: true });
    const mgr = new LogManager(dataDir, { ...(options.defaults ?? {}) }, options);
    const log = options.log;

    // First, as it may refuse the start: nothing is written before.
    const listed = readTopicsFile(dataDir);
    const persisted = listed ?? rebuildTopics(dataDir);
    if (!listed && persisted.length > 0) {
      log?.warn(
        { topics: persisted.map((t) => `${t.name} (${t.partitions})`) },
        `${TOPICS_FILE} is missing; rebuilt the topic list from the partition directories`,
      );
      // Directories written before krill kept a copy of each topic's entry: their overrides are unknown.
      const unknown = persisted.filter((t) => !fs.existsSync(path.join(dataDir, partitionDirName(t.name, 0), TOPIC_COPY_FILE)));
      if (unknown.length > 0) {
        log?.warn(
          { topics: unknown.map((t) => t.name) },
          `these topics had no ${TOPIC_COPY_FILE}: their configs are back to the broker defaults; set their overrides again (cleanup.policy, retention, compression.type, ...)`,
        );
      }
    }
    const cleanFile = path.join(dataDir, CLEAN_SHUTDOWN_FILE);
    const cleanShutdown = fs.existsSync(cleanFile);
    const recoveryPoints = mgr.readCheckpoint(RECOVERY_POINT_CHECKPOINT);
    const startOffsets = mgr.readCheckpoint(LOG_START_OFFSET_CHECKPOINT);

    const known = new Set<string>();
    for (const t of persisted) for (let p = 0; p < t.partitions; p++) known.add(partitionDirName(t.name, p));
    for (const entry of fs.readdirEntries(dataDir)) {
      if (!entry.isDirectory()) continue;
      if (isDeletedDirName(entry.name)) {
        fs.rmSync(path.join(dataDir, entry.name), { recursive: true, force: true });
      } else if (parsePartitionDirName(entry.name) && !known.has(entry.name)) {
        log?.warn({ dir: entry.name }, 'ignoring the directory of a partition no topic has');
      }
    }

    try {
      for (const t of persisted) {
        const topicId = Buffer.from(t.topicId, 'base64url');
        const info = mgr.topicInfo(t.name, topicId, t.partitions, t.configs);
        const state: TopicState = { info, logs: [] };
        mgr.byName.set(t.name, state);
        mgr.byId.set(topicId.toString('hex'), state);
        for (let p = 0; p < t.partitions; p++) {
          const dir = path.join(dataDir, partitionDirName(t.name, p));
          const stored = fs.existsSync(dir) ? readPartitionMetadata(dir) : null;
          let clean = cleanShutdown;
          if (stored && !stored.equals(topicId)) {
            mgr.setAside(dir, 'its partition.metadata names another topic id');
            clean = false;
          }
          const k = partitionKey(t.name, p);
          state.logs.push(
            mgr.openLog(dir, info, {
              recoveryPoint: recoveryPoints.get(k),
              logStartOffset: startOffsets.get(k),
              cleanShutdown: clean && recoveryPoints.has(k),
            }),
          );
        }
      }
      if (!listed && persisted.length > 0) mgr.writeTopicsFile();
    } catch (err) {
      mgr.closeLogs();
      throw err;
    }
    // From here on a crash is not a clean shutdown.
    fs.rmSync(cleanFile, { force: true });
    return mgr;
  }

  private readCheckpoint(name: string): Map<string, number> {
    const out = new Map<string, number>();
    let entries: CheckpointEntry[] = [];
    try {
      entries = readCheckpointFile(path.join(this.dataDir, name));
    } catch (err) {
      // A broken checkpoint only costs a longer recovery.
      this.options.log?.warn({ file: name, err: (err as Error).message }, 'ignoring an unreadable checkpoint file');
    }
    for (const e of entries) out.set(partitionKey(e.topic, e.partition), e.offset);
    return out;
  }

  private writeTopicsFile(): void {
    const topics: PersistedTopic[] = [...this.byName.values()].map(({ info }) => ({
      name: info.name,
      topicId: info.topicId.toString('base64url'),
      partitions: info.partitions,
      configs: info.overrides,
    }));
    writeTopicsFile(this.dataDir, topics, this.openFiles);
  }

  /** Renames a partition directory that is in the way to <dir>.<id>-stray: krill never removes data but by DeleteTopics. */
  private setAside(dir: string, why: string): void {
    const parsed = parsePartitionDirName(path.basename(dir))!;
    const stray = path.join(this.dataDir, strayDirName(parsed.topic, parsed.partition, randomBytes(8).toString('hex')));
    fs.renameSync(dir, stray);
    this.options.log?.warn({ dir, movedTo: path.basename(stray) }, `setting a partition directory aside: ${why}`);
  }

  /** The copy of a topic's entry in its partition 0 directory (topics-file.ts). */
  private writeTopicCopy(info: TopicInfo): void {
    writeTopicCopy(this.dataDir, { name: info.name, partitions: info.partitions, configs: info.overrides }, this.openFiles);
  }

  /** A topic's info with its LogConfig, built here and only here: at open, at creation and when its configs change. */
  private topicInfo(name: string, topicId: Buffer<ArrayBuffer>, partitions: number, overrides: Record<string, string>): TopicInfo {
    return {
      name,
      topicId,
      partitions,
      configs: { ...this.defaults, ...overrides },
      overrides: { ...overrides },
      logConfig: buildLogConfig(overrides, this.defaults),
    };
  }

  private openLog(dir: string, info: TopicInfo, extra: { recoveryPoint?: number; logStartOffset?: number; cleanShutdown?: boolean }): PartitionLog {
    const fresh = !fs.existsSync(dir);
    const { segmentBytes, segmentMs, indexIntervalBytes, fileDeleteDelayMs } = info.logConfig;
    const log = PartitionLog.open(dir, {
      segmentBytes,
      segmentMs,
      indexIntervalBytes,
      fileDeleteDelayMs,
      ...extra,
      now: this.options.now,
      log: this.options.log,
      openFiles: this.openFiles,
      deleter: this.deleter,
      onTruncated: (_log, activeBase) => {
        const parsed = parsePartitionDirName(path.basename(dir));
        if (parsed) for (const listener of this.truncationListeners) listener(parsed.topic, parsed.partition, activeBase);
      },
    });
    if (fresh || !readPartitionMetadata(dir)?.equals(info.topicId)) {
      // Not fsynced (two fsyncs per partition made creating __consumer_offsets take ~170 ms): the topic
      // id's durable home is the topics file, and this copy is rewritten at open when missing or wrong.
      writeFileAtomic(path.join(dir, PARTITION_METADATA_FILE), formatPartitionMetadata(info.topicId), false, this.openFiles);
    }
    return log;
  }

  private ensureOpen(): void {
    if (this.closed) throw new KafkaError('KAFKA_STORAGE_ERROR', 'the log manager is closed');
  }

  // --- topics ------------------------------------------------------------------------------------------

  /**
   * Creates a topic with `partitions` empty partition logs. `configs` are the topic's overrides (any
   * string map, kept as given; its LogConfig reads the names log-config.ts knows). Throws
   * TOPIC_ALREADY_EXISTS / INVALID_PARTITIONS.
   */
  createTopic(name: string, partitions: number, configs: Record<string, string> = {}, topicId?: Buffer): TopicInfo {
    this.ensureOpen();
    if (this.byName.has(name)) throw new KafkaError('TOPIC_ALREADY_EXISTS', `Topic '${name}' already exists.`);
    if (!Number.isInteger(partitions) || partitions < 1) throw new KafkaError('INVALID_PARTITIONS', `Invalid partition count ${partitions}.`);
    let id = topicId ? Buffer.from(topicId) : undefined;
    while (!id || this.byId.has(id.toString('hex'))) id = Buffer.from(randomKafkaUuid().bytes);
    // A directory already there (a namesake's whose deletion was cut short, or one no topic listed) would
    // otherwise be adopted.
    for (let p = 0; p < partitions; p++) {
      const dir = path.join(this.dataDir, partitionDirName(name, p));
      if (fs.existsSync(dir)) this.setAside(dir, `a new topic ${name} takes its name`);
    }
    const info = this.topicInfo(name, id, partitions, configs);
    const state: TopicState = { info, logs: [] };
    this.byName.set(name, state);
    this.byId.set(id.toString('hex'), state);
    try {
      this.writeTopicsFile();
    } catch (err) {
      this.byName.delete(name);
      this.byId.delete(id.toString('hex'));
      throw err;
    }
    for (let p = 0; p < partitions; p++) {
      state.logs.push(this.openLog(path.join(this.dataDir, partitionDirName(name, p)), info, { recoveryPoint: 0 }));
    }
    this.writeTopicCopy(info);
    return info;
  }

  /**
   * Grows a topic to `count` partitions (CreatePartitions); the caller has checked that count is larger.
   * The same order as createTopic, so that a crash anywhere leaves a state open() completes: the topics
   * file first (open() creates the partition directories it lists and lacks), then the new directories,
   * then the topic's copy (rebuildTopics counts the directories too, so a stale copy only undercounts
   * when the topics file is lost as well, and then by partitions that hold nothing yet).
   */
  addPartitions(name: string, count: number): TopicInfo {
    this.ensureOpen();
    const state = this.byName.get(name);
    if (!state) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic '${name}' does not exist.`);
    const before = state.info.partitions;
    if (!Number.isInteger(count) || count <= before) throw new KafkaError('INVALID_PARTITIONS', `Topic already has ${before} partition(s).`);
    for (let p = before; p < count; p++) {
      const dir = path.join(this.dataDir, partitionDirName(name, p));
      if (fs.existsSync(dir)) this.setAside(dir, `partition ${p} of topic ${name} is being created`);
    }
    const previous = state.info;
    state.info = { ...previous, partitions: count };
    try {
      this.writeTopicsFile();
    } catch (err) {
      state.info = previous;
      throw err;
    }
    const opened: PartitionLog[] = [];
    try {
      for (let p = before; p < count; p++) {
        opened.push(this.openLog(path.join(this.dataDir, partitionDirName(name, p)), state.info, { recoveryPoint: 0 }));
      }
    } catch (err) {
      // Back to the old count (the new partitions are empty: nobody could write to them yet), so that
      // Metadata never names a partition without a log and the request can be retried.
      for (const log of opened) log.delete(0);
      state.info = previous;
      try {
        this.writeTopicsFile();
      } catch (rollbackErr) {
        // The file names the new count: the next open creates the missing partitions.
        this.options.log?.warn({ topic: name, err: (rollbackErr as Error).message }, 'could not write the old partition count back');
      }
      throw err;
    }
    state.logs.push(...opened);
    this.writeTopicCopy(state.info);
    return state.info;
  }

  /** Removes a topic and its data. Throws UNKNOWN_TOPIC_OR_PARTITION when there is no such topic. */
  deleteTopic(name: string): void {
    const state = this.removeTopic(name);
    // Kafka waits the broker's file.delete.delay.ms (log.segment.delete.delay.ms) before removing them.
    const delayMs = buildLogConfig({}, this.defaults).fileDeleteDelayMs;
    for (const log of state.logs) log.delete(delayMs);
    for (const listener of this.topicDeletedListeners) listener(name);
  }

  /**
   * Takes a topic out of this manager without deleting its data: its logs are closed and their directories
   * renamed aside as strays (kept on disk for an operator to look at or remove), so the name is free.
   */
  setTopicAside(name: string, why: string): void {
    const state = this.removeTopic(name);
    for (const log of state.logs) {
      log.close();
      this.setAside(log.dir, why);
    }
    for (const listener of this.topicDeletedListeners) listener(name);
  }

  /** Takes a topic out of the maps and the topics file; its logs are the caller's to delete or set aside. */
  private removeTopic(name: string): TopicState {
    this.ensureOpen();
    const state = this.byName.get(name);
    if (!state) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic '${name}' does not exist.`);
    this.byName.delete(name);
    this.byId.delete(state.info.topicId.toString('hex'));
    this.writeTopicsFile();
    return state;
  }

  /** Calls `listener` with the name of each topic deleted from now on; returns its removal. */
  onTopicDeleted(listener: (topic: string) => void): () => void {
    this.topicDeletedListeners.add(listener);
    return () => this.topicDeletedListeners.delete(listener);
  }

  /**
   * Calls `listener` whenever a partition's log is cut back (a follower's truncation), with the base offset
   * of its active segment then; returns its removal. The cleaner moves its checkpoint back (Kafka's
   * LogManager.truncateTo with maybeTruncateCheckpoint).
   */
  onLogTruncated(listener: (topic: string, partition: number, activeSegmentBaseOffset: number) => void): () => void {
    this.truncationListeners.add(listener);
    return () => this.truncationListeners.delete(listener);
  }

  getTopic(name: string): TopicInfo | undefined {
    return this.byName.get(name)?.info;
  }

  getTopicById(id: Buffer): TopicInfo | undefined {
    return this.byId.get(id.toString('hex'))?.info;
  }

  topics(): TopicInfo[] {
    return [...this.byName.values()].map((s) => s.info);
  }

  partition(topic: string, partition: number): PartitionLog | undefined {
    return this.byName.get(topic)?.logs[partition];
  }

  /** Changes a topic's overrides (replacing them) and applies the storage ones to its logs. */
  setTopicConfigs(name: string, overrides: Record<string, string>): TopicInfo {
    this.ensureOpen();
    const state = this.byName.get(name);
    if (!state) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic '${name}' does not exist.`);
    const before = state.info;
    state.info = this.topicInfo(name, before.topicId, before.partitions, overrides);
    try {
      this.writeTopicsFile();
    } catch (err) {
      // Not kept, so not applied: the topic goes on with the configs it has on disk.
      state.info = before;
      throw new KafkaError('KAFKA_STORAGE_ERROR', `Could not write ${TOPICS_FILE}: ${(err as Error).message}`);
    }
    for (const log of state.logs) log.updateConfig(state.info.logConfig);
    try {
      this.writeTopicCopy(state.info);
    } catch (err) {
      // Only read to rebuild a lost topics file; the next change or creation writes it again.
      this.options.log?.warn({ topic: name, err: (err as Error).message }, `could not write the topic's ${TOPIC_COPY_FILE}`);
    }
    return state.info;
  }

  /**
   * Replaces the broker-level defaults of topic configs (a dynamic broker config changed) and rebuilds every
   * topic's configs and LogConfig from its own overrides over them, applying the storage ones to its logs.
   * Nothing is written: the defaults are the broker's (persisted with its dynamic configs), not the topics'.
   */
  setDefaults(defaults: Record<string, string>): void {
    this.ensureOpen();
    this.defaults = { ...defaults };
    for (const state of this.byName.values()) {
      const { name, topicId, partitions, overrides } = state.info;
      state.info = this.topicInfo(name, topicId, partitions, overrides);
      for (const log of state.logs) log.updateConfig(state.info.logConfig);
    }
  }

  // --- durability --------------------------------------------------------------------------------------

  /** Writes recovery-point-offset-checkpoint and log-start-offset-checkpoint for every open log. */
  checkpoint(): void {
    this.ensureOpen();
    const { recovery, starts } = this.checkpointEntries();
    writeCheckpointFile(path.join(this.dataDir, RECOVERY_POINT_CHECKPOINT), recovery, this.openFiles);
    writeCheckpointFile(path.join(this.dataDir, LOG_START_OFFSET_CHECKPOINT), starts, this.openFiles);
  }

  /** Forgets, in every partition, the idempotent producers whose last batch is older than `before`. */
  expireProducers(before: number): number {
    let n = 0;
    for (const { logs } of this.byName.values()) for (const log of logs) n += log.expireProducers(before);
    return n;
  }

  /**
   * checkpoint() without blocking the event loop on fsyncs (the periodic checkpoint, and retention's once
   * log start offsets moved): the offsets are taken now, the files written and fsynced through the thread
   * pool, after the writes of earlier calls. close() must not be called while one is under way
   * (the broker closes its scheduler first). Does nothing once closed.
   */
  async checkpointInBackground(): Promise<void> {
    if (this.closed) return;
    const { recovery, starts } = this.checkpointEntries();
    const run = this.checkpointing.then(async () => {
      if (this.closed) return;
      await writeCheckpointFileInBackground(path.join(this.dataDir, RECOVERY_POINT_CHECKPOINT), recovery, this.openFiles);
      await writeCheckpointFileInBackground(path.join(this.dataDir, LOG_START_OFFSET_CHECKPOINT), starts, this.openFiles);
    });
    this.checkpointing = run.catch(() => {});
    await run;
  }

  private checkpointEntries(): { recovery: CheckpointEntry[]; starts: CheckpointEntry[] } {
    const recovery: CheckpointEntry[] = [];
    const starts: CheckpointEntry[] = [];
    for (const { info, logs } of this.byName.values()) {
      logs.forEach((log, partition) => {
        recovery.push({ topic: info.name, partition, offset: log.recoveryPoint });
        starts.push({ topic: info.name, partition, offset: log.logStartOffset });
      });
    }
    return { recovery, starts };
  }

  /** Closes every log (each flushes first); returns whether all closed cleanly. */
  private closeLogs(): boolean {
    let clean = true;
    for (const { logs } of this.byName.values()) {
      for (const log of logs) {
        try {
          log.close();
        } catch (err) {
          clean = false;
          this.options.log?.warn({ dir: log.dir, err: (err as Error).message }, 'closing a log failed');
        }
      }
    }
    return clean;
  }

  /** Flushes and closes every log, writes the checkpoints and the clean-shutdown marker. Idempotent. */
  close(): void {
    if (this.closed) return;
    // Removals still waiting stay on disk until the next open removes them, as in Kafka.
    void this.deleter.close();
    const clean = this.closeLogs();
    try {
      this.checkpoint();
    } finally {
      this.closed = true;
    }
    if (clean) writeFileAtomic(path.join(this.dataDir, CLEAN_SHUTDOWN_FILE), '{"version":0,"brokerEpoch":-1}\n', true, this.openFiles);
  }
}
