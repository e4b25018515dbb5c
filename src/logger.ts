// Structured logs through pino, to stderr so that stdout carries only the ready line.
//
// pino (with sonic-boom and thread-stream) is the largest part of krill's start-up cost (~10 ms of a
// ~40 ms start), and a broker at its default level logs nothing until something happens (embedded
// brokers default to 'warn' and often log nothing at all). So the logger handed around is a thin
// front that knows the level and its bindings, and creates the pino logger, children included, on
// the first record that passes the level. Records and their order are exactly pino's.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Logger as PinoLogger } from 'pino';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const LEVEL_VALUES: Record<LogLevel, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

type LogFn = {
  (msg: string): void;
  (obj: object, msg?: string): void;
};

/** The part of pino's Logger krill uses. */
export interface Logger {
  readonly level: string;
  fatal: LogFn;
  error: LogFn;
  warn: LogFn;
  info: LogFn;
  debug: LogFn;
  trace: LogFn;
  child(bindings: Record<string, unknown>): Logger;
  isLevelEnabled(level: string): boolean;
  /** Writes out what pino still buffers (no-op when nothing was ever logged). */
  flush(): void;
}

type PinoModule = typeof import('pino');

function loadPino(): PinoModule {
  // In the two esbuild bundles (the CLI, the package entry) this require is resolved at build time: pino
  // is inlined and evaluated only here. tsc's plain ES modules (dist/src, the tests) have no require and
  // load it from node_modules.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  if (typeof require === 'function') return require('pino') as PinoModule;
  return createRequire(import.meta.url)('pino') as PinoModule;
}

class LazyLogger implements Logger {
  private real: PinoLogger | null = null;
  private readonly threshold: number;
  readonly fatal: LogFn;
  readonly error: LogFn;
  readonly warn: LogFn;
  readonly info: LogFn;
  readonly debug: LogFn;
  readonly trace: LogFn;

  constructor(
    readonly level: LogLevel,
    private readonly create: () => PinoLogger,
  ) {
    this.threshold = LEVEL_VALUES[level];
    this.fatal = this.method('fatal');
    this.error = this.method('error');
    this.warn = this.method('warn');
    this.info = this.method('info');
    this.debug = this.method('debug');
    this.trace = this.method('trace');
  }

  private method(level: Exclude<LogLevel, 'silent'>): LogFn {
    if (LEVEL_VALUES[level] < this.threshold) return () => {};
    return ((objOrMsg: object | string, msg?: string) => {
      const real = this.pino();
      if (typeof objOrMsg === 'string') real[level](objOrMsg);
      else real[level](objOrMsg, msg);
    }) as LogFn;
  }

  private pino(): PinoLogger {
    this.real ??= this.create();
    return this.real;
  }

  child(bindings: Record<string, unknown>): Logger {
    return new LazyLogger(this.level, () => this.pino().child(bindings));
  }

  isLevelEnabled(level: string): boolean {
    const value = LEVEL_VALUES[level as LogLevel];
    return value !== undefined && value >= this.threshold && value !== Infinity;
  }

  flush(): void {
    try {
      this.real?.flush();
    } catch {
      // stderr is full or gone: what it could not take is lost, and the caller is on its way out
    }
  }
}

export function isLogLevel(level: string): level is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(level);
}

/** Log records held while stderr's pipe is full; beyond it records are dropped. */
const MAX_PENDING_LOG_BYTES = 1024 * 1024;

/**
 * fd 2, or when it is a pipe (on Linux), a second, non-blocking open of the same pipe: writes that would
 * block fail with EAGAIN instead, and fd 2 itself keeps its flags (which the parent's other children share).
 */
let stderrDescriptor: number | null = null;

function stderrFd(): number {
  stderrDescriptor ??= openStderr(); // once per process: every logger (embedded brokers too) shares it
  return stderrDescriptor;
}

function openStderr(): number {
  if (process.platform !== 'linux') return 2;
  try {
    if (!fs.fstatSync(2).isFIFO()) return 2;
    return fs.openSync('/proc/self/fd/2', fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
  } catch {
    return 2;
  }
}

export function createLogger(level: string = 'info'): Logger {
  if (!isLogLevel(level)) throw new Error(`unknown log level '${level}' (one of ${LOG_LEVELS.join(', ')})`);
  return new LazyLogger(level, () => {
    const pino = loadPino();
    // Synchronous writes: an asynchronous destination is flushed at exit by a loop that retries a failed
    // write forever, so a krill whose stderr pipe lost its reader (the parent that read it died) would hang
    // on exit, holding the port and the data dir. A synchronous write sees EPIPE at once, and pino then
    // stops writing. krill logs little below debug, so the writes cost nothing that matters.
    // A synchronous write to a full pipe would block the whole broker, though (a parent that reads only
    // stdout for the ready line): so a pipe is written through a non-blocking description of its own, and
    // a record that does not fit is kept (up to MAX_PENDING_LOG_BYTES, then dropped) until the pipe drains.
    const destination = pino.destination({ fd: stderrFd(), sync: true, retryEAGAIN: () => false, maxLength: MAX_PENDING_LOG_BYTES });
    // Any other failed write (a closed terminal's EIO, a full disk) would be thrown from the logging call:
    // losing a log line must not stop the broker, so such errors are dropped.
    destination.on('error', () => {});
    return pino({ level, base: { name: 'krill' } }, destination);
  });
}
