#!/usr/bin/python3
"""Partition administration through both Python clients, for the krill compatibility suite.

Usage: partitions_client.py COMMAND < args.json  -> one JSON object on stdout (see driver.py).
ck_*: confluent-kafka-python (librdkafka); kp_*: kafka-python. Every client call has a timeout.
"""
from confluent_kafka import KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewPartitions
from kafka.admin import KafkaAdminClient, NewPartitions as KpNewPartitions
from kafka.errors import KafkaError as KpKafkaError

import driver


def ck_conf(a):
    return {'bootstrap.servers': a['bootstrap'], 'broker.address.family': 'v4', 'socket.timeout.ms': 10000}


def ck_create_partitions(a):
    """AdminClient.create_partitions for each {topic, count, assignment?}; validate_only as given."""
    admin = AdminClient(ck_conf(a))
    wanted = [NewPartitions(t['topic'], t['count'], **({'replica_assignment': t['assignment']} if 'assignment' in t else {}))
              for t in a['topics']]
    fs = admin.create_partitions(wanted, validate_only=a.get('validate_only', False), request_timeout=15, operation_timeout=10)
    out = {}
    for name, f in fs.items():
        try:
            f.result(timeout=15)
            out[name] = {'ok': True}
        except KafkaException as e:
            err = e.args[0]
            out[name] = {'ok': False, 'error': err.name(), 'message': err.str()}
    return {'results': out}


def ck_partitions(a):
    """Partition ids and leaders of a['topic'] from AdminClient.list_topics (the Metadata the client sees)."""
    md = AdminClient(ck_conf(a)).list_topics(topic=a['topic'], timeout=10)
    t = md.topics[a['topic']]
    return {'error': None if t.error is None else t.error.name(), 'partitions': sorted([[p.id, p.leader] for p in t.partitions.values()])}


def ck_produce(a):
    """Produces a['records'] ({key, value}, strings or null) to a['topic'] and returns each delivery report."""
    conf = ck_conf(a)
    conf.update({'linger.ms': 5, 'message.timeout.ms': 15000, 'enable.idempotence': False})
    p = Producer(conf)
    reports = [None] * len(a['records'])

    def cb(i):
        def on_delivery(err, msg):
            reports[i] = {'partition': msg.partition(), 'offset': msg.offset()} if err is None else {'error': err.name(), 'message': err.str()}
        return on_delivery

    for i, r in enumerate(a['records']):
        p.produce(a['topic'], key=r.get('key'), value=r.get('value'), partition=r.get('partition', -1), on_delivery=cb(i))
    left = p.flush(20)
    return {'reports': reports, 'undelivered': left}


def kp_admin(a):
    return KafkaAdminClient(client_id='krill-compat', bootstrap_servers=a['bootstrap'], request_timeout_ms=15000,
                            api_version_auto_timeout_ms=10000, reconnect_backoff_max_ms=1000)


def kp_create_partitions(a):
    """KafkaAdminClient.create_partitions, one topic per call (it raises on the first error of a response)."""
    ad = kp_admin(a)
    out = {}
    for t in a['topics']:
        try:
            resp = ad.create_partitions({t['topic']: KpNewPartitions(t['count'], t.get('assignment'))}, timeout_ms=10000,
                                        validate_only=a.get('validate_only', False))
            out[t['topic']] = {'ok': True, 'response': [list(x) for x in resp.topic_errors]}
        except KpKafkaError as e:
            out[t['topic']] = {'ok': False, 'error': type(e).__name__, 'message': str(e)}
    ad.close()
    return {'results': out}


def kp_describe_topics(a):
    ad = kp_admin(a)
    described = ad.describe_topics(a['topics'])
    ad.close()
    return {'topics': {t['topic']: {'error_code': t['error_code'], 'partitions': sorted(p['partition'] for p in t['partitions'])} for t in described}}


if __name__ == '__main__':
    driver.main({f.__name__: f for f in [ck_create_partitions, ck_partitions, ck_produce, kp_create_partitions, kp_describe_topics]})
