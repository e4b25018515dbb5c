// The Kafka Streams compat driver (test code only). One command per run, its JSON input on stdin:
//   produce  create topics (when absent) and produce records with the client's defaults
//   streams  run the word-count application until stdin closes (long-running: one JSON event per line)
//   inspect  read output topics read_committed until they hold the expected final values, and describe
//            the application's internal topics and its group's committed offsets
//   reset    run StreamsResetter (kafka-streams-application-reset) for the application
// One-shot commands print one JSON line; failures print {"exception": ..., "trace": ...} and exit 1.
package krill.compat.streams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.tools.StreamsResetter;

public final class Driver {
  static final ObjectMapper JSON = new ObjectMapper();
  /** The application's topics: lines in, word counts out, per-minute word counts out, a table in and out. */
  static final String LINES = "lines", COUNTS = "counts", WINDOWED = "windowed-counts", TABLE_IN = "regions", TABLE_OUT = "regions-upper";
  static final Set<String> LONG_VALUED = Set.of(COUNTS, WINDOWED);

  public static void main(String[] argv) throws Exception {
    String command = argv[0];
    if (command.equals("streams")) {
      streams(JSON.readTree(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine()));
      return;
    }
    JsonNode in = JSON.readTree(System.in);
    ObjectNode out = JSON.createObjectNode();
    int code = 0;
    try {
      switch (command) {
        case "produce" -> produce(in, out);
        case "inspect" -> inspect(in, out);
        case "reset" -> reset(in, out);
        default -> throw new IllegalArgumentException("unknown command " + command);
      }
    } catch (Throwable e) {
      StringWriter trace = new StringWriter();
      e.printStackTrace(new PrintWriter(trace));
      out.put("exception", e.toString());
      out.put("trace", trace.toString());
      code = 1;
    }
    System.out.println(JSON.writeValueAsString(out));
    System.out.flush();
    System.exit(code);
  }

  static Properties clientProps(JsonNode in) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, in.get("bootstrap").asText());
    return p;
  }

  /** {bootstrap, topics: [{name, partitions, replicationFactor}], records: [{topic, key, value, timestamp}], batch, pauseMs} */
  static void produce(JsonNode in, ObjectNode out) throws Exception {
    try (Admin admin = Admin.create(clientProps(in))) {
      for (JsonNode t : in.path("topics")) {
        try {
          admin.createTopics(List.of(new NewTopic(t.get("name").asText(), t.get("partitions").asInt(), (short) t.path("replicationFactor").asInt(1)))).all().get();
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) throw e;
        }
      }
    }
    Properties p = clientProps(in);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    int batch = in.path("batch").asInt(Integer.MAX_VALUE);
    long pauseMs = in.path("pauseMs").asLong(0);
    int n = 0;
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      for (JsonNode r : in.path("records")) {
        Long ts = r.hasNonNull("timestamp") ? r.get("timestamp").asLong() : null;
        String key = r.hasNonNull("key") ? r.get("key").asText() : null;
        producer.send(new ProducerRecord<>(r.get("topic").asText(), null, ts, key, r.get("value").asText())).get();
        if (++n % batch == 0 && pauseMs > 0) Thread.sleep(pauseMs); // paces the input, so an instance can be killed while it flows
      }
    }
    out.put("produced", n);
  }

  /** The application: word count through a groupBy repartition, per-minute word counts, and a table. */
  static StreamsBuilder topology(AtomicLong linesSeen) {
    StreamsBuilder builder = new StreamsBuilder();
    KStream<String, String> lines = builder.stream(LINES, Consumed.with(Serdes.String(), Serdes.String()));
    KGroupedStream<String, String> words = lines
        .peek((k, v) -> linesSeen.incrementAndGet())
        .flatMapValues(line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split("\\W+")))
        .filter((k, w) -> !w.isEmpty())
        .groupBy((k, w) -> w, Grouped.with("words", Serdes.String(), Serdes.String()));
    words.count(Materialized.as("word-counts")).toStream().to(COUNTS, Produced.with(Serdes.String(), Serdes.Long()));
    words
        .windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMinutes(1), Duration.ofDays(1)))
        .count(Materialized.as("minute-counts"))
        .toStream()
        .map((w, c) -> KeyValue.pair(w.key() + "@" + w.window().start(), c))
        .to(WINDOWED, Produced.with(Serdes.String(), Serdes.Long()));
    builder
        .table(TABLE_IN, Consumed.with(Serdes.String(), Serdes.String()), Materialized.as("regions-store"))
        .mapValues(v -> v.toUpperCase(Locale.ROOT))
        .toStream()
        .to(TABLE_OUT, Produced.with(Serdes.String(), Serdes.String()));
    return builder;
  }

  static synchronized void event(ObjectNode e) {
    try {
      System.out.println(JSON.writeValueAsString(e));
      System.out.flush();
    } catch (Exception ignored) {
      // printing to stdout cannot fail in a way worth reporting
    }
  }

  /**
   * {bootstrap, appId, stateDir, replicationFactor, cleanUp}: runs until stdin closes, then closes leaving the
   * group. Events: {"event":"state","state":...}, {"event":"tasks","active":[...]} on each RUNNING,
   * {"event":"progress","lines":n} every 100 input lines, {"event":"error",...}, {"event":"closed"}.
   */
  static void streams(JsonNode in) throws Exception {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, in.get("appId").asText());
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, in.get("bootstrap").asText());
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.STATE_DIR_CONFIG, in.get("stateDir").asText());
    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, in.path("replicationFactor").asInt(-1));
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class.getName());
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class.getName());
    // A killed instance's tasks move after the session timeout: shortened from 45 s so the suite is quick.
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6000);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1000);
    AtomicLong linesSeen = new AtomicLong();
    StreamsBuilder builder = topology(linesSeen);
    KafkaStreams streams = new KafkaStreams(builder.build(p), p);
    CountDownLatch done = new CountDownLatch(1);
    streams.setStateListener((to, from) -> {
      ObjectNode e = JSON.createObjectNode().put("event", "state").put("state", to.name()).put("from", from.name());
      event(e);
      if (to == KafkaStreams.State.RUNNING) {
        ObjectNode t = JSON.createObjectNode().put("event", "tasks");
        ArrayNode active = t.putArray("active");
        ArrayNode standby = t.putArray("standby");
        for (ThreadMetadata tm : streams.metadataForLocalThreads()) {
          for (TaskMetadata task : tm.activeTasks()) active.add(task.taskId().toString());
          for (TaskMetadata task : tm.standbyTasks()) standby.add(task.taskId().toString());
        }
        event(t);
      }
      if (to == KafkaStreams.State.ERROR || to == KafkaStreams.State.NOT_RUNNING) done.countDown();
    });
    streams.setUncaughtExceptionHandler(ex -> {
      StringWriter trace = new StringWriter();
      ex.printStackTrace(new PrintWriter(trace));
      event(JSON.createObjectNode().put("event", "error").put("exception", ex.toString()).put("trace", trace.toString()));
      return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    });
    if (in.path("cleanUp").asBoolean(false)) streams.cleanUp();
    Thread progress = new Thread(() -> {
      long reported = 0;
      while (!Thread.currentThread().isInterrupted()) {
        long now = linesSeen.get();
        if (now / 100 > reported / 100) event(JSON.createObjectNode().put("event", "progress").put("lines", now));
        reported = now;
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          return;
        }
      }
    });
    progress.setDaemon(true);
    progress.start();
    streams.start();
    Thread stdin = new Thread(() -> {
      try {
        while (System.in.read() >= 0) {
          // the test closes stdin to stop the instance
        }
      } catch (Exception ignored) {
        // a closed stdin stops the instance
      }
      done.countDown();
    });
    stdin.setDaemon(true);
    stdin.start();
    done.await();
    streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP).withTimeout(Duration.ofSeconds(30)));
    event(JSON.createObjectNode().put("event", "closed"));
    System.exit(0);
  }

  /**
   * {bootstrap, appId, expected: {topic: {key: value}}, from: {topic: {partition: offset}}, timeoutMs}: reads
   * every topic of `expected` read_committed from `from` (else the beginning) until each key's last value is
   * the expected one or the timeout passes. Answers every value seen per key, in order, the end offsets, the
   * configs of the application's internal topics and the group's committed offsets.
   */
  static void inspect(JsonNode in, ObjectNode out) throws Exception {
    String appId = in.get("appId").asText();
    long deadline = System.currentTimeMillis() + in.path("timeoutMs").asLong(60_000);
    try (Admin admin = Admin.create(clientProps(in))) {
      Properties p = clientProps(in);
      p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
      p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
      p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
      p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
      ObjectNode outputs = out.putObject("outputs");
      try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
        List<String> topics = new ArrayList<>();
        in.get("expected").fieldNames().forEachRemaining(topics::add);
        Map<String, TopicDescription> described = admin.describeTopics(topics).allTopicNames().get();
        List<TopicPartition> tps = new ArrayList<>();
        for (TopicDescription d : described.values()) d.partitions().forEach(pi -> tps.add(new TopicPartition(d.name(), pi.partition())));
        consumer.assign(tps);
        for (TopicPartition tp : tps) {
          JsonNode from = in.path("from").path(tp.topic()).path(String.valueOf(tp.partition()));
          if (from.isMissingNode()) consumer.seekToBeginning(List.of(tp));
          else consumer.seek(tp, from.asLong());
        }
        Map<String, Map<String, List<Object>>> seen = new TreeMap<>();
        for (String t : topics) seen.put(t, new TreeMap<>());
        while (!matches(seen, in.get("expected")) && System.currentTimeMillis() < deadline) {
          for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
            String key = new String(r.key(), StandardCharsets.UTF_8);
            Object value = LONG_VALUED.contains(r.topic()) ? (Object) ByteBuffer.wrap(r.value()).getLong() : new String(r.value(), StandardCharsets.UTF_8);
            seen.get(r.topic()).computeIfAbsent(key, k -> new ArrayList<>()).add(value);
          }
        }
        for (String t : topics) {
          ObjectNode o = outputs.putObject(t);
          o.set("values", JSON.valueToTree(seen.get(t)));
          ObjectNode end = o.putObject("end");
          consumer.endOffsets(tps).forEach((tp, off) -> {
            if (tp.topic().equals(t)) end.put(String.valueOf(tp.partition()), off);
          });
        }
      }
      ObjectNode internal = out.putObject("internalTopics");
      Set<String> all = new TreeSet<>(admin.listTopics().names().get());
      out.set("topics", JSON.valueToTree(all));
      List<ConfigResource> resources = new ArrayList<>();
      for (String t : all) if (t.startsWith(appId + "-")) resources.add(new ConfigResource(ConfigResource.Type.TOPIC, t));
      Map<String, TopicDescription> descriptions = admin.describeTopics(resources.stream().map(ConfigResource::name).toList()).allTopicNames().get();
      for (Map.Entry<ConfigResource, Config> e : admin.describeConfigs(resources).all().get().entrySet()) {
        ObjectNode t = internal.putObject(e.getKey().name());
        TopicDescription d = descriptions.get(e.getKey().name());
        t.put("partitions", d.partitions().size());
        t.put("replicationFactor", d.partitions().get(0).replicas().size());
        ObjectNode configs = t.putObject("configs");
        for (ConfigEntry c : e.getValue().entries()) if (c.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG) configs.put(c.name(), c.value());
      }
      ObjectNode committed = out.putObject("committed");
      Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(appId).partitionsToOffsetAndMetadata().get();
      new TreeMap<String, Long>(offsetsByName(offsets)).forEach(committed::put);
    }
  }

  static Map<String, Long> offsetsByName(Map<TopicPartition, OffsetAndMetadata> offsets) {
    Map<String, Long> m = new HashMap<>();
    offsets.forEach((tp, o) -> {
      if (o != null) m.put(tp.topic() + "-" + tp.partition(), o.offset());
    });
    return m;
  }

  static boolean matches(Map<String, Map<String, List<Object>>> seen, JsonNode expected) {
    for (Map.Entry<String, Map<String, List<Object>>> t : seen.entrySet()) {
      JsonNode want = expected.get(t.getKey());
      if (want.size() != t.getValue().size()) return false;
      for (Map.Entry<String, List<Object>> k : t.getValue().entrySet()) {
        JsonNode w = want.get(k.getKey());
        Object last = k.getValue().get(k.getValue().size() - 1);
        if (w == null || !w.asText().equals(String.valueOf(last))) return false;
      }
    }
    return true;
  }

  /** {bootstrap, appId, inputTopics: [...]}: what `kafka-streams-application-reset` runs. */
  static void reset(JsonNode in, ObjectNode out) {
    List<String> args = new ArrayList<>(List.of("--bootstrap-server", in.get("bootstrap").asText(), "--application-id", in.get("appId").asText()));
    List<String> inputs = new ArrayList<>();
    in.path("inputTopics").forEach(t -> inputs.add(t.asText()));
    if (!inputs.isEmpty()) args.addAll(List.of("--input-topics", String.join(",", inputs)));
    out.put("exitCode", new StreamsResetter().execute(args.toArray(new String[0])));
  }
}
