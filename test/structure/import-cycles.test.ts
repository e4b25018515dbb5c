// The module graph of src/ and protocol/ has no cycles, type-only imports included: a cycle means two
// modules cannot be understood (or replaced) apart, which is what the narrow services are for. And the
// layers hold: protocol/ stands alone, handlers and the server see services, never the broker or storage.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.js';

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"`;]*?from\s*['"](\.[^'"]+)['"]/g;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

function importGraph(roots: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of roots.flatMap((r) => sourceFiles(path.join(ROOT, r)))) {
    const text = fs.readFileSync(file, 'utf8');
    const deps = [...text.matchAll(IMPORT)].map((m) => path.resolve(path.dirname(file), m[1].replace(/\.js$/, '.ts')));
    graph.set(
      path.relative(ROOT, file),
      deps.map((d) => path.relative(ROOT, d)),
    );
  }
  return graph;
}

/** Strongly connected components of more than one module (Tarjan), or of one module importing itself. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('module graph', () => {
  it('finds the imports it checks (the parser is not blind)', () => {
    const graph = importGraph(['src', 'protocol']);
    expect(graph.get(path.join('src', 'broker.ts'))).toContain(path.join('src', 'config.ts'));
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', ['a']],
          ['c', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b']]);
  });

  it('has no import cycles in src/ and protocol/', () => {
    expect(cycles(importGraph(['src', 'protocol']))).toEqual([]);
  });

  it('keeps the layers apart', () => {
    const graph = importGraph(['src', 'protocol']);
    const offending: string[] = [];
    const rule = (from: string, forbidden: string[]) => {
      for (const [file, deps] of graph) {
        if (!file.startsWith(from)) continue;
        for (const dep of deps) if (forbidden.some((f) => dep.startsWith(f))) offending.push(`${file} -> ${dep}`);
      }
    };
    const sep = path.sep;
    rule(`protocol${sep}`, [`src${sep}`]);
    rule(`src${sep}handlers${sep}`, [`src${sep}broker.ts`, `src${sep}storage${sep}`, `src${sep}server${sep}connection`]);
    rule(`src${sep}server${sep}`, [`src${sep}broker.ts`, `src${sep}storage${sep}`, `src${sep}handlers${sep}0`, `src${sep}handlers${sep}index`]);
    rule(`src${sep}storage${sep}`, [
      `src${sep}handlers${sep}`,
      `src${sep}server${sep}`,
      `src${sep}group${sep}`,
      `src${sep}partition${sep}`,
      `src${sep}broker.ts`,
    ]);
    rule(`src${sep}group${sep}`, [`src${sep}handlers${sep}`, `src${sep}server${sep}`, `src${sep}broker.ts`]);
    rule(`src${sep}cluster${sep}`, [`src${sep}handlers${sep}`, `src${sep}server${sep}connection`]);
    expect(offending).toEqual([]);
  });

  it('keeps the client commands apart from the broker', () => {
    // The broker reaches src/admin-cli/ only through cli.ts's list of command words (the commands themselves
    // are a dynamic import, a bundle of their own); the commands use the protocol and the broker-to-broker
    // connection, never the broker's own parts; and the TLS client settings (--command-config) the broker's
    // own connections to other brokers use.
    const sep = path.sep;
    const admin = `src${sep}admin-cli${sep}`;
    const offending: string[] = [];
    for (const [file, deps] of importGraph(['src'])) {
      for (const dep of deps) {
        if (!file.startsWith(admin) && dep.startsWith(admin) && !(file === `src${sep}cli.ts` && dep === `${admin}subcommands.ts`))
          offending.push(`${file} -> ${dep}`);
        if (
          file.startsWith(admin) &&
          dep.startsWith(`src${sep}`) &&
          !dep.startsWith(admin) &&
          dep !== `src${sep}cluster${sep}broker-client.ts` &&
          dep !== `src${sep}security${sep}tls-context.ts`
        )
          offending.push(`${file} -> ${dep}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('lets handlers, the server and the admin services reach the cluster only through its services', () => {
    // What the single-broker and cluster implementations share (cluster-services.ts, cluster-view.ts,
    // coordinator-guard.ts, and the producer ids every broker hands out); the rest of src/cluster/ is the
    // cluster's own (most of it its own bundle). TopicAdmin and ConfigAdmin see a TopicStore and a
    // ClusterWideConfigs, whichever kind of broker they serve; replica placement is shared as well.
    const sep = path.sep;
    const seam = ['cluster-services.ts', 'cluster-view.ts', 'coordinator-guard.ts', 'producer-id-manager.ts', 'replica-placement.ts'].map(
      (f) => `src${sep}cluster${sep}${f}`,
    );
    const clients = [`src${sep}handlers${sep}`, `src${sep}server${sep}`, `src${sep}config-admin${sep}`, `src${sep}topics.ts`, `src${sep}topic-store.ts`];
    const offending: string[] = [];
    for (const [file, deps] of importGraph(['src'])) {
      if (!clients.some((c) => file.startsWith(c))) continue;
      for (const dep of deps) if (dep.startsWith(`src${sep}cluster${sep}`) && !seam.includes(dep)) offending.push(`${file} -> ${dep}`);
    }
    expect(offending).toEqual([]);
  });
});
