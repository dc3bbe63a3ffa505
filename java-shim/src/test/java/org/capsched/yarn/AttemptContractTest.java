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
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptImpl;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
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

  private MockRM start(int maxAttempts) throws Exception {
    return start(maxAttempts, ONE_QUEUE);
  }

  private MockRM start(int maxAttempts, String capacitySchedulerXml) throws Exception {
    YarnConfiguration conf = RmHarness.configuration(schedulerClass,
        capacitySchedulerXml.getBytes(StandardCharsets.UTF_8));
    conf.setInt(YarnConfiguration.RM_AM_MAX_ATTEMPTS, maxAttempts);
    MockRM rm = RmHarness.start(conf);
    rms.add(rm);
    return rm;
  }

  private static RMApp submit(MockRM rm, boolean keepContainers) throws Exception {
    return MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withQueue("default").withUser("u")
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

  /** Launches and registers the application's current attempt on {@code nm}. */
  private static RegisterApplicationMasterResponse launch(MockRM rm, RMApp app, MockNM nm,
      MockAM[] am) throws Exception {
    RMAppAttempt attempt = app.getCurrentAppAttempt();
    rm.waitForState(attempt.getAppAttemptId(), RMAppAttemptState.SCHEDULED);
    nm.nodeHeartbeat(true);
    rm.drainEvents();
    rm.waitForState(attempt.getAppAttemptId(), RMAppAttemptState.ALLOCATED);
    am[0] = rm.sendAMLaunched(attempt.getAppAttemptId());
    return am[0].registerAppAttempt();
  }

  /** {@code yarn rmadmin -updateNodeResource}: {@code nm} becomes {@code gb} GB. */
  private static void resize(MockRM rm, MockNM nm, int gb, int overcommitTimeoutMs)
      throws Exception {
    rm.getAdminService().updateNodeResource(UpdateNodeResourceRequest.newInstance(
        Collections.singletonMap(nm.getNodeId(), ResourceOption.newInstance(
            Resource.newInstance(gb * GB, 16), overcommitTimeoutMs))));
    rm.drainEvents();
  }

  @Test(timeout = 120_000)
  public void aRetriedAttemptNumbersItsContainersAfreshAndKeepsThePreviousOnes()
      throws Exception {
    MockRM rm = start(3);
    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = submit(rm, true);
    MockAM[] am = new MockAM[1];
    launch(rm, app, nm, am);
    ApplicationAttemptId first = am[0].getApplicationAttemptId();
    am[0].allocate(ResourceRequest.ANY, GB, 1, Collections.<ContainerId>emptyList());
    List<Container> task = RmHarness.collect(rm, am[0], nm, 1);
    ContainerId kept = ContainerId.newContainerId(first, 2);
    assertEquals(kept, task.get(0).getId());
    nm.nodeHeartbeat(first, 2, ContainerState.RUNNING);

    // The first AM exits: the RM fails the attempt and starts the second.
    nm.nodeHeartbeat(first, 1, ContainerState.COMPLETE);
    rm.waitForState(first, RMAppAttemptState.FAILED);
    rm.waitForState(app.getApplicationId(), RMAppState.ACCEPTED);
    RegisterApplicationMasterResponse registered = launch(rm, app, nm, am);
    ApplicationAttemptId second = am[0].getApplicationAttemptId();
    assertEquals(2, second.getAttemptId());
    ContainerId secondAm = ContainerId.newContainerId(second, 1);
    assertEquals("the second attempt's AM container is its first",
        secondAm, app.getCurrentAppAttempt().getMasterContainer().getId());
    assertEquals(Collections.singletonList(kept),
        ids(registered.getContainersFromPreviousAttempts()));

    // Its first task has number 2 as well, beside the kept one of the first attempt.
    am[0].allocate(ResourceRequest.ANY, GB, 1, Collections.<ContainerId>emptyList());
    List<Container> next = RmHarness.collect(rm, am[0], nm, 1);
    assertEquals(ContainerId.newContainerId(second, 2), next.get(0).getId());
    AbstractYarnScheduler<?, ?> scheduler = (AbstractYarnScheduler<?, ?>) rm.getResourceScheduler();
    assertNotNull(scheduler.getRMContainer(kept));
    assertNotNull(scheduler.getRMContainer(next.get(0).getId()));
    assertEquals(3 * GB, scheduler.getRootQueueMetrics().getAllocatedMB());
    assertConsistent(rm);

    // The second AM's exit, as its NodeManager reports it, fails the second attempt.
    nm.nodeHeartbeat(second, 1, ContainerState.COMPLETE);
    rm.waitForState(second, RMAppAttemptState.FAILED);
    rm.drainEvents();
    assertConsistent(rm);
  }

  @Test(timeout = 120_000)
  public void aContainerTheRmKillsEndsAsPreemptedAndItsAttemptIsNotCounted() throws Exception {
    MockRM rm = start(2);
    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = submit(rm, false);
    MockAM[] am = new MockAM[1];
    launch(rm, app, nm, am);
    ApplicationAttemptId first = am[0].getApplicationAttemptId();
    AbstractYarnScheduler<?, ?> scheduler = (AbstractYarnScheduler<?, ?>) rm.getResourceScheduler();
    RMContainer amContainer = scheduler.getRMContainer(ContainerId.newContainerId(first, 1));
    scheduler.killContainer(amContainer);
    rm.waitForState(first, RMAppAttemptState.FAILED);
    RMAppAttemptImpl attempt = (RMAppAttemptImpl) app.getRMAppAttempt(first);
    assertEquals(ContainerExitStatus.PREEMPTED, attempt.getAMContainerExitStatus());
    assertFalse("a preempted AM does not use up one of the application's attempts",
        attempt.shouldCountTowardsMaxAttemptRetry());
    rm.waitForState(app.getApplicationId(), RMAppState.ACCEPTED);
    assertEquals(2, app.getCurrentAppAttempt().getAppAttemptId().getAttemptId());
    assertConsistent(rm);
  }

  @Test(timeout = 120_000)
  public void usageReportsAndAllocationCountsReachTheClient() throws Exception {
    MockRM rm = start(1);
    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = submit(rm, false);
    MockAM[] am = new MockAM[1];
    launch(rm, app, nm, am);
    ApplicationAttemptId attempt = am[0].getApplicationAttemptId();
    assertEquals("submitted to 'default', it runs in (and reports) the queue's full path",
        "root.default", app.getQueue());
    am[0].allocate("h1", GB, 1, Collections.<ContainerId>emptyList());
    RmHarness.collect(rm, am[0], nm, 1);
    am[0].allocate(ResourceRequest.ANY, GB, 1, Collections.<ContainerId>emptyList());
    RmHarness.collect(rm, am[0], nm, 1);

    // The admin resizes the node, which has the RM count it in its default partition.
    resize(rm, nm, 16, -1);

    // What yarn application -status shows: 3 GB used of the queue's 16 GB guarantee.
    ApplicationResourceUsageReport usage = app.createAndGetApplicationReport("u", true)
        .getApplicationResourceUsageReport();
    assertEquals(3, usage.getNumUsedContainers());
    assertEquals(3 * GB, usage.getUsedResources().getMemorySize());
    assertEquals(100f * 3 / 16, usage.getQueueUsagePercentage(), 0.01f);
    assertEquals(100f * 3 / 16, usage.getClusterUsagePercentage(), 0.01f);

    // Every container allocated is counted for the attempt, by where it went and what its
    // ask wanted: the AM and the task anywhere off-switch, the task for h1 node-local.
    RMAppAttemptMetrics metrics = app.getRMAppAttempt(attempt).getRMAppAttemptMetrics();
    assertEquals(3, metrics.getTotalAllocatedContainers());
    int[][] locality = metrics.getLocalityStatistics();
    assertEquals(1, locality[NodeType.NODE_LOCAL.getIndex()][NodeType.NODE_LOCAL.getIndex()]);
    assertEquals(2, locality[NodeType.OFF_SWITCH.getIndex()][NodeType.OFF_SWITCH.getIndex()]);
    assertConsistent(rm);
  }

  @Test(timeout = 120_000)
  public void aNodeShrunkBelowItsUseAsksTheAmForContainersBackFirst() throws Exception {
    MockRM rm = start(1);
    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = submit(rm, false);
    MockAM[] am = new MockAM[1];
    launch(rm, app, nm, am);
    am[0].allocate(ResourceRequest.ANY, 4 * GB, 1, Collections.<ContainerId>emptyList());
    ContainerId task = RmHarness.collect(rm, am[0], nm, 1).get(0).getId();
    nm.nodeHeartbeat(am[0].getApplicationAttemptId(), 2, ContainerState.RUNNING);

    // 5 GB run on a node now 2 GB, with a minute to give back the difference: the AM is
    // asked for the 4 GB task in its next allocate response, and nothing is killed yet.
    resize(rm, nm, 2, 60_000);
    AllocateResponse response =
        am[0].allocate(Collections.<ResourceRequest>emptyList(), Collections.<ContainerId>emptyList());
    PreemptionMessage preemption = response.getPreemptionMessage();
    assertNotNull("the AM is told which containers to give back", preemption);
    List<ContainerId> asked = new ArrayList<>();
    for (PreemptionContainer c : preemption.getContract().getContainers()) {
      asked.add(c.getId());
    }
    assertEquals(Collections.singletonList(task), asked);
    AbstractYarnScheduler<?, ?> scheduler = (AbstractYarnScheduler<?, ?>) rm.getResourceScheduler();
    assertNotNull("still running", scheduler.getRMContainer(task));
    assertConsistent(rm);
  }

  @Test(timeout = 180_000)
  public void aRestartedRmHandsTheNewAttemptTheContainersOfTheOldOne() throws Exception {
    YarnConfiguration conf = RmHarness.configuration(schedulerClass,
        ONE_QUEUE.getBytes(StandardCharsets.UTF_8));
    conf.setInt(YarnConfiguration.RM_AM_MAX_ATTEMPTS, 2);
    conf.setBoolean(YarnConfiguration.RECOVERY_ENABLED, true);
    conf.setBoolean(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_ENABLED, true);
    conf.setLong(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS, 0);
    conf.set(YarnConfiguration.RM_STORE, MemoryRMStateStore.class.getName());
    MockRM rm1 = RmHarness.start(conf);
    rms.add(rm1);
    MockNM nm1 = rm1.registerNode("h1:1234", 8 * GB, 8);
    MockNM nm2 = rm1.registerNode("h2:1234", 8 * GB, 8);
    RMApp app = submit(rm1, true);
    MockAM[] am = new MockAM[1];
    launch(rm1, app, nm1, am);
    ApplicationAttemptId first = am[0].getApplicationAttemptId();
    am[0].allocate("h1", GB, 1, Collections.<ContainerId>emptyList());
    ContainerId onH1 = RmHarness.collect(rm1, am[0], nm1, 1).get(0).getId();
    am[0].allocate("h2", GB, 1, Collections.<ContainerId>emptyList());
    ContainerId onH2 = RmHarness.collect(rm1, am[0], nm2, 1).get(0).getId();
    // The first AM exits; then the RM restarts before the second attempt has run.
    nm1.nodeHeartbeat(first, 1, ContainerState.COMPLETE);
    rm1.waitForState(first, RMAppAttemptState.FAILED);

    MockRM rm2 = RmHarness.start(conf, rm1.getRMStateStore());
    rms.add(rm2);
    nm1.setResourceTrackerService(rm2.getResourceTrackerService());
    nm1.registerNode(Collections.singletonList(running(onH1)), null);
    RMApp recovered = rm2.getRMContext().getRMApps().get(app.getApplicationId());
    rm2.waitForState(app.getApplicationId(), RMAppState.ACCEPTED);
    // A container recovered before the new AM registers comes with its registration...
    RegisterApplicationMasterResponse registered = launch(rm2, recovered, nm1, am);
    assertEquals(Collections.singletonList(onH1), ids(registered.getContainersFromPreviousAttempts()));
    // ... one recovered later, with an allocate response.
    nm2.setResourceTrackerService(rm2.getResourceTrackerService());
    nm2.registerNode(Collections.singletonList(running(onH2)), null);
    rm2.drainEvents();
    List<ContainerId> later = new ArrayList<>();
    for (int i = 0; i < 20 && later.isEmpty(); i++) {
      later.addAll(ids(am[0].allocate(Collections.<ResourceRequest>emptyList(),
          Collections.<ContainerId>emptyList()).getContainersFromPreviousAttempts()));
      rm2.drainEvents();
    }
    assertEquals(Collections.singletonList(onH2), later);
    assertEquals(3 * GB, ((AbstractYarnScheduler<?, ?>) rm2.getResourceScheduler())
        .getRootQueueMetrics().getAllocatedMB());
    assertConsistent(rm2);
  }

  private static NMContainerStatus running(ContainerId id) {
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
  public void asksAreCheckedAgainstTheQueuesMaximumAllocation() throws Exception {
    MockRM rm = start(1, RmHarness.xml("root.queues", "default", "root.default.capacity", "100",
        "maximum-am-resource-percent", "1.0", "root.default.maximum-allocation-mb", "2048"));
    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = submit(rm, false);
    MockAM[] am = new MockAM[1];
    launch(rm, app, nm, am);
    String refusal = null;
    try {
      am[0].allocate(ResourceRequest.ANY, 4 * GB, 1, Collections.<ContainerId>emptyList());
    } catch (Exception e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof InvalidResourceRequestException) {
          refusal = t.getMessage();
        }
      }
    }
    assertNotNull("a 4 GB ask in a queue whose largest container is 2 GB is refused", refusal);
    assertTrue(refusal, refusal.contains("maximum allowed allocation=<memory:2048"));
    am[0].allocate(ResourceRequest.ANY, 2 * GB, 1, Collections.<ContainerId>emptyList());
    assertEquals(1, RmHarness.collect(rm, am[0], nm, 1).size());
    assertConsistent(rm);
  }

  @Test(timeout = 180_000)
  public void aRecoveredApplicationWhoseQueueIsGoneIsKilledWithTheReason() throws Exception {
    String twoQueues = RmHarness.xml("root.queues", "default,b", "root.default.capacity", "50",
        "root.b.capacity", "50", "maximum-am-resource-percent", "1.0");
    YarnConfiguration conf1 = RmHarness.configuration(schedulerClass,
        twoQueues.getBytes(StandardCharsets.UTF_8));
    conf1.setBoolean(YarnConfiguration.RECOVERY_ENABLED, true);
    conf1.set(YarnConfiguration.RM_STORE, MemoryRMStateStore.class.getName());
    MockRM rm1 = RmHarness.start(conf1);
    rms.add(rm1);
    MockNM nm = rm1.registerNode("h1:1234", 8 * GB, 8);
    RMApp inB = MockRMAppSubmitter.submit(rm1, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm1).withQueue("b").withUser("u").build());
    MockRM.launchAndRegisterAM(inB, rm1, nm);

    // The RM restarts with b gone from capacity-scheduler.xml.
    YarnConfiguration conf2 = RmHarness.configuration(schedulerClass,
        ONE_QUEUE.getBytes(StandardCharsets.UTF_8));
    conf2.setBoolean(YarnConfiguration.RECOVERY_ENABLED, true);
    conf2.set(YarnConfiguration.RM_STORE, MemoryRMStateStore.class.getName());
    MockRM rm2 = RmHarness.start(conf2, rm1.getRMStateStore());
    rms.add(rm2);
    rm2.waitForState(inB.getApplicationId(), RMAppState.KILLED);
    String diagnostics = rm2.getRMContext().getRMApps().get(inB.getApplicationId())
        .getDiagnostics().toString();
    assertTrue(diagnostics, diagnostics.contains(
        "Application killed on recovery as it was submitted to queue"));
    assertTrue(diagnostics, diagnostics.contains("which no longer exists after restart."));
  }
}
