// A single broker's ACLs, in its data dir (in memory with krill.storage=memory, through storage-fs):
//
//   <dataDir>/krill-acls.json   replaced atomically and fsynced on every change:
//       {"version":1,"acls":[{"resourceType":"TOPIC","patternType":"LITERAL","resourceName":"orders",
//         "principal":"User:alice","host":"*","operation":"READ","permissionType":"ALLOW"}]}
//
// Names, not codes, so an operator can read it. A missing file is no ACLs. A file that cannot be read stops
// the start (DataDirError), as a broken krill-topics.json does: starting without it would drop every
// DENY the operator set.
import path from 'node:path';
import { readTextIfExists, writeFileAtomic } from '../storage/atomic-file.js';
import { DataDirError } from '../storage/topics-file.js';
import { Operation, PatternType, Permission, ResourceType, bindingProblem, type AclBinding } from './acl.js';
import type { AclPersistence } from './authorizer.js';

export const ACLS_FILE = 'krill-acls.json';

const codeOf = (table: Record<string, number>, name: unknown): number => (typeof name === 'string' && name in table ? table[name] : -1);
const nameOf = (table: Record<string, number>, code: number): string => Object.keys(table).find((k) => table[k] === code)!;

/** A binding as the file writes it. */
export function bindingToJson(b: AclBinding): Record<string, string> {
  return {
    resourceType: nameOf(ResourceType, b.resourceType),
    patternType: nameOf(PatternType, b.patternType),
    resourceName: b.resourceName,
    principal: b.principal,
    host: b.host,
    operation: nameOf(Operation, b.operation),
    permissionType: nameOf(Permission, b.permissionType),
  };
}

/** A binding as the file reads it; null when it is not one krill would have written. */
export function bindingFromJson(e: Record<string, unknown>): AclBinding | null {
  const b: AclBinding = {
    resourceType: codeOf(ResourceType, e.resourceType),
    patternType: codeOf(PatternType, e.patternType),
    resourceName: typeof e.resourceName === 'string' ? e.resourceName : '',
    principal: typeof e.principal === 'string' ? e.principal : '',
    host: typeof e.host === 'string' ? e.host : '',
    operation: codeOf(Operation, e.operation),
    permissionType: codeOf(Permission, e.permissionType),
  };
  return bindingProblem(b) === null && b.host !== '' ? b : null;
}

export function aclFile(dataDir: string): AclPersistence {
  const file = path.join(dataDir, ACLS_FILE);
  return {
    load() {
      const text = readTextIfExists(file);
      if (text === null) return [];
      const unusable = (why: string) =>
        new DataDirError(`${file} is unusable (${why}). krill will not start on it: fix or restore it, or move it away to start without its ACLs.`);
      let doc: { acls?: unknown };
      try {
        doc = JSON.parse(text) as typeof doc;
      } catch (err) {
        throw unusable((err as Error).message);
      }
      if (!Array.isArray(doc?.acls)) throw unusable('"acls" is not a list');
      return doc.acls.map((e: unknown, i) => {
        const b = typeof e === 'object' && e !== null ? bindingFromJson(e as Record<string, unknown>) : null;
        if (!b) throw unusable(`entry ${i} is not a valid ACL`);
        return b;
      });
    },
    save(bindings) {
      writeFileAtomic(file, JSON.stringify({ version: 1, acls: bindings.map(bindingToJson) }, null, 2) + '\n');
    },
  };
}
