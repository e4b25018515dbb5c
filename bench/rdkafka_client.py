#!/usr/bin/python3
"""librdkafka-side helper for the krill benchmark (bench/run.ts), using
confluent-kafka-python, which wraps the system librdkafka (the same library
kcat is built on).

  rdkafka_client.py prepare [--replicas N] BOOTSTRAP TOPIC...
      Makes sure every TOPIC exists with exactly one partition that has a
      leader, using a Metadata request from a producer handle (producers allow
      broker-side auto-creation by default). Falls back to CreateTopics if the
      topic still does not exist (krill supports it; the mock does not, but the
      mock's topics are created up front by bench/mock-cluster).
      With --replicas N (a cluster whose brokers auto-create topics with N
      replicas), the partition must also list N replicas, and prepare waits
      until all N are in its ISR, so that acks=all meets the whole ISR.
      Then it waits for the fetch's consumer group to have a coordinator,
      so that the server creates __consumer_offsets now, untimed.

  rdkafka_client.py fetch BOOTSTRAP TOPIC EXPECTED_RECORDS RECORD_SIZE
      Checks that the partition's high watermark equals EXPECTED_RECORDS (the
      records the producer sent, offsets starting at 0 on a fresh broker),
      then consumes EXPECTED_RECORDS records and times it.

      librdkafka's mock cluster keeps only the last ~5 MB of each partition
      (a hard-coded retention in rdkafka_mock.c), so the records available
      may be fewer than the records produced. The consumer therefore reads the
      retained range [low watermark, high watermark) as many times as needed
      to consume EXPECTED_RECORDS records in total ("passes"). On krill the low
      watermark is 0 and this is a single pass over the whole log.
      Each pass is timed from assign() to the arrival of its last record; the
      pause between passes (unassign, let the broker's held end-of-log fetch
      return) is not timed, so passes cost the mock no more than one extra
      request round trip each.

  rdkafka_client.py latency BOOTSTRAP TOPIC RECORDS RATE RECORD_SIZE
      End-to-end latency at a fixed rate: a producer (linger.ms=0, acks=all,
      max.in.flight.requests.per.connection=5)
      sends RECORDS records of RECORD_SIZE bytes, one every 1/RATE s on a
      fixed schedule (not one at a time: a slow answer does not slow the
      sender), and a consumer in the same process, reading from the end of the
      partition, notes when each arrives (after 2 s of the same, uncounted). Latency = arrival - send, both on
      the same monotonic clock. Prints avg, p50, p99 and p99.9 in ms.

Every command prints a single JSON object on stdout: {"ok": true, ...} or
{"ok": false, "error": "..."}; the exit code is 0 either way unless Python
itself fails.
"""
import json
import os
import sys
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition


class BenchFailure(Exception):
    pass


# Extra librdkafka settings for every client (the SSL rows' security.protocol, CA), from bench/workloads.ts.
EXTRA = json.loads(os.environ.get("KRILL_BENCH_CLIENT_CONF") or "{}")


def conf(settings):
    return {**settings, **EXTRA}


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def prepare(bootstrap, topics, replicas=1):
    errors = []
    producer = Producer(conf({
        "bootstrap.servers": bootstrap,
        "allow.auto.create.topics": True,
        "error_cb": lambda e: errors.append(str(e)),
    }))

    def state(topic):
        md = producer.list_topics(topic, timeout=5)
        tm = md.topics.get(topic)
        if tm is None or tm.error is not None:
            return None, (str(tm.error) if tm is not None else "absent")
        if 0 not in tm.partitions or tm.partitions[0].leader < 0:
            return None, "partition 0 has no leader yet"
        p0 = tm.partitions[0]
        if replicas > 1 and len(p0.replicas) != replicas:
            raise BenchFailure("topic %s has replicas %s, the benchmark asked for %d" % (topic, p0.replicas, replicas))
        if replicas > 1 and len(p0.isrs) < replicas:
            return None, "ISR %s, not yet all %d replicas" % (p0.isrs, replicas)
        return len(tm.partitions), None

    result = {}
    for topic in topics:
        # A cluster creates a topic through its controller, and its followers join the ISR after that.
        started = time.monotonic()
        deadline = started + 20
        tried_create = False
        while True:
            try:
                count, why = state(topic)
            except KafkaException as e:
                count, why = None, str(e)
            if count is not None:
                break
            if not tried_create and time.monotonic() > started + 3:
                tried_create = True
                try_create_topic(bootstrap, topic, replicas)
            if time.monotonic() > deadline:
                raise BenchFailure("topic %s not available after 20 s: %s %s" % (topic, why, "; ".join(errors[-3:])))
            time.sleep(0.05)
        if count != 1:
            raise BenchFailure("topic %s has %d partitions, the benchmark needs exactly 1" % (topic, count))
        result[topic] = count
    wait_for_group_coordinator(bootstrap, producer, topics[0])
    return {"ok": True, "partitions": result}


GROUP = "krill-bench"
OFFSETS_TOPIC = "__consumer_offsets"


def wait_for_group_coordinator(bootstrap, producer, topic):
    # fetch()'s consumer needs a group.id, so it looks up its group's coordinator, and the first lookup
    # makes the server create __consumer_offsets (50 partitions, in a cluster on every broker). Done here,
    # untimed and before the produce, so that no timed produce or fetch shares the machine with that
    # creation: the offsets of the group are read (which waits for its coordinator), then, where the
    # server lists the topic, its partitions are awaited until each has its leader and a full ISR.
    consumer = Consumer(conf({"bootstrap.servers": bootstrap, "group.id": GROUP, "enable.auto.commit": False}))
    deadline = time.monotonic() + 30
    try:
        while True:
            try:
                consumer.committed([TopicPartition(topic, 0)], timeout=10)
                break
            except KafkaException as e:
                # Kafka names a coordinator before it has loaded the partition: the offsets lookup then
                # fails with NOT_COORDINATOR (or "loading") rather than waiting, so it is asked again.
                if time.monotonic() > deadline:
                    raise BenchFailure("group coordinator not available after 30 s: %s" % e)
                time.sleep(0.1)
    finally:
        consumer.close()
    while True:
        tm = producer.list_topics(OFFSETS_TOPIC, timeout=5).topics.get(OFFSETS_TOPIC)
        if tm is None or tm.error is not None:
            return  # a server that does not list it (the mock) keeps offsets elsewhere
        parts = tm.partitions.values()
        if parts and all(p.leader >= 0 and len(p.isrs) == len(p.replicas) for p in parts):
            return
        if time.monotonic() > deadline:
            raise BenchFailure("%s not fully replicated after 30 s" % OFFSETS_TOPIC)
        time.sleep(0.05)


def try_create_topic(bootstrap, topic, replicas):
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient(conf({"bootstrap.servers": bootstrap}))
    futures = admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=replicas)],
                                  operation_timeout=3, request_timeout=3)
    for f in futures.values():
        try:
            f.result(timeout=5)
        except Exception:
            pass  # prepare() keeps polling Metadata and reports what it sees


def fetch(bootstrap, topic, expected, size, max_window, trailing=0):
    # trailing: control records (transaction markers) a server may have written after the last record.
    errors = []
    consumer = Consumer(conf({
        "bootstrap.servers": bootstrap,
        # confluent-kafka-python insists on a group id; it is never used for
        # anything here (no subscribe(), no commits), so the consumer works
        # against brokers without group coordination too.
        "group.id": GROUP,
        "enable.auto.commit": False,
        "enable.auto.offset.store": False,
        "enable.partition.eof": False,
        # How long the broker may hold a Fetch at the end of the log. It only
        # matters between passes (never while data is available); kept short
        # so the untimed gap between passes stays short.
        "fetch.wait.max.ms": 5,
        "error_cb": lambda e: errors.append(str(e)),
    }))
    try:
        tp = TopicPartition(topic, 0)
        lo, hi = consumer.get_watermark_offsets(tp, timeout=10, cached=False)
        if not expected <= hi <= expected + trailing:
            raise BenchFailure("count mismatch: produced %d records, but the partition's high watermark is %d"
                               % (expected, hi))
        hi = expected  # the records are offsets 0..expected-1; a marker after them is not read
        if lo < 0 or lo >= hi:
            raise BenchFailure("nothing to fetch: watermarks [%d, %d)" % (lo, hi))
        # Both servers are read in passes of at most max_window records: the mock retains only ~5 MB,
        # and librdkafka's consumer reads a short range it can prefetch whole faster than a long one,
        # so krill is read with the same access pattern for a fair comparison.
        window = min(hi - lo, max_window)
        # Passes read the LAST `window` records, which is exactly what the mock retains: a consumer reads
        # ahead past what it was asked for (queued.min.messages), and on krill, reading from the start of a
        # long log, that read-ahead would parse records the mock does not even have.
        start = hi - window

        def read_pass(start, want):
            t0 = time.perf_counter()
            consumer.assign([TopicPartition(topic, 0, start)])
            next_offset = start
            nbytes = 0
            while next_offset - start < want:
                batch = consumer.consume(min(want - (next_offset - start), 10000), 10.0)
                if not batch:
                    raise BenchFailure("fetch stalled at offset %d (no record for 10 s) %s"
                                       % (next_offset, "; ".join(errors[-3:])))
                for m in batch:
                    err = m.error()
                    if err is not None:
                        raise BenchFailure("fetch error at offset %d: %s" % (next_offset, err))
                # Records of one partition arrive in offset order: checking the
                # first and last of each batch proves the batch is contiguous.
                if batch[0].offset() != next_offset or batch[-1].offset() != next_offset + len(batch) - 1:
                    raise BenchFailure("offset gap: expected %d..%d, got %d..%d"
                                       % (next_offset, next_offset + len(batch) - 1,
                                          batch[0].offset(), batch[-1].offset()))
                nbytes += sum(len(m.value()) for m in batch)
                next_offset += len(batch)
            elapsed = time.perf_counter() - t0
            consumer.unassign()
            time.sleep(0.02)  # untimed: the held end-of-log fetch returns
            if nbytes != want * size:
                raise BenchFailure("payload size mismatch: %d bytes in %d records of %d bytes"
                                   % (nbytes, want, size))
            return elapsed, nbytes

        read_pass(start, 1)  # warm-up, untimed: connection to the leader, first fetch

        consumed = 0
        total_bytes = 0
        seconds = 0.0
        passes = 0
        while consumed < expected:
            want = min(window, expected - consumed)
            elapsed, nbytes = read_pass(start, want)
            seconds += elapsed
            total_bytes += nbytes
            consumed += want
            passes += 1
        if consumed != expected:
            raise BenchFailure("count mismatch: consumed %d, produced %d" % (consumed, expected))
        return {"ok": True, "records": consumed, "bytes": total_bytes, "seconds": seconds,
                "passes": passes, "low": lo, "high": hi}
    finally:
        consumer.close()


def latency(bootstrap, topic, records, rate, size):
    import threading
    errors = []
    # At most 5 requests in flight (the Java producer's default; librdkafka's is 1,000,000): a broker
    # answers one request per connection at a time, so with one record per request and no limit, a
    # moment's backlog (a cold JVM's first second) would stay queued in the broker's socket for the rest
    # of the run; with the limit, records that wait are batched into the next request instead.
    producer = Producer(conf({"bootstrap.servers": bootstrap, "linger.ms": 0, "acks": "all",
                              "max.in.flight.requests.per.connection": 5,
                              "error_cb": lambda e: errors.append(str(e))}))
    consumer = Consumer(conf({
        "bootstrap.servers": bootstrap, "group.id": "krill-bench-latency", "enable.auto.commit": False,
        "enable.partition.eof": False, "fetch.wait.max.ms": 100, "error_cb": lambda e: errors.append(str(e)),
    }))
    filler = b"x" * max(0, size - 10)
    # The first 2 s of records warm both sides up at the same rate (a JVM's JIT compiler, for one) and
    # are not counted.
    warm = int(rate * 2)
    total = warm + records
    sent = [0] * total
    arrived = [0] * total
    try:
        # Warm-up, untimed: both connections up, the consumer positioned after the warm-up record.
        producer.produce(topic, b"w" * size, partition=0)
        if producer.flush(10) != 0:
            raise BenchFailure("latency warm-up record not acknowledged %s" % "; ".join(errors[-3:]))
        _, hi = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10, cached=False)
        consumer.assign([TopicPartition(topic, 0, hi)])
        consumer.consume(1, 0.5)
        done = threading.Event()
        received = [0]

        def read():
            while received[0] < total and not done.is_set():
                m = consumer.poll(0.1)  # returns at the first record (consume() waits to fill its batch)
                now = time.perf_counter_ns()
                if m is not None and m.error() is None and len(m.value()) == size:
                    seq = int(m.value()[:10])
                    if arrived[seq] == 0:
                        arrived[seq] = now
                        received[0] += 1

        reader = threading.Thread(target=read)
        reader.start()
        time.sleep(0.2)  # the reader's first fetch is at the broker before the first record
        t0 = time.perf_counter()
        for i in range(total):
            wait = t0 + i / rate - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            sent[i] = time.perf_counter_ns()
            producer.produce(topic, b"%010d" % i + filler, partition=0)
            producer.poll(0)
        producer.flush(30)
        reader.join(30)
        done.set()
        reader.join()
        if received[0] != total:
            raise BenchFailure("latency: %d of %d records arrived %s" % (received[0], total, "; ".join(errors[-3:])))
        lat = sorted((a - s) / 1e6 for a, s in zip(arrived[warm:], sent[warm:]))
        pick = lambda q: lat[min(len(lat) - 1, int(len(lat) * q))]
        return {"ok": True, "records": records, "rate": rate, "avg": sum(lat) / len(lat),
                "p50": pick(0.5), "p99": pick(0.99), "p999": pick(0.999),
                "seconds": time.perf_counter() - t0 - warm / rate}
    finally:
        consumer.close()


def main(argv):
    try:
        if len(argv) >= 5 and argv[1] == "prepare" and argv[2] == "--replicas":
            emit(prepare(argv[4], argv[5:], int(argv[3])))
        elif len(argv) >= 3 and argv[1] == "prepare":
            emit(prepare(argv[2], argv[3:]))
        elif len(argv) in (7, 8) and argv[1] == "fetch":
            emit(fetch(argv[2], argv[3], int(argv[4]), int(argv[5]), int(argv[6]), int(argv[7]) if len(argv) == 8 else 0))
        elif len(argv) == 7 and argv[1] == "latency":
            emit(latency(argv[2], argv[3], int(argv[4]), float(argv[5]), int(argv[6])))
        else:
            emit({"ok": False, "error": "usage: rdkafka_client.py prepare [--replicas N] BOOTSTRAP TOPIC... | "
                                        "fetch BOOTSTRAP TOPIC EXPECTED_RECORDS RECORD_SIZE MAX_WINDOW [TRAILING_MARKERS] | "
                                        "latency BOOTSTRAP TOPIC RECORDS RATE RECORD_SIZE"})
    except BenchFailure as e:
        emit({"ok": False, "error": str(e)})
    except KafkaException as e:
        emit({"ok": False, "error": "librdkafka: %s" % e})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
