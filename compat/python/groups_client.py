#!/usr/bin/python3
"""Consumer-group driver (confluent-kafka-python and kafka-python) for the krill compatibility suite.

Usage: groups_client.py COMMAND < args.json  -> prints one JSON object on stdout, exits 0.
Any unexpected exception is printed as JSON {"exception": ...} with exit code 1.
Values travel as UTF-8 strings (the group tests only use text values). Every client call has a timeout
and every loop has a deadline.

Several consumer processes of one test coordinate through files in a['sync_dir']:
  <name>.progress  written once the consumer has processed a['progress_after'] records
  <name>.done      written once the consumer met its stop condition; the consumer then keeps polling
                   (staying in the group, so no rebalance hands its partitions to a peer that is still
                   working) until every name in a['peers'] has written its .done file, and only then
                   closes.
"""
import os
import time

import confluent_kafka
from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient

import driver


def touch(a, suffix):
    d = a.get('sync_dir')
    if d:
        with open(os.path.join(d, a['name'] + suffix), 'w') as f:
            f.write('1')


def peers_done(a):
    d = a.get('sync_dir')
    if not d:
        return True
    return all(os.path.exists(os.path.join(d, p + '.done')) for p in a.get('peers', []))


def tp_list(tps):
    return sorted([[tp.topic, tp.partition] for tp in tps])


# ---------------------------------------------------------------- confluent-kafka-python (librdkafka)

def ck_conf(a):
    conf = {
        'bootstrap.servers': a['bootstrap'],
        'broker.address.family': 'v4',
        'socket.timeout.ms': 10000,
        'group.id': a['group'],
        'session.timeout.ms': 6000,
        'heartbeat.interval.ms': 500,
        'max.poll.interval.ms': 20000,
        'auto.offset.reset': 'earliest',
        'enable.partition.eof': True,
        'fetch.wait.max.ms': 100,
        'topic.metadata.refresh.interval.ms': 1000,
    }
    conf.update(a.get('conf', {}))
    return conf


def commit_sync(c, m, deadline):
    """A synchronous commit of m, retried while the group sits between JoinGroup and SyncGroup.

    Kafka answers REBALANCE_IN_PROGRESS to a commit in that window (the member's generation is already
    the new one); it is a retriable failure, and an application retries once the rebalance completes.
    """
    while True:
        try:
            c.commit(message=m, asynchronous=False)
            return
        except KafkaException as e:
            if e.args[0].code() != KafkaError.REBALANCE_IN_PROGRESS or time.time() > deadline:
                raise
            time.sleep(0.05)


def ck_group_consume(a):
    """subscribe() and consume until the stop condition; see the module doc for the sync files.

    a: bootstrap, group, topics, conf, commit ('auto' | 'sync' | 'async' | 'none'),
       pause_until_size (pause every assignment of another size: makes the first member wait for its peer),
       stop_size (stop only with an assignment of exactly this size, all partitions at EOF),
       slow_ms (sleep per record), progress_after, timeout_s.
    """
    mode = a.get('commit', 'auto')
    conf = ck_conf(a)
    if mode != 'auto':
        conf['enable.auto.commit'] = False
    commits = {'ok': 0, 'errors': [], 'pending': 0}

    def on_commit(err, partitions):
        commits['pending'] -= 1
        if err is not None:
            commits['errors'].append(str(err))
        else:
            for tp in partitions:
                if tp.error is not None:
                    commits['errors'].append(str(tp.error))
            commits['ok'] += 1

    if mode == 'async':
        conf['on_commit'] = on_commit
    c = Consumer(conf)
    cooperative = conf.get('partition.assignment.strategy') == 'cooperative-sticky'
    state = {'assignment': set(), 'eof': set(), 'paused': False}
    events = []
    pause_size = a.get('pause_until_size')

    def on_assign(consumer, partitions):
        keys = {(tp.topic, tp.partition) for tp in partitions}
        events.append({'type': 'assign', 'partitions': tp_list(partitions), 'at': time.time()})
        if cooperative:
            consumer.incremental_assign(partitions)
            state['assignment'] |= keys
        else:
            consumer.assign(partitions)
            state['assignment'] = keys
            state['eof'] = set()
            state['paused'] = False
            if pause_size is not None and partitions:
                if len(keys) != pause_size:
                    consumer.pause(partitions)
                    state['paused'] = True
                else:
                    # librdkafka keeps a partition's application pause across unassign/assign: a partition
                    # paused in an earlier generation would stay paused without this resume().
                    consumer.resume(partitions)

    def on_revoke(consumer, partitions):
        keys = {(tp.topic, tp.partition) for tp in partitions}
        events.append({'type': 'revoke', 'partitions': tp_list(partitions), 'at': time.time()})
        if cooperative:
            consumer.incremental_unassign(partitions)
            state['assignment'] -= keys
            state['eof'] -= keys
        else:
            consumer.unassign()
            state['assignment'] = set()
            state['eof'] = set()

    def on_lost(consumer, partitions):
        events.append({'type': 'lost', 'partitions': tp_list(partitions), 'at': time.time()})
        on_revoke(consumer, partitions)

    c.subscribe(a['topics'], on_assign=on_assign, on_revoke=on_revoke, on_lost=on_lost)
    messages = []
    errors = []
    deadline = time.time() + a.get('timeout_s', 40)
    stop_size = a.get('stop_size')
    done = False
    done_assignment, done_events = [], []
    try:
        while True:
            if time.time() > deadline:
                raise Exception('deadline: %d messages, assignment %s, eof %s, events %s' % (
                    len(messages), sorted(state['assignment']), sorted(state['eof']), events))
            if done and peers_done(a):
                break
            m = c.poll(0.1)
            if m is not None:
                err = m.error()
                if err is not None:
                    if err.code() == KafkaError._PARTITION_EOF:
                        state['eof'].add((m.topic(), m.partition()))
                    else:
                        errors.append(str(err))
                else:
                    state['eof'].discard((m.topic(), m.partition()))
                    messages.append({'topic': m.topic(), 'partition': m.partition(), 'offset': m.offset(),
                                     'value': m.value().decode('utf-8') if m.value() is not None else None})
                    if a.get('slow_ms'):
                        time.sleep(a['slow_ms'] / 1000.0)
                    if mode == 'sync':
                        commit_sync(c, m, deadline)
                    elif mode == 'async':
                        commits['pending'] += 1
                        c.commit(message=m, asynchronous=True)
                    if a.get('progress_after') is not None and len(messages) == a['progress_after']:
                        touch(a, '.progress')
            if not done and state['assignment'] and not state['paused'] \
                    and (stop_size is None or len(state['assignment']) == stop_size) \
                    and state['eof'] >= state['assignment']:
                done = True
                done_assignment = sorted(state['assignment'])
                done_events = list(events)
                touch(a, '.done')
        # Wait for outstanding async commits (their callbacks are served by poll()).
        while commits['pending'] > 0 and time.time() < deadline:
            c.poll(0.1)
        # What the member owned when it finished (a peer leaving afterwards may rebalance it).
        assignment = [TopicPartition(t, p) for (t, p) in done_assignment]
        committed = c.committed(assignment, timeout=10) if assignment else []
        member_id = c.memberid() if hasattr(c, 'memberid') else None
    finally:
        c.close()
    return {
        'messages': messages,
        'errors': errors,
        'events': done_events,
        'all_events': events,
        'assignment': [list(k) for k in done_assignment],
        'committed': {'%s/%d' % (tp.topic, tp.partition): tp.offset for tp in committed},
        'commits': {'ok': commits['ok'], 'errors': commits['errors'], 'pending': commits['pending']},
        'member_id': member_id,
    }


def ck_committed(a):
    """Committed offsets of a['group'] for a['topic'] partitions 0..a['partitions']-1 (OffsetFetch), no join."""
    conf = ck_conf(a)
    conf['enable.auto.commit'] = False
    c = Consumer(conf)
    try:
        tps = c.committed([TopicPartition(a['topic'], p) for p in range(a['partitions'])], timeout=10)
    finally:
        c.close()
    return {'committed': {str(tp.partition): tp.offset for tp in tps}, 'errors': [str(tp.error) for tp in tps if tp.error]}


def ck_list_groups(a):
    """AdminClient.list_groups (ListGroups + DescribeGroups underneath in librdkafka)."""
    ad = AdminClient({'bootstrap.servers': a['bootstrap'], 'broker.address.family': 'v4', 'socket.timeout.ms': 10000})
    kwargs = {'timeout': 10}
    if a.get('group'):
        kwargs['group'] = a['group']
    groups = ad.list_groups(**kwargs)
    out = []
    for g in groups:
        out.append({
            'id': g.id,
            'error': None if g.error is None else g.error.name() if hasattr(g.error, 'name') else str(g.error),
            'state': g.state,
            'protocol_type': g.protocol_type,
            'protocol': g.protocol,
            'broker': g.broker.id,
            'members': sorted([{'id': m.id, 'client_id': m.client_id, 'client_host': m.client_host,
                                'has_metadata': bool(m.metadata), 'has_assignment': bool(m.assignment)}
                               for m in g.members], key=lambda x: x['client_id'] + x['id']),
        })
    return {'groups': sorted(out, key=lambda x: x['id'])}


# ---------------------------------------------------------------- kafka-python

def kp_common(a):
    return {
        'bootstrap_servers': a['bootstrap'],
        'request_timeout_ms': 15000,
        'api_version_auto_timeout_ms': 10000,
        'reconnect_backoff_max_ms': 1000,
    }


def kp_group_consume(a):
    """KafkaConsumer(group_id).subscribe(); reads until every assigned partition reaches its end offset,
    then commit() (sync) unless a['commit'] is False; close(autocommit=False)."""
    from kafka import KafkaConsumer
    c = KafkaConsumer(group_id=a['group'], enable_auto_commit=False, auto_offset_reset='earliest',
                      session_timeout_ms=10000, heartbeat_interval_ms=1000, fetch_max_wait_ms=100,
                      consumer_timeout_ms=20000, **kp_common(a))
    messages = []
    deadline = time.time() + a.get('timeout_s', 40)
    try:
        c.subscribe(a['topics'])
        while True:
            if time.time() > deadline:
                raise Exception('deadline: %d messages, assignment %s' % (len(messages), c.assignment()))
            batch = c.poll(timeout_ms=200)
            for tp, recs in batch.items():
                for r in recs:
                    messages.append({'topic': r.topic, 'partition': r.partition, 'offset': r.offset,
                                     'value': r.value.decode('utf-8') if r.value is not None else None})
            assignment = c.assignment()
            if assignment:
                ends = c.end_offsets(list(assignment))
                if all(c.position(tp) >= ends[tp] for tp in assignment):
                    break
        assignment = sorted(c.assignment(), key=lambda tp: (tp.topic, tp.partition))
        if a.get('commit', True):
            c.commit()
        committed = {'%s/%d' % (tp.topic, tp.partition): c.committed(tp) for tp in assignment}
    finally:
        c.close(autocommit=False)
    return {'messages': messages, 'assignment': [[tp.topic, tp.partition] for tp in assignment], 'committed': committed}


def kp_admin(a):
    from kafka.admin import KafkaAdminClient
    return KafkaAdminClient(**kp_common(a))


def kp_list_consumer_groups(a):
    ad = kp_admin(a)
    try:
        return {'groups': sorted([list(g) for g in ad.list_consumer_groups()])}
    finally:
        ad.close()


def kp_describe_consumer_groups(a):
    ad = kp_admin(a)
    try:
        out = []
        for g in ad.describe_consumer_groups(a['groups']):
            members = []
            for m in g.members:
                assignment = None
                if m.member_assignment is not None and hasattr(m.member_assignment, 'assignment'):
                    assignment = sorted([[t, sorted(ps)] for t, ps in m.member_assignment.assignment])
                members.append({'member_id': m.member_id, 'client_id': m.client_id, 'client_host': m.client_host,
                                'assignment': assignment})
            out.append({'error_code': g.error_code, 'group': g.group, 'state': g.state, 'protocol_type': g.protocol_type,
                        'protocol': g.protocol, 'members': members})
        return {'groups': out}
    finally:
        ad.close()


def kp_list_consumer_group_offsets(a):
    ad = kp_admin(a)
    try:
        offs = ad.list_consumer_group_offsets(a['group'])
        return {'offsets': {'%s/%d' % (tp.topic, tp.partition): om.offset for tp, om in offs.items()}}
    finally:
        ad.close()


def kp_delete_consumer_groups(a):
    ad = kp_admin(a)
    try:
        res = ad.delete_consumer_groups(a['groups'])
        # kafka-python returns the error *class* (kafka.errors.NoError) per group.
        return {'results': sorted([[g, e.__name__ if isinstance(e, type) else type(e).__name__, getattr(e, 'errno', None)]
                                   for g, e in res])}
    finally:
        ad.close()


def versions(a):
    import kafka
    return {'confluent_kafka': confluent_kafka.version()[0], 'librdkafka': confluent_kafka.libversion()[0],
            'kafka_python': kafka.__version__}


COMMANDS = {f.__name__: f for f in [ck_group_consume, ck_committed, ck_list_groups, kp_group_consume,
                                    kp_list_consumer_groups, kp_describe_consumer_groups,
                                    kp_list_consumer_group_offsets, kp_delete_consumer_groups, versions]}

if __name__ == '__main__':
    driver.main(COMMANDS)
