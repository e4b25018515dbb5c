// What a handler sees: the request it answers and the broker's services, each a narrow interface, so a
// handler names exactly the collaborators it uses (`handle({ replicas, apiVersion }, req)`) and none of
// them knows the broker object, the connection or each other's internals.
import type { Logger } from '../logger.js';
import type { RequestHeader } from '../../protocol/codec.js';
import type { BrokerConfig } from '../config.js';
import type { ClusterView } from '../cluster/cluster-view.js';
import type { ReplicaManager } from '../partition/replica-manager.js';
import type { GroupCoordinator } from '../group/coordinator.js';
import type { TopicAdmin } from '../topics.js';
import type { ConfigAdmin } from '../config-admin/config-admin.js';
import type { ProducerIdManager } from '../cluster/producer-id-manager.js';
import type { TransactionCoordinator } from '../txn/coordinator.js';
import type { TransactionStateTopic } from '../txn/state-topic.js';
import type { CoordinatorOwnership } from '../cluster/coordinator-guard.js';
import type { ControllerRequests, PartitionElections, PartitionReassignments } from '../cluster/cluster-services.js';
import type { BrokerMetrics } from '../metrics/broker-metrics.js';
import type { Session } from '../security/session.js';
import type { Authorizer } from '../security/authorizer.js';
import type { ClientQuotas } from '../security/quotas/client-quotas.js';
import type { SaslAuthenticator } from '../security/sasl-authenticator.js';
import type { ScramCredentialStore } from '../security/scram-credential-store.js';

export interface ApiVersionRange {
  apiKey: number;
  minVersion: number;
  maxVersion: number;
}

/** The broker's parts that requests use; built once by the broker and shared by every connection. */
export interface BrokerServices {
  /** Who this broker is, the cluster's id, its controller and endpoints. */
  readonly cluster: ClusterView;
  /** Partitions: reads, appends, waits for data. */
  readonly replicas: ReplicaManager;
  readonly groups: GroupCoordinator;
  /** Creating, deleting and listing topics, with Kafka's checks. */
  readonly topics: TopicAdmin;
  /** Describing and changing topic and broker configs at run time. */
  readonly configs: ConfigAdmin;
  /** Producer ids for idempotent producers (InitProducerId). */
  readonly producerIds: ProducerIdManager;
  /** The transaction coordinator, and the internal topic it keeps its state in. */
  readonly transactions: TransactionCoordinator;
  readonly transactionState: TransactionStateTopic;
  readonly config: BrokerConfig;
  /** Which groups and transactional ids this broker coordinates (all, on a single broker). */
  readonly coordinators: CoordinatorOwnership;
  /** The controller's requests to this broker, and a broker's to the controller (refused on a single broker). */
  readonly controllerRequests: ControllerRequests;
  /** ElectLeaders. */
  readonly elections: PartitionElections;
  /** AlterPartitionReassignments and ListPartitionReassignments. */
  readonly reassignments: PartitionReassignments;
  /** The client quotas: their store (DescribeClientQuotas, AlterClientQuotas) and the limits a Fetch obeys. */
  readonly clientQuotas: ClientQuotas;
  /** The SCRAM credentials logins are checked against (AlterUserScramCredentials, DescribeUserScramCredentials). */
  readonly scramCredentials: ScramCredentialStore;
  /** The APIs and versions this broker serves (ApiVersions). */
  apiVersions(): ApiVersionRange[];
  /** The counters /metrics serves; null without krill.http.listener, and then nothing is counted. */
  readonly metrics: BrokerMetrics | null;
  /** The ACLs and their checks; null without authorizer.class.name, and then everything is allowed. */
  readonly authorizer: Authorizer | null;
}

export interface RequestContext extends BrokerServices {
  header: RequestHeader;
  apiVersion: number;
  log: Logger;
  /** Aborted when the client's connection closes, so long polls stop waiting for nobody. */
  signal: AbortSignal;
  /** The peer's IP address, as the socket reports it. */
  clientAddress: string;
  /** The connection's listener and principal (src/security/session.ts). */
  session: Session;
  /** The connection's SASL exchange, on a SASL_PLAINTEXT or SASL_SSL listener only (SaslHandshake, SaslAuthenticate). */
  sasl?: SaslAuthenticator;
  /** Close the connection after the responses queued before this request (Kafka's closeConnection). */
  closeConnection(reason: string): void;
  /** Close the connection once this request's own response is written too. */
  closeAfterResponse(reason: string): void;
}
