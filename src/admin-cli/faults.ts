// krill faults list|add|freeze-leader|remove|clear: a running krill's faults (src/faults/), set through its
// HTTP listener's /faults (krill.http.listener and krill.http.faults=true), for suites that start krill as a
// process. This is krill's own endpoint, not Kafka's protocol: these commands take --http, not a bootstrap.
import { ConnectionError } from './kafka-client.js';
import { InputError, UsageError, intOption, onePositional, type Command, type Context } from './command.js';
import { columns } from './table.js';

const HTTP_OPTION = { http: { type: 'string', default: '127.0.0.1:9644' } } as const;
const HTTP_USAGE = "  --http H:P                    krill's HTTP listener (default 127.0.0.1:9644)";

interface FaultRow {
  id: number;
  spec: Record<string, unknown>;
  hits: number;
  active: boolean;
}

/** One request to /faults; a refusal of what was asked is a usage error (400) or a failure (404 and the rest). */
async function call(ctx: Context, method: string, path: string, body?: unknown): Promise<unknown> {
  const url = `http://${ctx.values.http as string}/faults${path}`;
  let res: Response;
  try {
    res = await fetch(url, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });
  } catch (err) {
    throw new ConnectionError(`cannot reach ${url}: ${((err as Error).cause as Error | undefined)?.message ?? (err as Error).message}`);
  }
  const answer = (await res.json().catch(() => ({ error: `HTTP ${res.status}` }))) as { error?: string };
  if (res.status === 400) throw new UsageError(answer.error ?? 'refused');
  if (res.status === 404 && path === '') throw new ConnectionError(`${url}: not served (is krill.http.faults=true set?)`);
  if (!res.ok) throw new InputError(`${answer.error ?? `HTTP ${res.status}`}`);
  return answer;
}

const show = (ctx: Context, faults: FaultRow[]) =>
  ctx.print(
    faults.map((f) => ({ ...f, spec: JSON.stringify(f.spec) })),
    columns('id', 'hits', 'active', 'spec'),
    faults,
  );

const list: Command = {
  name: 'faults list',
  summary: "the faults set on a running krill, with their hits (krill's HTTP listener)",
  usage: `[--http H:P]\n${HTTP_USAGE}`,
  options: HTTP_OPTION,
  async run(ctx) {
    show(ctx, (await call(ctx, 'GET', '')) as FaultRow[]);
  },
};

const add: Command = {
  name: 'faults add',
  summary: 'set a fault: \'{"api":"Produce","error":"NOT_LEADER_OR_FOLLOWER","count":3}\'',
  usage: `<fault as JSON> [--http H:P]\n${HTTP_USAGE}`,
  options: HTTP_OPTION,
  async run(ctx) {
    let spec: unknown;
    try {
      spec = JSON.parse(onePositional(ctx, 'fault'));
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw new UsageError(`a fault is a JSON object: ${(err as Error).message}`);
    }
    show(ctx, [(await call(ctx, 'POST', '', spec)) as FaultRow]);
  },
};

const freezeLeader: Command = {
  name: 'faults freeze-leader',
  summary: "hold every request a partition's leader serves for it, until the fault is removed",
  usage: `<topic> --partition N [--http H:P]\n  --partition N                 the partition\n${HTTP_USAGE}`,
  options: { ...HTTP_OPTION, partition: { type: 'string' } },
  async run(ctx) {
    const topic = onePositional(ctx, 'topic');
    const partition = intOption(ctx.values, 'partition', 0);
    if (partition === undefined) throw new UsageError('--partition is required');
    show(ctx, [(await call(ctx, 'POST', '/freeze-leader', { topic, partition })) as FaultRow]);
  },
};

const remove: Command = {
  name: 'faults remove',
  summary: 'remove one fault by its id (the requests it holds go on)',
  usage: `<id> [--http H:P]\n${HTTP_USAGE}`,
  options: HTTP_OPTION,
  async run(ctx) {
    const id = onePositional(ctx, 'fault id');
    if (!/^\d+$/.test(id)) throw new UsageError(`a fault id is a number, got '${id}'`);
    show(ctx, [(await call(ctx, 'DELETE', `/${id}`)) as FaultRow]);
  },
};

const clear: Command = {
  name: 'faults clear',
  summary: 'remove every fault',
  usage: `[--http H:P]\n${HTTP_USAGE}`,
  options: HTTP_OPTION,
  async run(ctx) {
    const { removed } = (await call(ctx, 'DELETE', '')) as { removed: number };
    if (ctx.json) ctx.print([], [], { removed });
    else ctx.line(`Removed ${removed} fault(s)`);
  },
};

export const FAULT_COMMANDS = [list, add, freezeLeader, remove, clear];
