// krill cluster: the brokers, the controller, and the partitions that need attention (under-replicated:
// fewer in-sync replicas than replicas; offline: no leader), as kafka-topics --under-replicated-partitions
// and --unavailable-partitions report them. The controller is Metadata's: in KRaft mode a broker names a
// random live broker there (Kafka's KRaftMetadataCache), as Kafka's own tools show it.
import type { Command } from './command.js';
import { columns } from './table.js';

const cluster: Command = {
  name: 'cluster',
  summary: 'the brokers, the controller, under-replicated and offline partitions',
  usage: '',
  options: {},
  async run(ctx) {
    const md = await (await ctx.client()).metadata(null);
    const { clusterId, controllerId } = md;
    const partitions = md.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, ...p })));
    const row = (p: (typeof partitions)[number]) => ({ topic: p.topic, partition: p.partition, leader: p.leader, replicas: p.replicas, isr: p.isr });
    const underReplicated = partitions.filter((p) => p.leader >= 0 && p.isr.length < p.replicas.length).map(row);
    const offline = partitions.filter((p) => p.leader < 0).map(row);
    const brokers = md.brokers.map((b) => ({ ...b, controller: b.nodeId === controllerId }));
    if (ctx.json) return ctx.print([], [], { clusterId, controllerId, brokers, underReplicated, offline });
    ctx.line(`Cluster: ${clusterId ?? '-'}  Controller: ${controllerId}  Topics: ${md.topics.length}  Partitions: ${partitions.length}`);
    ctx.print(brokers, columns('nodeId', 'host', 'port', 'rack', 'controller'));
    ctx.line(`Under-replicated partitions: ${underReplicated.length}`);
    if (underReplicated.length > 0) ctx.print(underReplicated, columns('topic', 'partition', 'leader', 'replicas', 'isr'));
    ctx.line(`Offline partitions: ${offline.length}`);
    if (offline.length > 0) ctx.print(offline, columns('topic', 'partition', 'leader', 'replicas', 'isr'));
  },
};

export const CLUSTER_COMMANDS = [cluster];
