package krill.compat.spring;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.AdminClient;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.springframework.boot.CommandLineRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import org.springframework.kafka.annotation.BackOff;
import org.springframework.kafka.annotation.DltHandler;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.annotation.RetryableTopic;
import org.springframework.kafka.config.TopicBuilder;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.stereotype.Component;

/** Scenarios 1-3: KafkaAdmin's NewTopic beans, KafkaTemplate with an @KafkaListener, @RetryableTopic. */
@Configuration
@Profile("basic")
public class Basic {
  static final String PLAIN = "spring-plain";
  static final String RETRY = "spring-retry";
  static final long WAIT_MS = 60_000;

  @Bean
  NewTopic adminCompacted() {
    return TopicBuilder.name("spring-admin-compacted")
        .partitions(3)
        .replicas(1)
        .config(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT)
        .config(TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG, "60000")
        .build();
  }

  /** No replicas given: KafkaAdmin asks for the broker's default replication factor. */
  @Bean
  NewTopic adminDefaults() {
    return TopicBuilder.name("spring-admin-defaults").partitions(2).build();
  }

  /** The test creates this topic with 1 partition first: KafkaAdmin adds partitions up to 4. */
  @Bean
  NewTopic adminGrown() {
    return TopicBuilder.name("spring-admin-grown").partitions(4).build();
  }

  @Bean
  KafkaAdmin.NewTopics adminMore() {
    return new KafkaAdmin.NewTopics(
        TopicBuilder.name("spring-admin-retention").partitions(1).config(TopicConfig.RETENTION_MS_CONFIG, "3600000").config(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "200000").build(),
        TopicBuilder.name(PLAIN).partitions(2).build());
  }

  @Component
  @Profile("basic")
  static class PlainListener {
    final List<Map<String, Object>> got = new CopyOnWriteArrayList<>();

    @KafkaListener(id = "plain", topics = PLAIN, groupId = "spring-plain-group")
    void on(ConsumerRecord<String, String> r) {
      got.add(Out.record(r));
    }
  }

  @Component
  @Profile("basic")
  static class RetryListener {
    /** Every delivery to the listener (main and retry topics), in order. */
    final List<Map<String, Object>> attempts = new CopyOnWriteArrayList<>();
    final List<Map<String, Object>> dlt = new CopyOnWriteArrayList<>();

    @RetryableTopic(attempts = "3", backOff = @BackOff(delay = 200, multiplier = 2.0))
    @KafkaListener(id = "retry", topics = RETRY, groupId = "spring-retry-group")
    void on(ConsumerRecord<String, String> r) {
      attempts.add(Out.record(r));
      if (r.value().startsWith("bad")) throw new IllegalStateException("rejected " + r.value());
    }

    @DltHandler
    void dlt(ConsumerRecord<String, String> r) {
      dlt.add(Out.record(r));
    }
  }

  @Bean
  CommandLineRunner basicRunner(KafkaAdmin admin, KafkaTemplate<String, String> template, PlainListener plain, RetryListener retry) {
    return args -> {
      try {
        admin(admin);
        plain(admin, template, plain);
        retry(template, retry);
      } catch (Throwable t) {
        Out.error("basic", t);
        throw t;
      }
    };
  }

  /** What KafkaAdmin reports for the topics it made (the test reads them back with its own client too). */
  private static void admin(KafkaAdmin admin) {
    Map<String, TopicDescription> d = admin.describeTopics("spring-admin-compacted", "spring-admin-defaults", "spring-admin-grown", "spring-admin-retention");
    Map<String, Object> topics = new TreeMap<>();
    d.forEach((name, td) -> topics.put(name, Map.of("partitions", td.partitions().size(), "replicas", td.partitions().get(0).replicas().size())));
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("scenario", "admin");
    m.put("topics", topics);
    Out.line(m);
  }

  private static void plain(KafkaAdmin admin, KafkaTemplate<String, String> template, PlainListener plain) throws Exception {
    List<Map<String, Object>> sent = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      ProducerRecord<String, String> pr = new ProducerRecord<>(PLAIN, i % 2, i == 5 ? null : "key-" + i, "value-" + i);
      pr.headers().add("trace", ("t-" + i).getBytes(StandardCharsets.UTF_8));
      if (i % 3 == 0) pr.headers().add("trace", "again".getBytes(StandardCharsets.UTF_8));
      if (i == 4) pr.headers().add("empty", new byte[0]);
      RecordMetadata md = template.send(pr).get(30, TimeUnit.SECONDS).getRecordMetadata();
      Map<String, Object> s = new LinkedHashMap<>();
      s.put("partition", md.partition());
      s.put("offset", md.offset());
      s.put("key", pr.key());
      s.put("value", pr.value());
      sent.add(s);
    }
    // One end marker per partition, sent last: once both arrive, anything delivered twice would have shown.
    for (int p = 0; p < 2; p++) template.send(PLAIN, p, "end", "end-" + p).get(30, TimeUnit.SECONDS);
    Await.until("the end markers", () -> plain.got.stream().filter(r -> "end".equals(r.get("key"))).count() == 2, WAIT_MS);

    // The container commits what it processed: read the group's offsets back until they reach the markers.
    Map<String, Object> committed = new TreeMap<>();
    try (AdminClient ac = AdminClient.create(admin.getConfigurationProperties())) {
      Await.until("the group's commits", () -> {
        try {
          Map<TopicPartition, OffsetAndMetadata> o = ac.listConsumerGroupOffsets("spring-plain-group").partitionsToOffsetAndMetadata().get();
          committed.clear();
          o.forEach((tp, om) -> committed.put(tp.topic() + "-" + tp.partition(), om.offset()));
          return o.size() == 2 && o.values().stream().allMatch(om -> om.offset() == 4);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }, WAIT_MS);
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("scenario", "plain");
    m.put("sent", sent);
    m.put("received", plain.got);
    m.put("committed", committed);
    Out.line(m);
  }

  private static void retry(KafkaTemplate<String, String> template, RetryListener retry) throws Exception {
    List<String> values = List.of("good-1", "bad-1", "good-2", "bad-2", "good-3");
    Map<String, Long> offsets = new LinkedHashMap<>();
    for (String v : values) offsets.put(v, template.send(RETRY, "k-" + v, v).get(30, TimeUnit.SECONDS).getRecordMetadata().offset());
    Await.until("both bad records in the DLT", () -> retry.dlt.size() >= 2, WAIT_MS);
    // A last good record: once it is processed, a good record delivered twice would have shown.
    template.send(RETRY, "k-good-end", "good-end").get(30, TimeUnit.SECONDS);
    Await.until("the last good record", () -> retry.attempts.stream().anyMatch(a -> "good-end".equals(a.get("value"))), WAIT_MS);
    Set<String> topics = new java.util.TreeSet<>();
    try (AdminClient ac = AdminClient.create(template.getProducerFactory().getConfigurationProperties())) {
      Collection<String> names = ac.listTopics().names().get();
      for (String n : names) if (n.startsWith(RETRY)) topics.add(n);
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("scenario", "retry");
    m.put("offsets", offsets);
    m.put("attempts", retry.attempts);
    m.put("dlt", retry.dlt);
    m.put("topics", topics);
    Out.line(m);
  }
}
