// How the controller reaches the brokers, as Kafka's ControllerChannelManager.scala does it: one channel per
// live broker (registration), whose requests are delivered in order by a queue of their own, and the
// requests themselves (Kafka's ControllerBrokerRequestBatch), built from the controller's context: a
// partition's role to its replicas (LeaderAndIsr), the metadata to every broker (UpdateMetadata), replicas
// that stop or are deleted (StopReplica). Every request carries the controller's epoch and the target
// broker's epoch, so brokers ignore a stale controller or a request meant for an earlier registration.

import type tls from 'node:tls';
import type { SaslClientLogin } from '../security/sasl-client.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger.js';
import { API_KEYS, type MessageFor } from '../../protocol/messages/index.js';
import type { RequestInputOf } from '../../protocol/schema.js';
import { BrokerClient, INTER_BROKER_VERSIONS } from './broker-client.js';
import type { BrokerInfo } from './zk/kafka-zk.js';
import { LEADER_DURING_DELETE } from './metadata-cache.js';
import type { PartitionState } from './controller-core.js';
import type { ControllerContext } from './controller-context.js';
import { partitionKey, splitPartitionKey } from '../topic-partition.js';
import { SECURITY_PROTOCOLS } from '../listeners.js';

/** What the controller sends each broker (all answer with a top-level errorCode). */
type ControllerApi = typeof API_KEYS.LeaderAndIsr | typeof API_KEYS.StopReplica | typeof API_KEYS.UpdateMetadata;
type UpdateMetadataTopicStates = NonNullable<RequestInputOf<MessageFor<typeof API_KEYS.UpdateMetadata>>['topicStates']>;
/** Attempts at delivering one request to a live broker (it may be starting, or briefly unreachable). */
const SEND_ATTEMPTS = 5;
const SEND_RETRY_MS = 200;
/** UpdateMetadata's type (KIP-866): part of the metadata, or all of it. */
const UPDATE_INCREMENTAL = 1;
export const UPDATE_FULL = 2;

/** Requests queued for one broker, at most: beyond, new ones are dropped (and logged). */
const MAX_QUEUED_PER_BROKER = 10_000;

/** The controller's connection to one broker (of one registration) and the requests queued for it. */
interface Channel {
  client: BrokerClient;
  epoch: number;
  queue: Promise<void>;
  queued: number;
}

export interface ChannelManagerOptions {
  brokerId: number;
  log: Logger;
  /** controller.socket.timeout.ms. */
  requestTimeoutMs: number;
  /** Whether this broker is still the controller: a resigned one sends nothing more. */
  isActive(): boolean;
  /** TLS settings of the inter-broker listener, when it is SSL. */
  tls?: tls.ConnectionOptions;
  /** The SASL login of the inter-broker listener, when it is SASL. */
  sasl?: SaslClientLogin;
}

export class ControllerChannelManager {
  private readonly channels = new Map<number, Channel>();

  constructor(private readonly options: ChannelManagerOptions) {}

  /** A channel to this registration of the broker; one to an earlier registration is closed. */
  open(broker: BrokerInfo): void {
    const existing = this.channels.get(broker.id);
    if (existing?.epoch === broker.epoch) return;
    existing?.client.close();
    this.channels.set(broker.id, {
      epoch: broker.epoch,
      client: new BrokerClient({
        host: broker.host,
        port: broker.port,
        clientId: `krill-controller-${this.options.brokerId}`,
        tls: this.options.tls,
        sasl: this.options.sasl,
        requestTimeoutMs: this.options.requestTimeoutMs,
        log: this.options.log,
      }),
      queue: Promise.resolve(),
      queued: 0,
    });
  }

  close(id: number): void {
    this.channels.get(id)?.client.close();
    this.channels.delete(id);
  }

  closeAll(): void {
    for (const { client } of this.channels.values()) client.close();
    this.channels.clear();
  }

  /**
   * One request to a live broker, queued behind the others to that broker and delivered in order (Kafka's
   * per-broker RequestSendThread): events never wait for a broker, so a stalled one (a paused process, which
   * keeps its connection and answers nothing) delays only its own requests until ZooKeeper declares it dead
   * and its channel closes. Each is tried a few times (the broker may still be binding its port), then
   * logged and given up: the broker catches up at the next change it is sent.
   */
  send<K extends ControllerApi>(id: number, apiKey: K, version: number, body: RequestInputOf<MessageFor<K>>): Promise<void> {
    const channel = this.channels.get(id);
    if (!channel || !this.options.isActive()) return Promise.resolve();
    if (channel.queued >= MAX_QUEUED_PER_BROKER) {
      this.options.log.warn({ broker: id, apiKey }, 'too many controller requests queued for a broker that does not answer; dropping one');
      return Promise.resolve();
    }
    channel.queued++;
    channel.queue = channel.queue
      .then(() => this.deliver(id, channel, apiKey, version, body))
      .finally(() => {
        channel.queued--;
      });
    return Promise.resolve();
  }

  private async deliver<K extends ControllerApi>(id: number, channel: Channel, apiKey: K, version: number, body: RequestInputOf<MessageFor<K>>): Promise<void> {
    const log = this.options.log;
    for (let attempt = 1; ; attempt++) {
      if (this.channels.get(id) !== channel || !this.options.isActive()) return;
      try {
        // Each controller request's response has a top-level errorCode (ControllerApi).
        const response = (await channel.client.send(apiKey, version, body)) as { errorCode: number };
        if (response.errorCode) log.warn({ broker: id, apiKey, errorCode: response.errorCode }, 'broker refused a controller request');
        return;
      } catch (err) {
        if (attempt >= SEND_ATTEMPTS || this.channels.get(id) !== channel) {
          if (this.channels.get(id) === channel) log.warn({ broker: id, apiKey, err: (err as Error).message }, 'could not reach broker');
          return;
        }
        await sleep(SEND_RETRY_MS * attempt);
      }
    }
  }
}

/** What LeaderAndIsr and UpdateMetadata both say of a partition's state. */
function leadership(p: number, s: PartitionState): { partitionIndex: number; controllerEpoch: number; leader: number; leaderEpoch: number; isr: number[] } {
  return { partitionIndex: p, controllerEpoch: s.controllerEpoch, leader: s.leader, leaderEpoch: s.leaderEpoch, isr: s.isr };
}

/** The controller's requests to brokers, each built from the context as it is when it is sent. */
export class ControllerRequestBatch {
  constructor(
    private readonly ctx: ControllerContext,
    private readonly channels: ControllerChannelManager,
    private readonly brokerId: number,
  ) {}

  /** Tells the replicas of `keys` their roles, and every live broker the new metadata. */
  async announce(keys: string[], isNew: boolean): Promise<void> {
    if (keys.length === 0) return;
    await this.sendLeaderAndIsrFor(keys, [], isNew);
    await this.sendUpdateMetadata([...this.ctx.live.keys()], keys);
  }

  /** LeaderAndIsr of `keys` to each of their live replicas but those in `except`. */
  async sendLeaderAndIsrFor(keys: string[], except: number[], isNew = false): Promise<void> {
    const byBroker = new Map<number, string[]>();
    for (const key of keys) {
      for (const r of this.ctx.replicas(key) ?? []) {
        if (!this.ctx.live.has(r) || except.includes(r)) continue;
        const list = byBroker.get(r) ?? [];
        list.push(key);
        byBroker.set(r, list);
      }
    }
    await Promise.all([...byBroker].map(([id, list]) => this.sendLeaderAndIsr(id, list, isNew)));
  }

  async sendLeaderAndIsr(id: number, keys: string[], isNew: boolean): Promise<void> {
    const topicStates = this.topicStates(keys, (p, s, replicas) => ({
      ...leadership(p, s),
      partitionEpoch: s.zkVersion,
      replicas,
      addingReplicas: [],
      removingReplicas: [],
      isNew,
      leaderRecoveryState: 0,
    }));
    const live = this.ctx.live;
    const leaders = new Set<number>();
    for (const key of keys) leaders.add(this.ctx.states.get(key)!.leader);
    await this.channels.send(id, API_KEYS.LeaderAndIsr, INTER_BROKER_VERSIONS.LeaderAndIsr, {
      controllerId: this.brokerId,
      isKRaftController: false,
      controllerEpoch: this.ctx.epoch,
      brokerEpoch: live.get(id)?.epoch ?? -1,
      type: keys.length === this.ctx.partitionsWithReplica(id).length ? 1 : 0,
      topicStates,
      liveLeaders: [...leaders].filter((l) => live.has(l)).map((l) => ({ brokerId: l, hostName: live.get(l)!.host, port: live.get(l)!.port })),
    });
  }

  /** UpdateMetadata of `keys`; with every partition, marked as Kafka's full snapshot (type 2). */
  async sendUpdateMetadata(to: number[], keys: string[]): Promise<void> {
    const topicStates = this.topicStates(keys, (p, s, replicas) => ({
      ...leadership(p, s),
      zkVersion: s.zkVersion,
      replicas,
      offlineReplicas: replicas.filter((r) => !this.ctx.live.has(r)),
    }));
    await this.sendUpdateMetadataRaw(to, topicStates, keys.length === this.ctx.states.size ? UPDATE_FULL : UPDATE_INCREMENTAL);
  }

  async sendStopReplica(id: number, keys: string[], deletePartition = false): Promise<void> {
    await this.channels.send(id, API_KEYS.StopReplica, INTER_BROKER_VERSIONS.StopReplica, {
      controllerId: this.brokerId,
      controllerEpoch: this.ctx.epoch,
      brokerEpoch: this.ctx.live.get(id)?.epoch ?? -1,
      deletePartitions: deletePartition,
      topicStates: [...this.byTopic(keys)].map(([topicName, partitions]) => ({
        topicName,
        partitionStates: partitions.map((p) => ({
          partitionIndex: p,
          leaderEpoch: this.ctx.states.get(partitionKey(topicName, p))?.leaderEpoch ?? -1,
          deletePartition,
        })),
      })),
    });
  }

  /**
   * A deleted topic's partitions, to every live broker: StopReplica with delete (every broker keeps a log for
   * every partition, see ZkCluster, so all of them delete theirs), then metadata that drops them (leader -2).
   */
  async sendTopicDeletion(name: string, topicId: Buffer, partitions: number[]): Promise<void> {
    const live = [...this.ctx.live.keys()];
    await Promise.all(
      live.map((id) =>
        this.channels.send(id, API_KEYS.StopReplica, INTER_BROKER_VERSIONS.StopReplica, {
          controllerId: this.brokerId,
          controllerEpoch: this.ctx.epoch,
          brokerEpoch: this.ctx.live.get(id)?.epoch ?? -1,
          deletePartitions: true,
          topicStates: [{ topicName: name, partitionStates: partitions.map((p) => ({ partitionIndex: p, leaderEpoch: -2, deletePartition: true })) }],
        }),
      ),
    );
    await this.sendUpdateMetadataRaw(live, [
      {
        topicName: name,
        topicId,
        partitionStates: partitions.map((p) => ({
          partitionIndex: p,
          controllerEpoch: this.ctx.epoch,
          leader: LEADER_DURING_DELETE,
          leaderEpoch: 0,
          isr: [],
          zkVersion: 0,
          replicas: [],
          offlineReplicas: [],
        })),
      },
    ]);
  }

  private async sendUpdateMetadataRaw(to: number[], topicStates: UpdateMetadataTopicStates, type = UPDATE_INCREMENTAL): Promise<void> {
    const liveBrokers = [...this.ctx.live.values()]
      .sort((a, b) => a.id - b.id)
      .map((b) => ({
        id: b.id,
        // Every listener of the broker, as it registered them: each client is answered on its own listener.
        endpoints: b.endpoints.map((e) => ({
          port: e.port,
          host: e.host,
          listener: e.listener,
          securityProtocol: SECURITY_PROTOCOLS.indexOf(e.securityProtocol),
        })),
        rack: b.rack,
      }));
    await Promise.all(
      to.map((id) =>
        this.channels.send(id, API_KEYS.UpdateMetadata, INTER_BROKER_VERSIONS.UpdateMetadata, {
          controllerId: this.brokerId,
          isKRaftController: false,
          controllerEpoch: this.ctx.epoch,
          brokerEpoch: this.ctx.live.get(id)?.epoch ?? -1,
          type,
          topicStates,
          liveBrokers,
        }),
      ),
    );
  }

  /** Groups partition keys by topic, in a stable order. */
  private byTopic(keys: string[]): Map<string, number[]> {
    const grouped = new Map<string, number[]>();
    for (const key of keys.sort()) {
      const [topic, p] = splitPartitionKey(key);
      const list = grouped.get(topic) ?? [];
      list.push(p);
      grouped.set(topic, list);
    }
    return grouped;
  }

  /**
   * The topic states of a LeaderAndIsr or UpdateMetadata for `keys`, by topic, each partition as `describe`
   * puts it for that request from its state and replicas.
   */
  private topicStates<T>(
    keys: string[],
    describe: (p: number, s: PartitionState, replicas: number[]) => T,
  ): { topicName: string; topicId: Buffer; partitionStates: T[] }[] {
    const topicStates = [];
    for (const [topicName, partitions] of this.byTopic(keys)) {
      const topic = this.ctx.topics.get(topicName);
      if (!topic) continue;
      topicStates.push({
        topicName,
        topicId: topic.topicId,
        partitionStates: partitions.map((p) => describe(p, this.ctx.states.get(partitionKey(topicName, p))!, topic.assignment.get(p) ?? [])),
      });
    }
    return topicStates;
  }
}
