// Build step after tsc (`npm run build`): bundles the CLI into one CommonJS file, dist/krill-cli.cjs,
// and writes V8's code cache for it (dist/krill-cli.cjs.cache) by starting it once, sending it an
// ApiVersions and a Metadata request and stopping it, so that the cache holds what a start runs.
// Also bundles the embedded API, the package's entry, into dist/krill.mjs, and krill/testing into
// dist/testing.mjs (with jest's two hooks beside it).
// Why a bundle: resolving and loading ~90 modules one by one cost ~70 ms of start-up; one file ~10 ms,
// and the code cache removes most of the rest. Native codecs stay external: they are loaded lazily.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { encodeRequestFrame } from '../../protocol/codec.js';
import { MESSAGES_BY_KEY } from '../../protocol/messages/index.js';

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BUNDLE = path.join(DIST, 'krill-cli.cjs');
const LOADER = path.join(DIST, 'src', 'bin', 'krill.cjs');

/**
 * A module that only some runs need, kept out of the bundles that import it: their `await import(<module>)`
 * becomes a module that requires `bundle` (built from the module alone) when first imported; a require, as the
 * CLI runs in a vm.Script, where import() is not available.
 */
function apart(name: string, module: RegExp, bundle: string, exported: string[]): Plugin {
  return {
    name,
    setup(b) {
      b.onResolve({ filter: module }, () => ({ path: name, namespace: name }));
      b.onLoad({ filter: /.*/, namespace: name }, () => ({ contents: `export const { ${exported.join(', ')} } = require('./${bundle}');`, loader: 'js' }));
      b.onResolve({ filter: new RegExp(`^\\./${bundle.replace('.', '\\.')}$`) }, (args) => ({ path: args.path, external: true }));
    },
  };
}

/**
 * The cluster code (src/cluster/zk-cluster.ts and what only it uses: the controller, the ZooKeeper client,
 * the inter-broker client) is a bundle of its own, dist/krill-cluster.cjs, which the broker imports only when
 * zookeeper.connect is set: a single broker neither loads nor parses it, so its start stays as lean as before
 * clusters existed. The few modules both bundles hold are duplicated; the one whose identity matters across
 * them, KafkaError, is recognised by a brand (protocol/errors.ts).
 */
const CLUSTER_BUNDLE = 'krill-cluster.cjs';
const clusterApart = apart('cluster-apart', /[\\/]cluster[\\/]zk-cluster\.js$/, CLUSTER_BUNDLE, ['ZkCluster']);

/** The client commands (`krill topics ...`, src/admin-cli/), which src/cli.ts loads only when one is given. */
const ADMIN_BUNDLE = 'krill-admin.cjs';
const adminApart = apart('admin-apart', /[\\/]admin-cli[\\/]main\.js$/, ADMIN_BUNDLE, ['main']);

/** The bundles: Node 20, everything inlined but the native codecs, which are loaded lazily. */
const COMMON: BuildOptions = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
  // node-zookeeper-client: loaded only in cluster mode (zookeeper.connect set), at run time;
  // fs-native-extensions: a native addon (the data dir's lock), found next to its package.
  external: ['@node-rs/crc32', 'snappy', 'lz4-napi', 'zstd-napi', 'fzstd', 'node-zookeeper-client', 'fs-native-extensions'],
};

/** A CommonJS bundle of ES modules, which find their files through import.meta.url. */
const CJS: BuildOptions = {
  ...COMMON,
  format: 'cjs',
  define: { 'import.meta.url': '__krillUrl' },
  banner: { js: "const __krillUrl = require('node:url').pathToFileURL(__filename).href;" },
};

await build({ ...CJS, entryPoints: [path.join(DIST, 'src', 'cluster', 'zk-cluster.js')], outfile: path.join(DIST, CLUSTER_BUNDLE) });
await build({ ...CJS, entryPoints: [path.join(DIST, 'src', 'admin-cli', 'main.js')], outfile: path.join(DIST, ADMIN_BUNDLE) });
await build({ ...CJS, entryPoints: [path.join(DIST, 'src', 'cli.js')], outfile: BUNDLE, plugins: [clusterApart, adminApart] });
fs.chmodSync(LOADER, 0o755);

// The embedded API (the package's entry, `import { startBroker } from 'krill'`) as one ES module: a test
// file importing it loads one file instead of resolving ~90 (~20 ms instead of ~90 ms here).
await build({
  ...COMMON,
  entryPoints: [path.join(DIST, 'src', 'index.js')],
  outfile: path.join(DIST, 'krill.mjs'),
  format: 'esm',
  plugins: [clusterApart],
  // Bundled CommonJS dependencies (pino) and lazily loaded natives call require().
  banner: { js: "import { createRequire as __krillRequire } from 'node:module'; const require = __krillRequire(import.meta.url);" },
});

/** Leaves the sibling module `specifier` out of a bundle: it imports the bundle `bundled` made of it instead. */
function importedFromBundle(specifier: string, bundled: string): Plugin {
  const filter = new RegExp(`^${specifier.replace(/[.\\/]/g, '\\$&')}$`);
  return { name: `${specifier}-apart`, setup: (b) => void b.onResolve({ filter }, () => ({ path: bundled, external: true })) };
}

// krill/testing (the test runners' global setup) as an ES module of its own that imports the entry above, so
// that a run which loads both holds one copy of the broker.
await build({
  ...COMMON,
  entryPoints: [path.join(DIST, 'src', 'testing.js')],
  outfile: path.join(DIST, 'testing.mjs'),
  format: 'esm',
  plugins: [importedFromBundle('./index.js', './krill.mjs')],
});

// jest's globalSetup and globalTeardown are two modules, each run for its default export: both re-export
// from dist/testing.mjs, so that they share its broker (jest loads them into one process).
for (const hook of ['setup', 'teardown']) {
  await build({
    ...COMMON,
    entryPoints: [path.join(DIST, 'src', `testing-jest-${hook}.js`)],
    outfile: path.join(DIST, `jest-${hook}.mjs`),
    format: 'esm',
    plugins: [importedFromBundle('./testing.js', './testing.mjs')],
  });
}

const cacheFile = `${BUNDLE}.cache`;
fs.rmSync(cacheFile, { force: true });
try {
  await writeCodeCache();
} catch (err) {
  // Only start-up time depends on the cache; the CLI works without it.
  fs.rmSync(cacheFile, { force: true });
  process.stderr.write(`warning: no code cache for the CLI: ${(err as Error).message}\n`);
}

function frame(apiKey: number, apiVersion: number, correlationId: number, body: Record<string, unknown>): Buffer {
  return encodeRequestFrame(MESSAGES_BY_KEY.get(apiKey)!, { apiKey, apiVersion, correlationId, clientId: null }, body);
}

async function writeCodeCache(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'krill-code-cache-'));
  const proc = spawn(process.execPath, [LOADER, '--port', '0', '--data-dir', dataDir, '--log-level', 'info'], {
    env: { ...process.env, KRILL_WRITE_CODE_CACHE: '1' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      proc.stdout.on('data', (c) => {
        out += c;
        const m = out.match(/ready on [\d.]+:(\d+)/);
        if (m) resolve(Number(m[1]));
      });
      exited.then((code) => reject(new Error(`the CLI exited (${code}) before it was ready`)));
    });
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      let received = 0;
      socket.on('error', reject);
      socket.on('data', (c) => {
        received += c.length;
        // Two responses, each at least a size and a correlation id.
        if (received >= 16) {
          socket.destroy();
          resolve();
        }
      });
      socket.write(frame(18, 0, 1, {}));
      socket.write(frame(3, 4, 2, { topics: null, allowAutoTopicCreation: false }));
    });
    proc.kill('SIGTERM');
    const code = await exited;
    if (code !== 0) throw new Error(`the CLI exited with ${code} on SIGTERM`);
    if (!fs.existsSync(cacheFile)) throw new Error('the CLI wrote no cache');
  } finally {
    clearTimeout(timer);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
