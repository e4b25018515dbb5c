// The first words that make `krill` a client rather than a broker. src/cli.ts reads only this list, so a broker's
// start loads none of the commands; main.ts checks that its commands are exactly these.
export const SUBCOMMANDS: ReadonlySet<string> = new Set(['topics', 'groups', 'produce', 'consume', 'configs', 'cluster', 'transactions', 'faults', 'help']);
