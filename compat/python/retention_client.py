#!/usr/bin/python3
"""confluent-kafka-python driver for krill's retention tests (compat/python/retention.test.ts).

Usage: retention_client.py COMMAND < args.json  -> prints one JSON object on stdout, exits 0.
confluent-kafka-python 1.7.0 (Debian's) has no AdminClient.delete_records (added in 2.4), so these
commands drive what it has: a group's committed offset, and a group consumer that finds it below the log
start offset and resets per auto.offset.reset.
"""
import time

from confluent_kafka import Consumer, TopicPartition

import driver


def conf_for(a, **extra):
    conf = {
        'bootstrap.servers': a['bootstrap'],
        'broker.address.family': 'v4',
        'socket.timeout.ms': 10000,
        'group.id': a['group'],
        'enable.auto.commit': False,
        'enable.partition.eof': False,
    }
    conf.update(extra)
    return conf


def commit(a):
    """Commits a['offset'] for partition 0 of a['topic'] in group a['group'] (a standalone commit)."""
    c = Consumer(conf_for(a))
    try:
        tp = TopicPartition(a['topic'], 0, a['offset'])
        c.commit(offsets=[tp], asynchronous=False)
        got = c.committed([TopicPartition(a['topic'], 0)], timeout=10)
        return {'committed': got[0].offset}
    finally:
        c.close()


def group_consume(a):
    """Subscribes with auto.offset.reset=a['reset'] and reads until a['count'] messages or a['timeout'] s."""
    c = Consumer(conf_for(a, **{'auto.offset.reset': a['reset']}))
    offsets, errors = [], []
    try:
        c.subscribe([a['topic']])
        deadline = time.time() + a.get('timeout', 20)
        while len(offsets) < a['count'] and time.time() < deadline:
            for m in c.consume(num_messages=100, timeout=0.5):
                if m.error():
                    errors.append(m.error().name())
                    if a.get('stop_on_error'):
                        return {'offsets': offsets, 'errors': errors}
                else:
                    offsets.append(m.offset())
        return {'offsets': offsets, 'errors': errors}
    finally:
        c.close()


COMMANDS = {f.__name__: f for f in [commit, group_consume]}

if __name__ == '__main__':
    driver.main(COMMANDS)
