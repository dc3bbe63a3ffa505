package org.capsched.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.nio.charset.StandardCharsets;

import org.junit.Test;

/**
 * The JNI boundary's contract: errors become specific Java exceptions with their reason,
 * a panic becomes an exception instead of aborting the JVM, and the handle is freed
 * exactly once.
 */
public class NativeBoundaryTest {
  private static final String XML = "<configuration>"
      + "<property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>"
      + "<property><name>yarn.scheduler.capacity.root.a.capacity</name><value>50</value></property>"
      + "<property><name>yarn.scheduler.capacity.root.b.capacity</name><value>50</value></property>"
      + "</configuration>";
  private static final long[] CLUSTER = {1024, 1, 8192, 4, 0, 0};

  private static NativeScheduler create(String xml) {
    return new NativeScheduler(xml.getBytes(StandardCharsets.UTF_8), "test.xml", CLUSTER, 0,
        new String[0], new String[0], new String[0]);
  }

  @Test
  public void aPanicBecomesAJavaException() {
    for (int i = 0; i < 3; i++) {
      try {
        NativeScheduler.checkPanicFunnel("deliberate " + i);
        fail("no exception");
      } catch (NativeSchedulerPanicException e) {
        assertTrue(e.getMessage(), e.getMessage().contains("deliberate " + i));
      }
    }
    // The JVM and the library are still fine afterwards.
    try (NativeScheduler core = create(XML)) {
      assertEquals(3, core.queuePaths().length);
      assertEquals(3, core.queueReport().size());
    }
  }

  @Test
  public void anInvalidConfigurationIsASchedulerConfigurationException() {
    try {
      create(XML.replace("<value>50</value></property></configuration>",
          "<value>60</value></property></configuration>"));
      fail("accepted");
    } catch (SchedulerConfigurationException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("sum to 110%"));
    }
    try {
      create("<configuration><property>");
      fail("accepted");
    } catch (SchedulerConfigurationException e) {
      assertTrue(e.getMessage(), e.getMessage().startsWith("test.xml:1:"));
    }
  }

  @Test
  public void malformedArgumentsAreIllegalArgumentExceptions() {
    try (NativeScheduler core = create(XML)) {
      try {
        core.release(new long[] {1, 1});
        fail("accepted a container list of part of a record");
      } catch (IllegalArgumentException e) {
        assertTrue(e.getMessage(), e.getMessage().contains("length 2; expected (application,"
            + " attempt, number, kind) records of 4 longs"));
      }
      try {
        core.allocate(0, new long[0], new int[3], new long[0], new String[] {"*"}, null,
            new String[0], new String[0], false);
        fail("accepted disagreeing ask arrays");
      } catch (IllegalArgumentException e) {
        assertTrue(e.getMessage(), e.getMessage().contains("ask arrays disagree"));
      }
    }
  }

  /**
   * Sizes the RM never sends (negative, or past what any cluster holds; an ask past the
   * maximum allocation) are refused at the door with what is wrong, and change nothing: the
   * core goes on serving (found by fuzzing the seam, where they overflowed the books).
   */
  @Test
  public void sizesOfAnySignOrPastTheirLimitAreRefusedAndChangeNothing() {
    try (NativeScheduler core = create(XML)) {
      try {
        core.addNode("h1:1", "h1", "/r", -1024, 4, "", true);
        fail("accepted a node of negative memory");
      } catch (IllegalArgumentException e) {
        assertTrue(e.getMessage(), e.getMessage().contains(
            "node h1:1 of <memory:-1024, vCores:4> is refused: memory and vcores must each be"
            + " between 0 and"));
      }
      int node = core.addNode("h1:1", "h1", "/r", 8192, 4, "", true);
      try {
        core.allocate(0, new long[0], new int[] {1, 1, 1}, new long[] {0, 8193, 1},
            new String[] {"*"}, null, new String[0], new String[0], false);
        fail("accepted an ask past the maximum allocation");
      } catch (IllegalArgumentException e) {
        assertTrue(e.getMessage(), e.getMessage().contains(
            "the ask at priority 1 for * of <memory:8193, vCores:1> is refused"));
      }
      assertEquals(0, core.nodeUpdate(node, new long[0]).length);
      assertEquals(3, core.queueReport().size());
    }
  }

  @Test
  public void theHandleIsFreedExactlyOnceAndNotUsedAfterwards() {
    NativeScheduler core = create(XML);
    core.close();
    core.close();
    try {
      core.queueReport();
      fail("used after close");
    } catch (IllegalStateException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("closed"));
    }
  }

  /**
   * Calls from other threads racing the RM's stop (an AM's allocate, a metrics or web read)
   * either finish before the core is freed or are told it is closed: none reaches freed
   * memory (which would crash the JVM running this test).
   */
  @Test(timeout = 120_000)
  public void callsRacingCloseFinishFirstOrAreToldItIsClosed() throws Exception {
    for (int round = 0; round < 50; round++) {
      NativeScheduler core = create(XML);
      java.util.concurrent.atomic.AtomicInteger answered =
          new java.util.concurrent.atomic.AtomicInteger();
      java.util.concurrent.atomic.AtomicReference<Throwable> wrong =
          new java.util.concurrent.atomic.AtomicReference<>();
      Thread[] callers = new Thread[3];
      for (int t = 0; t < callers.length; t++) {
        int kind = t;
        callers[t] = new Thread(() -> {
          try {
            while (true) {
              if (kind == 0) {
                core.addNode("h" + answered.get() + ":1", "h", "/r", 8192, 8, "", true);
              } else if (kind == 1) {
                assertEquals(3, core.queuePaths().length);
              } else {
                assertEquals(3, core.queueReport().size());
              }
              answered.incrementAndGet();
            }
          } catch (IllegalStateException closed) {
            if (!closed.getMessage().contains("closed")) {
              wrong.set(closed);
            }
          } catch (Throwable t2) {
            wrong.set(t2);
          }
        });
        callers[t].setDaemon(true);
        callers[t].start();
      }
      // Close while the callers are crossing, once they have answered a few calls.
      org.apache.hadoop.test.GenericTestUtils.waitFor(
          () -> answered.get() >= 3 || wrong.get() != null, 1, 30_000);
      core.close();
      for (Thread caller : callers) {
        caller.join();
      }
      if (wrong.get() != null) {
        throw new AssertionError("a call racing close failed otherwise", wrong.get());
      }
    }
  }
}
