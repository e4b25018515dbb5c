#!/usr/bin/python3
"""confluent-kafka-python driver for the krill compatibility suite.

Usage: ck_client.py COMMAND < args.json  -> prints one JSON object on stdout, exits 0.
Any unexpected exception is printed as JSON {"exception": ...} with exit code 1.
Bytes travel as base64 strings (None stays null). Every client call has a timeout.

(Named ck_client.py, not confluent_kafka.py, so the script does not shadow the module.)
"""
import base64
import ctypes
import time

import confluent_kafka
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

import driver


def b64(b):
    return None if b is None else base64.b64encode(b).decode()


def unb64(s):
    return None if s is None else base64.b64decode(s)


# confluent-kafka-python < 1.8.2 (Debian bookworm ships 1.7.0) returns None header values from
# Message.headers() without taking a reference to None (confluentinc/confluent-kafka-python#1191), which
# aborts the interpreter ("Fatal Python error: none_dealloc: deallocating None"). Compensate with one
# Py_IncRef(None) per None value per headers() call on the affected versions.
_NEEDS_NONE_FIX = tuple(int(x) for x in confluent_kafka.version()[0].split('.')[:3]) < (1, 8, 2)
ctypes.pythonapi.Py_IncRef.argtypes = [ctypes.py_object]
ctypes.pythonapi.Py_IncRef.restype = None


def message_headers(m):
    hs = m.headers()
    if hs is not None and _NEEDS_NONE_FIX:
        for _, v in hs:
            if v is None:
                ctypes.pythonapi.Py_IncRef(None)
    return hs


def base_conf(a):
    return {
        'bootstrap.servers': a['bootstrap'],
        'broker.address.family': 'v4',
        'socket.timeout.ms': 10000,
    }


def produce(a):
    """Produces a['records'] ({key, value, headers, timestamp, partition}) and waits for every report."""
    conf = base_conf(a)
    conf.update({
        'acks': 'all',
        'compression.type': a.get('codec', 'none'),
        'linger.ms': a.get('linger_ms', 20),
        'message.timeout.ms': 20000,
        'enable.idempotence': False,
    })
    conf.update(a.get('conf', {}))
    # Client-level errors (an idempotent producer's fatal ones among them) never reach a delivery report.
    client_errors = []
    conf['error_cb'] = lambda err: client_errors.append({'error': err.name(), 'fatal': err.fatal(), 'message': err.str()})
    p = Producer(conf)
    reports = [None] * len(a['records'])

    def cb(i):
        def on_delivery(err, msg):
            if err is not None:
                reports[i] = {'error': err.name(), 'code': err.code()}
            else:
                ts = msg.timestamp()
                reports[i] = {'partition': msg.partition(), 'offset': msg.offset(), 'timestamp': ts[1], 'tstype': ts[0]}
        return on_delivery

    for i, r in enumerate(a['records']):
        kwargs = {'value': unb64(r.get('value')), 'key': unb64(r.get('key')), 'on_delivery': cb(i)}
        if r.get('headers') is not None:
            kwargs['headers'] = [(h[0], unb64(h[1])) for h in r['headers']]
        if r.get('timestamp') is not None:
            kwargs['timestamp'] = r['timestamp']
        if r.get('partition') is not None:
            kwargs['partition'] = r['partition']
        while True:
            try:
                p.produce(a['topic'], **kwargs)
                break
            except BufferError:
                p.poll(0.1)
        p.poll(0)
    remaining = p.flush(30)
    return {'reports': reports, 'undelivered': remaining, 'client_errors': client_errors}


def transactions(a):
    """One transactional producer (transactional.id a['id']) runs a['transactions'] in order: each
    {records: [...], end: 'commit'|'abort'} is begin_transaction, produce every record, then commit or abort.
    Returns the delivery reports per transaction and the first error (name, fatal/abortable) if any."""
    conf = base_conf(a)
    conf.update({'transactional.id': a['id'], 'linger.ms': 5, 'message.timeout.ms': 20000})
    conf.update(a.get('conf', {}))
    p = Producer(conf)
    out = []
    try:
        p.init_transactions(15)
        for t in a['transactions']:
            reports = []

            def on_delivery(err, msg, reports=reports):
                reports.append({'error': err.name()} if err is not None else {'partition': msg.partition(), 'offset': msg.offset()})
            p.begin_transaction()
            for r in t['records']:
                p.produce(a['topic'], value=unb64(r.get('value')), key=unb64(r.get('key')), partition=r.get('partition', -1), on_delivery=on_delivery)
                p.poll(0)
            if t['end'] == 'commit':
                p.commit_transaction(20)
            else:
                p.flush(20)  # the records reach the log before the abort, as in a real failed transaction
                p.abort_transaction(20)
            out.append({'end': t['end'], 'reports': reports})
    except KafkaException as e:
        err = e.args[0]
        return {'transactions': out, 'error': {'name': err.name(), 'fatal': err.fatal(), 'abortable': err.txn_requires_abort()}}
    return {'transactions': out, 'error': None}


def txn_offsets(a):
    """send_offsets_to_transaction: for each of a['transactions'] ({offsets: {partition: offset}, end}),
    begin, produce one record to a['output'], send the offsets of a['input'] for group a['group'], then
    commit or abort; after each, the group's committed offsets as a read_committed consumer's committed()
    sees them (OffsetFetch with require_stable)."""
    conf = base_conf(a)
    conf.update({'transactional.id': a['id'], 'linger.ms': 5})
    p = Producer(conf)
    cconf = base_conf(a)
    cconf.update({'group.id': a['group'], 'enable.auto.commit': False, 'isolation.level': 'read_committed'})
    c = Consumer(cconf)
    after = []
    try:
        p.init_transactions(15)
        for t in a['transactions']:
            p.begin_transaction()
            p.produce(a['output'], value=b'out', partition=0)
            tps = [TopicPartition(a['input'], int(part), off) for part, off in t['offsets'].items()]
            p.send_offsets_to_transaction(tps, c.consumer_group_metadata(), 15)
            if t['end'] == 'commit':
                p.commit_transaction(20)
            else:
                p.abort_transaction(20)
            got = c.committed([TopicPartition(a['input'], part) for part in a['partitions']], timeout=15)
            after.append([tp.offset for tp in got])
    except KafkaException as e:
        err = e.args[0]
        return {'committed': after, 'error': {'name': err.name(), 'fatal': err.fatal(), 'abortable': err.txn_requires_abort()}}
    finally:
        c.close()
    return {'committed': after, 'error': None}


def consume(a):
    """Assigns the given partitions from offset a.get('from', beginning) and reads a['count'] messages."""
    conf = base_conf(a)
    # Consumer() requires group.id even when only assign() is used; no group API is touched because
    # nothing subscribes and nothing commits.
    conf.update({
        'group.id': 'krill-compat-unused',
        'enable.auto.commit': False,
        'enable.auto.offset.store': False,
        'enable.partition.eof': False,
        'auto.offset.reset': 'earliest',
        'api.version.request': True,
    })
    conf.update(a.get('conf', {}))  # e.g. isolation.level (librdkafka's default is read_committed)
    c = Consumer(conf)
    start = a.get('from', confluent_kafka.OFFSET_BEGINNING)
    c.assign([TopicPartition(a['topic'], p, start) for p in a['partitions']])
    out = []
    errors = []
    deadline = time.time() + a.get('timeout', 20)
    while len(out) < a['count'] and time.time() < deadline:
        for m in c.consume(num_messages=1000, timeout=0.5):
            if m.error():
                errors.append(m.error().name())
                continue
            ts = m.timestamp()
            hs = message_headers(m)
            out.append({
                'partition': m.partition(), 'offset': m.offset(),
                'key': b64(m.key()), 'value': b64(m.value()),
                'headers': None if hs is None else [[h[0], b64(h[1])] for h in hs],
                'timestamp': ts[1], 'tstype': ts[0],
            })
    # Anything beyond the expected count shows up here too.
    for m in c.consume(num_messages=1000, timeout=0.5):
        if not m.error():
            out.append({'partition': m.partition(), 'offset': m.offset(), 'extra': True})
    c.close()
    return {'messages': out, 'errors': errors}


def offsets(a):
    """Watermarks and offsets_for_times (ListOffsets) for one partition."""
    conf = base_conf(a)
    conf.update({'group.id': 'krill-compat-unused', 'enable.auto.commit': False})
    c = Consumer(conf)
    tp = TopicPartition(a['topic'], a['partition'])
    low, high = c.get_watermark_offsets(tp, timeout=10, cached=False)
    by_time = {}
    for ts in a.get('times', []):
        res = c.offsets_for_times([TopicPartition(a['topic'], a['partition'], ts)], timeout=10)
        by_time[str(ts)] = {'offset': res[0].offset, 'error': None if res[0].error is None else res[0].error.name()}
    c.close()
    return {'low': low, 'high': high, 'by_time': by_time}


def admin_client(a):
    return AdminClient(base_conf(a))


def future_result(f, timeout=15):
    try:
        f.result(timeout=timeout)
        return {'ok': True}
    except KafkaException as e:
        err = e.args[0]
        return {'ok': False, 'error': err.name(), 'code': err.code(), 'message': err.str()}


def create_topics(a):
    admin = admin_client(a)
    topics = [NewTopic(t['name'], num_partitions=t.get('partitions', 1), replication_factor=t.get('replication_factor', 1),
                       config=t.get('config', {})) for t in a['topics']]
    fs = admin.create_topics(topics, validate_only=a.get('validate_only', False), request_timeout=15, operation_timeout=10)
    return {'results': {name: future_result(f) for name, f in fs.items()}}


def delete_topics(a):
    admin = admin_client(a)
    fs = admin.delete_topics(a['topics'], request_timeout=15, operation_timeout=10)
    return {'results': {name: future_result(f) for name, f in fs.items()}}


def list_topics(a):
    admin = admin_client(a)
    md = admin.list_topics(topic=a.get('topic'), timeout=10)
    return {
        'cluster_id': md.cluster_id,
        'controller_id': md.controller_id,
        'orig_broker_id': md.orig_broker_id,
        'brokers': [{'id': b.id, 'host': b.host, 'port': b.port} for b in md.brokers.values()],
        'topics': {
            name: {
                'error': None if t.error is None else t.error.name(),
                'partitions': sorted([{'id': p.id, 'leader': p.leader, 'replicas': list(p.replicas), 'isrs': list(p.isrs),
                                       'error': None if p.error is None else p.error.name()} for p in t.partitions.values()],
                                     key=lambda x: x['id']),
            } for name, t in md.topics.items()
        },
    }


def versions(a):
    return {'client': confluent_kafka.version()[0], 'librdkafka': confluent_kafka.libversion()[0]}


COMMANDS = {f.__name__: f for f in [produce, transactions, txn_offsets, consume, offsets, create_topics, delete_topics, list_topics, versions]}

if __name__ == '__main__':
    driver.main(COMMANDS)
