// A standalone Apache ZooKeeper as a child process, for tests and for an embedded cluster (startCluster()):
// Debian's package (`apt-get install zookeeper`: /usr/share/java/zookeeper.jar and its dependencies through
// the jar's manifest) run as `ZooKeeperServerMain <port> <dataDir> <tickTime>`, which needs no config file.
//
// The port is a free loopback port (bind port 0, close, hand it to ZooKeeper; another process may take it in
// between, so a server that fails to bind is started again on another). The server is ready when it answers
// the `srvr` four-letter word, the one ZooKeeper allows by default. stop() removes a data dir it created.
//
// The server dies with this process, however this process ends: java runs under a small sh that also reads
// its stdin, a pipe from this process; the pipe reaches EOF when this process is gone, even by SIGKILL (an
// 'exit' hook alone would miss that), and the sh then stops java. The sh and java have a process group of
// their own, which kill() signals; stop() closes the pipe.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const ZOOKEEPER_JAR = '/usr/share/java/zookeeper.jar';
/** log4j.properties for the server's own logging. */
const ZOOKEEPER_CONF = '/etc/zookeeper/conf';
/** A logging backend for the server's errors (on stderr); without one SLF4J drops them all. */
const SLF4J_SIMPLE_JAR = '/usr/share/java/slf4j-simple.jar';
const MAIN_CLASS = 'org.apache.zookeeper.server.ZooKeeperServerMain';
/**
 * Runs java "$@" and stops it when stdin reaches EOF; exits with java's status. (sh gives a background job
 * /dev/null as its stdin, hence the copy of stdin on fd 3.)
 */
const PARENT_GUARD =
  'exec 3<&0; java "$@" </dev/null 3<&- & z=$!; { read -r _ <&3; kill $z 2>/dev/null; } & r=$!; exec 3<&-; ' + 'wait $z; s=$?; kill $r 2>/dev/null; exit $s';
const START_TIMEOUT_MS = 60_000;
const BIND_ATTEMPTS = 5;
const STDERR_TAIL_BYTES = 4096;

export interface ZooKeeperServer {
  /** The connect string, 127.0.0.1:<port>. */
  connect: string;
  port: number;
  /** Stops the server (SIGTERM, then SIGKILL) and removes the data dir it created. */
  stop(): Promise<void>;
  /** Kills the server at once (SIGKILL), as a crash would; the data dir stays until stop(). */
  kill(): void;
}

export interface StartZooKeeperOptions {
  /** 0 or absent: a free loopback port. */
  port?: number;
  /** Absent: a temporary dir, removed by stop(). */
  dataDir?: string;
  /** ZooKeeper's tickTime; sessions last between 2 and 20 ticks. Default 2000, ZooKeeper's. */
  tickTimeMs?: number;
}

/** Whether startZooKeeper can work here: Debian's zookeeper package and a java on PATH. */
export function zookeeperInstalled(): boolean {
  if (!fs.existsSync(ZOOKEEPER_JAR)) return false;
  const java = spawnSync('java', ['-version'], { stdio: 'ignore' });
  return java.error === undefined && java.status === 0;
}

export async function startZooKeeper(opts: StartZooKeeperOptions = {}): Promise<ZooKeeperServer> {
  const ownDataDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'krill-zookeeper-'));
  try {
    for (let attempt = 1; ; attempt++) {
      const port = opts.port || (await freeLoopbackPort());
      try {
        return await startOn(port, dataDir, ownDataDir, opts.tickTimeMs ?? 2000);
      } catch (err) {
        // Only a port we picked may have been taken meanwhile; a port the caller chose is theirs to fix.
        if (!(err instanceof PortInUseError) || opts.port || attempt >= BIND_ATTEMPTS) throw err;
      }
    }
  } catch (err) {
    if (ownDataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

class PortInUseError extends Error {}

async function startOn(port: number, dataDir: string, ownDataDir: boolean, tickTimeMs: number): Promise<ZooKeeperServer> {
  const child = spawn(
    'sh',
    [
      '-c',
      PARENT_GUARD,
      'zookeeper',
      '-Xmx128m',
      '-XX:+UseSerialGC',
      '-XX:TieredStopAtLevel=1',
      // ZooKeeper's admin HTTP server would take port 8080: one per machine.
      '-Dzookeeper.admin.enableServer=false',
      '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn',
      '-cp',
      [ZOOKEEPER_CONF, ZOOKEEPER_JAR, ...(fs.existsSync(SLF4J_SIMPLE_JAR) ? [SLF4J_SIMPLE_JAR] : [])].join(':'),
      MAIN_CLASS,
      String(port),
      dataDir,
      String(tickTimeMs),
    ],
    { stdio: ['pipe', 'pipe', 'pipe'], detached: true },
  );
  const signal = (sig: NodeJS.Signals): void => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      // The group is gone already.
    }
  };
  let output = '';
  const keepTail = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
  };
  child.stdout!.on('data', keepTail);
  child.stderr!.on('data', keepTail);
  const killOnExit = (): void => signal('SIGKILL');
  process.on('exit', killOnExit);
  let spawnError: Error | null = null;
  // A java that cannot be started emits 'error' and maybe never 'exit'.
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (err) => {
      spawnError = err;
      resolve();
    });
  });
  let running = true;
  void exited.then(() => {
    running = false;
    process.removeListener('exit', killOnExit);
  });

  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (await answersSrvr(port)) break;
    if (!running || Date.now() > deadline) {
      const timedOut = running;
      if (child.pid !== undefined) signal('SIGKILL');
      await exited;
      const failure = spawnError as Error | null;
      // Whether or not its log said so: a server that exited while something else listens on its port.
      if (/Address already in use|BindException/.test(output) || (await answersSrvr(port, true))) {
        throw new PortInUseError(`port ${port} is in use`);
      }
      const why = failure ? failure.message : timedOut ? `no answer within ${START_TIMEOUT_MS} ms` : 'it exited';
      throw new Error(`ZooKeeper did not start on 127.0.0.1:${port} (${why}); its output ended with:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  return {
    connect: `127.0.0.1:${port}`,
    port,
    kill: () => {
      if (running) signal('SIGKILL');
    },
    stop: async () => {
      if (running) {
        // EOF on the guard's stdin: it stops java (SIGTERM) and exits once java has.
        child.stdin!.end();
        const timer = setTimeout(() => signal('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      if (ownDataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A loopback port nothing listened on a moment ago. */
function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Whether a ZooKeeper answers `srvr` on the port (a short, bounded probe); with `anyListener`, whether anything accepts. */
function answersSrvr(port: number, anyListener = false): Promise<boolean> {
  return new Promise((resolve) => {
    let reply = '';
    const socket = net.connect({ host: '127.0.0.1', port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => (anyListener ? done(true) : socket.write('srvr')));
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      if (reply.length > 4096) done(/Zookeeper version/.test(reply));
    });
    socket.on('end', () => done(/Zookeeper version/.test(reply)));
  });
}
