"""confluent-kafka 2.x (PyPI wheel, bundled librdkafka 2.x) driver: the AdminClient calls that
Debian's confluent-kafka-python 1.7 lacks. compat/python/ck_client.py and groups_client.py serve the
produce, consume, transaction and group scenarios, run with this venv's interpreter (see pypi.ts).

Usage: ck2_client.py COMMAND < args.json  -> prints one JSON object on stdout, exits 0.
"""
import confluent_kafka
from confluent_kafka import ConsumerGroupTopicPartitions, IsolationLevel, KafkaException, TopicCollection, TopicPartition
from confluent_kafka.admin import (AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, NewPartitions,
                                   NewTopic, OffsetSpec)

import driver


def admin(a):
    return AdminClient({'bootstrap.servers': a['bootstrap'], 'broker.address.family': 'v4', 'socket.timeout.ms': 10000})


def outcome(f, convert=lambda r: r, timeout=15):
    """A future's result through `convert`, or {error: name} when the client raised a KafkaException."""
    try:
        return convert(f.result(timeout=timeout))
    except KafkaException as e:
        return {'error': e.args[0].name()}


def tps_of(tps):
    return sorted([[tp.topic, tp.partition, tp.offset] + ([tp.error.name()] if tp.error else []) for tp in tps])


def versions(a):
    return {'client': confluent_kafka.__version__, 'librdkafka': confluent_kafka.libversion()[0]}


def topics_tour(a):
    """create_topics, describe_topics, create_partitions, describe_configs, incremental_alter_configs,
    describe_cluster, delete_topics (and describe_topics of the deleted one), on topic a['topic']."""
    ad = admin(a)
    t = a['topic']
    out = {}
    out['create'] = outcome(ad.create_topics([NewTopic(t, num_partitions=2, replication_factor=a.get('rf', 1),
                                                       config={'retention.ms': '3600000'})], operation_timeout=10)[t], lambda r: 'ok')

    def describe(names):
        fs = ad.describe_topics(TopicCollection(names), request_timeout=10)
        return {n: outcome(f, lambda d: {
            'name': d.name, 'topic_id': str(d.topic_id), 'is_internal': d.is_internal,
            'partitions': [{'id': p.id, 'leader': p.leader.id, 'replicas': [r.id for r in p.replicas], 'isr': [r.id for r in p.isr]}
                           for p in d.partitions]}) for n, f in fs.items()}
    out['describe'] = describe([t])
    out['create_partitions'] = outcome(ad.create_partitions([NewPartitions(t, 3)], operation_timeout=10)[t], lambda r: 'ok')
    out['describe_after'] = describe([t])
    res = ConfigResource(ConfigResource.Type.TOPIC, t)

    def configs():
        entries = outcome(ad.describe_configs([res], request_timeout=10)[res], lambda d: d)
        if 'error' in entries:
            return entries
        return {n: {'value': e.value, 'source': e.source, 'is_default': e.is_default, 'read_only': e.is_read_only}
                for n, e in entries.items() if n in ('retention.ms', 'cleanup.policy', 'max.message.bytes')}
    out['configs'] = configs()
    alter = ConfigResource(ConfigResource.Type.TOPIC, t, incremental_configs=[
        ConfigEntry('max.message.bytes', '123456', incremental_operation=AlterConfigOpType.SET),
        ConfigEntry('retention.ms', None, incremental_operation=AlterConfigOpType.DELETE)])
    out['alter'] = outcome(ad.incremental_alter_configs([alter])[alter], lambda r: 'ok')
    out['configs_after'] = configs()
    out['cluster'] = outcome(ad.describe_cluster(request_timeout=10), lambda c: {
        'cluster_id': c.cluster_id, 'controller': c.controller.id if c.controller else None,
        'nodes': sorted([[n.id, n.host, n.port] for n in c.nodes])})
    out['delete'] = outcome(ad.delete_topics([t], operation_timeout=10)[t], lambda r: 'ok')
    out['describe_deleted'] = describe([t])
    return out


def offsets_tour(a):
    """list_offsets (earliest, latest, max_timestamp, for_timestamp; read_committed and read_uncommitted),
    delete_records, list_offsets again, on partition 0 of a['topic']."""
    ad = admin(a)
    tp = TopicPartition(a['topic'], 0)

    def lo(spec, isolation=IsolationLevel.READ_UNCOMMITTED):
        fs = ad.list_offsets({tp: spec}, isolation_level=isolation, request_timeout=10)
        return outcome(fs[tp], lambda r: {'offset': r.offset, 'timestamp': r.timestamp})

    def all_specs():
        return {
            'earliest': lo(OffsetSpec.earliest()),
            'latest': lo(OffsetSpec.latest()),
            'latest_committed': lo(OffsetSpec.latest(), IsolationLevel.READ_COMMITTED),
            'max_timestamp': lo(OffsetSpec.max_timestamp()),
            'for_timestamp': lo(OffsetSpec.for_timestamp(a['timestamp'])),
        }
    out = {'before': all_specs()}
    fs = ad.delete_records([TopicPartition(a['topic'], 0, a['delete_before'])], operation_timeout=10)
    out['delete_records'] = outcome(list(fs.values())[0], lambda r: {'low_watermark': r.low_watermark})
    out['after'] = all_specs()
    return out


def groups_tour(a):
    """list_consumer_groups, describe_consumer_groups, list/alter consumer group offsets and
    delete_consumer_groups for group a['group'] (whose members have left) on a['topic'] (a['partitions'])."""
    ad = admin(a)
    g = a['group']
    tps = [TopicPartition(a['topic'], p) for p in range(a['partitions'])]
    out = {}

    def listing():
        r = ad.list_consumer_groups(request_timeout=10).result(timeout=15)
        return {'valid': sorted([[x.group_id, x.is_simple_consumer_group, x.state.name] for x in r.valid if x.group_id in a['groups']]),
                'errors': [str(e) for e in r.errors]}
    out['list'] = listing()
    out['describe'] = outcome(ad.describe_consumer_groups([g], request_timeout=10)[g], lambda d: {
        'group_id': d.group_id, 'state': d.state.name, 'simple': d.is_simple_consumer_group, 'assignor': d.partition_assignor,
        'members': len(d.members), 'coordinator': d.coordinator.id})
    out['describe_unknown'] = outcome(ad.describe_consumer_groups(['no-such-group'], request_timeout=10)['no-such-group'],
                                      lambda d: {'state': d.state.name, 'members': len(d.members)})

    def offsets():
        fs = ad.list_consumer_group_offsets([ConsumerGroupTopicPartitions(g, tps)], request_timeout=10)
        return outcome(fs[g], lambda r: tps_of(r.topic_partitions))
    out['offsets'] = offsets()
    target = [TopicPartition(a['topic'], p, a['alter_to']) for p in range(a['partitions'])]
    fs = ad.alter_consumer_group_offsets([ConsumerGroupTopicPartitions(g, target)], request_timeout=10)
    out['alter'] = outcome(fs[g], lambda r: tps_of(r.topic_partitions))
    out['offsets_after'] = offsets()
    out['delete'] = outcome(ad.delete_consumer_groups([g], request_timeout=10)[g], lambda r: 'ok')
    out['list_after'] = listing()
    out['offsets_deleted'] = offsets()
    return out


COMMANDS = {f.__name__: f for f in [versions, topics_tour, offsets_tour, groups_tour]}

if __name__ == '__main__':
    driver.main(COMMANDS, default=str)
