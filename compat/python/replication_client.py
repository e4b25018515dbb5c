#!/usr/bin/python3
"""confluent-kafka-python under broker failures, for the replication suites (compat/cluster/*).

Usage: replication_client.py COMMAND < args.json  -> prints one JSON object on stdout, exits 0.

The long-running commands are steered through files, so that a test can kill, pause or restart brokers
while they run and still get every report back:
  - stop_file: when it exists, the command stops (a producer then flushes what it has in flight);
  - progress_file: rewritten (atomically, by rename) about every 100 ms with what happened so far.
Every wait is bounded (max_seconds, flush and client timeouts), so a broker that never comes back makes
the command return with what it has rather than hang.

Values are text ("<prefix>-<n>"), so reports and logs can be compared record by record.
"""
import json
import os
import time

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Producer, TopicPartition

import driver


def now_ms():
    return int(time.time() * 1000)


def base_conf(a):
    return {
        'bootstrap.servers': a['bootstrap'],
        'broker.address.family': 'v4',
        'socket.timeout.ms': 10000,
        # Reconnect quickly to a broker that came back: the default backoff grows to 10 s.
        'reconnect.backoff.max.ms': 1000,
        'topic.metadata.refresh.interval.ms': 1000,
    }


class Progress:
    """Writes a JSON snapshot to a['progress_file'] (when given) at most every 100 ms, or when forced."""

    def __init__(self, path):
        self.path = path
        self.written_at = 0.0

    def write(self, snapshot, force=False):
        if not self.path or (not force and time.time() - self.written_at < 0.1):
            return
        tmp = self.path + '.tmp'
        with open(tmp, 'w') as f:
            json.dump(snapshot, f)
        os.replace(tmp, self.path)
        self.written_at = time.time()


def stopped(a, started):
    return (a.get('stop_file') and os.path.exists(a['stop_file'])) or time.time() - started > a.get('max_seconds', 120)


def produce_load(a):
    """An idempotent acks=all producer (a['conf'] overrides) sending "<prefix>-<n>" at about a['rate'] records a
    second, round robin over a['partitions'] partitions (or to a['partition']), until the stop file appears or
    the producer has a fatal error (produce_error); then flush.

    Returns every delivery report in send order: {value, partition, offset, at} (at: ms since the epoch, when
    the report arrived) or {value, error}; and the client-level errors. Progress: {sent, acked, failed,
    last_ack_by_partition: {p: {at, offset}}}."""
    conf = base_conf(a)
    conf.update({
        'acks': 'all',
        'enable.idempotence': True,
        'linger.ms': 5,
        # Long enough to ride out a failover (session timeout, election); a record still fails after it.
        'message.timeout.ms': a.get('message_timeout_ms', 60000),
        'retry.backoff.ms': 100,
    })
    conf.update(a.get('conf', {}))
    client_errors = []
    conf['error_cb'] = lambda err: client_errors.append({'error': err.name(), 'fatal': err.fatal(), 'message': err.str(), 'at': now_ms()})
    p = Producer(conf)
    reports = []
    counts = {'sent': 0, 'acked': 0, 'failed': 0}
    last_ack = {}
    progress = Progress(a.get('progress_file'))

    def snapshot():
        return dict(counts, last_ack_by_partition=last_ack, errors=len(client_errors))

    def on_delivery(i):
        def cb(err, msg):
            at = now_ms()
            if err is not None:
                reports[i] = {'value': reports[i]['value'], 'error': err.name(), 'at': at}
                counts['failed'] += 1
            else:
                reports[i] = {'value': reports[i]['value'], 'partition': msg.partition(), 'offset': msg.offset(), 'at': at}
                counts['acked'] += 1
                last_ack[str(msg.partition())] = {'at': at, 'offset': msg.offset()}
        return cb

    started = time.time()
    interval = 1.0 / a.get('rate', 100)
    n = 0
    next_at = time.time()
    produce_error = None
    while not stopped(a, started) and produce_error is None:
        if a.get('count') is not None and n >= a['count']:
            p.poll(0.05)
            progress.write(snapshot())
            continue
        value = '%s-%06d' % (a['prefix'], n)
        reports.append({'value': value})
        kwargs = {'value': value.encode(), 'on_delivery': on_delivery(n)}
        if a.get('partition') is not None:
            kwargs['partition'] = a['partition']
        elif a.get('partitions'):
            kwargs['partition'] = n % a['partitions']
        while True:
            try:
                p.produce(a['topic'], **kwargs)
                break
            except BufferError:
                p.poll(0.05)
            except KafkaException as e:
                # A fatal error (error_cb has it too): nothing more can be sent; report what was delivered.
                produce_error = e.args[0].name() if e.args else repr(e)
                reports.pop()
                break
        if produce_error is not None:
            break
        n += 1
        counts['sent'] = n
        next_at += interval
        # Serve delivery reports while waiting for the next send.
        p.poll(max(0.0, next_at - time.time()))
        progress.write(snapshot())
    remaining = p.flush(a.get('flush_seconds', 60))
    progress.write(snapshot(), force=True)
    return {'reports': reports, 'undelivered': remaining, 'client_errors': client_errors, 'produce_error': produce_error}


def read_all(a):
    """Every record of the topic's partitions a['partitions'] from the beginning up to each partition's high
    watermark at the start: [[partition, offset, value]] in log order per partition."""
    conf = base_conf(a)
    conf.update({'group.id': 'krill-replication-unused', 'enable.auto.commit': False, 'enable.partition.eof': False,
                 'isolation.level': 'read_uncommitted'})
    c = Consumer(conf)
    deadline = time.time() + a.get('timeout', 30)
    highs = {}
    for part in a['partitions']:
        highs[part] = c.get_watermark_offsets(TopicPartition(a['topic'], part), timeout=10, cached=False)[1]
    c.assign([TopicPartition(a['topic'], part, OFFSET_BEGINNING) for part in a['partitions']])
    out = []
    next_offset = {part: 0 for part in a['partitions']}
    errors = []
    while any(next_offset[part] < highs[part] for part in highs) and time.time() < deadline:
        for m in c.consume(num_messages=1000, timeout=0.5):
            if m.error():
                errors.append(m.error().name())
                continue
            if m.offset() >= highs[m.partition()]:
                continue
            out.append([m.partition(), m.offset(), None if m.value() is None else m.value().decode()])
            next_offset[m.partition()] = m.offset() + 1
    c.close()
    return {'records': out, 'highs': {str(k): v for k, v in highs.items()}, 'next': {str(k): v for k, v in next_offset.items()}, 'errors': errors}


def group_consume(a):
    """A consumer in group a['group'] subscribed to a['topic'], committing synchronously every a['commit_every']
    records (and when idle), at most a['rate'] records a second, until the stop file appears; then close()
    WITHOUT committing what it read since its last commit, as a consumer that dies between commits would.

    Returns what it read ([[partition, offset, value]] in order), its commits ({at, offsets: {p: next offset},
    error}), its assignments and the errors it saw. Progress: {consumed, commits_ok, last_commit_ok_at,
    last_commit_error}."""
    conf = base_conf(a)
    conf.update({
        'group.id': a['group'],
        'enable.auto.commit': False,
        'auto.offset.reset': 'earliest',
        'session.timeout.ms': a.get('session_timeout_ms', 10000),
        'heartbeat.interval.ms': 1000,
        'enable.partition.eof': False,
    })
    c = Consumer(conf)
    consumed = []
    commits = []
    assignments = []
    errors = []
    positions = {}  # partition -> next offset to commit
    state = {'consumed': 0, 'commits_ok': 0, 'last_commit_ok_at': None, 'last_commit_error': None}
    progress = Progress(a.get('progress_file'))

    def on_assign(consumer, parts):
        assignments.append({'at': now_ms(), 'assigned': [tp.partition for tp in parts]})

    def on_revoke(consumer, parts):
        assignments.append({'at': now_ms(), 'revoked': [tp.partition for tp in parts]})

    def commit():
        offsets = dict(positions)
        if not offsets:
            return
        entry = {'at': now_ms(), 'offsets': {str(k): v for k, v in offsets.items()}, 'error': None}
        try:
            res = c.commit(offsets=[TopicPartition(a['topic'], k, v) for k, v in offsets.items()], asynchronous=False)
            failed = [tp for tp in (res or []) if tp.error is not None]
            if failed:
                entry['error'] = failed[0].error.name()
        except Exception as e:  # noqa: BLE001 - a failed commit is an outcome to report, not a crash
            err = e.args[0] if e.args else e
            entry['error'] = err.name() if isinstance(err, KafkaError) else repr(e)
        commits.append(entry)
        if entry['error'] is None:
            state['commits_ok'] += 1
            state['last_commit_ok_at'] = entry['at']
        else:
            state['last_commit_error'] = entry['error']

    c.subscribe([a['topic']], on_assign=on_assign, on_revoke=on_revoke)
    started = time.time()
    since_commit = 0
    idle_since = time.time()
    interval = 1.0 / a.get('rate', 200)
    try:
        while not stopped(a, started):
            m = c.poll(0.2)
            progress.write(dict(state, errors=errors[-5:]))
            if m is None:
                # Idle: commit what was read, once, and retry a failed commit.
                if since_commit > 0 and time.time() - idle_since > 0.5:
                    commit()
                    if commits[-1]['error'] is None:
                        since_commit = 0
                continue
            if m.error():
                errors.append(m.error().name())
                continue
            idle_since = time.time()
            consumed.append([m.partition(), m.offset(), None if m.value() is None else m.value().decode()])
            state['consumed'] += 1
            positions[m.partition()] = m.offset() + 1
            since_commit += 1
            if since_commit >= a.get('commit_every', 20):
                commit()
                if commits[-1]['error'] is None:
                    since_commit = 0
            time.sleep(interval)
    finally:
        progress.write(dict(state, errors=errors[-5:]), force=True)
        c.close()
    return {'consumed': consumed, 'commits': commits, 'assignments': assignments, 'errors': errors}


COMMANDS = {f.__name__: f for f in [produce_load, read_all, group_consume]}

if __name__ == '__main__':
    driver.main(COMMANDS)
