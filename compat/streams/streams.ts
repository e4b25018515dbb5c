// Runs the Kafka Streams driver (compat/streams/src/main/java/krill/compat/streams/Driver.java) as
// compat/streams/install.sh built it: one-shot commands print one JSON line; `streams` is a long-running
// application instance whose JSON events the test waits for.
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { javaCommand } from '../jvm.js';
import { builtBy } from '../toolchain.js';
import { eventually, runDriver } from '../util.js';
import type { Json } from '../util.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CLASSPATH = path.join(HERE, 'target', 'classpath.txt');
const MAIN = 'krill.compat.streams.Driver';

/** What describeWithToolchain needs: null when the driver is built. */
export const streamsMissing = builtBy('compat/streams/install.sh', CLASSPATH);

/** The driver's java command line, before its command name. */
const driverCommand = () => javaCommand(CLASSPATH, MAIN, ['-Dorg.slf4j.simpleLogger.defaultLogLevel=warn']);

/** Runs a one-shot command with `args` on stdin; throws with the driver's exception and stderr when it fails. */
export function driver<T = Json>(command: string, args: object, timeoutMs = 60_000): Promise<T> {
  const [java, ...jvm] = driverCommand();
  return runDriver<T>(`driver ${command}`, java, [...jvm, command], args, { timeoutMs });
}

export interface StreamsEvent {
  event: 'state' | 'tasks' | 'progress' | 'error' | 'closed';
  state?: string;
  active?: string[];
  lines?: number;
  exception?: string;
  trace?: string;
}

/** One running instance of the word-count application (a JVM of its own). */
export class StreamsInstance {
  readonly events: StreamsEvent[] = [];
  private readonly proc: ChildProcess;
  private stderr = '';
  readonly exited: Promise<number | string>;

  constructor(
    readonly name: string,
    config: { bootstrap: string; appId: string; stateDir: string; replicationFactor?: number; cleanUp?: boolean },
  ) {
    const [java, ...jvm] = driverCommand();
    this.proc = spawn(java, [...jvm, 'streams'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.exited = new Promise((resolve) => this.proc.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
    let buffered = '';
    this.proc.stdout!.on('data', (d: Buffer) => {
      buffered += d.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const l of lines) if (l.startsWith('{')) this.events.push(JSON.parse(l));
    });
    this.proc.stderr!.on('data', (d: Buffer) => (this.stderr = (this.stderr + d.toString('utf8')).slice(-20_000)));
    this.proc.stdin!.on('error', () => {});
    this.proc.stdin!.write(JSON.stringify(config) + '\n');
  }

  /** Waits for an event matching `pred` (failing at once on an error event or exit); returns it. */
  async waitFor(what: string, pred: (e: StreamsEvent) => boolean, timeoutMs = 90_000, from = 0): Promise<StreamsEvent> {
    return eventually(
      `${this.name}: ${what}`,
      () => {
        const error = this.events.find((e) => e.event === 'error' || e.state === 'ERROR');
        if (error) throw new Error(`${this.name} failed: ${JSON.stringify(error)}\n${this.stderr.slice(-4000)}`);
        const e = this.events.slice(from).find(pred);
        if (e) return e;
        if (this.proc.exitCode !== null || this.proc.signalCode !== null) throw new Error(`${this.name} exited before ${what}\n${this.stderr.slice(-4000)}`);
        return undefined;
      },
      timeoutMs,
    );
  }

  /** The active tasks of the latest RUNNING state. */
  activeTasks(): string[] {
    return this.events.filter((e) => e.event === 'tasks').pop()?.active ?? [];
  }

  /** Waits until the instance runs with at least one active task (after every rebalance since event `from`). */
  async running(from = 0, timeoutMs = 90_000): Promise<string[]> {
    return (await this.waitFor('RUNNING with active tasks', (e) => e.event === 'tasks' && (e.active?.length ?? 0) > 0, timeoutMs, from)).active!;
  }

  /** kill -9: no close, no LeaveGroup, an open transaction left behind. */
  async kill(): Promise<void> {
    this.proc.kill('SIGKILL');
    await this.exited;
  }

  /** Closes stdin: the instance closes Streams, leaving the group, and exits 0. */
  async close(): Promise<void> {
    this.proc.stdin!.end();
    const res = await Promise.race([this.exited, new Promise<string>((r) => setTimeout(() => r('timeout'), 60_000))]);
    if (res !== 0) {
      this.proc.kill('SIGKILL');
      throw new Error(`${this.name} did not close cleanly: ${res}\n${this.stderr.slice(-4000)}`);
    }
  }

  /** For afterEach: kills the JVM if it still runs. */
  stop(): void {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGKILL');
  }
}
