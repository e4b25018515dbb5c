// The Java client's side of compat/java/*.test.ts: `java -cp <classpath> krill.compat.Driver <scenario>` reads
// the scenario's JSON arguments on stdin, runs it with the unmodified Apache Kafka client (its defaults unless
// the scenario is about a setting), and prints one JSON line of what the client received. A failure prints
// {"exception": ..., "trace": ...} and exits 1. The same source compiles against kafka-clients 3.x and 4.x.
package krill.compat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.PartitionReassignment;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public final class Driver {
  static final ObjectMapper M = new ObjectMapper();
  static final Duration POLL = Duration.ofMillis(100);

  public static void main(String[] argv) {
    ObjectNode out = M.createObjectNode();
    int code = 0;
    try {
      JsonNode in = M.readTree(System.in);
      out.put("clientVersion", clientVersion());
      if (in.has("create")) createTopics(in);
      switch (argv[0]) {
        case "produce_consume" -> produceConsume(in, out);
        case "transactions" -> transactions(in, out);
        case "consumer_api" -> consumerApi(in, out);
        case "static_members" -> staticMembers(in, out);
        case "admin" -> admin(in, out);
        case "admin_more" -> adminMore(in, out);
        case "groups" -> groups(in, out);
        case "cluster_admin" -> clusterAdmin(in, out);
        case "produce_under_failover" -> produceUnderFailover(in, out);
        case "quotas" -> Quotas.run(in, out);
        default -> throw new IllegalArgumentException("unknown scenario " + argv[0]);
      }
    } catch (Throwable t) {
      StringWriter sw = new StringWriter();
      t.printStackTrace(new PrintWriter(sw));
      out.put("exception", t.toString());
      out.put("trace", sw.toString());
      code = 1;
    }
    try {
      System.out.println(M.writeValueAsString(out));
    } catch (Exception e) {
      System.out.println("{\"exception\":\"cannot print the result\"}");
      code = 1;
    }
    System.out.flush();
    // Client threads (and a consumer left open on failure) must not keep the JVM alive.
    Runtime.getRuntime().halt(code);
  }

  /** The version kafka-clients was built as (the file its own AppInfoParser reads). */
  static String clientVersion() throws Exception {
    Properties p = new Properties();
    try (var s = KafkaProducer.class.getResourceAsStream("/kafka/kafka-version.properties")) {
      p.load(s);
    }
    return p.getProperty("version");
  }

  // ---- clients ------------------------------------------------------------------------------------

  static Properties base(JsonNode in) {
    Properties p = new Properties();
    p.put("bootstrap.servers", in.get("bootstrap").asText());
    JsonNode extra = in.get("config");
    if (extra != null) extra.fields().forEachRemaining(e -> p.put(e.getKey(), e.getValue().asText()));
    return p;
  }

  static KafkaProducer<String, String> producer(JsonNode in, Map<String, String> settings) {
    Properties p = base(in);
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    p.putAll(settings);
    return new KafkaProducer<>(p);
  }

  static KafkaConsumer<String, String> consumer(JsonNode in, Map<String, String> settings) {
    Properties p = base(in);
    p.put("key.deserializer", StringDeserializer.class.getName());
    p.put("value.deserializer", StringDeserializer.class.getName());
    p.put("auto.offset.reset", "earliest");
    p.putAll(settings);
    return new KafkaConsumer<>(p);
  }

  static Admin admin(JsonNode in) {
    Properties p = base(in);
    return Admin.create(p);
  }

  /** Creates the topics `create` names ({name, partitions, replicationFactor?}) before a scenario starts. */
  static void createTopics(JsonNode in) throws Exception {
    List<NewTopic> topics = new ArrayList<>();
    for (JsonNode t : in.get("create")) topics.add(new NewTopic(t.get("name").asText(), t.get("partitions").asInt(), (short) t.path("replicationFactor").asInt(1)));
    try (Admin admin = admin(in)) {
      admin.createTopics(topics).all().get();
    }
  }

  static long deadline(JsonNode in) {
    return System.currentTimeMillis() + in.path("timeoutMs").asLong(30_000);
  }

  // ---- JSON ---------------------------------------------------------------------------------------

  static ProducerRecord<String, String> record(String topic, JsonNode r) {
    Integer partition = r.hasNonNull("partition") ? r.get("partition").asInt() : null;
    Long ts = r.hasNonNull("timestamp") ? r.get("timestamp").asLong() : null;
    String key = r.hasNonNull("key") ? r.get("key").asText() : null;
    String value = r.hasNonNull("value") ? r.get("value").asText() : null;
    List<Header> headers = new ArrayList<>();
    if (r.hasNonNull("headers"))
      for (JsonNode h : r.get("headers"))
        headers.add(new RecordHeader(h.get(0).asText(), h.get(1).isNull() ? null : h.get(1).asText().getBytes(StandardCharsets.UTF_8)));
    return new ProducerRecord<>(topic, partition, ts, key, value, headers);
  }

  static ObjectNode json(ConsumerRecord<String, String> r) {
    ObjectNode o = M.createObjectNode();
    o.put("partition", r.partition());
    o.put("offset", r.offset());
    o.put("key", r.key());
    o.put("value", r.value());
    o.put("timestamp", r.timestamp());
    o.put("timestampType", r.timestampType().toString());
    ArrayNode hs = o.putArray("headers");
    for (Header h : r.headers()) {
      ArrayNode pair = hs.addArray();
      pair.add(h.key());
      if (h.value() == null) pair.addNull();
      else pair.add(new String(h.value(), StandardCharsets.UTF_8));
    }
    r.leaderEpoch().ifPresent(e -> o.put("leaderEpoch", e));
    return o;
  }

  static String tp(TopicPartition t) {
    return t.topic() + "/" + t.partition();
  }

  static ObjectNode offsets(Map<TopicPartition, ?> m) {
    ObjectNode o = M.createObjectNode();
    new TreeMap<String, Object>(toStringKeys(m)).forEach((k, v) -> {
      if (v == null) o.putNull(k);
      else if (v instanceof OffsetAndMetadata om) o.put(k, om.offset());
      else if (v instanceof Long l) o.put(k, l);
      else o.put(k, v.toString());
    });
    return o;
  }

  static Map<String, Object> toStringKeys(Map<TopicPartition, ?> m) {
    Map<String, Object> r = new HashMap<>();
    m.forEach((k, v) -> r.put(tp(k), v));
    return r;
  }

  static ArrayNode tps(Collection<TopicPartition> c) {
    ArrayNode a = M.createArrayNode();
    c.stream().map(Driver::tp).sorted().forEach(a::add);
    return a;
  }

  static String errorOf(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && (c instanceof java.util.concurrent.ExecutionException || c instanceof org.apache.kafka.common.KafkaException && c.getCause() instanceof org.apache.kafka.common.KafkaException)) c = c.getCause();
    return c.getClass().getSimpleName() + ": " + c.getMessage();
  }

  /** Records the outcome of one admin step under `name`: its result, or {"error": ...}. */
  interface Step {
    Object run() throws Exception;
  }

  static void step(ObjectNode out, String name, Step s) {
    try {
      Object v = s.run();
      out.set(name, v instanceof JsonNode j ? j : M.valueToTree(v));
    } catch (Throwable t) {
      out.putObject(name).put("error", errorOf(t));
    }
  }

  // ---- 1. produce with each codec, consume in a classic group ----------------------------------

  /** One run per entry of `runs` ({topic, group, codec}), each producing `records` then consuming them. */
  static void produceConsume(JsonNode in, ObjectNode out) throws Exception {
    ArrayNode runs = out.putArray("runs");
    for (JsonNode run : in.get("runs")) produceConsume(in, run, runs.addObject());
  }

  static void produceConsume(JsonNode in, JsonNode run, ObjectNode out) throws Exception {
    String topic = run.get("topic").asText();
    String group = run.get("group").asText();
    Map<String, String> ps = new HashMap<>();
    if (run.hasNonNull("codec")) ps.put("compression.type", run.get("codec").asText());
    try (KafkaProducer<String, String> producer = producer(in, ps)) {
      Properties eff = base(in);
      eff.put("key.serializer", StringSerializer.class.getName());
      eff.put("value.serializer", StringSerializer.class.getName());
      eff.putAll(ps);
      ProducerConfig cfg = new ProducerConfig(eff);
      out.put("acks", cfg.getString("acks"));
      out.put("enableIdempotence", cfg.getBoolean("enable.idempotence"));
      out.put("compressionType", cfg.getString("compression.type"));
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      for (JsonNode r : in.get("records")) sent.add(producer.send(record(topic, r)));
      producer.flush();
      ArrayNode acks = out.putArray("sent");
      for (Future<RecordMetadata> f : sent) {
        RecordMetadata md = f.get();
        acks.addObject().put("partition", md.partition()).put("offset", md.offset()).put("timestamp", md.timestamp());
      }
    }
    int expected = in.get("records").size();
    Map<String, String> cs = new HashMap<>();
    cs.put("group.id", group);
    cs.put("enable.auto.commit", "false");
    try (KafkaConsumer<String, String> consumer = consumer(in, cs)) {
      Properties eff = base(in);
      eff.put("key.deserializer", StringDeserializer.class.getName());
      eff.put("value.deserializer", StringDeserializer.class.getName());
      eff.put("group.id", "x");
      ConsumerConfig ccfg = new ConsumerConfig(eff);
      ArrayNode strategies = out.putArray("defaultAssignors");
      for (Object s : (List<?>) ccfg.values().get("partition.assignment.strategy")) strategies.add(s instanceof Class<?> c ? c.getName() : s.toString());
      if (ccfg.values().containsKey("group.protocol")) out.put("groupProtocol", String.valueOf(ccfg.values().get("group.protocol")));
      ArrayNode events = out.putArray("rebalances");
      consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
        public void onPartitionsRevoked(Collection<TopicPartition> p) {
          if (!p.isEmpty()) events.addObject().put("revoked", tps(p).toString());
        }

        public void onPartitionsAssigned(Collection<TopicPartition> p) {
          events.addObject().set("assigned", tps(p));
        }
      });
      ArrayNode got = out.putArray("received");
      long end = deadline(in);
      while (got.size() < expected && System.currentTimeMillis() < end)
        for (ConsumerRecord<String, String> r : consumer.poll(POLL)) got.add(json(r));
      consumer.commitSync();
      out.set("committed", offsets(consumer.committed(consumer.assignment())));
      out.put("generation", consumer.groupMetadata().generationId());
      try (Admin admin = admin(in)) {
        ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
        out.put("groupAssignor", d.partitionAssignor());
        out.put("groupMembers", d.members().size());
      }
    }
  }

  // ---- 2. transactions: read-process-write ------------------------------------------------------

  static void transactions(JsonNode in, ObjectNode out) throws Exception {
    String input = in.get("input").asText();
    String output = in.get("output").asText();
    String group = in.get("group").asText();
    int n = in.get("count").asInt();
    int half = n / 2;
    TopicPartition ip = new TopicPartition(input, 0);
    TopicPartition op = new TopicPartition(output, 0);
    try (KafkaProducer<String, String> plain = producer(in, Map.of())) {
      for (int i = 0; i < n; i++) plain.send(new ProducerRecord<>(input, 0, "k" + i, "in-" + i));
      plain.flush();
    }
    Map<String, String> cs = new HashMap<>();
    cs.put("group.id", group);
    cs.put("enable.auto.commit", "false");
    cs.put("isolation.level", "read_committed");
    Map<String, String> ps = new HashMap<>();
    ps.put("transactional.id", in.get("transactionalId").asText());
    try (KafkaConsumer<String, String> consumer = consumer(in, cs); KafkaProducer<String, String> producer = producer(in, ps)) {
      producer.initTransactions();
      consumer.subscribe(List.of(input));
      List<ConsumerRecord<String, String>> batch = new ArrayList<>();
      long end = deadline(in);
      while (batch.size() < n && System.currentTimeMillis() < end)
        for (ConsumerRecord<String, String> r : consumer.poll(POLL)) batch.add(r);
      out.put("polled", batch.size());
      // The first half, committed.
      processInTransaction(producer, consumer, output, batch.subList(0, half));
      producer.commitTransaction();
      out.set("committedAfterFirst", offsets(consumer.committed(Set.of(ip))));
      // The second half, aborted: its output and its offsets must not count.
      processInTransaction(producer, consumer, output, batch.subList(half, n));
      // Flushed first: abortTransaction drops batches not sent yet (4.x lingers 5 ms by default), and the
      // aborted records are to be in the log for read_committed to skip.
      producer.flush();
      producer.abortTransaction();
      Map<TopicPartition, OffsetAndMetadata> afterAbort = consumer.committed(Set.of(ip));
      out.set("committedAfterAbort", offsets(afterAbort));
      // Rewind to what the group committed and process again, committed this time.
      consumer.seek(ip, afterAbort.get(ip));
      List<ConsumerRecord<String, String>> again = new ArrayList<>();
      while (again.size() < n - half && System.currentTimeMillis() < end)
        for (ConsumerRecord<String, String> r : consumer.poll(POLL)) again.add(r);
      out.put("reprocessedFrom", again.isEmpty() ? -1 : again.get(0).offset());
      processInTransaction(producer, consumer, output, again);
      producer.commitTransaction();
      out.set("committedAfterRetry", offsets(consumer.committed(Set.of(ip))));
    }
    out.set("readCommitted", readAll(in, op, "read_committed"));
    out.set("readUncommitted", readAll(in, op, "read_uncommitted"));
    try (KafkaConsumer<String, String> c = consumer(in, Map.of("isolation.level", "read_committed"))) {
      out.set("outputEnd", offsets(c.endOffsets(Set.of(op))));
    }
  }

  static void processInTransaction(KafkaProducer<String, String> producer, KafkaConsumer<String, String> consumer, String output, List<ConsumerRecord<String, String>> records) {
    producer.beginTransaction();
    Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
    for (ConsumerRecord<String, String> r : records) {
      producer.send(new ProducerRecord<>(output, 0, r.key(), r.value().replace("in-", "out-")));
      next.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
    }
    producer.sendOffsetsToTransaction(next, consumer.groupMetadata());
  }

  /** Every value of `tp` up to its end offset (for that isolation level), read with assign(). */
  static ArrayNode readAll(JsonNode in, TopicPartition tp, String isolation) {
    ArrayNode values = M.createArrayNode();
    try (KafkaConsumer<String, String> c = consumer(in, Map.of("isolation.level", isolation))) {
      c.assign(List.of(tp));
      long endOffset = c.endOffsets(List.of(tp)).get(tp);
      c.seekToBeginning(List.of(tp));
      long end = deadline(in);
      while (c.position(tp) < endOffset && System.currentTimeMillis() < end)
        for (ConsumerRecord<String, String> r : c.poll(POLL)) values.add(r.value());
    }
    return values;
  }

  // ---- 3. consumer API ----------------------------------------------------------------------------

  static void consumerApi(JsonNode in, ObjectNode out) throws Exception {
    String topic = in.get("topic").asText();
    long t0 = in.get("t0").asLong();
    int n = in.get("count").asInt();
    TopicPartition p0 = new TopicPartition(topic, 0);
    try (KafkaProducer<String, String> producer = producer(in, Map.of())) {
      for (int i = 0; i < n; i++) producer.send(new ProducerRecord<>(topic, 0, t0 + i * 1000L, "k" + i, "v" + i));
      producer.flush();
    }
    Map<String, String> cs = new HashMap<>();
    cs.put("group.id", in.get("group").asText());
    cs.put("enable.auto.commit", "false");
    try (KafkaConsumer<String, String> c = consumer(in, cs)) {
      c.assign(List.of(p0));
      out.set("beginning", offsets(c.beginningOffsets(List.of(p0))));
      out.set("end", offsets(c.endOffsets(List.of(p0))));
      Map<TopicPartition, OffsetAndTimestamp> byTime = c.offsetsForTimes(Map.of(p0, t0 + 3500));
      OffsetAndTimestamp ot = byTime.get(p0);
      out.putObject("forTime").put("offset", ot.offset()).put("timestamp", ot.timestamp());
      OffsetAndTimestamp none = c.offsetsForTimes(Map.of(p0, t0 + n * 1000L + 1)).get(p0);
      out.put("forTimeAfterEnd", none == null ? "null" : String.valueOf(none.offset()));
      c.seek(p0, 7);
      out.put("firstAfterSeek", firstPolled(c, in));
      c.seekToBeginning(List.of(p0));
      out.put("firstAfterSeekToBeginning", firstPolled(c, in));
      c.seekToEnd(List.of(p0));
      out.put("positionAfterSeekToEnd", c.position(p0));
      c.commitSync(Map.of(p0, new OffsetAndMetadata(5, "meta-5")));
      OffsetAndMetadata committed = c.committed(Set.of(p0)).get(p0);
      out.putObject("committed").put("offset", committed.offset()).put("metadata", committed.metadata());
      c.seek(p0, 3);
      String first = firstPolled(c, in);
      out.put("firstAfterSeek3", first);
      c.commitSync();
      out.put("committedAfterPollCommit", c.committed(Set.of(p0)).get(p0).offset());
      out.put("positionAfterPollCommit", c.position(p0));
    }
    // A new member of the same group resumes at the committed offset.
    try (KafkaConsumer<String, String> c = consumer(in, Map.of("group.id", in.get("group").asText()))) {
      c.assign(List.of(p0));
      out.put("resumedAt", c.position(p0));
    }
  }

  static String firstPolled(KafkaConsumer<String, String> c, JsonNode in) {
    long end = deadline(in);
    while (System.currentTimeMillis() < end)
      for (ConsumerRecord<String, String> r : c.poll(POLL)) return r.offset() + ":" + r.value();
    return null;
  }

  // ---- 3b. static membership ----------------------------------------------------------------------

  static final class Member {
    final KafkaConsumer<String, String> consumer;
    final List<String> callbacks = new ArrayList<>();

    Member(JsonNode in, String instanceId) {
      Map<String, String> cs = new HashMap<>();
      cs.put("group.id", in.get("group").asText());
      cs.put("group.instance.id", instanceId);
      cs.put("session.timeout.ms", in.get("sessionTimeoutMs").asText());
      cs.put("heartbeat.interval.ms", in.get("heartbeatMs").asText());
      consumer = consumer(in, cs);
      consumer.subscribe(List.of(in.get("topic").asText()), new ConsumerRebalanceListener() {
        public void onPartitionsRevoked(Collection<TopicPartition> p) {
          callbacks.add("revoked " + tps(p));
        }

        public void onPartitionsAssigned(Collection<TopicPartition> p) {
          callbacks.add("assigned " + tps(p));
        }
      });
    }

    int generation() {
      return consumer.groupMetadata().generationId();
    }
  }

  static void staticMembers(JsonNode in, ObjectNode out) throws Exception {
    int partitions = in.get("partitions").asInt();
    long end = deadline(in);
    Member a = new Member(in, "member-a");
    Member b = new Member(in, "member-b");
    // Both poll (one thread, short polls) until the group is stable with every partition assigned.
    while (System.currentTimeMillis() < end) {
      a.consumer.poll(POLL);
      b.consumer.poll(POLL);
      if (a.consumer.assignment().size() + b.consumer.assignment().size() == partitions && a.generation() == b.generation() && a.generation() > 0 && !a.consumer.assignment().isEmpty() && !b.consumer.assignment().isEmpty()) break;
    }
    out.set("aAssignment", tps(a.consumer.assignment()));
    out.set("bAssignment", tps(b.consumer.assignment()));
    out.put("generation", a.generation());
    out.put("aCallbacksBefore", a.callbacks.size());
    String bMemberId = b.consumer.groupMetadata().memberId();
    // A static member's close sends no LeaveGroup: the coordinator keeps its place for session.timeout.
    b.consumer.close();
    Member b2 = new Member(in, "member-b");
    while (System.currentTimeMillis() < end && b2.consumer.assignment().isEmpty()) {
      a.consumer.poll(POLL);
      b2.consumer.poll(POLL);
    }
    // A rebalance would reach member a on its next heartbeat: keep both polling for `observeHeartbeats`
    // heartbeat intervals and watch for one.
    long observeUntil = System.currentTimeMillis() + in.get("heartbeatMs").asLong() * in.get("observeHeartbeats").asLong();
    while (System.currentTimeMillis() < observeUntil) {
      a.consumer.poll(POLL);
      b2.consumer.poll(POLL);
    }
    out.set("aAssignmentAfter", tps(a.consumer.assignment()));
    out.set("b2Assignment", tps(b2.consumer.assignment()));
    out.put("aGenerationAfter", a.generation());
    out.put("b2Generation", b2.generation());
    out.put("b2SameMemberId", bMemberId.equals(b2.consumer.groupMetadata().memberId()));
    ArrayNode cb = out.putArray("aCallbacks");
    a.callbacks.forEach(cb::add);
    ArrayNode cb2 = out.putArray("b2Callbacks");
    b2.callbacks.forEach(cb2::add);
    try (Admin admin = admin(in)) {
      ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(in.get("group").asText())).all().get().get(in.get("group").asText());
      ArrayNode members = out.putArray("members");
      for (MemberDescription m : d.members()) members.addObject().put("instanceId", m.groupInstanceId().orElse(null)).set("assignment", tps(m.assignment().topicPartitions()));
    }
    a.consumer.close();
    b2.consumer.close();
  }

  // ---- 3c. groups: cooperative-sticky, admin on live groups ------------------------------------------

  static final class Coop {
    final KafkaConsumer<String, String> consumer;
    final ArrayNode callbacks = M.createArrayNode();
    int consumed;

    Coop(JsonNode in, String group, String instanceId) {
      Map<String, String> cs = new HashMap<>();
      cs.put("group.id", group);
      cs.put("partition.assignment.strategy", "org.apache.kafka.clients.consumer.CooperativeStickyAssignor");
      cs.put("heartbeat.interval.ms", "300");
      if (instanceId != null) cs.put("group.instance.id", instanceId);
      consumer = consumer(in, cs);
      consumer.subscribe(List.of(in.get("topic").asText()), new ConsumerRebalanceListener() {
        public void onPartitionsRevoked(Collection<TopicPartition> p) {
          callbacks.addObject().set("revoked", tps(p));
        }

        public void onPartitionsAssigned(Collection<TopicPartition> p) {
          callbacks.addObject().set("assigned", tps(p));
        }

        public void onPartitionsLost(Collection<TopicPartition> p) {
          callbacks.addObject().set("lost", tps(p));
        }
      });
    }

    void poll() {
      consumed += consumer.poll(POLL).count();
    }
  }

  static void groups(JsonNode in, ObjectNode out) throws Exception {
    String topic = in.get("topic").asText();
    String group = in.get("group").asText();
    String other = in.get("otherGroup").asText();
    int partitions = in.get("partitions").asInt();
    long end = deadline(in);
    try (KafkaProducer<String, String> p = producer(in, Map.of())) {
      for (int i = 0; i < partitions * 5; i++) p.send(new ProducerRecord<>(topic, i % partitions, "k" + i, "v" + i));
      p.flush();
    }
    Coop a = new Coop(in, group, null);
    while (System.currentTimeMillis() < end && a.consumer.assignment().size() < partitions) a.poll();
    out.set("aAlone", tps(a.consumer.assignment()));
    // b joins: cooperative-sticky moves half of a's partitions to b, a keeps the rest throughout.
    Coop b = new Coop(in, group, "coop-b");
    while (System.currentTimeMillis() < end && (b.consumer.assignment().isEmpty() || a.consumer.assignment().size() + b.consumer.assignment().size() != partitions)) {
      a.poll();
      b.poll();
    }
    out.set("aAfterJoin", tps(a.consumer.assignment()));
    out.set("bAfterJoin", tps(b.consumer.assignment()));
    out.set("aCallbacksAtJoin", a.callbacks.deepCopy());
    a.consumer.commitSync();
    b.consumer.commitSync();
    try (Admin admin = admin(in)) {
      step(out, "describeLive", () -> {
        ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
        List<String> members = d.members().stream().map(m -> m.groupInstanceId().orElse("dynamic") + "=" + m.assignment().topicPartitions().size()).sorted().toList();
        return Map.of("state", d.state().toString(), "assignor", d.partitionAssignor(), "members", members);
      });
      step(out, "deleteLiveGroup", () -> {
        admin.deleteConsumerGroups(List.of(group)).all().get();
        return "deleted";
      });
      step(out, "alterLiveGroupOffsets", () -> {
        admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(0))).all().get();
        return "altered";
      });
      // A second group with its own offsets: both listed by one listConsumerGroupOffsets call (OffsetFetch
      // with several groups).
      try (KafkaConsumer<String, String> c = consumer(in, Map.of("group.id", other))) {
        c.commitSync(Map.of(new TopicPartition(topic, 1), new OffsetAndMetadata(3, "other")));
      }
      step(out, "listOffsetsOfTwoGroups", () -> {
        var spec = new org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec();
        var r = admin.listConsumerGroupOffsets(Map.of(group, spec, other, spec));
        return Map.of(group, offsets(r.partitionsToOffsetAndMetadata(group).get()), other, offsets(r.partitionsToOffsetAndMetadata(other).get()));
      });
      step(out, "describeUnknownGroup", () -> {
        ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group + "-none")).all().get().get(group + "-none");
        return Map.of("state", d.state().toString(), "members", d.members().size());
      });
      // The static member b closed (no LeaveGroup), then removed by the admin: a takes every partition.
      b.consumer.close();
      step(out, "removeStaticMember", () -> {
        admin.removeMembersFromConsumerGroup(group, new org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions(List.of(new org.apache.kafka.clients.admin.MemberToRemove("coop-b")))).all().get();
        return "removed";
      });
      while (System.currentTimeMillis() < end && a.consumer.assignment().size() < partitions) a.poll();
      out.set("aAfterRemove", tps(a.consumer.assignment()));
      step(out, "removeUnknownMember", () -> {
        admin.removeMembersFromConsumerGroup(group, new org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions(List.of(new org.apache.kafka.clients.admin.MemberToRemove("nobody")))).all().get();
        return "removed";
      });
    }
    a.consumer.close();
  }

  // ---- 4. admin -------------------------------------------------------------------------------------

  static void admin(JsonNode in, ObjectNode out) throws Exception {
    String t1 = in.get("prefix").asText() + "-a";
    String t2 = in.get("prefix").asText() + "-b";
    String group = in.get("prefix").asText() + "-g";
    String txnId = in.get("prefix").asText() + "-tx";
    TopicPartition t2p0 = new TopicPartition(t2, 0);
    ConfigResource t1res = new ConfigResource(ConfigResource.Type.TOPIC, t1);
    try (Admin admin = admin(in)) {
      step(out, "createTopics", () -> {
        admin.createTopics(List.of(new NewTopic(t1, 3, (short) 1).configs(Map.of("retention.ms", "86400000")), new NewTopic(t2, 1, (short) 1))).all().get();
        return "ok";
      });
      step(out, "listTopics", () -> admin.listTopics().names().get().stream().filter(n -> n.equals(t1) || n.equals(t2)).sorted().toList());
      step(out, "describeTopics", () -> describeTopic(admin, t1));
      step(out, "createPartitions", () -> {
        admin.createPartitions(Map.of(t1, NewPartitions.increaseTo(5))).all().get();
        return describeTopic(admin, t1);
      });
      step(out, "describeConfigs", () -> admin.describeConfigs(List.of(t1res)).all().get().get(t1res).get("retention.ms").value());
      step(out, "incrementalAlterConfigs", () -> {
        admin.incrementalAlterConfigs(Map.of(t1res, List.of(new AlterConfigOp(new ConfigEntry("retention.ms", "123456"), AlterConfigOp.OpType.SET), new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.SET)))).all().get();
        var c = admin.describeConfigs(List.of(t1res)).all().get().get(t1res);
        return Map.of("retention.ms", c.get("retention.ms").value(), "cleanup.policy", c.get("cleanup.policy").value(), "source", c.get("retention.ms").source().toString());
      });
      step(out, "deleteConfig", () -> {
        admin.incrementalAlterConfigs(Map.of(t1res, List.of(new AlterConfigOp(new ConfigEntry("cleanup.policy", ""), AlterConfigOp.OpType.DELETE)))).all().get();
        var e = admin.describeConfigs(List.of(t1res)).all().get().get(t1res).get("cleanup.policy");
        return Map.of("value", e.value(), "source", e.source().toString());
      });
      step(out, "describeBrokerConfig", () -> {
        String id = String.valueOf(admin.describeCluster().controller().get().id());
        ConfigResource br = new ConfigResource(ConfigResource.Type.BROKER, id);
        return admin.describeConfigs(List.of(br)).all().get().get(br).get("log.retention.hours").value();
      });
      // Records for the offset, group and producer steps: 10 from an idempotent producer.
      try (KafkaProducer<String, String> p = producer(in, Map.of())) {
        for (int i = 0; i < 10; i++) p.send(new ProducerRecord<>(t2, 0, 1_000_000L + i, "k" + i, "v" + i));
        p.flush();
      }
      step(out, "deleteRecords", () -> admin.deleteRecords(Map.of(t2p0, RecordsToDelete.beforeOffset(4))).lowWatermarks().get(t2p0).get().lowWatermark());
      step(out, "listOffsets", () -> {
        Map<String, Object> r = new TreeMap<>();
        r.put("earliest", admin.listOffsets(Map.of(t2p0, OffsetSpec.earliest())).partitionResult(t2p0).get().offset());
        r.put("latest", admin.listOffsets(Map.of(t2p0, OffsetSpec.latest())).partitionResult(t2p0).get().offset());
        var mt = admin.listOffsets(Map.of(t2p0, OffsetSpec.maxTimestamp())).partitionResult(t2p0).get();
        r.put("maxTimestampOffset", mt.offset());
        r.put("maxTimestamp", mt.timestamp());
        r.put("forTimestamp", admin.listOffsets(Map.of(t2p0, OffsetSpec.forTimestamp(1_000_006L))).partitionResult(t2p0).get().offset());
        return r;
      });
      // A group with a committed offset, then left empty.
      try (KafkaConsumer<String, String> c = consumer(in, Map.of("group.id", group, "enable.auto.commit", "false"))) {
        c.subscribe(List.of(t2));
        int seen = 0;
        long end = deadline(in);
        while (seen < 6 && System.currentTimeMillis() < end) seen += c.poll(POLL).count();
        c.commitSync();
        out.put("groupConsumed", seen);
      }
      step(out, "listConsumerGroups", () -> {
        for (ConsumerGroupListing l : admin.listConsumerGroups().all().get())
          if (l.groupId().equals(group)) return Map.of("groupId", l.groupId(), "state", String.valueOf(l.state().orElse(null)));
        return "absent";
      });
      step(out, "describeConsumerGroups", () -> {
        ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
        return Map.of("state", d.state().toString(), "members", d.members().size(), "coordinator", d.coordinator().id());
      });
      step(out, "listConsumerGroupOffsets", () -> offsets(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get()));
      step(out, "alterConsumerGroupOffsets", () -> {
        admin.alterConsumerGroupOffsets(group, Map.of(t2p0, new OffsetAndMetadata(6))).all().get();
        return offsets(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get());
      });
      step(out, "deleteConsumerGroupOffsets", () -> {
        admin.deleteConsumerGroupOffsets(group, Set.of(t2p0)).all().get();
        return offsets(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get());
      });
      step(out, "deleteConsumerGroups", () -> {
        admin.deleteConsumerGroups(List.of(group)).all().get();
        return admin.listConsumerGroups().all().get().stream().anyMatch(l -> l.groupId().equals(group)) ? "still listed" : "gone";
      });
      step(out, "describeCluster", () -> {
        DescribeClusterResult r = admin.describeCluster();
        return Map.of("clusterId", r.clusterId().get(), "controller", r.controller().get().id(), "nodes", r.nodes().get().stream().map(Node::id).sorted().toList());
      });
      step(out, "describeLogDirs", () -> {
        int id = admin.describeCluster().controller().get().id();
        Map<String, LogDirDescription> dirs = admin.describeLogDirs(List.of(id)).allDescriptions().get().get(id);
        List<String> parts = new ArrayList<>();
        for (LogDirDescription d : dirs.values())
          for (TopicPartition p : d.replicaInfos().keySet()) if (p.topic().equals(t1) || p.topic().equals(t2)) parts.add(tp(p) + (p.equals(t2p0) ? "=" + d.replicaInfos().get(p).size() : ""));
        parts.sort(null);
        return Map.of("dirs", dirs.size(), "partitions", parts);
      });
      step(out, "describeProducers", () -> {
        List<ProducerState> s = admin.describeProducers(List.of(t2p0)).partitionResult(t2p0).get().activeProducers();
        return s.stream().map(x -> Map.of("producerId", x.producerId(), "epoch", x.producerEpoch(), "lastSequence", x.lastSequence())).toList();
      });
      // A transaction left open: listed, described, then aborted by the admin (a hanging transaction).
      KafkaProducer<String, String> tx = producer(in, Map.of("transactional.id", txnId));
      tx.initTransactions();
      tx.beginTransaction();
      tx.send(new ProducerRecord<>(t2, 0, "tk", "tv")).get();
      step(out, "listTransactions", () -> {
        for (TransactionListing l : admin.listTransactions().all().get())
          if (l.transactionalId().equals(txnId)) return Map.of("state", l.state().toString(), "producerId", l.producerId());
        return "absent";
      });
      step(out, "describeTransactions", () -> {
        TransactionDescription d = admin.describeTransactions(List.of(txnId)).description(txnId).get();
        return Map.of("state", d.state().toString(), "partitions", tps(d.topicPartitions()), "producerId", d.producerId(), "epoch", d.producerEpoch());
      });
      step(out, "lsoWhileOpen", () -> admin.listOffsets(Map.of(t2p0, OffsetSpec.latest()), new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).partitionResult(t2p0).get().offset());
      step(out, "abortTransaction", () -> {
        ProducerState open = null;
        for (ProducerState s : admin.describeProducers(List.of(t2p0)).partitionResult(t2p0).get().activeProducers())
          if (s.currentTransactionStartOffset().isPresent()) open = s;
        if (open == null) return "no open transaction in describeProducers";
        admin.abortTransaction(new AbortTransactionSpec(t2p0, open.producerId(), (short) open.producerEpoch(), open.coordinatorEpoch().orElse(-1))).all().get();
        Map<String, Object> r = new TreeMap<>();
        r.put("lsoAfter", admin.listOffsets(Map.of(t2p0, OffsetSpec.latest()), new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).partitionResult(t2p0).get().offset());
        r.put("latestAfter", admin.listOffsets(Map.of(t2p0, OffsetSpec.latest())).partitionResult(t2p0).get().offset());
        r.put("stillOpen", admin.describeProducers(List.of(t2p0)).partitionResult(t2p0).get().activeProducers().stream().anyMatch(s -> s.currentTransactionStartOffset().isPresent()));
        return r;
      });
      tx.close(Duration.ZERO);
      step(out, "deleteTopics", () -> {
        admin.deleteTopics(List.of(t1)).all().get();
        return admin.listTopics().names().get().contains(t1) ? "still listed" : "gone";
      });
    }
  }

  /** Topic ids, error answers, the newer ListOffsets specs, fenceProducers, filtered listTransactions. */
  static void adminMore(JsonNode in, ObjectNode out) throws Exception {
    String prefix = in.get("prefix").asText();
    String t1 = prefix + "-a";
    String t2 = prefix + "-b";
    String txnId = prefix + "-tx";
    TopicPartition t1p0 = new TopicPartition(t1, 0);
    try (Admin admin = admin(in)) {
      step(out, "createTopics", () -> {
        var r = admin.createTopics(List.of(new NewTopic(t1, 2, (short) 1).configs(Map.of("max.message.bytes", "200000")), new NewTopic(t2, Map.of(0, List.of(1), 1, List.of(1)))));
        r.all().get();
        Map<String, Object> m = new TreeMap<>();
        m.put("numPartitions", r.numPartitions(t1).get());
        m.put("replicationFactor", r.replicationFactor(t1).get());
        m.put("topicIdSet", !r.topicId(t1).get().equals(org.apache.kafka.common.Uuid.ZERO_UUID));
        m.put("maxMessageBytes", r.config(t1).get().get("max.message.bytes").value());
        m.put("t2Partitions", r.numPartitions(t2).get());
        return m;
      });
      step(out, "validateOnly", () -> {
        admin.createTopics(List.of(new NewTopic(prefix + "-v", 1, (short) 1)), new org.apache.kafka.clients.admin.CreateTopicsOptions().validateOnly(true)).all().get();
        return admin.listTopics().names().get().contains(prefix + "-v") ? "created" : "not created";
      });
      step(out, "createExisting", () -> {
        admin.createTopics(List.of(new NewTopic(t1, 1, (short) 1))).all().get();
        return "ok";
      });
      step(out, "createTooManyReplicas", () -> {
        admin.createTopics(List.of(new NewTopic(prefix + "-rf", 1, (short) 3))).all().get();
        return "ok";
      });
      step(out, "describeUnknown", () -> admin.describeTopics(List.of(prefix + "-nope")).allTopicNames().get());
      step(out, "deleteUnknown", () -> {
        admin.deleteTopics(List.of(prefix + "-nope")).all().get();
        return "ok";
      });
      step(out, "describeById", () -> {
        org.apache.kafka.common.Uuid id = admin.describeTopics(List.of(t1)).allTopicNames().get().get(t1).topicId();
        TopicDescription d = admin.describeTopics(org.apache.kafka.common.TopicCollection.ofTopicIds(List.of(id))).allTopicIds().get().get(id);
        return Map.of("name", d.name(), "partitions", d.partitions().size());
      });
      step(out, "describeUnknownId", () -> admin.describeTopics(org.apache.kafka.common.TopicCollection.ofTopicIds(List.of(org.apache.kafka.common.Uuid.randomUuid()))).allTopicIds().get());
      step(out, "tooLargeRecord", () -> {
        try (KafkaProducer<String, String> p = producer(in, Map.of())) {
          p.send(new ProducerRecord<>(t1, 0, "k", "x".repeat(300_000))).get();
          return "ok";
        }
      });
      try (KafkaProducer<String, String> p = producer(in, Map.of())) {
        for (int i = 0; i < 5; i++) p.send(new ProducerRecord<>(t1, 0, 2_000_000L + i, "k" + i, "v" + i));
        p.flush();
      }
      step(out, "listOffsetsSpecs", () -> {
        Map<String, Object> r = new TreeMap<>();
        r.put("earliest", admin.listOffsets(Map.of(t1p0, OffsetSpec.earliest())).partitionResult(t1p0).get().offset());
        r.put("earliestLocal", admin.listOffsets(Map.of(t1p0, OffsetSpec.earliestLocal())).partitionResult(t1p0).get().offset());
        r.put("latestTiered", admin.listOffsets(Map.of(t1p0, OffsetSpec.latestTiered())).partitionResult(t1p0).get().offset());
        r.put("maxTimestampOffset", admin.listOffsets(Map.of(t1p0, OffsetSpec.maxTimestamp())).partitionResult(t1p0).get().offset());
        r.put("forTimestampAfterEnd", admin.listOffsets(Map.of(t1p0, OffsetSpec.forTimestamp(9_000_000L))).partitionResult(t1p0).get().offset());
        return r;
      });
      step(out, "deleteRecordsPastEnd", () -> admin.deleteRecords(Map.of(t1p0, RecordsToDelete.beforeOffset(99))).lowWatermarks().get(t1p0).get().lowWatermark());
      step(out, "deleteRecordsToEnd", () -> admin.deleteRecords(Map.of(t1p0, RecordsToDelete.beforeOffset(-1))).lowWatermarks().get(t1p0).get().lowWatermark());
      step(out, "describeConfigsSynonyms", () -> {
        ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, t1);
        ConfigEntry e = admin.describeConfigs(List.of(res), new org.apache.kafka.clients.admin.DescribeConfigsOptions().includeSynonyms(true).includeDocumentation(true)).all().get().get(res).get("max.message.bytes");
        return Map.of("value", e.value(), "source", e.source().toString(), "synonyms", e.synonyms().stream().map(x -> x.name() + ":" + x.source()).toList(), "hasDoc", e.documentation() != null && !e.documentation().isEmpty(), "type", String.valueOf(e.type()));
      });
      step(out, "alterConfigsInvalid", () -> {
        ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, t1);
        admin.incrementalAlterConfigs(Map.of(res, List.of(new AlterConfigOp(new ConfigEntry("retention.ms", "not-a-number"), AlterConfigOp.OpType.SET)))).all().get();
        return "ok";
      });
      step(out, "createWithBrokerDefaults", () -> {
        var r = admin.createTopics(List.of(new NewTopic(prefix + "-d", java.util.Optional.empty(), java.util.Optional.empty())));
        r.all().get();
        return Map.of("numPartitions", r.numPartitions(prefix + "-d").get(), "replicationFactor", r.replicationFactor(prefix + "-d").get());
      });
      step(out, "appendSubtract", () -> {
        ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, t1);
        admin.incrementalAlterConfigs(Map.of(res, List.of(new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.APPEND)))).all().get();
        String appended = admin.describeConfigs(List.of(res)).all().get().get(res).get("cleanup.policy").value();
        admin.incrementalAlterConfigs(Map.of(res, List.of(new AlterConfigOp(new ConfigEntry("cleanup.policy", "delete"), AlterConfigOp.OpType.SUBTRACT)))).all().get();
        String subtracted = admin.describeConfigs(List.of(res)).all().get().get(res).get("cleanup.policy").value();
        return Map.of("appended", appended, "subtracted", subtracted);
      });
      step(out, "brokerDynamicConfig", () -> {
        int id = admin.describeCluster().controller().get().id();
        ConfigResource one = new ConfigResource(ConfigResource.Type.BROKER, String.valueOf(id));
        ConfigResource all = new ConfigResource(ConfigResource.Type.BROKER, "");
        admin.incrementalAlterConfigs(Map.of(one, List.of(new AlterConfigOp(new ConfigEntry("log.cleaner.backoff.ms", "16000"), AlterConfigOp.OpType.SET)))).all().get();
        admin.incrementalAlterConfigs(Map.of(all, List.of(new AlterConfigOp(new ConfigEntry("log.retention.ms", "7200000"), AlterConfigOp.OpType.SET)))).all().get();
        var c = admin.describeConfigs(List.of(one)).all().get().get(one);
        Map<String, Object> r = new TreeMap<>();
        r.put("backoff", c.get("log.cleaner.backoff.ms").value() + ":" + c.get("log.cleaner.backoff.ms").source());
        r.put("retention", c.get("log.retention.ms").value() + ":" + c.get("log.retention.ms").source());
        admin.incrementalAlterConfigs(Map.of(all, List.of(new AlterConfigOp(new ConfigEntry("log.retention.ms", ""), AlterConfigOp.OpType.DELETE)))).all().get();
        admin.incrementalAlterConfigs(Map.of(one, List.of(new AlterConfigOp(new ConfigEntry("log.cleaner.backoff.ms", ""), AlterConfigOp.OpType.DELETE)))).all().get();
        var after = admin.describeConfigs(List.of(one)).all().get().get(one);
        r.put("backoffAfter", after.get("log.cleaner.backoff.ms").source().toString());
        return r;
      });
      step(out, "describeBrokerLogger", () -> {
        int id = admin.describeCluster().controller().get().id();
        ConfigResource res = new ConfigResource(ConfigResource.Type.BROKER_LOGGER, String.valueOf(id));
        return admin.describeConfigs(List.of(res)).all().get().get(res).entries().size();
      });
      step(out, "describeFeatures", () -> {
        var f = admin.describeFeatures().featureMetadata().get();
        return Map.of("finalized", new TreeMap<>(f.finalizedFeatures()).keySet(), "supported", new TreeMap<>(f.supportedFeatures()).keySet());
      });
      // fenceProducers: a transactional producer's next step fails as fenced.
      KafkaProducer<String, String> tx = producer(in, Map.of("transactional.id", txnId));
      tx.initTransactions();
      tx.beginTransaction();
      tx.send(new ProducerRecord<>(t2, 0, "k", "v")).get();
      step(out, "listTransactionsFiltered", () -> {
        Map<String, Object> r = new TreeMap<>();
        r.put("ongoing", admin.listTransactions(new org.apache.kafka.clients.admin.ListTransactionsOptions().filterStates(List.of(org.apache.kafka.clients.admin.TransactionState.ONGOING))).all().get().stream().map(TransactionListing::transactionalId).filter(txnId::equals).toList());
        r.put("completeCommit", admin.listTransactions(new org.apache.kafka.clients.admin.ListTransactionsOptions().filterStates(List.of(org.apache.kafka.clients.admin.TransactionState.COMPLETE_COMMIT))).all().get().stream().map(TransactionListing::transactionalId).filter(txnId::equals).toList());
        r.put("longRunning", admin.listTransactions(new org.apache.kafka.clients.admin.ListTransactionsOptions().filterOnDuration(3_600_000L)).all().get().stream().map(TransactionListing::transactionalId).filter(txnId::equals).toList());
        return r;
      });
      step(out, "describeUnknownTransaction", () -> admin.describeTransactions(List.of(prefix + "-no-tx")).all().get());
      step(out, "fenceProducers", () -> {
        admin.fenceProducers(List.of(txnId)).all().get();
        return admin.describeTransactions(List.of(txnId)).description(txnId).get().state().toString();
      });
      step(out, "fencedProducerCommits", () -> {
        tx.commitTransaction();
        return "committed";
      });
      tx.close(Duration.ZERO);
      // KIP-430: what the client may do, asked for explicitly (null when the broker does not say).
      step(out, "authorizedOperations", () -> {
        Map<String, Object> r = new TreeMap<>();
        r.put("cluster", aclNames(admin.describeCluster(new org.apache.kafka.clients.admin.DescribeClusterOptions().includeAuthorizedOperations(true)).authorizedOperations().get()));
        r.put("topic", aclNames(admin.describeTopics(List.of(t2), new org.apache.kafka.clients.admin.DescribeTopicsOptions().includeAuthorizedOperations(true)).allTopicNames().get().get(t2).authorizedOperations()));
        r.put("group", aclNames(admin.describeConsumerGroups(List.of(prefix + "-authz"), new org.apache.kafka.clients.admin.DescribeConsumerGroupsOptions().includeAuthorizedOperations(true)).all().get().get(prefix + "-authz").authorizedOperations()));
        r.put("notAsked", aclNames(admin.describeCluster().authorizedOperations().get()));
        return r;
      });
      step(out, "deleteById", () -> {
        org.apache.kafka.common.Uuid id = admin.describeTopics(List.of(t2)).allTopicNames().get().get(t2).topicId();
        admin.deleteTopics(org.apache.kafka.common.TopicCollection.ofTopicIds(List.of(id))).all().get();
        return admin.listTopics().names().get().contains(t2) ? "still listed" : "gone";
      });
    }
  }

  static Object aclNames(Set<org.apache.kafka.common.acl.AclOperation> ops) {
    return ops == null ? "null" : ops.stream().map(Enum::name).sorted().toList();
  }

  static Map<String, Object> describeTopic(Admin admin, String topic) throws Exception {
    TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
    Map<String, Object> r = new TreeMap<>();
    r.put("name", d.name());
    r.put("partitions", d.partitions().size());
    r.put("topicIdSet", d.topicId() != null && !d.topicId().equals(org.apache.kafka.common.Uuid.ZERO_UUID));
    r.put("leaders", d.partitions().stream().map(p -> p.leader() == null ? -1 : p.leader().id()).toList());
    r.put("replicas", d.partitions().stream().map(p -> p.replicas().size()).toList());
    return r;
  }

  // ---- 5. cluster ---------------------------------------------------------------------------------

  static void clusterAdmin(JsonNode in, ObjectNode out) throws Exception {
    String topic = in.get("topic").asText();
    TopicPartition p0 = new TopicPartition(topic, 0);
    try (Admin admin = admin(in)) {
      step(out, "createTopic", () -> {
        admin.createTopics(List.of(new NewTopic(topic, 2, (short) 3))).all().get();
        return "ok";
      });
      step(out, "describeCluster", () -> admin.describeCluster().nodes().get().stream().map(Node::id).sorted().toList());
      // Metadata lags a moment behind CreateTopics: wait (bounded) until every partition has a leader.
      long ready = deadline(in);
      while (System.currentTimeMillis() < ready && !leadersKnown(admin, topic)) Thread.sleep(50);
      step(out, "before", () -> partitionState(admin, topic));
      // Produce and consume with RF 3.
      int n = in.get("count").asInt();
      try (KafkaProducer<String, String> p = producer(in, Map.of())) {
        for (int i = 0; i < n; i++) p.send(new ProducerRecord<>(topic, i % 2, "k" + i, "v" + i));
        p.flush();
      }
      int got = 0;
      try (KafkaConsumer<String, String> c = consumer(in, Map.of("group.id", topic + "-g"))) {
        c.subscribe(List.of(topic));
        long end = deadline(in);
        while (got < n && System.currentTimeMillis() < end) got += c.poll(POLL).count();
        c.commitSync();
      }
      out.put("consumed", got);
      // Partition 0: the same replicas in a rotated order (a new preferred leader), then a preferred election.
      // Partition 1: down to two replicas, dropping its first one (a reassignment that removes a replica).
      List<Integer> current = new ArrayList<>();
      for (Node r : admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().get(0).replicas()) current.add(r.id());
      List<Integer> order = new ArrayList<>(current.subList(1, current.size()));
      order.add(current.get(0));
      List<Integer> p1now = new ArrayList<>();
      for (Node r : admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().get(1).replicas()) p1now.add(r.id());
      List<Integer> shrunk = new ArrayList<>(p1now.subList(1, p1now.size()));
      out.set("reassignTo", M.valueToTree(order));
      out.set("shrinkTo", M.valueToTree(shrunk));
      TopicPartition p1 = new TopicPartition(topic, 1);
      step(out, "alterPartitionReassignments", () -> {
        admin.alterPartitionReassignments(Map.of(p0, java.util.Optional.of(new NewPartitionReassignment(order)), p1, java.util.Optional.of(new NewPartitionReassignment(shrunk)))).all().get();
        return "ok";
      });
      step(out, "listPartitionReassignments", () -> {
        Map<String, Object> r = new TreeMap<>();
        admin.listPartitionReassignments(Set.of(p0, p1)).reassignments().get().forEach((k, v) -> r.put(tp(k), Map.of("replicas", v.replicas(), "adding", v.addingReplicas(), "removing", v.removingReplicas())));
        return r;
      });
      // Wait (bounded) until no reassignment is in flight.
      long end = deadline(in);
      while (System.currentTimeMillis() < end && !admin.listPartitionReassignments().reassignments().get().isEmpty()) Thread.sleep(50);
      out.put("reassignmentsDone", admin.listPartitionReassignments().reassignments().get().isEmpty());
      step(out, "afterReassign", () -> partitionState(admin, topic));
      step(out, "electLeaders", () -> {
        Map<TopicPartition, java.util.Optional<Throwable>> r = admin.electLeaders(ElectionType.PREFERRED, Set.of(p0)).partitions().get();
        return r.get(p0).map(Driver::errorOf).orElse("ok");
      });
      step(out, "afterElect", () -> partitionState(admin, topic));
    }
  }

  static boolean leadersKnown(Admin admin, String topic) {
    try {
      return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().stream().allMatch(p -> p.leader() != null && p.isr().size() == p.replicas().size());
    } catch (Exception e) {
      return false;
    }
  }

  static List<Map<String, Object>> partitionState(Admin admin, String topic) throws Exception {
    List<Map<String, Object>> r = new ArrayList<>();
    for (TopicPartitionInfo p : admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions())
      r.add(Map.of("partition", p.partition(), "leader", p.leader() == null ? -1 : p.leader().id(), "replicas", p.replicas().stream().map(Node::id).toList(), "isr", p.isr().stream().map(Node::id).toList()));
    return r;
  }

  /**
   * An idempotent producer (the defaults) sends `topic` partition 0 values "r-<i>" until the file `stop`
   * exists (at most `max`), writing how many were acknowledged to `progress`; then a consumer reads the
   * partition to its end and the result says which acknowledged values it saw not exactly once.
   */
  static void produceUnderFailover(JsonNode in, ObjectNode out) throws Exception {
    String topic = in.get("topic").asText();
    Path progress = Path.of(in.get("progress").asText());
    Path stop = Path.of(in.get("stop").asText());
    int max = in.get("max").asInt();
    TopicPartition p0 = new TopicPartition(topic, 0);
    AtomicInteger acked = new AtomicInteger();
    List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());
    boolean[] ackedValues = new boolean[max];
    int sent = 0;
    long end = deadline(in);
    try (KafkaProducer<String, String> p = producer(in, Map.of("linger.ms", "5"))) {
      int lastWritten = 0;
      while (sent < max && System.currentTimeMillis() < end && !Files.exists(stop)) {
        final int i = sent++;
        p.send(new ProducerRecord<>(topic, 0, "k" + i, "r-" + i), (md, e) -> {
          if (e != null) errors.add(errorOf(e));
          else {
            synchronized (ackedValues) {
              ackedValues[i] = true;
            }
            acked.incrementAndGet();
          }
        });
        if (acked.get() - lastWritten >= 100) {
          lastWritten = acked.get();
          Path tmp = progress.resolveSibling(progress.getFileName() + ".tmp");
          Files.writeString(tmp, String.valueOf(lastWritten));
          Files.move(tmp, progress, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        if (sent - acked.get() > 2000) Thread.sleep(1); // back-pressure only: keep the in-flight window bounded
      }
      p.flush();
    }
    out.put("sent", sent);
    out.put("acked", acked.get());
    ArrayNode errs = out.putArray("errors");
    errors.stream().distinct().limit(20).forEach(errs::add);
    out.put("stoppedByFile", Files.exists(stop));
    int[] seen = new int[max];
    int total = 0;
    try (KafkaConsumer<String, String> c = consumer(in, Map.of())) {
      c.assign(List.of(p0));
      c.seekToBeginning(List.of(p0));
      long endOffset = c.endOffsets(List.of(p0)).get(p0);
      while (c.position(p0) < endOffset && System.currentTimeMillis() < end)
        for (ConsumerRecord<String, String> r : c.poll(POLL)) {
          seen[Integer.parseInt(r.value().substring(2))]++;
          total++;
        }
      out.put("endOffset", endOffset);
    }
    out.put("consumed", total);
    int missing = 0;
    int duplicated = 0;
    int unackedPresent = 0;
    for (int i = 0; i < sent; i++) {
      if (ackedValues[i] && seen[i] == 0) missing++;
      if (seen[i] > 1) duplicated++;
      if (!ackedValues[i] && seen[i] > 0) unackedPresent++;
    }
    out.put("missingAcked", missing);
    out.put("duplicated", duplicated);
    out.put("unackedPresent", unackedPresent);
  }
}
