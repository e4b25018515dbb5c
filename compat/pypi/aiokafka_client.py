"""aiokafka driver for the krill compatibility suite (run with compat/pypi/.venv's interpreter).

Usage: aiokafka_client.py COMMAND < args.json  -> prints one JSON object on stdout, exits 0.
Values travel as UTF-8 strings (keys and values of these scenarios are text); every wait is bounded.
"""
import asyncio
import os

import aiokafka
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewPartitions, NewTopic, RecordsToDelete
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType
from aiokafka.structs import OffsetAndMetadata

import driver


def enc(s):
    return None if s is None else s.encode()


def dec(b):
    return None if b is None else b.decode()


def run(coro_fn):
    def command(a):
        return asyncio.run(asyncio.wait_for(coro_fn(a), a.get('timeout_s', 40)))
    command.__name__ = coro_fn.__name__
    return command


def producer_conf(a):
    conf = {'bootstrap_servers': a['bootstrap'], 'request_timeout_ms': 10000}
    conf.update(a.get('conf', {}))
    return conf


def message(m):
    return {'topic': m.topic, 'partition': m.partition, 'offset': m.offset, 'key': dec(m.key), 'value': dec(m.value),
            'headers': [[k, dec(v)] for k, v in m.headers], 'timestamp': m.timestamp}


async def produce(a):
    """AIOKafkaProducer(conf): send every record ({key, value, partition, headers, timestamp}), then
    wait for every acknowledgement; returns [partition, offset] per record."""
    p = AIOKafkaProducer(**producer_conf(a))
    await p.start()
    try:
        futures = []
        for r in a['records']:
            futures.append(await p.send(a['topic'], value=enc(r.get('value')), key=enc(r.get('key')), partition=r.get('partition'),
                                        headers=[(k, enc(v)) for k, v in r.get('headers') or []] or None,
                                        timestamp_ms=r.get('timestamp')))
        metas = await asyncio.gather(*futures)
    finally:
        await p.stop()
    return {'acks': [[m.partition, m.offset] for m in metas]}


async def consume(a):
    """A consumer (in group a['group'] via subscribe(), or assigned to a['partitions'] without a group)
    reads until it has a['count'] records; with a group, commit() then committed() for each partition."""
    conf = {'bootstrap_servers': a['bootstrap'], 'auto_offset_reset': 'earliest', 'enable_auto_commit': False,
            'request_timeout_ms': 10000, 'fetch_max_wait_ms': 100}
    conf.update(a.get('conf', {}))
    group = a.get('group')
    c = AIOKafkaConsumer(group_id=group, **conf)
    await c.start()
    try:
        if group:
            c.subscribe([a['topic']])
        else:
            c.assign([TopicPartition(a['topic'], p) for p in a['partitions']])
        out = []
        while len(out) < a['count']:
            batch = await c.getmany(timeout_ms=200)
            for msgs in batch.values():
                out.extend(message(m) for m in msgs)
        # anything beyond the count
        for msgs in (await c.getmany(timeout_ms=300)).values():
            out.extend(dict(message(m), extra=True) for m in msgs)
        committed = {}
        if group:
            await c.commit()
            for tp in sorted(c.assignment()):
                committed[str(tp.partition)] = await c.committed(tp)
    finally:
        await c.stop()
    return {'messages': out, 'committed': committed}


async def transactions(a):
    """A transactional producer runs a['transactions'] ({records, end: commit|abort, offsets?}) in order;
    offsets ({partition: offset} of a['input']) go to group a['group'] with send_offsets_to_transaction."""
    p = AIOKafkaProducer(transactional_id=a['id'], **producer_conf(a))
    await p.start()
    out = []
    try:
        for t in a['transactions']:
            await p.begin_transaction()
            futures = [await p.send(a['topic'], value=enc(r['value']), partition=r.get('partition')) for r in t['records']]
            metas = await asyncio.gather(*futures)
            if t.get('offsets'):
                await p.send_offsets_to_transaction(
                    {TopicPartition(a['input'], int(k)): OffsetAndMetadata(v, '') for k, v in t['offsets'].items()}, a['group'])
            if t['end'] == 'commit':
                await p.commit_transaction()
            else:
                await p.abort_transaction()
            out.append([[m.partition, m.offset] for m in metas])
    finally:
        await p.stop()
    return {'acks': out}


async def admin_tour(a):
    """AIOKafkaAdminClient: create_topics, list_topics, describe_topics, create_partitions, describe_configs,
    alter_configs, describe_cluster, list/describe consumer groups, list_consumer_group_offsets,
    delete_records, delete_topics."""
    ad = AIOKafkaAdminClient(bootstrap_servers=a['bootstrap'], request_timeout_ms=10000)
    await ad.start()
    t = a['topic']
    out = {}
    try:
        r = await ad.create_topics([NewTopic(t, num_partitions=2, replication_factor=a.get('rf', 1), topic_configs={'retention.ms': '3600000'})])
        out['create'] = [[name, code] for name, code, *_ in r.topic_errors]
        out['listed'] = t in await ad.list_topics()

        def parts(d):
            return sorted([[p['partition'], p['leader'], p['replicas'], p['isr']] for p in d['partitions']])
        d = await ad.describe_topics([t])
        out['describe'] = [{'topic': x['topic'], 'error_code': x['error_code'], 'partitions': parts(x)} for x in d]
        r = await ad.create_partitions({t: NewPartitions(3)})
        out['create_partitions'] = [[name, code] for name, code, *_ in r.topic_errors]
        d = await ad.describe_topics([t])
        out['describe_after'] = [parts(x) for x in d]

        async def configs():
            rs = await ad.describe_configs([ConfigResource(ConfigResourceType.TOPIC, t)])
            res = rs[0].resources[0]
            return {'error_code': res[0], 'configs': {e[0]: e[1] for e in res[4] if e[0] in ('retention.ms', 'max.message.bytes')}}
        out['configs'] = await configs()
        rs = await ad.alter_configs([ConfigResource(ConfigResourceType.TOPIC, t, {'max.message.bytes': '222222'})])
        out['alter'] = [list(x[:2]) for x in rs[0].resources]
        # AlterConfigs replaces the whole set: retention.ms, not named, goes back to its default
        out['configs_after'] = await configs()
        c = await ad.describe_cluster()
        out['cluster'] = {'cluster_id': c['cluster_id'], 'controller_id': c['controller_id'],
                          'brokers': sorted([[b['node_id'], b['host'], b['port']] for b in c['brokers']])}
        groups = await ad.list_consumer_groups()
        out['groups'] = sorted([list(g) for g in groups if g[0] in a.get('groups', [])])
        if a.get('groups'):
            g = a['groups'][0]
            ds = await ad.describe_consumer_groups([g])
            out['describe_group'] = [[x.groups[0][1], x.groups[0][2], x.groups[0][3], len(x.groups[0][5])] for x in ds]
            offs = await ad.list_consumer_group_offsets(g)
            out['group_offsets'] = sorted([[tp.topic, tp.partition, om.offset] for tp, om in offs.items()])
        if a.get('delete_records'):
            topic, partition, before = a['delete_records']
            r = await ad.delete_records({TopicPartition(topic, partition): RecordsToDelete(before)})
            out['delete_records'] = {str(tp.partition): low for tp, low in r.items()}
        r = await ad.delete_topics([t])
        out['delete'] = [list(x) for x in r.topic_error_codes]
        out['listed_after'] = t in await ad.list_topics()
    finally:
        await ad.close()
    return out


async def _poll_until(consumers, done, what, timeout_s=30):
    """Drives every consumer's getmany (which runs its heartbeats and rebalances) until done(); returns the
    messages each read on the way, by consumer index."""
    got = [[] for _ in consumers]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not done(got):
        if loop.time() > deadline:
            raise TimeoutError(f'waiting for {what}')
        batches = await asyncio.gather(*(c.getmany(timeout_ms=100) for c in consumers))
        for i, batch in enumerate(batches):
            for msgs in batch.values():
                got[i].extend(message(m) for m in msgs)
    return got


def _parts(c):
    return sorted(tp.partition for tp in c.assignment())


async def group_rebalance(a):
    """Two AIOKafkaConsumers of one group: the first alone holds every partition; the second joins and the
    group rebalances into two disjoint shares; a['count'] records are read between them and committed; the
    second leaves (LeaveGroup on stop) and the first holds every partition again and reads what follows."""
    conf = {'bootstrap_servers': a['bootstrap'], 'group_id': a['group'], 'auto_offset_reset': 'earliest',
            'enable_auto_commit': False, 'request_timeout_ms': 10000, 'fetch_max_wait_ms': 100,
            'session_timeout_ms': 10000, 'heartbeat_interval_ms': 500}
    everything = list(range(a['partitions']))
    topic = a['topic']
    out = {}
    c1 = AIOKafkaConsumer(**conf)
    c2 = AIOKafkaConsumer(**conf)
    p = AIOKafkaProducer(bootstrap_servers=a['bootstrap'], acks='all', enable_idempotence=True)
    await asyncio.gather(c1.start(), c2.start(), p.start())
    try:
        c1.subscribe([topic])
        await _poll_until([c1], lambda _: _parts(c1) == everything, 'the first member to hold every partition')
        out['alone'] = _parts(c1)
        c2.subscribe([topic])

        def shared(_):
            one, two = _parts(c1), _parts(c2)
            return one and two and sorted(one + two) == everything
        await _poll_until([c1, c2], shared, 'two disjoint shares of every partition')
        out['shares'] = [_parts(c1), _parts(c2)]
        acks = await asyncio.gather(*[await p.send(topic, value=enc(f'shared-{i}'), partition=i % a['partitions'])
                                      for i in range(a['count'])])
        got = await _poll_until([c1, c2], lambda g: len(g[0]) + len(g[1]) >= a['count'], 'every record between the two')
        out['read'] = [sorted({m['partition'] for m in g}) for g in got]
        out['values'] = sorted(m['value'] for g in got for m in g)
        out['acked'] = len(acks)
        await asyncio.gather(c1.commit(), c2.commit())
        await c2.stop()
        await _poll_until([c1], lambda _: _parts(c1) == everything, 'the first member to take every partition back')
        out['after_leave'] = _parts(c1)
        await asyncio.gather(*[await p.send(topic, value=enc(f'after-{i}'), partition=i % a['partitions'])
                               for i in range(a['partitions'])])
        got = await _poll_until([c1], lambda g: len(g[0]) >= a['partitions'], 'the records after the leave')
        out['after_values'] = sorted(m['value'] for m in got[0])
    finally:
        await asyncio.gather(c1.stop(), c2.stop(), p.stop())
    return out


async def produce_until_stopped(a):
    """An idempotent acks=all AIOKafkaProducer sends values 'v-N' to a['topic'] (partition N % partitions)
    until the file a['stop'] exists, writing the count acknowledged so far to a['progress']; returns which
    were acknowledged at which partition and offset, and which sends failed."""
    p = AIOKafkaProducer(bootstrap_servers=a['bootstrap'], acks='all', enable_idempotence=True, request_timeout_ms=30000)
    await p.start()
    acked, errors, pending = {}, [], set()

    def done(value, fut):
        pending.discard(fut)
        if fut.exception() is not None:
            errors.append(f'{value}: {fut.exception()!r}')
        else:
            m = fut.result()
            acked[value] = [m.partition, m.offset]

    def report():
        tmp = a['progress'] + '.tmp'
        with open(tmp, 'w') as f:
            f.write(str(len(acked)))
        os.replace(tmp, a['progress'])
    sent = 0
    try:
        while sent < a['max'] and not os.path.exists(a['stop']):
            value = f'v-{sent}'
            fut = await p.send(a['topic'], value=enc(value), partition=sent % a['partitions'])
            pending.add(fut)
            fut.add_done_callback(lambda f, v=value: done(v, f))
            sent += 1
            if sent % 50 == 0:
                report()
                await asyncio.sleep(0.01)
            while len(pending) > 500:
                await asyncio.sleep(0.005)
        await p.flush()
        if pending:
            await asyncio.wait(set(pending))
        report()
    finally:
        await p.stop()
    return {'sent': sent, 'acked': acked, 'errors': errors[:10], 'error_count': len(errors)}


def versions(a):
    return {'aiokafka': aiokafka.__version__}


COMMANDS = {f.__name__: f for f in [run(produce), run(consume), run(transactions), run(admin_tour), run(group_rebalance),
                                     run(produce_until_stopped), versions]}

if __name__ == '__main__':
    driver.main(COMMANDS, default=str)
