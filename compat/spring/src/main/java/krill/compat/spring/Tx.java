package krill.compat.spring;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.boot.CommandLineRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.TopicBuilder;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.transaction.KafkaTransactionManager;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Scenario 4: with spring.kafka.producer.transaction-id-prefix Boot makes the template transactional and defines a
 * KafkaTransactionManager; transactions through it commit or roll back, a read_committed listener (Boot's
 * spring.kafka.consumer.isolation-level) sees only the committed ones, a read_uncommitted one sees all records.
 */
@Configuration
@Profile("tx")
public class Tx {
  static final String TOPIC = "spring-tx";

  @Bean
  NewTopic txTopic() {
    return TopicBuilder.name(TOPIC).partitions(1).build();
  }

  @Component
  @Profile("tx")
  static class TxListeners {
    final List<Map<String, Object>> committed = new CopyOnWriteArrayList<>();
    final List<Map<String, Object>> uncommitted = new CopyOnWriteArrayList<>();

    @KafkaListener(id = "tx-committed", topics = TOPIC, groupId = "spring-tx-committed")
    void committed(ConsumerRecord<String, String> r) {
      committed.add(Out.record(r));
    }

    @KafkaListener(id = "tx-uncommitted", topics = TOPIC, groupId = "spring-tx-uncommitted", properties = "isolation.level=read_uncommitted")
    void uncommitted(ConsumerRecord<String, String> r) {
      uncommitted.add(Out.record(r));
    }
  }

  @Bean
  CommandLineRunner txRunner(KafkaTransactionManager<String, String> tm, KafkaTemplate<String, String> template, TxListeners listeners) {
    return args -> {
      try {
        TransactionTemplate tt = new TransactionTemplate(tm);
        tt.executeWithoutResult(s -> {
          template.send(TOPIC, "c", "committed-1");
          template.send(TOPIC, "c", "committed-2");
        });
        tt.executeWithoutResult(s -> {
          template.send(TOPIC, "r", "rolled-back-1");
          template.flush();
          s.setRollbackOnly();
        });
        String thrown = null;
        try {
          tt.executeWithoutResult(s -> {
            template.send(TOPIC, "r", "rolled-back-2");
            template.flush();
            throw new IllegalStateException("abort this one");
          });
        } catch (IllegalStateException e) {
          thrown = e.getMessage();
        }
        tt.executeWithoutResult(s -> template.send(TOPIC, "c", "committed-3"));
        Await.until("committed-3 read committed", () -> listeners.committed.stream().anyMatch(r -> "committed-3".equals(r.get("value"))), Basic.WAIT_MS);
        Await.until("committed-3 read uncommitted", () -> listeners.uncommitted.stream().anyMatch(r -> "committed-3".equals(r.get("value"))), Basic.WAIT_MS);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("scenario", "tx");
        m.put("thrown", thrown);
        m.put("transactional", template.isTransactional());
        m.put("committed", listeners.committed);
        m.put("uncommitted", listeners.uncommitted);
        Out.line(m);
      } catch (Throwable t) {
        Out.error("tx", t);
        throw t;
      }
    };
  }
}
