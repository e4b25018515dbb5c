#!/usr/bin/env node
// What `npx krill` runs: loads the CLI bundle (dist/krill-cli.cjs, one esbuild bundle of src/cli.ts)
// with V8's code cache (dist/krill-cli.cjs.cache, written by `npm run build`), so a start compiles
// almost nothing: parsing and compiling the bundle is otherwise ~10 ms of a ~40 ms start.
// A cache V8 rejects (another Node version, other V8 flags) only costs that compile: the bundle then
// runs from source, exactly as it would without a cache.
//
// KRILL_WRITE_CODE_CACHE=1 (used by the build) writes the cache at exit, after the process has run,
// so that it holds the functions compiled while starting and stopping, not just the top level.
// KRILL_CODE_CACHE_REPORT=1 says on stderr whether the cache was accepted, rejected or missing.
import fs = require('node:fs');
import path = require('node:path');
import vm = require('node:vm');
import Module = require('node:module');

const bundle = path.join(__dirname, '..', '..', 'krill-cli.cjs');
const cacheFile = `${bundle}.cache`;
// The bundle keeps cli.ts's #! line, which is no JavaScript inside a function wrapper: comment it out.
const text = fs.readFileSync(bundle, 'utf8');
const source = text.startsWith('#!') ? `//${text}` : text;
let cachedData: Buffer | undefined;
try {
  cachedData = fs.readFileSync(cacheFile);
} catch {
  cachedData = undefined; // no cache: compile from source
}
const script = new vm.Script(Module.wrap(source), { filename: bundle, cachedData });
if (process.env.KRILL_CODE_CACHE_REPORT === '1') {
  const state = cachedData === undefined ? 'missing' : script.cachedDataRejected ? 'rejected' : 'accepted';
  process.stderr.write(`code cache: ${state}\n`);
}
if (process.env.KRILL_WRITE_CODE_CACHE === '1') {
  process.on('exit', () => fs.writeFileSync(cacheFile, script.createCachedData()));
}
const wrapper = script.runInThisContext() as (exports: object, require: NodeRequire, module: object, filename: string, dirname: string) => void;
const cliModule = { exports: {}, filename: bundle, id: bundle, loaded: false };
wrapper.call(cliModule.exports, cliModule.exports, Module.createRequire(bundle), cliModule, bundle, path.dirname(bundle));
