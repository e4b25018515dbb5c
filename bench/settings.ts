// The benchmark's fixed settings and environment knobs (documented in run.ts): paths into the build and
// the bench sources, the tools it runs, the targets the table judges against, the run sizes.

import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const HERE = path.dirname(fileURLToPath(import.meta.url)); // <root>/dist/bench, or <root>/bench run from sources
export const ROOT = path.basename(path.dirname(HERE)) === 'dist' ? path.resolve(HERE, '..', '..') : path.resolve(HERE, '..');
export const BENCH_SRC = path.join(ROOT, 'bench');
export const CLI = path.join(ROOT, 'dist', 'src', 'bin', 'krill.cjs');
export const INDEX = path.join(ROOT, 'dist', 'krill.mjs'); // the package's entry
export const EMBEDDED = path.join(HERE, 'embedded-start.js');
export const MOCK_SRC = path.join(BENCH_SRC, 'mock-cluster.c');
export const MOCK_BIN = path.join(BENCH_SRC, 'build', 'mock-cluster');
export const PY_CLIENT = path.join(BENCH_SRC, 'rdkafka_client.py');
export const PYTHON = process.env.KRILL_BENCH_PYTHON ?? '/usr/bin/python3';
export const KCAT = process.env.KRILL_BENCH_KCAT ?? 'kcat';
export const HOST = '127.0.0.1';
/** Apache Kafka's jars, written by compat/kafka-tools/install.sh. */
export const KAFKA_CLASSPATH = path.join(ROOT, 'compat', 'kafka-tools', 'target', 'classpath.txt');
export const WARMUP_TOPIC = 'bench-warmup';

export const TARGETS = {
  throughputRatio: 1.0,
  startMs: 120,
  embeddedMs: 30,
  idleRssMB: 80,
};

export const KCAT_PRODUCER_SETTINGS = ['linger.ms=5', 'batch.size=1000000', 'batch.num.messages=10000', 'acks=all'];

function envNumber(name: string, fallback: number, valid: (n: number) => boolean): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || !valid(n)) {
    process.stderr.write(`bench: ignoring ${name}=${raw} (invalid), using ${fallback}\n`);
    return fallback;
  }
  return n;
}

export const SCALE = envNumber('KRILL_BENCH_SCALE', 1, (n) => n > 0 && n <= 10);
export const REPEAT = Math.round(envNumber('KRILL_BENCH_REPEAT', 5, (n) => n >= 1 && n <= 20));
export const START_RUNS = Math.round(envNumber('KRILL_BENCH_START_RUNS', 7, (n) => n >= 1 && n <= 50));
export const PROBE_RUNS = 3;
/** KRILL_BENCH_WORKLOADS: the ids of the throughput rows to run (e.g. small,small-ssl), comma-separated; unset: all. */
export const ONLY_WORKLOADS = (process.env.KRILL_BENCH_WORKLOADS ?? '')
  .split(',')
  .map((w) => w.trim())
  .filter(Boolean);
/** KRILL_BENCH_SERVERS: which servers run (krill, krill-memory, kafka, mock), comma-separated; unset: all. */
export const ONLY_SERVERS = (process.env.KRILL_BENCH_SERVERS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
export const CODECS = (process.env.KRILL_BENCH_CODECS ?? 'gzip,snappy,lz4,zstd')
  .split(',')
  .map((c) => c.trim())
  .filter((c) => c && c !== 'none');
