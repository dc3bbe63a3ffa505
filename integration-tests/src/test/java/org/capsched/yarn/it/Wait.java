package org.capsched.yarn.it;

import java.util.function.Supplier;

/** Waiting on a condition with a deadline, polling it; the one wait the tests here use. */
final class Wait {
  private static final long POLL_MS = 100;

  private Wait() {
  }

  /** A condition to poll; it may fail with an exception, which ends the wait. */
  interface Condition {
    boolean holds() throws Exception;
  }

  /**
   * Returns once {@code condition} holds; fails after {@code timeoutMs} with {@code what}
   * (asked at that moment, so it can say what was seen last).
   */
  static void until(long timeoutMs, Condition condition, Supplier<String> what) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (!condition.holds()) {
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError("timed out after " + timeoutMs / 1000 + " s waiting until "
            + what.get());
      }
      Thread.sleep(POLL_MS);
    }
  }
}
