package krill.compat.spring;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.CommandLineRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.stereotype.Component;

/**
 * Scenario 5, for a cluster: Boot's KafkaTemplate (idempotent, acks=all by the client's defaults) sends to
 * krill.failover.topic until the file krill.failover.stop exists, writing how many sends were acknowledged to
 * krill.failover.progress, while the test kills the partition's leader; an @KafkaListener consumes alongside.
 * The line says how many were sent and acknowledged, which sends failed, and what the listener received.
 */
@Configuration
@Profile("failover")
public class Failover {
  /** A bound on the sends, whatever the stop file does. */
  static final long MAX_SENDS = 400_000;
  static final int IN_FLIGHT = 200;

  @Component
  @Profile("failover")
  static class FailoverListener {
    final Set<String> values = ConcurrentHashMap.newKeySet();
    final AtomicLong deliveries = new AtomicLong();

    @KafkaListener(id = "failover", topics = "${krill.failover.topic}", groupId = "spring-failover-group")
    void onRecord(ConsumerRecord<String, String> r) {
      values.add(r.value());
      deliveries.incrementAndGet();
    }
  }

  @Bean
  CommandLineRunner failoverRunner(
      KafkaTemplate<String, String> template,
      FailoverListener listener,
      @Value("${krill.failover.topic}") String topic,
      @Value("${krill.failover.progress}") String progressPath,
      @Value("${krill.failover.stop}") String stopPath) {
    return args -> {
      try {
        Path progress = Path.of(progressPath);
        Path stop = Path.of(stopPath);
        AtomicLong acked = new AtomicLong();
        List<String> errors = new CopyOnWriteArrayList<>();
        Semaphore window = new Semaphore(IN_FLIGHT);
        long sent = 0;
        while (sent < MAX_SENDS && !Files.exists(stop)) {
          window.acquire();
          template.send(topic, "k-" + (sent % 16), "v-" + sent).whenComplete((res, ex) -> {
            if (ex != null) errors.add(ex.toString());
            else acked.incrementAndGet();
            window.release();
          });
          sent++;
          if (sent % 100 == 0) report(progress, acked.get());
        }
        template.flush();
        window.acquire(IN_FLIGHT);
        report(progress, acked.get());
        long want = acked.get();
        Await.until("every acknowledged record at the listener", () -> listener.values.size() >= want, Basic.WAIT_MS);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("scenario", "failover");
        m.put("sent", sent);
        m.put("acked", want);
        m.put("errors", errors.subList(0, Math.min(5, errors.size())));
        m.put("received", listener.values.size());
        m.put("deliveries", listener.deliveries.get());
        Out.line(m);
      } catch (Throwable t) {
        Out.error("failover", t);
        throw t;
      }
    };
  }

  /** The count, replaced atomically so that the test never reads half a number. */
  static void report(Path progress, long acked) throws java.io.IOException {
    Path tmp = progress.resolveSibling(progress.getFileName() + ".tmp");
    Files.writeString(tmp, String.valueOf(acked));
    Files.move(tmp, progress, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }
}
