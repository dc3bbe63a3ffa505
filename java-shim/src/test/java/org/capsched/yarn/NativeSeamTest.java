package org.capsched.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.hadoop.ha.HAServiceProtocol;
import org.apache.hadoop.ha.HAServiceProtocol.HAServiceState;
import org.apache.hadoop.ha.HAServiceProtocol.StateChangeRequestInfo;
import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.util.ExitUtil;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.conf.HAUtil;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.capsched.yarn.harness.RmHarness;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * The seam between the RM and the native core under failure, through a real RM: a panic
 * in the core fails the call it happened in; one that may have left the core half-updated
 * poisons it, and the RM is handed over as after any fatal error (a stand-alone RM stops
 * with the reason, an HA one goes to standby and the next active starts a fresh core) —
 * never a silent exit from the scheduler's event thread, never later calls on broken
 * books. And a refresh swaps the core's tree and the RM-side queues together, so a
 * submission racing it never meets one without the other.
 */
public class NativeSeamTest {
  private static final int GB = 1024;
  private static final String TWO_QUEUES = RmHarness.xml("root.queues", "a,b",
      "root.a.capacity", "50", "root.b.capacity", "50", "maximum-am-resource-percent", "1.0");

  private final List<MockRM> rms = new ArrayList<>();

  @Before
  public void catchExits() {
    ExitUtil.disableSystemExit();
    ExitUtil.resetFirstExitException();
  }

  @After
  public void stopRms() {
    for (MockRM rm : rms) {
      rm.stop();
    }
    ExitUtil.resetFirstExitException();
  }

  private MockRM start(YarnConfiguration conf) throws Exception {
    MockRM rm = RmHarness.start(conf);
    rms.add(rm);
    return rm;
  }

  private static YarnConfiguration conf(String xml) throws Exception {
    return RmHarness.configuration(RustCapacityScheduler.class,
        xml.getBytes(StandardCharsets.UTF_8));
  }

  private static RustCapacityScheduler scheduler(MockRM rm) {
    return (RustCapacityScheduler) rm.getResourceScheduler();
  }

  private static void inject(MockRM rm, int fault) {
    scheduler(rm).inspect(core -> {
      core.injectFault(fault);
      return null;
    });
  }

  private static RMApp submit(MockRM rm, String queue) throws Exception {
    return MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withQueue(queue).withUser("u1").build());
  }

  /** The application runs: its AM container is allocated, launched and registered. */
  private static void runsAnApplication(MockRM rm, MockNM nm, String queue) throws Exception {
    RMApp app = submit(rm, queue);
    MockAM am = MockRM.launchAndRegisterAM(app, rm, nm);
    assertEquals(RMAppState.RUNNING, app.getState());
    assertTrue(ConsistencyCheck.of(scheduler(rm)).isEmpty());
    am.unregisterAppAttempt();
  }

  /** Waits (Hadoop's own test helper) until {@code condition} holds, at most 30 s. */
  private static void waitFor(String what, java.util.function.BooleanSupplier condition)
      throws Exception {
    try {
      GenericTestUtils.waitFor(condition::getAsBoolean, 20, 30_000);
    } catch (java.util.concurrent.TimeoutException e) {
      fail("timed out waiting until " + what);
    }
  }

  @Test(timeout = 120_000)
  public void aPanicWhileReadingFailsThatCallAloneAndTheRmGoesOn() throws Exception {
    MockRM rm = start(conf(TWO_QUEUES));
    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);
    inject(rm, NativeScheduler.FAULT_PANIC_WHILE_READING);
    // A queue's QueueInfo reads the core's figures when first looked at.
    QueueInfo a = scheduler(rm).getQueueInfo("a", false, false);
    try {
      a.getCurrentCapacity();
      fail("the injected panic did not reach the caller");
    } catch (NativeSchedulerPanicException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("fault injected by a test"));
      assertTrue("reading cannot poison the core",
          !(e instanceof NativeSchedulerPoisonedException));
    }
    assertEquals(0f, scheduler(rm).getQueueInfo("a", false, false).getCurrentCapacity(), 0);
    runsAnApplication(rm, nm, "a");
    assertTrue("the RM was stopped", !ExitUtil.terminateCalled());
  }

  @Test(timeout = 120_000)
  public void aPanicWhileChangingStopsAStandAloneRmWithTheReason() throws Exception {
    MockRM rm = start(conf(TWO_QUEUES));
    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);
    rm.drainEvents();
    inject(rm, NativeScheduler.FAULT_PANIC_WHILE_CHANGING);
    nm.nodeHeartbeat(true);
    waitFor("the RM is stopped", ExitUtil::terminateCalled);
    String reason = ExitUtil.getFirstExitException().getMessage();
    assertTrue(reason, reason.contains("can no longer be trusted")
        && reason.contains("fault injected by a test"));
    // Nothing is asked of the broken core any more: every call says why it fails.
    try {
      scheduler(rm).getQueueInfo("a", false, false).getCurrentCapacity();
      fail("a poisoned core answered");
    } catch (NativeSchedulerPoisonedException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("half-updated"));
    }
  }

  @Test(timeout = 120_000)
  public void aPanicWhileChangingHandsAnHaRmToStandbyAndTheNextActiveStartsAFreshCore()
      throws Exception {
    // The configuration Hadoop's test jar carries: becoming active, an HA RM refreshes its
    // queues from the capacity-scheduler.xml on its class path, which is that one here.
    YarnConfiguration conf = conf(RmHarness.xml("root.queues", "default",
        "root.default.capacity", "100"));
    conf.setBoolean(YarnConfiguration.RM_HA_ENABLED, true);
    conf.setBoolean(YarnConfiguration.AUTO_FAILOVER_ENABLED, false);
    conf.set(YarnConfiguration.RM_HA_IDS, "rm1,rm2");
    conf.set(YarnConfiguration.RM_HA_ID, "rm1");
    int port = 28_000;
    for (String key : YarnConfiguration.getServiceAddressConfKeys(conf)) {
      conf.set(HAUtil.addSuffix(key, "rm1"), "0.0.0.0:" + port++);
      conf.set(HAUtil.addSuffix(key, "rm2"), "0.0.0.0:" + port++);
    }
    MockRM rm = start(conf);
    StateChangeRequestInfo byUser =
        new StateChangeRequestInfo(HAServiceProtocol.RequestSource.REQUEST_BY_USER);
    rm.getAdminService().transitionToActive(byUser);
    RustCapacityScheduler first = scheduler(rm);
    MockNM nm = rm.registerNode("h1:1234", 16 * GB, 16);
    rm.drainEvents();
    inject(rm, NativeScheduler.FAULT_PANIC_WHILE_CHANGING);
    nm.nodeHeartbeat(true);
    // The RM goes to standby on a thread of its own, and has a new scheduler made (not yet
    // started) for the next time it is active once that thread is done: the transition
    // holds the RM's monitor.
    waitFor("the RM has a new scheduler", () -> rm.getResourceScheduler() != first);
    synchronized (rm) {
      assertEquals(HAServiceState.STANDBY, rm.getRMContext().getHAServiceState());
    }
    assertTrue("an HA RM goes to standby instead of stopping", !ExitUtil.terminateCalled());

    rm.getAdminService().transitionToActive(byUser);
    assertEquals(HAServiceState.ACTIVE, rm.getRMContext().getHAServiceState());
    MockNM again = rm.registerNode("h1:1234", 16 * GB, 16);
    runsAnApplication(rm, again, "default");
  }

  /**
   * A refresh adding a queue races submissions to it: each is either refused (the queue does
   * not exist yet) or accepted into a queue the RM knows, never half-known.
   */
  @Test(timeout = 300_000)
  public void aSubmissionRacingARefreshMeetsTheOldQueuesOrTheNewNeverHalf() throws Exception {
    String withC = RmHarness.xml("root.queues", "a,b,c", "root.a.capacity", "40",
        "root.b.capacity", "40", "root.c.capacity", "20", "maximum-am-resource-percent", "1.0");
    String stoppedC = withC.replace("</configuration>",
        "<property><name>yarn.scheduler.capacity.root.c.state</name><value>STOPPED</value>"
            + "</property></configuration>");
    YarnConfiguration conf = conf(TWO_QUEUES);
    MockRM rm = start(conf);
    rm.registerNode("h1:1234", 8 * GB, 8);
    for (int round = 0; round < 15; round++) {
      AtomicBoolean refreshed = new AtomicBoolean();
      List<RMApp> submitted = java.util.Collections.synchronizedList(new ArrayList<>());
      Thread submitter = new Thread(() -> {
        try {
          // Until shortly after the refresh, so that some land on each side of it.
          for (int i = 0; i < 400 && !(refreshed.get() && i % 20 == 0); i++) {
            submitted.add(MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
                .createWithMemory(GB, rm).withQueue("c").withUser("u1")
                .withWaitForAppAcceptedState(false).build()));
          }
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      submitter.start();
      // Some submissions go in before the refresh, more each round.
      int before = 1 + round;
      waitFor(before + " submissions", () -> submitted.size() >= before);
      RmHarness.refresh(rm, conf, withC);
      refreshed.set(true);
      submitter.join();
      for (RMApp app : submitted) {
        waitFor(app.getApplicationId() + " is accepted or refused",
            () -> app.getState() == RMAppState.ACCEPTED || app.getState() == RMAppState.FAILED);
        if (app.getState() == RMAppState.FAILED) {
          String why = app.getDiagnostics().toString();
          assertTrue(why, why.contains("unknown queue: c"));
        } else {
          assertTrue(app.getQueue(), app.getQueue().endsWith("c"));
          rm.killApp(app.getApplicationId());
          rm.waitForState(app.getApplicationId(), RMAppState.KILLED);
        }
      }
      rm.drainEvents();
      assertTrue(ConsistencyCheck.of(scheduler(rm)).isEmpty());
      RmHarness.refresh(rm, conf, stoppedC);
      RmHarness.refresh(rm, conf, TWO_QUEUES);
    }
    assertTrue("the RM was stopped", !ExitUtil.terminateCalled());
  }
}
