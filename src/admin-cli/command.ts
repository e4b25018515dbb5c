// What every `krill <subcommand>` shares: its options (parsed by node:util's parseArgs, strictly), its help,
// the client it connects lazily, and how it writes tables or JSON.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type tls from 'node:tls';
import { KafkaClient } from './kafka-client.js';
import { formatTable, type Column } from './table.js';
import { commandConfigTls } from './command-config.js';

/** A command line the CLI cannot run: exit code 2, with the command's usage. */
export class UsageError extends Error {}

/** A record, file or value the command was given cannot be used (exit code 1, like a broker's refusal). */
export class InputError extends Error {}

export type Options = NonNullable<ParseArgsConfig['options']>;

export const COMMON_OPTIONS = {
  'bootstrap-server': { type: 'string', default: '127.0.0.1:9092' },
  json: { type: 'boolean', default: false },
  'request-timeout-ms': { type: 'string', default: '30000' },
  'command-config': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies Options;

const COMMON_HELP = `  --bootstrap-server H:P[,H:P]  where to connect (default 127.0.0.1:9092)
  --json                        print JSON for scripts instead of tables
  --request-timeout-ms MS       how long to wait for each answer (default 30000)
  --command-config FILE         Kafka client security settings (security.protocol=SSL, ssl.truststore.*, ssl.keystore.*)
  -h, --help                    this help`;

export interface Command {
  /** `topics create`, `produce`. */
  name: string;
  summary: string;
  /** The lines after `usage: krill <name>`: arguments, then one line per option. */
  usage: string;
  options: Options;
  run(ctx: Context): Promise<void>;
}

export interface Context {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  json: boolean;
  client(): Promise<KafkaClient>;
  /** Writes `rows` as a table, or as JSON (`data`, default the rows) with --json. */
  print(rows: object[], columns: Column[], data?: unknown): void;
  /** Writes one line of text to stdout. */
  line(text: string): void;
}

export function help(cmd: Command): string {
  return `usage: krill ${cmd.name} ${cmd.usage}\n${COMMON_HELP}\n`;
}

/** Runs a command on its arguments; the caller turns what it throws into an exit code. */
export async function runCommand(cmd: Command, argv: string[], out: NodeJS.WritableStream = process.stdout): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { ...COMMON_OPTIONS, ...cmd.options }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const values = parsed.values as Context['values'];
  if (values.help) {
    out.write(help(cmd));
    return;
  }
  const timeout = intOption(values, 'request-timeout-ms', 1)!;
  let client: Promise<KafkaClient> | undefined;
  const json = values.json === true;
  const ctx: Context = {
    values,
    positionals: parsed.positionals,
    json,
    client: () => (client ??= KafkaClient.connect(values['bootstrap-server'] as string, timeout, tlsOf(values))),
    print: (rows, columns, data) => out.write(json ? `${JSON.stringify(data ?? rows, null, 2)}\n` : formatTable(rows, columns)),
    line: (text) => out.write(`${text}\n`),
  };
  try {
    await cmd.run(ctx);
  } finally {
    if (client)
      await client.then(
        (c) => c.close(),
        () => {},
      );
  }
}

/** The --command-config file's TLS settings; a file that cannot be used is bad input (exit 1). */
function tlsOf(values: Context['values']): tls.ConnectionOptions | undefined {
  try {
    return commandConfigTls(stringOption(values, 'command-config'));
  } catch (err) {
    throw new InputError((err as Error).message);
  }
}

/** An integer option of at least `min`, or undefined when not given. */
export function intOption(values: Context['values'], name: string, min = 0): number | undefined {
  const v = values[name];
  if (typeof v !== 'string') return undefined;
  if (!/^-?\d+$/.test(v) || Number(v) < min || !Number.isSafeInteger(Number(v)))
    throw new UsageError(`--${name} must be an integer of at least ${min}, got '${v}'`);
  return Number(v);
}

export function stringOption(values: Context['values'], name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

export function listOption(values: Context['values'], name: string): string[] {
  const v = values[name];
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
}

export function requireOption(values: Context['values'], name: string): string {
  const v = stringOption(values, name);
  if (v === undefined) throw new UsageError(`--${name} is required`);
  return v;
}

/** `key=value` pairs of a repeatable option, in order. */
export function keyValues(values: Context['values'], name: string): [string, string][] {
  return listOption(values, name).map((kv) => {
    const at = kv.indexOf('=');
    if (at <= 0) throw new UsageError(`--${name} expects key=value, got '${kv}'`);
    return [kv.slice(0, at), kv.slice(at + 1)];
  });
}

/** The one positional a command takes (a topic, a group). */
export function onePositional(ctx: Context, what: string): string {
  if (ctx.positionals.length !== 1) throw new UsageError(`expected one ${what}, got ${ctx.positionals.length === 0 ? 'none' : ctx.positionals.join(' ')}`);
  return ctx.positionals[0];
}
