#!/usr/bin/env node
// npx krill [--host H] [--port P] [--data-dir DIR | --storage memory] [--set key=value]... [--config server.properties] [--log-level L]
// Prints one ready line on stdout; logs go to stderr. SIGTERM/SIGINT/SIGHUP, or the exit of the process that
// started krill, close cleanly with exit 0. Bad arguments, unknown config names or bad values, or an unusable
// data dir (krill-topics.json) exit with code 2, every problem named in one message.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs as parseArgTokens, type ParseArgsConfig } from 'node:util';
import { BrokerConfig, ConfigError, type ConfigValue } from './config.js';
import { parseProperties } from './properties.js';
import { LOG_LEVELS, createLogger, isLogLevel } from './logger.js';
import { Broker } from './broker.js';
import { DataDirError } from './storage/topics-file.js';
import { watchParent } from './parent-watch.js';
import { faultSpecFromJson, type FaultSpec } from './faults/fault-injector.js';
import { SUBCOMMANDS } from './admin-cli/subcommands.js';

const USAGE = `usage: krill [--host H] [--port P] [--data-dir DIR | --storage memory] [--set key=value]... [--config server.properties] [--log-level L] [--detached] [--fault JSON]...
       krill --version
       krill <command> [options]   topics, groups, produce, consume, configs, cluster, transactions (krill help)

  --host H          address to listen on (default 127.0.0.1)
  --port P          port to listen on, 0 for any free port (default 9092)
  --data-dir DIR    where logs are kept (default ./krill-data)
  --storage S       disk (default) or memory: no file written, everything lost on exit
  --set key=value   a Kafka broker config, by Kafka's name (repeatable)
  --config FILE     a Kafka server.properties file
  --log-level L     ${LOG_LEVELS.join(', ')} (default info)
  --detached        keep running when the process that started krill exits (default: stop with it)
  --fault JSON      set a fault from the start, e.g. '{"api":"Produce","error":"NOT_LEADER_OR_FOLLOWER","count":3}'
                    (repeatable; see the README's fault injection)`;

class UsageError extends Error {}

/** What the command line accepts; util.parseArgs splits `--name=value` and finds each value. */
const OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  'data-dir': { type: 'string' },
  storage: { type: 'string' },
  config: { type: 'string', multiple: true },
  set: { type: 'string', multiple: true },
  'log-level': { type: 'string' },
  detached: { type: 'boolean' },
  fault: { type: 'string', multiple: true },
  version: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

type OptionName = keyof typeof OPTIONS;

/**
 * Options are taken from parseArgs's tokens, in order, rather than its values: --version and --help act
 * where they stand (a bad argument before them is reported instead), and anything parseArgs would let
 * pass in its lenient mode (a positional, `--`, a short option other than a lone -h, an unknown name) is
 * refused by name as given.
 */
function parseArgs(argv: string[]) {
  const files: string[] = [];
  const sets: [string, string][] = [];
  const faults: FaultSpec[] = [];
  let host: string | undefined;
  let port: string | undefined;
  let dataDir: string | undefined;
  let storage: string | undefined;
  let logLevel = 'info';
  let detached = false;
  const { tokens } = parseArgTokens({ args: argv, options: OPTIONS, strict: false, allowPositionals: true, tokens: true });
  for (const token of tokens) {
    const arg = argv[token.index];
    const known = token.kind === 'option' && Object.hasOwn(OPTIONS, token.name) && (token.rawName.startsWith('--') || arg === '-h');
    if (token.kind !== 'option' || !known) throw new UsageError(`unknown argument '${arg}'`);
    const name = token.name as OptionName;
    const value = () => {
      if (token.value === undefined) throw new UsageError(`${token.rawName} needs a value`);
      return token.value;
    };
    switch (name) {
      case 'host':
        host = value();
        break;
      case 'port':
        port = value();
        break;
      case 'data-dir':
        dataDir = value();
        break;
      case 'storage':
        storage = value();
        break;
      case 'config':
        files.push(value());
        break;
      case 'log-level':
        logLevel = value();
        break;
      case 'detached':
        detached = true;
        break;
      case 'fault':
        try {
          faults.push(faultSpecFromJson(value()));
        } catch (err) {
          throw new UsageError(`--fault: ${(err as Error).message}`);
        }
        break;
      case 'set': {
        const kv = value();
        const at = kv.indexOf('=');
        if (at <= 0) throw new UsageError(`--set expects key=value, got '${kv}'`);
        sets.push([kv.slice(0, at), kv.slice(at + 1)]);
        break;
      }
      case 'version':
        process.stdout.write(`${packageVersion()}\n`);
        return process.exit(0);
      case 'help':
        process.stdout.write(USAGE + '\n');
        return process.exit(0);
    }
  }
  if (storage !== undefined && storage !== 'disk' && storage !== 'memory') throw new UsageError(`--storage must be disk or memory, got '${storage}'`);
  if (storage === 'memory' && dataDir !== undefined) throw new UsageError('--storage memory keeps no data dir: drop --data-dir');
  if (!isLogLevel(logLevel)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  if (host !== undefined && !/^[A-Za-z0-9._:%-]+$/.test(host)) throw new UsageError(`--host must be a host name or IP address, got '${host}'`);
  if (port !== undefined && !(/^\d+$/.test(port) && Number(port) <= 65535)) {
    throw new UsageError(`--port must be a port number from 0 to 65535, got '${port}'`);
  }
  return { files, sets, faults, host, port: port === undefined ? undefined : Number(port), dataDir, storage, logLevel, detached };
}

/** The version in krill's package.json, found upwards from this file (dist/ or the CLI bundle). */
function packageVersion(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'krill' && pkg.version) return pkg.version;
    } catch {
      // no package.json here: look further up
    }
    if (path.dirname(dir) === dir) return 'unknown';
  }
}

/** Every config file, then every --set, checked together: one ConfigError lists all their problems. */
function buildConfig(args: ReturnType<typeof parseArgs>): BrokerConfig {
  const entries: [string, ConfigValue][] = [];
  const unreadable: string[] = [];
  for (const file of args.files) {
    try {
      const { values, malformed } = parseProperties(fs.readFileSync(file, 'utf8'));
      if (malformed.length > 0) throw new ConfigError(`cannot parse properties line '${malformed[0]}'`);
      entries.push(...Object.entries(values));
    } catch (err) {
      unreadable.push(err instanceof ConfigError ? `${file}: ${err.message}` : `cannot read config file ${file}: ${(err as Error).message}`);
    }
  }
  entries.push(...args.sets);
  if (args.dataDir !== undefined) entries.push(['log.dirs', args.dataDir]);
  if (args.storage !== undefined) entries.push(['krill.storage', args.storage]);
  let config: BrokerConfig;
  try {
    config = new BrokerConfig(entries);
  } catch (err) {
    if (err instanceof ConfigError && unreadable.length > 0) throw new ConfigError([...unreadable, ...err.problems]);
    throw err;
  }
  if (unreadable.length > 0) throw new ConfigError(unreadable);
  config.setListenerAddress(args.host, args.port);
  return config;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (SUBCOMMANDS.has(argv[0])) {
    // The client commands load only here: a broker's start pays nothing for them.
    const { main: runSubcommand } = await import('./admin-cli/main.js');
    process.exit(await runSubcommand(argv));
  }
  const parent = process.ppid; // before the start, which may take long (log recovery): see watchParent
  let args: ReturnType<typeof parseArgs>;
  let config: BrokerConfig;
  try {
    args = parseArgs(argv);
    config = buildConfig(args);
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) {
      process.stderr.write(`krill: ${err.message}\n${err instanceof UsageError ? USAGE + '\n' : ''}`);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger(args.logLevel);
  config.warnIgnored(log);
  let broker: Broker;
  try {
    broker = await Broker.start(config, log);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    process.stderr.write(
      `krill: cannot start: ${e.code === 'EADDRINUSE' ? `address ${config.listener.host}:${config.listener.port} is already in use` : e.message}\n`,
    );
    process.exit(e instanceof ConfigError || e instanceof DataDirError ? 2 : 1);
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    broker.close().then(
      () => {
        log.flush();
        process.exit(0);
      },
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // As Kafka's JVM does on a hang-up (a closed terminal): close cleanly rather than die.
  process.on('SIGHUP', () => stop('SIGHUP'));
  // `npx krill` runs krill under npm and a shell, and SIGTERM to npm does not reach krill; a supervisor
  // that starts krill and dies would leave it holding the port and the data dir. So krill stops as on
  // SIGTERM once the process that started it is gone.
  if (!args.detached) watchParent(() => stop('parent exited'), parent);
  // Only now say ready: a supervisor may signal as soon as it reads this line, and before the handlers
  // above exist SIGTERM/SIGINT would kill the process outright instead of closing cleanly.
  for (const fault of args.faults) broker.faults.inject(fault);
  const { host, port } = broker.listener;
  const http = broker.http ? `, http: ${broker.http.address.host}:${broker.http.address.port}` : '';
  process.stdout.write(`krill ready on ${host}:${port} (data: ${broker.dataDir}, cluster: ${broker.clusterId}, node: ${broker.nodeId}${http})\n`);
}

main().catch((err) => {
  process.stderr.write(`krill: ${err?.stack ?? err}\n`);
  process.exit(1);
});
