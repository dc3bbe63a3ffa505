package org.capsched.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.protocolrecords.RegisterApplicationMasterResponse;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationResourceUsageReport;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.api.records.PreemptionContainer;
import org.apache.hadoop.yarn.api.records.PreemptionMessage;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceOption;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.InvalidResourceRequestException;
import org.apache.hadoop.yarn.server.api.protocolrecords.NMContainerStatus;
import org.apache.hadoop.yarn.server.api.protocolrecords.UpdateNodeResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.MemoryRMStateStore;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.RMStateStore;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptImpl;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.capsched.yarn.harness.RmHarness;
import org.junit.After;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;
import org.junit.runners.Parameterized.Parameters;

/**
 * What the RM, an AM and a client see of application attempts and their containers —
 * retries, kept containers, kills, usage reports and allocation counts — through a real RM,
 * run once with Apache's CapacityScheduler and once with ours: the same assertions hold for
 * both, so each states Apache's behaviour and checks ours has it.
 */
@RunWith(Parameterized.class)
public class AttemptContractTest {
  private static final int GB = 1024;
  private static final String ONE_QUEUE = RmHarness.xml("root.queues", "default",
      "root.default.capacity", "100", "maximum-am-resource-percent", "1.0");

  @Parameters(name = "{0}")
  public static Collection<Object[]> schedulers() {
    return Arrays.asList(new Object[] {"Apache", CapacityScheduler.class},
        new Object[] {"Rust", RustCapacityScheduler.class});
  }

  private final Class<? extends ResourceScheduler> schedulerClass;
  private final List<MockRM> rms = new ArrayList<>();

  public AttemptContractTest(String name, Class<? extends ResourceScheduler> schedulerClass) {
    this.schedulerClass = schedulerClass;
  }

  @After
  public void stopRms() {
    for (MockRM rm : rms) {
      rm.stop();
    }
  }

  /** The RM's configuration with {@code capacitySchedulerXml}, for the scheduler under test. */
  private YarnConfiguration conf(String capacitySchedulerXml) throws Exception {
    return RmHarness.configuration(schedulerClass,
        capacitySchedulerXml.getBytes(StandardCharsets.UTF_8));
  }

  /** {@code conf}, recovering from a memory state store, work-preserving or not. */
  private static YarnConfiguration recovering(YarnConfiguration conf, boolean workPreserving) {
    conf.setBoolean(YarnConfiguration.RECOVERY_ENABLED, true);
    conf.setBoolean(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_ENABLED, workPreserving);
    conf.setLong(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS, 0);
    conf.set(YarnConfiguration.RM_STORE, MemoryRMStateStore.class.getName());
    return conf;
  }

  /** Starts an RM on {@code conf}, recovering from {@code store} (null for a new one). */
  private MockRM start(YarnConfiguration conf, RMStateStore store) throws Exception {
    MockRM rm = RmHarness.start(conf, store);
    rms.add(rm);
    return rm;
  }

  private MockRM start(int maxAttempts) throws Exception {
    YarnConfiguration conf = conf(ONE_QUEUE);
    conf.setInt(YarnConfiguration.RM_AM_MAX_ATTEMPTS, maxAttempts);
    return start(conf, null);
  }

  private static RMApp submit(MockRM rm, String queue, boolean keepContainers)
      throws Exception {
    return MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withQueue(queue).withUser("u")
        .withKeepContainers(keepContainers).build());
  }

  /** Checks the Rust core against the RM's objects (nothing to check for Apache's). */
  private static void assertConsistent(MockRM rm) {
    if (rm.getResourceScheduler() instanceof RustCapacityScheduler) {
      List<String> differences =
          ConsistencyCheck.of((RustCapacityScheduler) rm.getResourceScheduler());
      assertTrue("the Rust core and the RM disagree:\n" + String.join("\n", differences),
          differences.isEmpty());
    }
  }

  private static AbstractYarnScheduler<?, ?> scheduler(MockRM rm) {
    return (AbstractYarnScheduler<?, ?>) rm.getResourceScheduler();
  }

  /** An application on an RM, with its current attempt's AM launched on one node. */
  private static final class Running {
    final MockRM rm;
    final MockNM nm;
    final RMApp app;
    MockAM am;
    RegisterApplicationMasterResponse registration;

    Running(MockRM rm, MockNM nm, RMApp app) {
      this.rm = rm;
      this.nm = nm;
      this.app = app;
    }

    /** Launches the application's current attempt on the node and registers its AM. */
    Running launch() throws Exception {
      ApplicationAttemptId attempt = app.getCurrentAppAttempt().getAppAttemptId();
      rm.waitForState(attempt, RMAppAttemptState.SCHEDULED);
      nm.nodeHeartbeat(true);
      rm.drainEvents();
      rm.waitForState(attempt, RMAppAttemptState.ALLOCATED);
      am = rm.sendAMLaunched(attempt);
      registration = am.registerAppAttempt();
      return this;
    }

    /** Asks for {@code count} containers of {@code gb} GB at {@code where}; returns them. */
    List<Container> get(String where, int gb, int count) throws Exception {
      am.allocate(where, gb * GB, count, Collections.<ContainerId>emptyList());
      return RmHarness.collect(rm, am, nm, count);
    }

    /** What the RM tells the AM when it asks for a {@code gb} GB container (null: taken). */
    String refusal(int gb) {
      try {
        am.allocate(ResourceRequest.ANY, gb * GB, 1, Collections.<ContainerId>emptyList());
        return null;
      } catch (Exception e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
          if (t instanceof InvalidResourceRequestException) {
            return t.getMessage();
          }
        }
        throw new AssertionError("the ask failed for another reason", e);
      }
    }
  }

  /** An 8 GB node on {@code rm} and an application in root.default, its first AM running. */
  private static Running running(MockRM rm, boolean keepContainers) throws Exception {
    return new Running(rm, rm.registerNode("h1:1234", 8 * GB, 8),
        submit(rm, "default", keepContainers)).launch();
  }

  /** {@code yarn rmadmin -updateNodeResource}: {@code nm} becomes {@code gb} GB. */
  private static void resize(MockRM rm, MockNM nm, int gb, int overcommitTimeoutMs)
      throws Exception {
    rm.getAdminService().updateNodeResource(UpdateNodeResourceRequest.newInstance(
        Collections.singletonMap(nm.getNodeId(), ResourceOption.newInstance(
            Resource.newInstance(gb * GB, 16), overcommitTimeoutMs))));
    rm.drainEvents();
  }

  private static NMContainerStatus runningStatus(ContainerId id) {
    return NMContainerStatus.newInstance(id, 0, ContainerState.RUNNING,
        Resource.newInstance(GB, 1), "running", 0, Priority.newInstance(0), 0);
  }

  private static List<ContainerId> ids(List<Container> containers) {
    List<ContainerId> out = new ArrayList<>();
    for (Container c : containers) {
      out.add(c.getId());
    }
    return out;
  }

  @Test(timeout = 120_000)
  public void aRetriedAttemptNumbersItsContainersAfreshAndKeepsThePreviousOnes()
      throws Exception {
    Running r = running(start(3), true);
    ApplicationAttemptId first = r.am.getApplicationAttemptId();
    ContainerId kept = ContainerId.newContainerId(first, 2);
    assertEquals(kept, r.get(ResourceRequest.ANY, 1, 1).get(0).getId());
    r.nm.nodeHeartbeat(first, 2, ContainerState.RUNNING);

    // The first AM exits: the RM fails the attempt and starts the second.
    r.nm.nodeHeartbeat(first, 1, ContainerState.COMPLETE);
    r.rm.waitForState(first, RMAppAttemptState.FAILED);
    r.rm.waitForState(r.app.getApplicationId(), RMAppState.ACCEPTED);
    r.launch();
    ApplicationAttemptId second = r.am.getApplicationAttemptId();
    assertEquals(2, second.getAttemptId());
    assertEquals("the second attempt's AM container is its first",
        ContainerId.newContainerId(second, 1),
        r.app.getCurrentAppAttempt().getMasterContainer().getId());
    assertEquals(Collections.singletonList(kept),
        ids(r.registration.getContainersFromPreviousAttempts()));

    // Its first task has number 2 as well, beside the kept one of the first attempt.
    ContainerId next = r.get(ResourceRequest.ANY, 1, 1).get(0).getId();
    assertEquals(ContainerId.newContainerId(second, 2), next);
    assertNotNull(scheduler(r.rm).getRMContainer(kept));
    assertNotNull(scheduler(r.rm).getRMContainer(next));
    assertEquals(3 * GB, scheduler(r.rm).getRootQueueMetrics().getAllocatedMB());
    assertConsistent(r.rm);

    // The second AM's exit, as its NodeManager reports it, fails the second attempt.
    r.nm.nodeHeartbeat(second, 1, ContainerState.COMPLETE);
    r.rm.waitForState(second, RMAppAttemptState.FAILED);
    r.rm.drainEvents();
    assertConsistent(r.rm);
  }

  @Test(timeout = 120_000)
  public void aContainerTheRmKillsEndsAsPreemptedAndItsAttemptIsNotCounted() throws Exception {
    Running r = running(start(2), false);
    ApplicationAttemptId first = r.am.getApplicationAttemptId();
    scheduler(r.rm).killContainer(
        scheduler(r.rm).getRMContainer(ContainerId.newContainerId(first, 1)));
    r.rm.waitForState(first, RMAppAttemptState.FAILED);
    RMAppAttemptImpl attempt = (RMAppAttemptImpl) r.app.getRMAppAttempt(first);
    assertEquals(ContainerExitStatus.PREEMPTED, attempt.getAMContainerExitStatus());
    assertFalse("a preempted AM does not use up one of the application's attempts",
        attempt.shouldCountTowardsMaxAttemptRetry());
    r.rm.waitForState(r.app.getApplicationId(), RMAppState.ACCEPTED);
    assertEquals(2, r.app.getCurrentAppAttempt().getAppAttemptId().getAttemptId());
    assertConsistent(r.rm);
  }

  @Test(timeout = 120_000)
  public void usageReportsAndAllocationCountsReachTheClient() throws Exception {
    Running r = running(start(1), false);
    assertEquals("submitted to 'default', it runs in (and reports) the queue's full path",
        "root.default", r.app.getQueue());
    r.get("h1", 1, 1);
    r.get(ResourceRequest.ANY, 1, 1);

    // The admin resizes the node, which has the RM count it in its default partition.
    resize(r.rm, r.nm, 16, -1);

    // What yarn application -status shows: 3 GB used of the queue's 16 GB guarantee.
    ApplicationResourceUsageReport usage = r.app.createAndGetApplicationReport("u", true)
        .getApplicationResourceUsageReport();
    assertEquals(3, usage.getNumUsedContainers());
    assertEquals(3 * GB, usage.getUsedResources().getMemorySize());
    assertEquals(100f * 3 / 16, usage.getQueueUsagePercentage(), 0.01f);
    assertEquals(100f * 3 / 16, usage.getClusterUsagePercentage(), 0.01f);

    // Every container allocated is counted for the attempt, by where it went and what its
    // ask wanted: the AM and the task anywhere off-switch, the task for h1 node-local.
    RMAppAttemptMetrics metrics =
        r.app.getRMAppAttempt(r.am.getApplicationAttemptId()).getRMAppAttemptMetrics();
    assertEquals(3, metrics.getTotalAllocatedContainers());
    int[][] locality = metrics.getLocalityStatistics();
    assertEquals(1, locality[NodeType.NODE_LOCAL.getIndex()][NodeType.NODE_LOCAL.getIndex()]);
    assertEquals(2, locality[NodeType.OFF_SWITCH.getIndex()][NodeType.OFF_SWITCH.getIndex()]);
    assertConsistent(r.rm);
  }

  /** The running containers' memory-seconds in the attempt's report, and when it was read. */
  private static long[] memorySecondsAt(MockRM rm, ApplicationAttemptId attempt) {
    long before = System.currentTimeMillis();
    long seconds = scheduler(rm).getAppResourceUsageReport(attempt).getMemorySeconds();
    return new long[] {seconds, before, System.currentTimeMillis()};
  }

  @Test(timeout = 120_000)
  public void theRunningContainersResourceSecondsAreSummedAtMostEveryThreeSeconds()
      throws Exception {
    Running r = running(start(1), false);
    ApplicationAttemptId attempt = r.am.getApplicationAttemptId();
    r.get(ResourceRequest.ANY, 4, 1);
    long allocated = System.currentTimeMillis();

    // Three seconds on, whatever sum the RM asked for on the way is stale: the report sums
    // afresh what the AM's 1 GB and the task's 4 GB have held.
    Thread.sleep(3_100);
    long[] fresh = memorySecondsAt(r.rm, attempt);
    assertTrue("5 GB held over three seconds: " + fresh[0],
        fresh[0] >= 5 * 1024 * (fresh[1] - allocated) / 1000 - 2);

    // A second later they have held another 5,000 MB-seconds, but a report read within three
    // seconds of the last sum carries that sum, as Apache's does.
    Thread.sleep(1_000);
    long[] again = memorySecondsAt(r.rm, attempt);
    if (again[2] - fresh[1] <= 3_000) {
      assertEquals("summed again within three seconds", fresh[0], again[0]);
    }
    assertConsistent(r.rm);
  }

  @Test(timeout = 120_000)
  public void aNodeShrunkBelowItsUseAsksTheAmForContainersBackFirst() throws Exception {
    Running r = running(start(1), false);
    ContainerId task = r.get(ResourceRequest.ANY, 4, 1).get(0).getId();
    r.nm.nodeHeartbeat(r.am.getApplicationAttemptId(), 2, ContainerState.RUNNING);

    // 5 GB run on a node now 2 GB, with a minute to give back the difference: the AM is
    // asked for the 4 GB task in its next allocate response, and nothing is killed yet.
    resize(r.rm, r.nm, 2, 60_000);
    AllocateResponse response = r.am.allocate(Collections.<ResourceRequest>emptyList(),
        Collections.<ContainerId>emptyList());
    PreemptionMessage preemption = response.getPreemptionMessage();
    assertNotNull("the AM is told which containers to give back", preemption);
    List<ContainerId> asked = new ArrayList<>();
    for (PreemptionContainer c : preemption.getContract().getContainers()) {
      asked.add(c.getId());
    }
    assertEquals(Collections.singletonList(task), asked);
    assertNotNull("still running", scheduler(r.rm).getRMContainer(task));
    assertConsistent(r.rm);
  }

  @Test(timeout = 180_000)
  public void aRestartedRmHandsTheNewAttemptTheContainersOfTheOldOne() throws Exception {
    YarnConfiguration conf = recovering(conf(ONE_QUEUE), true);
    conf.setInt(YarnConfiguration.RM_AM_MAX_ATTEMPTS, 2);
    MockRM rm1 = start(conf, null);
    Running r = running(rm1, true);
    MockNM nm2 = rm1.registerNode("h2:1234", 8 * GB, 8);
    ApplicationAttemptId first = r.am.getApplicationAttemptId();
    ContainerId onH1 = r.get("h1", 1, 1).get(0).getId();
    r.am.allocate("h2", GB, 1, Collections.<ContainerId>emptyList());
    ContainerId onH2 = RmHarness.collect(rm1, r.am, nm2, 1).get(0).getId();
    // The first AM exits; then the RM restarts before the second attempt has run.
    r.nm.nodeHeartbeat(first, 1, ContainerState.COMPLETE);
    rm1.waitForState(first, RMAppAttemptState.FAILED);

    MockRM rm2 = start(conf, rm1.getRMStateStore());
    r.nm.setResourceTrackerService(rm2.getResourceTrackerService());
    r.nm.registerNode(Collections.singletonList(runningStatus(onH1)), null);
    rm2.waitForState(r.app.getApplicationId(), RMAppState.ACCEPTED);
    // A container recovered before the new AM registers comes with its registration...
    Running again = new Running(rm2, r.nm,
        rm2.getRMContext().getRMApps().get(r.app.getApplicationId())).launch();
    assertEquals(Collections.singletonList(onH1),
        ids(again.registration.getContainersFromPreviousAttempts()));
    // ... one recovered later, with an allocate response.
    nm2.setResourceTrackerService(rm2.getResourceTrackerService());
    nm2.registerNode(Collections.singletonList(runningStatus(onH2)), null);
    rm2.drainEvents();
    List<ContainerId> later = new ArrayList<>();
    for (int i = 0; i < 20 && later.isEmpty(); i++) {
      later.addAll(ids(again.am.allocate(Collections.<ResourceRequest>emptyList(),
          Collections.<ContainerId>emptyList()).getContainersFromPreviousAttempts()));
      rm2.drainEvents();
    }
    assertEquals(Collections.singletonList(onH2), later);
    assertEquals(3 * GB, scheduler(rm2).getRootQueueMetrics().getAllocatedMB());
    assertConsistent(rm2);
  }

  @Test(timeout = 180_000)
  public void aRecoveredApplicationWhoseQueueIsGoneIsKilledWithTheReason() throws Exception {
    MockRM rm1 = start(recovering(conf(RmHarness.xml("root.queues", "default,b",
        "root.default.capacity", "50", "root.b.capacity", "50",
        "maximum-am-resource-percent", "1.0")), false), null);
    RMApp inB = submit(rm1, "b", false);
    MockRM.launchAndRegisterAM(inB, rm1, rm1.registerNode("h1:1234", 8 * GB, 8));

    // The RM restarts with b gone from capacity-scheduler.xml.
    MockRM rm2 = start(recovering(conf(ONE_QUEUE), false), rm1.getRMStateStore());
    rm2.waitForState(inB.getApplicationId(), RMAppState.KILLED);
    String diagnostics = rm2.getRMContext().getRMApps().get(inB.getApplicationId())
        .getDiagnostics().toString();
    assertTrue(diagnostics, diagnostics.contains(
        "Application killed on recovery as it was submitted to queue"));
    assertTrue(diagnostics, diagnostics.contains("which no longer exists after restart."));
  }

  @Test(timeout = 120_000)
  public void asksAreCheckedAgainstTheQueuesMaximumAllocation() throws Exception {
    Running r = running(start(conf(RmHarness.xml("root.queues", "default",
        "root.default.capacity", "100", "maximum-am-resource-percent", "1.0",
        "root.default.maximum-allocation-mb", "2048")), null), false);
    String refusal = r.refusal(4);
    assertNotNull("a 4 GB ask in a queue whose largest container is 2 GB is refused", refusal);
    assertTrue(refusal, refusal.contains("maximum allowed allocation=<memory:2048"));
    assertEquals(1, r.get(ResourceRequest.ANY, 2, 1).size());
    assertConsistent(r.rm);
  }

  /**
   * Until the NodeManagers have had time to register after the RM starts
   * ({@code work-preserving-recovery.scheduling-wait-ms}), an ask is checked against the
   * configured maximum allocation; afterwards, against the largest registered node too.
   */
  @Test(timeout = 120_000)
  public void asksAreCheckedAgainstTheLargestNodeOnlyOnceNodesHaveHadTimeToRegister()
      throws Exception {
    for (long waitMs : new long[] {600_000, 0}) {
      YarnConfiguration conf = conf(ONE_QUEUE);
      conf.setLong(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS, waitMs);
      MockRM rm = start(conf, null);
      Running r = new Running(rm, rm.registerNode("h1:1234", 4 * GB, 4),
          submit(rm, "default", false)).launch();
      assertEquals("a 6 GB ask, 4 GB nodes, an 8 GB configured maximum, waiting " + waitMs
          + " ms for nodes", waitMs == 0, r.refusal(6) != null);
    }
  }

  @Test(timeout = 120_000)
  public void aContainerLostBeforeTheAmPulledItIsPlacedAgain() throws Exception {
    Running r = running(start(1), false);
    ApplicationAttemptId attempt = r.am.getApplicationAttemptId();
    MockNM nm2 = r.rm.registerNode("h2:1234", 8 * GB, 8);
    r.am.allocate("h2", GB, 1, Collections.<ContainerId>emptyList());
    nm2.nodeHeartbeat(true);
    r.rm.drainEvents();
    ContainerId lost = ContainerId.newContainerId(attempt, 2);
    r.rm.waitForState(nm2, lost, RMContainerState.ALLOCATED);
    // The NodeManager restarts before the AM has pulled the container: the RM kills it and
    // gives its ask back, so the next heartbeat places it again without the AM asking.
    nm2.registerNode();
    r.rm.waitForState(nm2, lost, RMContainerState.KILLED);
    List<Container> again = RmHarness.collect(r.rm, r.am, nm2, 1);
    assertEquals(Collections.singletonList(ContainerId.newContainerId(attempt, 3)), ids(again));
    assertConsistent(r.rm);
  }

  @Test(timeout = 120_000)
  public void aRunningContainerItsAmReleasesHoldsItsNodeUntilTheNodeManagerReportsItGone()
      throws Exception {
    MockRM rm = start(1);
    Running r = new Running(rm, rm.registerNode("h1:1234", 4 * GB, 4),
        submit(rm, "default", false)).launch();
    ApplicationAttemptId attempt = r.am.getApplicationAttemptId();
    ContainerId task = r.get(ResourceRequest.ANY, 3, 1).get(0).getId();
    r.nm.nodeHeartbeat(attempt, task.getContainerId(), ContainerState.RUNNING);
    r.rm.waitForState(r.nm, task, RMContainerState.RUNNING);

    // The AM lets the running task go: its queue is free of it, but its node is not until
    // the NodeManager has stopped it, so another 3 GB container does not fit there yet.
    r.am.allocate(Collections.<ResourceRequest>emptyList(), Collections.singletonList(task));
    r.rm.drainEvents();
    assertEquals(GB, scheduler(r.rm).getRootQueueMetrics().getAllocatedMB());
    assertEquals(4 * GB, scheduler(r.rm).getSchedulerNode(r.nm.getNodeId())
        .getAllocatedResource().getMemorySize());
    assertTrue(r.get(ResourceRequest.ANY, 3, 1).isEmpty());
    assertConsistent(r.rm);

    // The NodeManager reports it gone: the node has room again.
    r.nm.nodeHeartbeat(attempt, task.getContainerId(), ContainerState.COMPLETE);
    r.rm.drainEvents();
    assertEquals(1, RmHarness.collect(r.rm, r.am, r.nm, 1).size());
    assertConsistent(r.rm);
  }
}
