// Kafka's config change notifications (/config/changes, ZkNodeChangeNotificationListener) as a broker reads
// them: a topic's configs, the cluster-wide dynamic broker configs, client quotas or SCRAM credentials, changed through any broker apply on
// every broker. Writing them (with the notification) is the ZooKeeper topic store's part (zk-topic-store.ts).

import type { Logger } from '../logger.js';
import type { BrokerConfig } from '../config.js';
import type { LogManager } from '../storage/log-manager.js';
import type { Controller } from './controller.js';
import type { KafkaZk } from './zk/kafka-zk.js';
import { BROKER_DEFAULT_ENTITY } from './zk/znodes.js';
import type { ClientQuotaStore } from '../security/quotas/client-quota-store.js';
import { readAllClientQuotas, readChangedClientQuotas } from './zk-client-quotas.js';
import type { ScramCredentialStore } from '../security/scram-credential-store.js';
import { readAllScramCredentials, readChangedScramCredentials } from './zk-scram-credentials.js';

/** Kafka's ZkNodeChangeNotificationListener.changeExpirationMs. */
const CONFIG_CHANGE_EXPIRATION_MS = 15 * 60_000;

export interface ZkConfigChangesOptions {
  config: BrokerConfig;
  logs: LogManager;
  log: Logger;
  /** Whether `zk` is still the broker's session (a watch of an expired one stops). */
  isSession: (zk: KafkaZk) => boolean;
  /** This broker's controller while it is the active one: told when unclean elections may have become allowed. */
  activeController: () => Controller | null;
  /** Sets the cluster-wide dynamic broker configs ZooKeeper holds on this broker; throws when they are refused. */
  applyClusterBrokerConfigs: (configs: Record<string, string>) => void;
  /** The client quotas this broker enforces, kept as ZooKeeper's /config/users and /config/clients have them. */
  clientQuotas?: Pick<ClientQuotaStore, 'replace' | 'replaceAll'>;
  /** The SCRAM credentials logins are checked against, kept as ZooKeeper's /config/users has them. */
  scramCredentials?: Pick<ScramCredentialStore, 'replaceUser' | 'replaceAll'>;
}

export class ZkConfigChanges {
  /** The notifications already applied (their sequence numbers), and when each was made. */
  private lastApplied = -1;
  private readonly changeTimes = new Map<string, number>();

  constructor(private readonly options: ZkConfigChangesOptions) {}

  /** At each registration: the cluster-wide configs as they are now, then every change from here on. */
  async follow(zk: KafkaZk): Promise<void> {
    await this.applyBrokerDefaults(zk);
    this.options.clientQuotas?.replaceAll(await readAllClientQuotas(zk));
    await this.readScramCredentials(zk);
    await this.watch(zk);
  }

  /** Every user's SCRAM credentials as ZooKeeper has them now (also before registering: zk-cluster.ts). */
  async readScramCredentials(zk: KafkaZk): Promise<void> {
    this.options.scramCredentials?.replaceAll(await readAllScramCredentials(zk, this.options.log));
  }

  private async watch(zk: KafkaZk): Promise<void> {
    const { options } = this;
    if (!options.isSession(zk)) return;
    const names = await zk.getConfigChanges(
      () => void this.watch(zk).catch((err) => options.log.warn({ err: (err as Error).message }, 'reading config changes failed')),
    );
    const sequence = (n: string) => Number(n.slice(n.lastIndexOf('_') + 1));
    const pending = names.filter((n) => sequence(n) > this.lastApplied).sort((a, b) => sequence(a) - sequence(b));
    for (const name of pending) {
      this.lastApplied = sequence(name);
      const change = await zk.readConfigChange(name);
      if (!change) continue;
      this.changeTimes.set(name, change.createdMs);
      if (change.entityType === 'brokers' && change.entityName === BROKER_DEFAULT_ENTITY) {
        await this.applyBrokerDefaults(zk);
        if (options.config.bool('unclean.leader.election.enable')) options.activeController()?.uncleanElectionMayBeAllowed();
      }
      const quotas = options.clientQuotas && (await readChangedClientQuotas(zk, change.entityType, change.entityName));
      if (quotas) options.clientQuotas!.replace(quotas.path, quotas.values);
      const scram = options.scramCredentials && (await readChangedScramCredentials(zk, change.entityType, change.entityName, options.log));
      if (scram) options.scramCredentials!.replaceUser(scram.user, scram.credentials);
      if (change.entityType !== 'topics' || !options.logs.getTopic(change.entityName)) continue;
      const configs = await zk.getTopicConfig(change.entityName);
      options.logs.setTopicConfigs(change.entityName, configs);
      if (configs['unclean.leader.election.enable'] === 'true') options.activeController()?.uncleanElectionMayBeAllowed();
    }
    // As Kafka's brokers do, notifications older than 15 minutes go: every broker has applied them by then.
    const now = Date.now();
    for (const [name, createdMs] of this.changeTimes) {
      if (createdMs + CONFIG_CHANGE_EXPIRATION_MS > now) continue;
      this.changeTimes.delete(name);
      await zk.deleteConfigChange(name);
    }
  }

  /**
   * The cluster-wide dynamic broker configs as ZooKeeper has them, applied to this broker (at start, and
   * on each change notification); a broker keeps its own when none were ever set cluster-wide.
   */
  private async applyBrokerDefaults(zk: KafkaZk): Promise<void> {
    const configs = await zk.getBrokerDefaultConfig();
    if (configs === null) return;
    try {
      this.options.applyClusterBrokerConfigs(configs);
    } catch (err) {
      this.options.log.warn({ configs, err: (err as Error).message }, 'cannot apply the cluster-wide dynamic broker configs');
    }
  }
}
