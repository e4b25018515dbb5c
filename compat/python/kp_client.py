#!/usr/bin/python3
"""kafka-python driver for the krill compatibility suite.

Usage: kp_client.py COMMAND < args.json  -> prints one JSON object on stdout, exits 0.
Any unexpected exception is printed as JSON {"exception": ...} with exit code 1.
Bytes travel as base64 strings (None stays null). Every client call has a timeout.
"""
import base64
import time

import kafka
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import KafkaAdminClient, NewTopic
from kafka.errors import KafkaError

import driver


def b64(b):
    return None if b is None else base64.b64encode(b).decode()


def unb64(s):
    return None if s is None else base64.b64decode(s)


def common(a):
    return {
        'bootstrap_servers': a['bootstrap'],
        'request_timeout_ms': 15000,
        'api_version_auto_timeout_ms': 10000,
        'reconnect_backoff_max_ms': 1000,
    }


def error_of(e):
    return {'error': type(e).__name__, 'errno': getattr(e, 'errno', None), 'message': str(e)}


def produce(a):
    p = KafkaProducer(acks='all', compression_type=a.get('codec'), linger_ms=a.get('linger_ms', 20),
                      max_block_ms=15000, retries=0, **a.get('conf', {}), **common(a))
    futures = []
    for r in a['records']:
        kwargs = {'value': unb64(r.get('value')), 'key': unb64(r.get('key'))}
        if r.get('headers') is not None:
            kwargs['headers'] = [(h[0], unb64(h[1])) for h in r['headers']]
        if r.get('timestamp') is not None:
            kwargs['timestamp_ms'] = r['timestamp']
        if r.get('partition') is not None:
            kwargs['partition'] = r['partition']
        futures.append(p.send(a['topic'], **kwargs))
    p.flush(timeout=30)
    reports = []
    for f in futures:
        try:
            md = f.get(timeout=30)
            reports.append({'partition': md.partition, 'offset': md.offset, 'timestamp': md.timestamp})
        except KafkaError as e:
            reports.append(error_of(e))
    p.close(timeout=10)
    return {'reports': reports, 'api_version': list(p.config['api_version'])}


def consume(a):
    c = KafkaConsumer(group_id=None, enable_auto_commit=False, auto_offset_reset='earliest',
                      fetch_max_wait_ms=200, **a.get('conf', {}), **common(a))
    tps = [TopicPartition(a['topic'], p) for p in a['partitions']]
    c.assign(tps)
    if 'from' in a:
        for tp in tps:
            c.seek(tp, a['from'])
    else:
        c.seek_to_beginning(*tps)
    out = []
    deadline = time.time() + a.get('timeout', 20)
    while len(out) < a['count'] and time.time() < deadline:
        for tp, msgs in c.poll(timeout_ms=500, max_records=10000).items():
            for m in msgs:
                out.append({
                    'partition': m.partition, 'offset': m.offset, 'key': b64(m.key), 'value': b64(m.value),
                    'headers': [[h[0], b64(h[1])] for h in m.headers], 'timestamp': m.timestamp,
                    'tstype': m.timestamp_type,
                })
    # Anything beyond the expected count shows up as an extra.
    for tp, msgs in c.poll(timeout_ms=500).items():
        for m in msgs:
            out.append({'partition': m.partition, 'offset': m.offset, 'extra': True})
    c.close()
    return {'messages': out}


def offsets(a):
    c = KafkaConsumer(group_id=None, enable_auto_commit=False, **common(a))
    tps = [TopicPartition(a['topic'], p) for p in a['partitions']]
    begin = c.beginning_offsets(tps)
    end = c.end_offsets(tps)
    by_time = {}
    for ts in a.get('times', []):
        res = c.offsets_for_times({tp: ts for tp in tps})
        by_time[str(ts)] = {str(tp.partition): (None if v is None else {'offset': v.offset, 'timestamp': v.timestamp})
                            for tp, v in res.items()}
    c.close()
    return {'beginning': {str(tp.partition): o for tp, o in begin.items()},
            'end': {str(tp.partition): o for tp, o in end.items()}, 'by_time': by_time}


def admin(a):
    return KafkaAdminClient(client_id='krill-compat', **common(a))


def create_topics(a):
    """One CreateTopics call per topic (kafka-python raises on the first failing topic of a response)."""
    ad = admin(a)
    results = {}
    for t in a['topics']:
        nt = NewTopic(t['name'], t.get('partitions', 1), t.get('replication_factor', 1), topic_configs=t.get('config', {}))
        try:
            resp = ad.create_topics([nt], timeout_ms=10000, validate_only=a.get('validate_only', False))
            errs = [list(x)[:2] for x in resp.topic_errors]
            results[t['name']] = {'ok': True, 'response': errs}
        except KafkaError as e:
            results[t['name']] = dict(ok=False, **error_of(e))
    ad.close()
    return {'results': results}


def delete_topics(a):
    ad = admin(a)
    results = {}
    for name in a['topics']:
        try:
            resp = ad.delete_topics([name], timeout_ms=10000)
            results[name] = {'ok': True, 'response': [list(x) for x in resp.topic_error_codes]}
        except KafkaError as e:
            results[name] = dict(ok=False, **error_of(e))
    ad.close()
    return {'results': results}


def describe(a):
    ad = admin(a)
    out = {'topics': sorted(ad.list_topics()), 'cluster': ad.describe_cluster()}
    if a.get('describe'):
        out['described'] = ad.describe_topics(a['describe'])
    ad.close()
    return out


def versions(a):
    mods = {}
    for m in ['snappy', 'lz4', 'zstandard']:
        try:
            __import__(m)
            mods[m] = True
        except ImportError:
            mods[m] = False
    return {'kafka_python': kafka.__version__, 'modules': mods}


COMMANDS = {f.__name__: f for f in [produce, consume, offsets, create_topics, delete_topics, describe, versions]}

if __name__ == '__main__':
    driver.main(COMMANDS, default=repr)
