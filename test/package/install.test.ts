// The package as a user gets it: `npm pack` of this repository (the build that `npm test` made), installed into
// a fresh project with `npm install ./krill-<version>.tgz`, then used the two ways the README shows: `npx krill`
// and `import { startBroker } from 'krill'`, and `krill/testing` as a vitest globalSetup. Asserted: what the
// tarball holds, that the installed CLI serves Kafka requests and stops cleanly, that the installed embedded
// API does too, its types included, and that a suite's test files share the run's broker.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, portFreed, spawnCli, tempDir } from '../helpers.js';
import { TestClient } from '../server/client.js';
import { API } from '../server/kafka.js';

const INSTALL_TIMEOUT_MS = 300_000;
/** The jest a user's project installs from the registry, for krill/testing's jest hooks. */
const JEST_VERSION = '30.5.2';
let work: string;
let tarball: string;
let project: string;

beforeAll(() => {
  work = tempDir('krill-package-');
  // --ignore-scripts: `prepare` would rebuild dist/ under the feet of the tests running beside this one.
  const packed = JSON.parse(execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8' }));
  tarball = path.join(work, packed[0].filename);
  project = path.join(work, 'app');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'uses-krill', version: '1.0.0', private: true, type: 'module' }));
  // From the registry (or npm's cache) for krill's dependencies, as a user's install does.
  const installed = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], {
    cwd: project,
    encoding: 'utf8',
    timeout: INSTALL_TIMEOUT_MS,
  });
  if (installed.status !== 0)
    throw new Error(`npm install ${tarball} failed (${installed.status ?? installed.signal}):\n${installed.stdout}\n${installed.stderr}`);
}, INSTALL_TIMEOUT_MS + 60_000);
afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
}, 60_000); // two projects' node_modules

/**
 * A user's test file (vitest's and jest's globals are the same): it checks that the run's broker answers
 * ApiVersions, and writes where it was to `seenFile`.
 */
function writeSharedBrokerTest(file: string, seenFile: string): void {
  fs.writeFileSync(
    file,
    [
      "import fs from 'node:fs';",
      "import net from 'node:net';",
      "test('the shared broker answers ApiVersions', async () => {",
      "  const [host, port] = process.env.KRILL_BOOTSTRAP.split(':');",
      `  fs.writeFileSync(${JSON.stringify(seenFile)}, process.env.KRILL_BOOTSTRAP);`,
      '  // ApiVersions v0, correlation id 7, no client id.',
      '  const request = Buffer.from([0, 0, 0, 10, 0, 18, 0, 0, 0, 0, 0, 7, 0xff, 0xff]);',
      '  const reply = await new Promise((resolve, reject) => {',
      '    const socket = net.connect(Number(port), host, () => socket.write(request));',
      '    let got = Buffer.alloc(0);',
      "    socket.on('data', (d) => { got = Buffer.concat([got, d]); if (got.length >= 4 && got.length >= 4 + got.readInt32BE(0)) { socket.destroy(); resolve(got); } });",
      "    socket.on('error', reject);",
      '  });',
      '  expect(reply.readInt32BE(4)).toBe(7);',
      '  expect(reply.readInt16BE(8)).toBe(0);',
      '});',
    ].join('\n'),
  );
}

/** The addresses the suite's two test files saw: the same broker's, which the run's teardown has closed. */
async function expectOneSharedBroker(seen: string): Promise<void> {
  const [one, two] = ['one', 'two'].map((n) => fs.readFileSync(path.join(seen, n), 'utf8'));
  expect(one).toMatch(/^127\.0\.0\.1:\d+$/);
  expect(two).toBe(one);
  expect(await portFreed(Number(one.split(':')[1]))).toBe(true);
}

async function apiVersionsOk(port: number): Promise<void> {
  const client = await TestClient.connect(port);
  try {
    const res = await client.request(API.ApiVersions, 3, { clientSoftwareName: 'package-test', clientSoftwareVersion: '1' });
    expect(res.errorCode).toBe(0);
    expect(res.apiKeys.length).toBeGreaterThan(30);
  } finally {
    client.close();
  }
}

describe('the npm package', () => {
  it('holds the built broker, its types, the README and the licence, and nothing of the repository', () => {
    const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n').sort();
    for (const f of [
      'package/package.json',
      'package/README.md',
      'package/LICENSE',
      'package/dist/krill.mjs',
      'package/dist/src/bin/krill.cjs',
      'package/dist/krill-admin.cjs',
      'package/dist/src/index.d.ts',
    ]) {
      expect(files).toContain(f);
    }
    const shipped =
      /^package\/(package\.json|README\.md|LICENSE|dist\/krill\.mjs|dist\/(testing|jest-setup|jest-teardown)\.mjs|dist\/krill-cli\.cjs(\.cache)?|dist\/krill-cluster\.cjs|dist\/krill-admin\.cjs|dist\/src\/bin\/krill\.cjs|dist\/(src|protocol)\/.*\.d\.ts)$/;
    expect(files.filter((f) => !shipped.test(f))).toEqual([]);
    // Only the runtime dependencies were installed beside it.
    const installed = fs.readdirSync(path.join(project, 'node_modules'));
    for (const dev of ['vitest', 'kafkajs', 'typescript', 'esbuild', 'eslint']) expect(installed).not.toContain(dev);
  });

  it('npx krill in the project starts a broker that serves Kafka requests, and stops on SIGTERM', async () => {
    const data = path.join(work, 'cli-data');
    const broker = await spawnCli(['--port', '0', '--data-dir', data], { npx: true, project, timeoutMs: 30_000 });
    try {
      await apiVersionsOk(broker.port);
      // The client commands ship too (their own bundle, dist/krill-admin.cjs).
      const cluster = spawnSync('npx', ['--offline', 'krill', 'cluster', '--json', '--bootstrap-server', broker.bootstrap], { cwd: project, encoding: 'utf8' });
      expect(cluster.status).toBe(0);
      expect(JSON.parse(cluster.stdout).brokers).toEqual([{ nodeId: 1, host: '127.0.0.1', port: broker.port, rack: null, controller: true }]);
    } finally {
      broker.kill('SIGTERM');
    }
    expect(await broker.exited).toBe(0);
    expect(fs.existsSync(path.join(data, 'meta.properties'))).toBe(true);
  });

  it("import { startBroker } from 'krill' starts and closes an embedded broker, with types for TypeScript", async () => {
    const script = path.join(project, 'embedded.mjs');
    fs.writeFileSync(
      script,
      [
        "import { startBroker } from 'krill';",
        'const broker = await startBroker({ port: 0 });',
        'process.stdout.write(`ready ${broker.port}\\n`);',
        "process.stdin.on('end', async () => { await broker.close(); process.stdout.write('closed\\n'); });",
        'process.stdin.resume();',
      ].join('\n'),
    );
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [script], { cwd: project, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d;
        const m = /ready (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      exited.then((code) => reject(new Error(`exited ${code} before ready: ${err}`)));
    });
    await apiVersionsOk(port);
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(out).toContain('closed');
    // The declarations resolve from the package's exports, as a TypeScript user's tsc reads them.
    fs.writeFileSync(
      path.join(project, 'check.ts'),
      "import { startBroker, type RunningBroker } from 'krill';\nimport { BOOTSTRAP_ENV, setup, teardown } from 'krill/testing';\n" +
        "import jestSetup from 'krill/testing/jest-setup';\nimport jestTeardown from 'krill/testing/jest-teardown';\n" +
        "const started: Promise<RunningBroker> = startBroker({ port: 0, logLevel: 'warn' });\nconst env: string = BOOTSTRAP_ENV;\nconst hooks: (() => Promise<void>)[] = [setup, teardown, jestSetup, jestTeardown];\nvoid [started, env, hooks];\n",
    );
    const tsc = spawnSync(
      process.execPath,
      [
        path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--typeRoots',
        path.join(ROOT, 'node_modules', '@types'),
        '--types',
        'node',
        'check.ts',
      ],
      { cwd: project, encoding: 'utf8' },
    );
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  }, 60_000); // tsc over the declarations takes seconds

  it("krill/testing as vitest's globalSetup: one broker for the run, its address in KRILL_BOOTSTRAP, gone after", async () => {
    // A user's suite in the fresh project, run by vitest (this repository's: the project has no vitest of its
    // own, so the test file uses its globals). Each test file checks the broker answers, and says where it was.
    const seen = path.join(work, 'seen');
    fs.mkdirSync(seen);
    fs.writeFileSync(
      path.join(project, 'vitest.config.mjs'),
      "export default { test: { globals: true, globalSetup: ['krill/testing'], include: ['*.test.mjs'] } };\n",
    );
    for (const name of ['one', 'two']) writeSharedBrokerTest(path.join(project, `${name}.test.mjs`), path.join(seen, name));
    const run = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run'], {
      cwd: project,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    // eslint-disable-next-line no-control-regex -- vitest colours its summary
    expect(run.stdout.replace(/\x1b\[[0-9;]*m/g, '')).toMatch(/Test Files\s+2 passed/);
    await expectOneSharedBroker(seen);
  });

  it(
    "krill/testing/jest-setup and jest-teardown as jest's globalSetup and globalTeardown, in a project with jest",
    async () => {
      const jestProject = path.join(work, 'jest-app');
      fs.mkdirSync(jestProject);
      fs.writeFileSync(path.join(jestProject, 'package.json'), JSON.stringify({ name: 'uses-krill-with-jest', version: '1.0.0', private: true }));
      const installed = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, `jest@${JEST_VERSION}`], {
        cwd: jestProject,
        encoding: 'utf8',
        timeout: INSTALL_TIMEOUT_MS,
      });
      expect(installed.status, installed.stdout + installed.stderr).toBe(0);
      fs.writeFileSync(
        path.join(jestProject, 'jest.config.cjs'),
        "module.exports = { globalSetup: 'krill/testing/jest-setup', globalTeardown: 'krill/testing/jest-teardown', testMatch: ['**/*.test.mjs'], transform: {} };\n",
      );
      const seen = path.join(work, 'seen-jest');
      fs.mkdirSync(seen);
      for (const name of ['one', 'two']) writeSharedBrokerTest(path.join(jestProject, `${name}.test.mjs`), path.join(seen, name));
      // jest runs ES module test files with Node's VM modules, behind this flag.
      const run = spawnSync(process.execPath, ['--experimental-vm-modules', path.join(jestProject, 'node_modules', 'jest', 'bin', 'jest.js')], {
        cwd: jestProject,
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(run.status, run.stdout + run.stderr).toBe(0);
      expect(run.stderr).toMatch(/Tests:\s+2 passed, 2 total/);
      await expectOneSharedBroker(seen);
    },
    INSTALL_TIMEOUT_MS + 120_000,
  );
});
