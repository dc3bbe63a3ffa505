package org.capsched.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.yarn.api.protocolrecords.UpdateApplicationTimeoutsRequest;
import org.apache.hadoop.yarn.api.protocolrecords.UpdateApplicationTimeoutsResponse;
import org.apache.hadoop.yarn.api.records.ApplicationTimeoutType;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.util.Times;
import org.capsched.yarn.harness.RmHarness;
import org.junit.After;
import org.junit.Test;

/**
 * {@code maximum-application-lifetime} and {@code default-application-lifetime}, through a
 * real RM with Apache's CapacityScheduler and with ours: the lifetime each submission gets
 * (asked for, the leaf's default, capped at its maximum, inherited down the tree), the RM's
 * lifetime monitor killing an application past it with the RM's diagnostics,
 * {@code yarn application -updateLifetime} capped at the maximum, and a default above the
 * maximum refused.
 */
public class ApplicationLifetimeContractTest {
  private static final String KILLED =
      "Application is killed by ResourceManager as it has exceeded the lifetime period.";

  /** a: at most 2 s; b: default 600 s under root's maximum of 900 s; c: no maximum (0). */
  private static final String TREE = RmHarness.xml("root.queues", "a,b,c",
      "root.a.capacity", "40", "root.b.capacity", "40", "root.c.capacity", "20",
      "root.maximum-application-lifetime", "900",
      "root.a.maximum-application-lifetime", "2",
      "root.b.default-application-lifetime", "600",
      "root.c.maximum-application-lifetime", "0");

  private final List<MockRM> rms = new ArrayList<>();

  @After
  public void stop() {
    for (MockRM rm : rms) {
      rm.stop();
    }
  }

  private MockRM start(Class<? extends ResourceScheduler> scheduler, String xml) throws Exception {
    YarnConfiguration conf = RmHarness.configuration(scheduler, xml.getBytes(StandardCharsets.UTF_8));
    conf.setLong(YarnConfiguration.RM_APPLICATION_MONITOR_INTERVAL_MS, 100);
    MockRM rm = RmHarness.start(conf);
    rms.add(rm);
    return rm;
  }

  private static RMApp submit(MockRM rm, String queue, long lifetime) throws Exception {
    MockRMAppSubmissionData.Builder b = MockRMAppSubmissionData.Builder.createWithMemory(1024, rm)
        .withQueue(queue).withUser("user");
    if (lifetime > 0) {
      b.withApplicationTimeouts(Collections.singletonMap(ApplicationTimeoutType.LIFETIME, lifetime));
    }
    return MockRMAppSubmitter.submit(rm, b.build());
  }

  /** The lifetime the RM registered for {@code app}, in seconds from its submission; -1 for none. */
  private static long lifetime(RMApp app) {
    Long expiry = app.getApplicationTimeouts().get(ApplicationTimeoutType.LIFETIME);
    return expiry == null ? -1 : Math.round((expiry - app.getSubmitTime()) / 1000.0);
  }

  @Test(timeout = 120_000)
  public void lifetimesAreGivenCappedAndEnforcedAsWithApache() throws Exception {
    for (Class<? extends ResourceScheduler> scheduler : java.util.Arrays.asList(
        CapacityScheduler.class, RustCapacityScheduler.class)) {
      String who = scheduler.getSimpleName();
      MockRM rm = start(scheduler, TREE);
      rm.registerNode("h1:1234", 8 * 1024);
      ResourceScheduler s = rm.getResourceScheduler();

      // What the scheduler answers the RM, leaf by leaf, and for a parent or unknown name.
      assertEquals(who, 2, s.checkAndGetApplicationLifetime("a", 0));
      assertEquals(who, 2, s.checkAndGetApplicationLifetime("root.a", 100));
      assertEquals(who, 1, s.checkAndGetApplicationLifetime("a", 1));
      assertEquals(who, 600, s.checkAndGetApplicationLifetime("b", -1));
      assertEquals(who, 900, s.checkAndGetApplicationLifetime("b", 5000));
      assertEquals(who, 5000, s.checkAndGetApplicationLifetime("c", 5000));
      assertEquals(who, 0, s.checkAndGetApplicationLifetime("c", 0));
      assertEquals(who, 77, s.checkAndGetApplicationLifetime("root", 77));
      assertEquals(who, 77, s.checkAndGetApplicationLifetime("nowhere", 77));
      assertEquals(who, 2, s.getMaximumApplicationLifetime("a"));
      assertEquals(who, 900, s.getMaximumApplicationLifetime("root.b"));
      assertEquals(who, 0, s.getMaximumApplicationLifetime("c"));
      assertEquals(who, -1, s.getMaximumApplicationLifetime("root"));

      // The RM registers what the scheduler answers ...
      RMApp inB = submit(rm, "b", 0);
      assertEquals(who, 600, lifetime(inB));
      RMApp inC = submit(rm, "c", 0);
      assertEquals(who, -1, lifetime(inC));
      // ... and its lifetime monitor kills an application past it.
      RMApp inA = submit(rm, "a", 100);
      assertEquals(who, 2, lifetime(inA));
      rm.waitForState(inA.getApplicationId(), RMAppState.KILLED);
      assertTrue(who + ": " + inA.getDiagnostics(), inA.getDiagnostics().toString().contains(KILLED));

      // yarn application -updateLifetime: capped at the leaf's maximum (root's 900 s in b).
      String farFuture = Times.formatISO8601(inB.getSubmitTime() + 10_000_000L);
      UpdateApplicationTimeoutsResponse updated = rm.getClientRMService().updateApplicationTimeouts(
          UpdateApplicationTimeoutsRequest.newInstance(inB.getApplicationId(),
              Collections.singletonMap(ApplicationTimeoutType.LIFETIME, farFuture)));
      Map<ApplicationTimeoutType, String> got = updated.getApplicationTimeouts();
      assertEquals(who, 900, Math.round((Times.parseISO8601ToLocalTimeInMillis(
          got.get(ApplicationTimeoutType.LIFETIME)) - inB.getSubmitTime()) / 1000.0));
      rm.stop();
    }
  }

  @Test(timeout = 120_000)
  public void aDefaultAboveTheMaximumIsRefusedAsWithApache() throws Exception {
    String xml = RmHarness.xml("root.queues", "a", "root.a.capacity", "100",
        "root.a.maximum-application-lifetime", "10", "root.a.default-application-lifetime", "20");
    for (Class<? extends ResourceScheduler> scheduler : java.util.Arrays.asList(
        CapacityScheduler.class, RustCapacityScheduler.class)) {
      try {
        start(scheduler, xml);
        fail(scheduler.getSimpleName() + " started with a default lifetime above the maximum");
      } catch (RuntimeException e) {
        String reason = RmHarness.reason(e);
        assertTrue(scheduler.getSimpleName() + ": " + reason,
            reason.contains("20") && reason.contains("10") && reason.toLowerCase().contains("lifetime"));
      }
    }
  }
}
