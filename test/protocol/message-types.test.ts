// The types derived from the definitions (protocol/schema.ts) catch what the codec would otherwise fill silently:
// a misspelt or missing response field, a request field that does not exist, a value of the wrong type, in
// messages, coordinator records and handlers (src/handlers/registry.ts types a handler by its API key). Each case
// below is compiled by TypeScript as a line of one in-memory source file beside this test, with the project's
// compiler options; a case with an expected error must fail with that error, the others must compile.
import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CHECKED = path.join(ROOT, 'test/protocol/message-types.check.ts');

const HEADER = [
  "import type { ProduceRequest, ProduceResponse } from '../../protocol/messages/00-produce.js';",
  "import type { FetchResponse } from '../../protocol/messages/01-fetch.js';",
  "import type { MetadataResponse } from '../../protocol/messages/03-metadata.js';",
  "import type { OffsetCommitValueInput } from '../../protocol/data/group-coordinator.js';",
  "import type { HeartbeatResponse } from '../../protocol/messages/12-heartbeat.js';",
  "import { defineHandler } from '../../src/handlers/registry.js';",
  'declare const req: ProduceRequest;',
  'type FetchPartition = FetchResponse["responses"][number]["partitions"][number];',
];

interface Case {
  name: string;
  code: string;
  error?: RegExp;
}

const CASES: Case[] = [
  {
    name: 'a misspelt top-level response field',
    code: 'export const c0: ProduceResponse = { responses: [], throttleTimeMss: 0 };',
    error: /'throttleTimeMss' does not exist/,
  },
  {
    name: 'a misspelt field in a nested response struct',
    code: "export const c1: ProduceResponse = { responses: [{ name: 't', partitionResponses: [{ index: 0, errorCode: 0, baseOffset: 0, logAppendTimMs: -1 }] }] };",
    error: /'logAppendTimMs' does not exist/,
  },
  {
    name: 'a required response field left out (no default, in every version)',
    code: "export const c2: ProduceResponse = { responses: [{ name: 't', partitionResponses: [{ index: 0, baseOffset: 0 }] }] };",
    error: /'errorCode' is missing/,
  },
  {
    name: 'a response field of the wrong type',
    code: "export const c3: MetadataResponse = { brokers: [], topics: [], controllerId: 'one' };",
    error: /Type 'string' is not assignable to type 'number'/,
  },
  {
    name: 'a request field that does not exist',
    code: 'export const c4 = req.topicDatas;',
    error: /Property 'topicDatas' does not exist/,
  },
  {
    name: 'null where no version allows it',
    code: 'export const c5: ProduceResponse = { responses: [{ name: null, partitionResponses: [] }] };',
    error: /Type 'null' is not assignable to type 'string'/,
  },
  {
    name: 'a misspelt field of a coordinator record',
    code: "export const c6: OffsetCommitValueInput = { offset: 1, metadata: '', commitTimestamp: 0, expireTimestmp: 5 };",
    error: /'expireTimestmp' does not exist/,
  },
  {
    name: 'leaving out the fields the codec fills, a bigint for an int64, records as a list of slices',
    code: 'export const c7: FetchPartition = { partitionIndex: 0, errorCode: 0, highWatermark: 5n, abortedTransactions: null, records: [Buffer.alloc(1), Buffer.alloc(2)] };',
  },
  {
    name: 'reading every field of a decoded request, null where the definition allows it',
    code: 'export const c8: string | null = req.transactionalId; export const c9: Buffer | null = req.topicData[0].partitionData[0].records;',
  },
  {
    name: 'a response field misspelt by a handler (the API key picks the definition)',
    code: 'export const h0 = defineHandler({ apiKey: 12, minVersion: 0, maxVersion: 4, handle: () => ({ errorCod: 0 }) });',
    error: /Type '\{ errorCod: number; \}' is not assignable to type '\{ errorCode: number;/,
  },
  {
    // TypeScript checks a returned literal for unknown names only against a declared return type, hence the
    // handlers' `handle(...): XResponse`.
    name: 'an optional response field misspelt by a handler that declares its response type',
    code: 'export const h3 = defineHandler({ apiKey: 12, minVersion: 0, maxVersion: 4, handle(): HeartbeatResponse { return { errorCode: 0, throttleTimeMS: 0 }; } });',
    error: /'throttleTimeMS' does not exist/,
  },
  {
    name: 'a misspelt request field in a handler',
    code: 'export const h1 = defineHandler({ apiKey: 12, minVersion: 0, maxVersion: 4, handle: (_ctx, r) => ({ errorCode: r.generationID }) });',
    error: /Property 'generationID' does not exist/,
  },
  {
    name: 'a handler typed by its definition',
    code: 'export const h2 = defineHandler({ apiKey: 12, minVersion: 0, maxVersion: 4, handle: (_ctx, r) => ({ errorCode: r.generationId }) });',
  },
  {
    name: 'a decoded nullable field is not a plain string',
    code: 'export const c10: string = req.transactionalId;',
    error: /Type 'string \| null' is not assignable to type 'string'/,
  },
];

function compile(source: string): ts.Diagnostic[] {
  const configFile = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(configFile.config, ts.sys, ROOT);
  const host = ts.createCompilerHost({ ...options, noEmit: true });
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (file) => (path.resolve(file) === CHECKED ? source : readFile(file));
  host.fileExists = (file) => path.resolve(file) === CHECKED || ts.sys.fileExists(file);
  host.getSourceFile = (file, lang, onError, create) =>
    path.resolve(file) === CHECKED ? ts.createSourceFile(file, source, lang) : getSourceFile(file, lang, onError, create);
  const program = ts.createProgram([CHECKED], { ...options, noEmit: true }, host);
  return [...program.getSyntacticDiagnostics(), ...program.getSemanticDiagnostics()];
}

describe('message types derived from the definitions', () => {
  const source = [...HEADER, ...CASES.map((c) => c.code)].join('\n');
  let byLine: Map<number, string[]> | null = null;
  const errorsOnLine = (line: number): string[] => {
    if (!byLine) {
      byLine = new Map();
      for (const d of compile(source)) {
        const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
        const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
        byLine.set(at, [...(byLine.get(at) ?? []), text]);
      }
    }
    return byLine.get(line) ?? [];
  };

  it('the shared lines compile', () => {
    for (let line = 0; line < HEADER.length; line++) expect(errorsOnLine(line)).toEqual([]);
    expect(errorsOnLine(-1)).toEqual([]);
  }, 60_000);

  CASES.forEach((c, i) => {
    it(c.error ? `rejects ${c.name}` : `accepts ${c.name}`, () => {
      const errors = errorsOnLine(HEADER.length + i);
      if (c.error) expect(errors.join('\n')).toMatch(c.error);
      else expect(errors).toEqual([]);
    });
  });
});
