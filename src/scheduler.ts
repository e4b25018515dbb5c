// Background work of a broker, off the request path: named periodic tasks (the log checkpoints, retention,
// the log cleaner, the expiration of committed offsets and transactional ids), as Kafka's KafkaScheduler.
//
// A task runs `periodMs` after its previous run started (first after `delayMs`), never while its previous
// run is still going: a run that takes longer than the period delays the next one instead of overlapping
// it. A task may be synchronous or return a promise; its failure (a throw or a rejection) is logged and the
// next run goes ahead as planned: background work never takes the broker down. Timers are unref'd, so a
// scheduler alone does not keep the process alive. close() stops every timer and waits for the runs
// under way; a closed scheduler runs nothing more.

export interface SchedulerLogger {
  error(obj: object, msg?: string): void;
}

export type ScheduledTask = () => void | Promise<void>;

export interface ScheduleOptions {
  /** Between the start of one run and the start of the next. */
  periodMs: number;
  /** Before the first run; default periodMs. */
  delayMs?: number;
}

interface Entry {
  readonly name: string;
  readonly task: ScheduledTask;
  readonly periodMs: number;
  timer: NodeJS.Timeout | null;
  /** The run under way, if any. */
  running: Promise<void> | null;
}

/** Node fires a timer of more than 2^31-1 ms after 1 ms: longer delays are cut to that. */
function timerDelay(ms: number): number {
  return Math.min(Math.max(0, ms), 2_147_483_647);
}

export class Scheduler {
  private readonly entries = new Map<string, Entry>();
  private closed = false;

  constructor(private readonly log: SchedulerLogger) {}

  /** Runs `task` every periodMs under `name` (unique among this scheduler's tasks). */
  schedule(name: string, task: ScheduledTask, options: ScheduleOptions): void {
    if (this.closed) return;
    if (this.entries.has(name)) throw new Error(`a task named ${name} is already scheduled`);
    const entry: Entry = { name, task, periodMs: timerDelay(options.periodMs), timer: null, running: null };
    this.entries.set(name, entry);
    this.arm(entry, timerDelay(options.delayMs ?? options.periodMs));
  }

  /** Whether a task of that name is scheduled. */
  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** Stops a task: no more runs; resolves once a run under way has ended. */
  async cancel(name: string): Promise<void> {
    const entry = this.entries.get(name);
    if (!entry) return;
    this.entries.delete(name);
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = null;
    await entry.running;
  }

  /** Stops every timer and waits for the runs under way. */
  async close(): Promise<void> {
    this.closed = true;
    const running: Promise<void>[] = [];
    for (const entry of this.entries.values()) {
      if (entry.timer) clearTimeout(entry.timer);
      entry.timer = null;
      if (entry.running) running.push(entry.running);
    }
    this.entries.clear();
    await Promise.all(running);
  }

  private arm(entry: Entry, delayMs: number): void {
    entry.timer = setTimeout(() => {
      entry.timer = null;
      entry.running = this.run(entry);
    }, delayMs);
    entry.timer.unref();
  }

  private async run(entry: Entry): Promise<void> {
    const started = performance.now();
    try {
      await entry.task();
    } catch (err) {
      this.log.error({ err, task: entry.name }, `background task ${entry.name} failed`);
    }
    entry.running = null;
    if (this.closed || this.entries.get(entry.name) !== entry) return;
    this.arm(entry, Math.max(0, entry.periodMs - (performance.now() - started)));
  }
}
