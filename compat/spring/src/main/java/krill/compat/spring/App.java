package krill.compat.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The Spring for Apache Kafka compat app (test code). Run with --spring.profiles.active=basic (KafkaAdmin topics,
 * KafkaTemplate with @KafkaListener, @RetryableTopic) or tx (a KafkaTransactionManager, with
 * --spring.kafka.producer.transaction-id-prefix), and --spring.kafka.bootstrap-servers. Each scenario prints one
 * JSON line of what the application received; the app exits when all have run.
 */
@SpringBootApplication
public class App {
  public static void main(String[] args) {
    int code;
    try {
      ConfigurableApplicationContext ctx = SpringApplication.run(App.class, args);
      code = SpringApplication.exit(ctx);
    } catch (Throwable t) {
      Out.error("startup", t);
      code = 1;
    }
    System.exit(code);
  }
}
