// `krill <subcommand>`: the admin and data commands, loaded by src/cli.ts only when a subcommand is given, so
// that starting the broker pays nothing for them.
//
// Exit codes: 0 done; 1 the broker answered with an error (its Kafka name is on stderr) or a record or file
// could not be read; 2 a usage error; 3 no broker could be reached, or one did not answer in time.
import { BrokerError, ConnectionError } from './kafka-client.js';
import { InputError, UsageError, help, runCommand, type Command } from './command.js';
import { TOPIC_COMMANDS } from './topics.js';
import { CONFIG_COMMANDS } from './configs.js';
import { CLUSTER_COMMANDS } from './cluster.js';
import { GROUP_COMMANDS } from './groups.js';
import { PRODUCE_COMMANDS } from './produce.js';
import { CONSUME_COMMANDS } from './consume.js';
import { TRANSACTION_COMMANDS } from './transactions.js';
import { FAULT_COMMANDS } from './faults.js';

export const EXIT_OK = 0;
export const EXIT_BROKER_ERROR = 1;
export const EXIT_USAGE = 2;
export const EXIT_UNREACHABLE = 3;

const COMMANDS: Command[] = [
  ...TOPIC_COMMANDS,
  ...GROUP_COMMANDS,
  ...PRODUCE_COMMANDS,
  ...CONSUME_COMMANDS,
  ...CONFIG_COMMANDS,
  ...CLUSTER_COMMANDS,
  ...TRANSACTION_COMMANDS,
  ...FAULT_COMMANDS,
];

/** The first words of the commands: what src/cli.ts hands to main() (plus `help`). */
export const COMMAND_WORDS: ReadonlySet<string> = new Set(COMMANDS.map((c) => c.name.split(' ')[0]));

function overview(group?: string): string {
  const shown = COMMANDS.filter((c) => group === undefined || c.name.split(' ')[0] === group);
  const width = Math.max(...shown.map((c) => c.name.length));
  const lines = shown.map((c) => `  krill ${c.name.padEnd(width)}  ${c.summary}`);
  const head =
    group === undefined
      ? 'usage: krill [broker options]   start a broker (krill --help)\n       krill <command> [options]   talk to a broker'
      : `usage: krill ${group} <command> [options]`;
  return `${head}\n\ncommands:\n${lines.join('\n')}\n\nEvery command takes --bootstrap-server (default 127.0.0.1:9092), --json and --help.
Exit codes: 0 ok, 1 the broker answered with an error, 2 bad usage, 3 no broker reachable (or none answered in time).\n`;
}

/** Runs `krill <argv>` and returns the exit code; never throws. */
export async function main(argv: string[]): Promise<number> {
  const [group, sub] = argv;
  const candidates = COMMANDS.filter((c) => c.name.split(' ')[0] === group);
  const cmd = candidates.find((c) => c.name === group || c.name === `${group} ${sub}`);
  if (!cmd) {
    const asked = argv.slice(1).includes('--help') || argv.slice(1).includes('-h') || argv.length === 1;
    if (candidates.length > 0 && asked) {
      process.stdout.write(overview(group));
      return EXIT_OK;
    }
    if (group === 'help') {
      process.stdout.write(overview());
      return EXIT_OK;
    }
    const what = candidates.length > 0 ? `unknown command 'krill ${group} ${sub ?? ''}'` : `unknown command '${group}'`;
    process.stderr.write(`krill: ${what.trim()}\n${overview(candidates.length > 0 ? group : undefined)}`);
    return EXIT_USAGE;
  }
  const args = argv.slice(cmd.name.split(' ').length);
  // A reader that stops reading (`krill consume t | head`) ends the command, as it ends any Unix filter.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(EXIT_OK);
    throw err;
  });
  try {
    await runCommand(cmd, args);
    return EXIT_OK;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`krill ${cmd.name}: ${err.message}\n${help(cmd)}`);
      return EXIT_USAGE;
    }
    if (err instanceof RangeError) {
      process.stderr.write(`krill ${cmd.name}: ${err.message}\n`);
      return EXIT_USAGE;
    }
    if (err instanceof ConnectionError) {
      process.stderr.write(`krill ${cmd.name}: ${err.message}\n`);
      return EXIT_UNREACHABLE;
    }
    const message = err instanceof BrokerError || err instanceof InputError ? err.message : ((err as Error)?.stack ?? String(err));
    process.stderr.write(`krill ${cmd.name}: ${message}\n`);
    return EXIT_BROKER_ERROR;
  }
}
