// /faults on the HTTP listener (with krill.http.faults=true): the faults of src/faults/ set and removed from
// outside the process, for test suites in other languages and for `krill faults`. JSON in, JSON out:
//   GET    /faults                     the faults set: [{ id, spec, hits, active }]
//   POST   /faults                     a FaultSpec → 201 { id, ... }; 400 naming what is wrong
//   POST   /faults/freeze-leader       { topic, partition } → 201, as FaultInjector.freezeLeader
//   DELETE /faults                     every fault removed → { removed }
//   DELETE /faults/<id>                that one (held requests go on) → 200, or 404
import type http from 'node:http';
import { FaultSpecError, faultSpecFromJson, type Fault, type FaultInjector } from './fault-injector.js';

/** A spec is a few hundred bytes; anything much larger is not one. */
const MAX_BODY_BYTES = 64 * 1024;

export interface Reply {
  status: number;
  body: unknown;
}

const describe = (f: Fault) => ({ id: f.id, spec: f.spec, hits: f.hits, active: f.active });

/** Reads a request body of at most MAX_BODY_BYTES; null when it is longer. */
function readBody(req: http.IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(null);
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function freezeLeaderSpec(text: string): { topic: string; partition: number } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new FaultSpecError(`freeze-leader takes {"topic": ..., "partition": ...}: ${(err as Error).message}`);
  }
  const { topic, partition } = (value ?? {}) as { topic?: unknown; partition?: unknown };
  if (typeof topic !== 'string' || typeof partition !== 'number') throw new FaultSpecError('freeze-leader takes {"topic": "<name>", "partition": <index>}');
  return { topic, partition };
}

/** Answers a request whose path starts with /faults. */
export async function serveFaults(req: http.IncomingMessage, path: string, faults: FaultInjector): Promise<Reply> {
  const rest = path.slice('/faults'.length);
  if (req.method === 'GET' && rest === '') return { status: 200, body: faults.list().map(describe) };
  if (req.method === 'DELETE' && rest === '') {
    const removed = faults.list().length;
    faults.clear();
    return { status: 200, body: { removed } };
  }
  const id = /^\/(\d+)$/.exec(rest);
  if (req.method === 'DELETE' && id) {
    const fault = faults.list().find((f) => f.id === Number(id[1]));
    if (!fault) return { status: 404, body: { error: `no fault ${id[1]}` } };
    fault.remove();
    return { status: 200, body: describe(fault) };
  }
  if (req.method === 'POST' && (rest === '' || rest === '/freeze-leader')) {
    const text = await readBody(req);
    if (text === null) return { status: 413, body: { error: `a fault is at most ${MAX_BODY_BYTES} bytes of JSON` } };
    try {
      if (rest === '') {
        return { status: 201, body: describe(faults.inject(faultSpecFromJson(text))) };
      }
      const { topic, partition } = freezeLeaderSpec(text);
      return { status: 201, body: describe(faults.freezeLeader(topic, partition)) };
    } catch (err) {
      if (err instanceof FaultSpecError) return { status: 400, body: { error: err.message } };
      throw err;
    }
  }
  const known = rest === '' || rest === '/freeze-leader' || id !== null;
  return known
    ? { status: 405, body: { error: `method ${req.method} not allowed on ${path}` } }
    : { status: 404, body: { error: `no such endpoint: ${path}` } };
}
