package krill.compat;

// The "quotas" scenario of the Java driver: the Admin client sets client-id quotas (AlterClientQuotas) and
// reads them back (DescribeClientQuotas); a producer and a consumer then run under them, and what they
// report is printed: the records acknowledged and read, and their own throttle-time metrics (the
// throttle_time_ms of the broker's responses, KIP-219).

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;

final class Quotas {
  private Quotas() {}

  static double metric(Map<MetricName, ? extends Metric> metrics, String group, String name) {
    for (var e : metrics.entrySet()) {
      if (e.getKey().group().equals(group) && e.getKey().name().equals(name)) return ((Number) e.getValue().metricValue()).doubleValue();
    }
    throw new IllegalStateException("no metric " + group + "/" + name);
  }

  static ClientQuotaAlteration quota(String clientId, String key, double value) {
    var entity = new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, clientId));
    return new ClientQuotaAlteration(entity, List.of(new ClientQuotaAlteration.Op(key, value)));
  }

  static void run(JsonNode in, ObjectNode out) throws Exception {
    String topic = in.get("topic").asText();
    String producerId = in.get("producerClientId").asText();
    String consumerId = in.get("consumerClientId").asText();
    int records = in.get("records").asInt();
    int size = in.get("size").asInt();
    double rate = in.get("byteRate").asDouble();
    Properties base = Driver.base(in);
    try (Admin admin = Admin.create(base)) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
      admin.alterClientQuotas(List.of(quota(producerId, "producer_byte_rate", rate), quota(consumerId, "consumer_byte_rate", rate))).all().get();
      ObjectNode described = out.putObject("described");
      for (var e : admin.describeClientQuotas(ClientQuotaFilter.all()).entities().get().entrySet()) {
        ObjectNode values = described.putObject(e.getKey().entries().toString());
        e.getValue().forEach(values::put);
      }
    }
    String value = "v".repeat(size);
    Map<String, String> ps = new HashMap<>();
    ps.put("client.id", producerId);
    ps.put("linger.ms", "0");
    try (KafkaProducer<String, String> producer = Driver.producer(in, ps)) {
      int acked = 0;
      // One record a request, each waited for: the producer's own throttle decides the pace.
      for (int i = 0; i < records; i++) {
        producer.send(new ProducerRecord<>(topic, "k" + i, value)).get();
        acked++;
      }
      out.put("acked", acked);
      out.put("produceThrottleTimeMax", metric(producer.metrics(), "producer-metrics", "produce-throttle-time-max"));
    }
    Map<String, String> cs = new HashMap<>();
    cs.put("client.id", consumerId);
    cs.put("group.id", in.get("group").asText());
    cs.put("max.partition.fetch.bytes", Integer.toString(2 * size));
    try (KafkaConsumer<String, String> consumer = Driver.consumer(in, cs)) {
      consumer.subscribe(List.of(topic));
      int read = 0;
      long deadline = System.currentTimeMillis() + 60_000;
      while (read < records && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
          if (r.key().equals("k" + read)) read++;
        }
      }
      out.put("read", read);
      out.put("fetchThrottleTimeMax", metric(consumer.metrics(), "consumer-fetch-manager-metrics", "fetch-throttle-time-max"));
    }
  }
}
