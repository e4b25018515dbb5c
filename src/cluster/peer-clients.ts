// The connections a broker keeps to the other brokers of its cluster for the requests it sends them itself
// (AlterPartition to the controller, WriteTxnMarkers to a partition's leader): one BrokerClient per broker
// endpoint, opened on first use and kept until the broker leaves the cluster. The controller's own channels
// (controller.ts) and the replica fetchers (replica-fetcher.ts) keep theirs.

import type tls from 'node:tls';
import type { SaslClientLogin } from '../security/sasl-client.js';
import type { Logger } from '../logger.js';
import { BrokerClient } from './broker-client.js';
import type { BrokerEndpoint } from './cluster-view.js';

export class PeerClients {
  private readonly clients = new Map<string, BrokerClient>();

  constructor(
    private readonly localNodeId: number,
    private readonly requestTimeoutMs: number,
    private readonly log: Logger,
    /** TLS settings of the inter-broker listener, when it is SSL. */
    private readonly tls?: tls.ConnectionOptions,
    /** The SASL login of the inter-broker listener, when it is SASL. */
    private readonly sasl?: SaslClientLogin,
  ) {}

  /** The connection to `endpoint`; a broker that moved to another address gets a new one. */
  to(endpoint: BrokerEndpoint): BrokerClient {
    const key = `${endpoint.nodeId}/${endpoint.host}:${endpoint.port}`;
    let client = this.clients.get(key);
    if (!client) {
      client = this.open(endpoint);
      this.clients.set(key, client);
    }
    return client;
  }

  /** A connection of its own, for one exchange; the caller closes it. */
  open(endpoint: { host: string; port: number }): BrokerClient {
    return new BrokerClient({
      host: endpoint.host,
      port: endpoint.port,
      clientId: `krill-broker-${this.localNodeId}`,
      tls: this.tls,
      sasl: this.sasl,
      requestTimeoutMs: this.requestTimeoutMs,
      log: this.log,
    });
  }

  closeAll(): void {
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }
}
