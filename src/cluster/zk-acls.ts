// A clustered broker's ACLs, kept in ZooKeeper as Kafka's AclAuthorizer keeps them (zk/acl-znodes.ts): a
// change made on any broker writes the resource patterns it touched and a change notification, and every
// broker, watching the notifications, reads the ACLs anew and hands them to its authorizer. Until this
// broker has registered, its authorizer has none (and refuses all but super users).
import type { Logger } from '../logger.js';
import type { KafkaZk } from './zk/kafka-zk.js';
import { ACL_CHANGE_PATHS, ACL_PERSISTENT_PATHS, readAllAcls, writeResourceAcls } from './zk/acl-znodes.js';
import type { AclBinding } from '../security/acl.js';
import type { AclPersistence } from '../security/authorizer.js';

const patternKey = (b: AclBinding) => JSON.stringify([b.resourceType, b.patternType, b.resourceName]);

export class ZkAcls implements AclPersistence {
  /** Saves begun, and those still writing: a reload that overlapped one may have read the znodes half-written. */
  private savesBegun = 0;
  private savesWriting = 0;
  private reloading = false;
  private reloadAgain = false;

  constructor(
    private readonly options: {
      zk: () => KafkaZk;
      isSession: (zk: KafkaZk) => boolean;
      /** Told the whole set whenever ZooKeeper's changes. */
      onChange: (bindings: AclBinding[]) => void;
      log: Logger;
    },
  ) {}

  load(): AclBinding[] {
    return [];
  }

  /** Writes the patterns whose ACLs differ between `before` and `next`. */
  async save(next: readonly AclBinding[], before: readonly AclBinding[]): Promise<void> {
    const group = (list: readonly AclBinding[]) => {
      const m = new Map<string, AclBinding[]>();
      for (const b of list) m.set(patternKey(b), [...(m.get(patternKey(b)) ?? []), b]);
      return m;
    };
    const [was, now] = [group(before), group(next)];
    const zk = this.options.zk().zk;
    this.savesBegun++;
    this.savesWriting++;
    try {
      for (const key of new Set([...was.keys(), ...now.keys()])) {
        const [a, b] = [was.get(key) ?? [], now.get(key) ?? []];
        if (a.length === b.length && a.every((x, i) => x === b[i])) continue;
        await writeResourceAcls(zk, (b[0] ?? a[0])!, b);
      }
    } finally {
      this.savesWriting--;
    }
  }

  /** At each registration: the ACLs as they are, then again on every change notification. */
  async follow(session: KafkaZk): Promise<void> {
    for (const path of ACL_PERSISTENT_PATHS) await session.zk.createIfMissing(path);
    await this.reload(session);
  }

  private async reload(session: KafkaZk): Promise<void> {
    // One reload at a time: a notification during one makes it go round again, so the watches set by each
    // round cannot multiply into a storm of reads.
    if (this.reloading) {
      this.reloadAgain = true;
      return;
    }
    this.reloading = true;
    try {
      do {
        this.reloadAgain = false;
        if (!this.options.isSession(session)) return;
        const again = () => void this.reload(session).catch((err) => this.options.log.warn({ err: (err as Error).message }, 'reading ACL changes failed'));
        // Watch both notification lists first, so a change made while the ACLs are read is read again.
        for (const path of ACL_CHANGE_PATHS) await session.zk.getChildren(path, again);
        const begun = this.savesBegun;
        const overlapped = this.savesWriting > 0;
        const acls = await readAllAcls(session.zk);
        // A read that overlapped this broker's own save may predate it: handing it over would undo the change
        // this broker has just answered for (a DeleteAcls, then a DescribeAcls still showing the ACL). Read again.
        if (overlapped || this.savesWriting > 0 || this.savesBegun !== begun) this.reloadAgain = true;
        else this.options.onChange(acls);
      } while (this.reloadAgain);
    } finally {
      this.reloading = false;
    }
  }
}
