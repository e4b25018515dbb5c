// A running broker's periodic work, on its scheduler, as Kafka's schedulers run it: log and high watermark
// checkpoints, ISR expiration (in a cluster), transaction timeouts and transactional id expiration,
// retention, producer id expiration, and the log cleaner's threads (LogCleaner).
import type { BrokerConfig } from './config.js';
import type { Logger } from './logger.js';
import type { Scheduler } from './scheduler.js';
import type { LogManager } from './storage/log-manager.js';
import type { ReplicaManager } from './partition/replica-manager.js';
import type { TransactionCoordinator } from './txn/coordinator.js';
import { LogCleaner } from './storage/cleaner/log-cleaner.js';

const CHECKPOINT_INTERVAL_MS = 60_000;
const HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS = 5_000;

export interface TaskParts {
  config: BrokerConfig;
  log: Logger;
  scheduler: Scheduler;
  logs: LogManager;
  replicas: ReplicaManager;
  transactions: TransactionCoordinator;
  /** A member of a ZooKeeper cluster: it has followers to expire and high watermarks to checkpoint. */
  clustered: boolean;
}

export class BrokerTasks {
  /** The log cleaner, when log.cleaner.enable and log.cleaner.threads > 0. */
  private cleaner: LogCleaner | null = null;
  private cleanerThreads = 0;
  /** The cleaner configs its tasks run with, to reschedule them only when those change. */
  private cleanerSettings = '';

  constructor(private readonly parts: TaskParts) {}

  start(): void {
    const { config, scheduler, logs, replicas, transactions } = this.parts;
    scheduler.schedule('log-checkpoints', () => logs.checkpointInBackground(), { periodMs: CHECKPOINT_INTERVAL_MS });
    // Kafka's replica.high.watermark.checkpoint.interval.ms (5 s): a cluster broker's high watermarks.
    if (this.parts.clustered) {
      scheduler.schedule('high-watermark-checkpoint', () => replicas.checkpointHighWatermarks(), { periodMs: HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS });
      // Kafka's ReplicaManager "isr-expiration": followers behind for replica.lag.time.max.ms leave the ISR.
      scheduler.schedule('isr-expiration', () => replicas.checkIsrs(Date.now()), { periodMs: Math.max(1, Math.floor(replicas.replicaLagTimeMaxMs / 2)) });
    }
    scheduler.schedule(
      'transaction-abort',
      () => {
        transactions.abortTimedOut();
        transactions.retryPrepared();
      },
      { periodMs: config.int('transaction.abort.timed.out.transaction.cleanup.interval.ms') },
    );
    scheduler.schedule('transactional-id-expiration', () => void transactions.expireIds(), {
      periodMs: config.int('transaction.remove.expired.transaction.cleanup.interval.ms'),
    });
    scheduler.schedule(
      'log-retention',
      async () => {
        // Log start offsets moved: checkpoint them now rather than at the next periodic checkpoint.
        if (replicas.deleteOldSegments(Date.now()) > 0) await logs.checkpointInBackground();
      },
      { periodMs: config.int('log.retention.check.interval.ms') },
    );
    // producer.id.expiration.ms is dynamic: read at each run.
    scheduler.schedule('producer-id-expiration', () => void logs.expireProducers(Date.now() - config.int('producer.id.expiration.ms')), {
      periodMs: config.int('producer.id.expiration.check.interval.ms'),
    });
    this.reconfigureCleaner();
  }

  /**
   * The log cleaner's threads: scheduler tasks that clean until nothing is dirty, then sleep
   * log.cleaner.backoff.ms. Called again when those configs change at run time: the tasks are scheduled anew
   * (a pass under way finishes), the cleaner and what it knows (delete horizons, uncleanable logs) stay.
   */
  reconfigureCleaner(): void {
    const { config, scheduler } = this.parts;
    const threads = config.bool('log.cleaner.enable') ? config.int('log.cleaner.threads') : 0;
    const dedupeBufferSize = config.int('log.cleaner.dedupe.buffer.size');
    const periodMs = Math.max(1, config.int('log.cleaner.backoff.ms'));
    const settings = `${threads}/${dedupeBufferSize}/${periodMs}`;
    if (settings === this.cleanerSettings) return;
    this.cleanerSettings = settings;
    for (let i = threads; i < this.cleanerThreads; i++) void scheduler.cancel(`log-cleaner-${i}`);
    this.cleanerThreads = threads;
    if (threads <= 0) return;
    if (this.cleaner) this.cleaner.resize(threads, dedupeBufferSize);
    else this.cleaner = new LogCleaner({ logs: this.parts.logs, threads, dedupeBufferSize, log: this.parts.log });
    const cleaner = this.cleaner;
    for (let i = 0; i < threads; i++) {
      void scheduler.cancel(`log-cleaner-${i}`);
      scheduler.schedule(`log-cleaner-${i}`, async () => void (await cleaner.runOnce()), { periodMs });
    }
  }

  /** No new runs from now on; resolves once the runs under way (a checkpoint, a cleaning pass) are done. */
  async stop(): Promise<void> {
    this.cleaner?.stop();
    await this.parts.scheduler.close();
    await this.cleaner?.closed();
  }
}
