// Child process of bench/run.ts: times krill's embedded start.
//   node dist/bench/embedded-start.js <project root> <runs>
// Imports <root>/dist/krill.mjs (the package's entry) once (timed separately), then `runs` times:
// t = performance.now(); b = await startBroker({ port: 0, host: '127.0.0.1' }); elapsed = performance.now() - t;
// then (untimed) checks the broker answers a Metadata request on 127.0.0.1:<b.port> and closes it.
// Prints one JSON line: {"ok":true,"importMs":..,"runs":[ms,...]} or {"ok":false,"error":".."}.
// Runs in its own process so a crash or a leaked handle cannot disturb the main benchmark.

import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { probeMetadata } from './metadata-probe.js';

interface EmbeddedBroker {
  bootstrap: string;
  port: number;
  close(): Promise<void>;
}

async function main(): Promise<void> {
  const [root, runsArg] = process.argv.slice(2);
  const runs = Math.max(1, Number(runsArg ?? 7) | 0);
  const entry = path.join(root, 'dist', 'krill.mjs');
  const t0 = performance.now();
  const mod = (await import(pathToFileURL(entry).href)) as {
    startBroker?: (opts: { port: number; host?: string }) => Promise<EmbeddedBroker>;
  };
  const importMs = performance.now() - t0;
  if (typeof mod.startBroker !== 'function') throw new Error(`${entry} does not export startBroker()`);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const b = await mod.startBroker({ port: 0, host: '127.0.0.1' });
    const elapsed = performance.now() - t;
    try {
      if (!Number.isInteger(b.port) || b.port <= 0) throw new Error(`startBroker() returned port ${b.port}`);
      const answer = await probeMetadata('127.0.0.1', b.port, 5000);
      if (!answer.brokers.some((x) => x.port === b.port)) {
        throw new Error(`Metadata from the embedded broker does not list port ${b.port}`);
      }
    } finally {
      await b.close();
    }
    times.push(elapsed);
  }
  process.stdout.write(JSON.stringify({ ok: true, importMs, runs: times }) + '\n');
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stdout.write(JSON.stringify({ ok: false, error: String((err as Error)?.message ?? err) }) + '\n');
    process.exit(0);
  },
);
