package krill.compat.spring;

import java.util.function.BooleanSupplier;

/** Bounded polling for a state the listeners reach on their own threads. */
final class Await {
  private Await() {}

  static void until(String what, BooleanSupplier done, long timeoutMs) throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (!done.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) throw new IllegalStateException("timed out waiting for " + what);
      Thread.sleep(20);
    }
  }
}
