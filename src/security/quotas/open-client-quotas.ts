// The broker's client quotas as it starts: a single broker's from its data dir's file, a cluster
// member's from ZooKeeper (written through `clustered`, read once it registers: zk-config-changes.ts).

import type { BrokerConfig } from '../../config.js';
import { clientQuotasFile, readClientQuotasFile } from '../../storage/client-quotas-file.js';
import { ClientQuotaStore, type ClientQuotaPersistence } from './client-quota-store.js';
import { ClientQuotas } from './client-quotas.js';

export function openClientQuotas(config: BrokerConfig, dataDir: string, clustered: (() => ClientQuotaPersistence) | null): ClientQuotas {
  const store = clustered
    ? new ClientQuotaStore({ write: (changed, all) => clustered().write(changed, all) })
    : new ClientQuotaStore(clientQuotasFile(dataDir), readClientQuotasFile(dataDir));
  return new ClientQuotas(store, { samples: config.int('quota.window.num'), windowMs: config.int('quota.window.size.seconds') * 1000 });
}
