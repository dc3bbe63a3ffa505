package org.capsched.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;

import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateRequest;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.protocolrecords.GetQueueInfoRequest;
import org.apache.hadoop.yarn.api.protocolrecords.GetQueueInfoResponse;
import org.apache.hadoop.yarn.api.protocolrecords.KillApplicationRequest;
import org.apache.hadoop.yarn.api.protocolrecords.MoveApplicationAcrossQueuesRequest;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.api.records.ContainerUpdateType;
import org.apache.hadoop.yarn.api.records.ExecutionType;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.api.protocolrecords.impl.pb.GetQueueInfoResponsePBImpl;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.impl.pb.QueueInfoPBImpl;
import org.apache.hadoop.yarn.api.records.QueueState;
import org.apache.hadoop.yarn.api.records.QueueUserACLInfo;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceBlacklistRequest;
import org.apache.hadoop.yarn.api.records.ResourceOption;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.ResourceSizing;
import org.apache.hadoop.yarn.api.records.UpdateContainerRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
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
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ContainerPreemptEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEventType;
import org.capsched.yarn.harness.RmHarness;
import org.junit.After;
import org.junit.Test;

/**
 * The ResourceManager's contract with its scheduler, item by item, through a real RM
 * (Hadoop's MockRM, MockNM, MockAM): each test drives one call or event the way the RM,
 * a NodeManager or an ApplicationMaster does, and checks what the RM's own objects show —
 * and, every time, that the Rust core and those objects agree (the consistency check).
 */
public class RmContractTest {
  private static final int GB = 1024;

  private final List<MockRM> rms = new ArrayList<>();

  @After
  public void stopRms() {
    for (MockRM rm : rms) {
      rm.stop();
    }
  }

  private static String xml(String... pairs) {
    return RmHarness.xml(pairs);
  }

  private static final String TWO_QUEUES = xml("root.queues", "a,b", "root.a.capacity", "50",
      "root.b.capacity", "50", "maximum-am-resource-percent", "1.0",
      "root.a.user-limit-factor", "2", "root.b.user-limit-factor", "2");

  private YarnConfiguration conf(String capacitySchedulerXml) throws Exception {
    return RmHarness.configuration(RustCapacityScheduler.class,
        capacitySchedulerXml.getBytes(StandardCharsets.UTF_8));
  }

  private MockRM start(YarnConfiguration conf) throws Exception {
    MockRM rm = RmHarness.start(conf);
    rms.add(rm);
    return rm;
  }

  private static RustCapacityScheduler scheduler(MockRM rm) {
    return (RustCapacityScheduler) rm.getResourceScheduler();
  }

  private static void assertConsistent(MockRM rm) {
    List<String> differences = ConsistencyCheck.of(scheduler(rm));
    assertTrue("the Rust core and the RM disagree:\n" + String.join("\n", differences),
        differences.isEmpty());
  }

  private static RMApp submit(MockRM rm, String queue, String user, int amMemory)
      throws Exception {
    return MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(amMemory, rm).withQueue(queue).withUser(user).build());
  }

  /** Submits an application that the scheduler rejects; returns what the user is told. */
  private static String rejection(MockRM rm, String queue, String user) throws Exception {
    RMApp app = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withQueue(queue).withUser(user)
        .withWaitForAppAcceptedState(false).build());
    rm.waitForState(app.getApplicationId(), RMAppState.FAILED);
    return app.getDiagnostics().toString();
  }

  private static List<Container> collect(MockRM rm, MockAM am, MockNM nm, int n)
      throws Exception {
    return RmHarness.collect(rm, am, nm, n);
  }

  private static void waitFor(String what, BooleanSupplier condition) throws Exception {
    long deadline = System.currentTimeMillis() + 30_000;
    while (!condition.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) {
        fail("timed out waiting until " + what);
      }
      Thread.sleep(50);
    }
  }

  private static long coreUsedMb(MockRM rm, String queuePath) {
    for (QueueSnapshot q : scheduler(rm).getQueueSnapshots()) {
      if (q.getPath().equals(queuePath)) {
        return q.getUsedMemoryMb();
      }
    }
    throw new AssertionError("no queue " + queuePath);
  }

  // ----- admission ---------------------------------------------------------------------

  @Test(timeout = 120_000)
  public void rejectedSubmissionsTellTheUserWhy() throws Exception {
    YarnConfiguration conf = conf(xml("root.queues", "a,b,full,stopped,locked",
        "root.a.queues", "x", "root.b.queues", "x",
        "root.a.capacity", "20", "root.b.capacity", "20", "root.full.capacity", "20",
        "root.stopped.capacity", "20", "root.locked.capacity", "20",
        "root.a.x.capacity", "100", "root.b.x.capacity", "100",
        "root.full.maximum-applications", "1", "root.stopped.state", "STOPPED",
        "root.acl_submit_applications", " ", "root.acl_administer_queue", " ",
        "root.full.acl_submit_applications", "*", "root.locked.acl_submit_applications", "owner",
        "root.a.acl_submit_applications", "u1"));
    conf.setBoolean(YarnConfiguration.YARN_ACL_ENABLE, true);
    MockRM rm = start(conf);
    rm.registerNode("h1:1234", 8 * GB, 8);

    assertTrue(rejection(rm, "nowhere", "u1").contains("to unknown queue: nowhere"));
    assertTrue(rejection(rm, "root.a", "u1").contains("to non-leaf queue : root.a"));
    String ambiguous = rejection(rm, "x", "u1");
    assertTrue(ambiguous, ambiguous.contains("to ambiguous queue: x")
        && ambiguous.contains("root.a.x") && ambiguous.contains("root.b.x"));
    // The submit ACL refuses the submission call itself, as the RM does for Apache's
    // scheduler (AclConformanceTest compares every caller with Apache's).
    try {
      MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder.createWithMemory(GB, rm)
          .withQueue("locked").withUser("intruder").withWaitForAppAcceptedState(false).build());
      fail("an intruder's submission was accepted");
    } catch (Exception e) {
      String denied = RmHarness.reason(e);
      assertTrue(denied, denied.contains("AccessControlException: User intruder does not have"
          + " permission to submit") && denied.endsWith("to queue locked"));
    }
    submit(rm, "full", "u1", GB);
    assertTrue(rejection(rm, "full", "u2").contains(
        "Queue root.full already has 1 applications, cannot accept submission"));
    assertConsistent(rm);
  }

  @Test(timeout = 120_000)
  public void aStoppedQueueRefusesSubmissions() throws Exception {
    MockRM rm = start(conf(xml("root.queues", "a,b", "root.a.capacity", "50",
        "root.b.capacity", "50", "root.b.state", "STOPPED")));
    String why = rejection(rm, "b", "u1");
    assertTrue(why, why.contains("Queue root.b is STOPPED. Cannot accept submission of application"));
  }

  @Test(timeout = 120_000)
  public void applicationsSubmittedBeforeAnyNodeManagerRegistersAreAcceptedAndRunOnceOneDoes()
      throws Exception {
    MockRM rm = start(conf(TWO_QUEUES));
    RMApp app = submit(rm, "a", "u1", GB);
    assertEquals(RMAppState.ACCEPTED, app.getState());
    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);
    MockAM am = MockRM.launchAndRegisterAM(app, rm, nm);
    am.allocate(ResourceRequest.ANY, GB, 1, Collections.<ContainerId>emptyList());
    assertEquals(1, collect(rm, am, nm, 1).size());
    assertConsistent(rm);
  }

  @Test(timeout = 120_000)
  public void capacityKeysSetInCodeWinOverTheFileAsInApache() throws Exception {
    // An embedded cluster's tests set queues on the RM's configuration in code, over a
    // capacity-scheduler.xml on the classpath: both schedulers must take the code's.
    for (Class<? extends ResourceScheduler> scheduler : Arrays.asList(
        RustCapacityScheduler.class, CapacityScheduler.class)) {
      YarnConfiguration conf = RmHarness.configuration(scheduler,
          TWO_QUEUES.getBytes(StandardCharsets.UTF_8));
      conf.set("yarn.scheduler.capacity.root.queues", "a,b,c");
      conf.set("yarn.scheduler.capacity.root.a.capacity", "40");
      conf.set("yarn.scheduler.capacity.root.b.capacity", "40");
      conf.set("yarn.scheduler.capacity.root.c.capacity", "20");
      MockRM rm = start(conf);
      QueueInfo c = rm.getResourceScheduler().getQueueInfo("c", false, false);
      assertEquals(scheduler.getSimpleName(), 0.2f, c.getCapacity(), 1e-6f);
      assertEquals(scheduler.getSimpleName(), 0.4f,
          rm.getResourceScheduler().getQueueInfo("a", false, false).getCapacity(), 1e-6f);
    }
  }

  // ----- allocate() --------------------------------------------------------------------

  @Test(timeout = 120_000)
  public void blacklistedHostsGetNoContainers() throws Exception {
    MockRM rm = start(conf(TWO_QUEUES));
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    MockNM nm2 = rm.registerNode("h2:1234", 8 * GB, 8);
    RMApp app = submit(rm, "a", "u1", GB);
    MockAM am = MockRM.launchAndRegisterAM(app, rm, nm1);

    ResourceRequest any = am.createResourceReq(ResourceRequest.ANY, GB, 1, 2);
    am.allocate(AllocateRequest.newInstance(0, 0f, Collections.singletonList(any),
        Collections.<ContainerId>emptyList(),
        ResourceBlacklistRequest.newInstance(Collections.singletonList("h2"),
            Collections.<String>emptyList())));
    // h2 heartbeats first and often: it is blacklisted, so it gets nothing.
    for (int i = 0; i < 5; i++) {
      nm2.nodeHeartbeat(true);
    }
    rm.drainEvents();
    assertEquals(0, scheduler(rm).getSchedulerNode(nm2.getNodeId()).getNumContainers());
    List<Container> got = collect(rm, am, nm1, 2);
    assertEquals(2, got.size());
    for (Container c : got) {
      assertEquals(nm1.getNodeId(), c.getNodeId());
    }
    // Taken off the blacklist, h2 serves the application again.
    am.allocate(AllocateRequest.newInstance(0, 0f,
        Collections.singletonList(am.createResourceReq(ResourceRequest.ANY, GB, 1, 1)),
        Collections.<ContainerId>emptyList(),
        ResourceBlacklistRequest.newInstance(Collections.<String>emptyList(),
            Collections.singletonList("h2"))));
    List<Container> more = collect(rm, am, nm2, 1);
    assertEquals(1, more.size());
    assertEquals(nm2.getNodeId(), more.get(0).getNodeId());
    assertConsistent(rm);
  }

  @Test(timeout = 120_000)
  public void containerUpdatesAreRefusedWithAReason() throws Exception {
    MockRM rm = start(conf(TWO_QUEUES));
    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = submit(rm, "a", "u1", GB);
    MockAM am = MockRM.launchAndRegisterAM(app, rm, nm);
    am.allocate(ResourceRequest.ANY, GB, 1, Collections.<ContainerId>emptyList());
    Container c = collect(rm, am, nm, 1).get(0);
    nm.nodeHeartbeat(am.getApplicationAttemptId(), c.getId().getContainerId(),
        ContainerState.RUNNING);
    rm.drainEvents();

    AllocateResponse response = am.sendContainerUpdateRequest(Collections.singletonList(
        UpdateContainerRequest.newInstance(c.getVersion(), c.getId(),
            ContainerUpdateType.INCREASE_RESOURCE, Resource.newInstance(2 * GB, 1), null)));
    assertEquals(1, response.getUpdateErrors().size());
    assertEquals(RustAppAttempt.UPDATES_NOT_SUPPORTED,
        response.getUpdateErrors().get(0).getReason());
    assertEquals(GB, scheduler(rm).getRMContainer(c.getId()).getAllocatedResource().getMemorySize());
    assertConsistent(rm);
  }

  @Test(timeout = 120_000)
  public void schedulingRequestsAreRefusedWithAReason() throws Exception {
    // Even with the "scheduler" placement handler, the RM keeps SchedulingRequests away
    // from a scheduler that does not place constraints, and tells the AM why.
    YarnConfiguration conf = conf(TWO_QUEUES);
    conf.set(YarnConfiguration.RM_PLACEMENT_CONSTRAINTS_HANDLER,
        YarnConfiguration.SCHEDULER_RM_PLACEMENT_CONSTRAINTS_HANDLER);
    MockRM rm = start(conf);
    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = submit(rm, "a", "u1", GB);
    MockAM am = MockRM.launchAndRegisterAM(app, rm, nm);
    try {
      am.allocateIntraAppAntiAffinity(ResourceSizing.newInstance(2, Resource.newInstance(GB, 1)),
          Priority.newInstance(1), 1L, Collections.singleton("web"), "web");
      fail("a SchedulingRequest was accepted");
    } catch (Exception e) {
      String why = RmHarness.reason(e);
      assertTrue(why, why.contains("cannot handle placement constraints"));
    }
    assertConsistent(rm);
  }

  /**
   * The RM checks an ask naming a node label against the labels its queue may access, as
   * the queue reports them: a queue without the label is refused with Apache's message; one
   * with it gets its container on a node of that partition, never on an unlabelled one.
   */
  @Test(timeout = 120_000)
  public void asksForNodeLabelsFollowTheQueuesLabels() throws Exception {
    YarnConfiguration conf = conf(xml("root.queues", "a,b", "root.a.capacity", "50",
        "root.b.capacity", "50", "root.a.accessible-node-labels", "ssd",
        "root.a.accessible-node-labels.ssd.capacity", "100", "root.b.accessible-node-labels",
        "gpu", "root.b.accessible-node-labels.gpu.capacity", "100"));
    conf.setBoolean(YarnConfiguration.NODE_LABELS_ENABLED, true);
    MockRM rm = start(conf);
    rm.getRMContext().getNodeLabelManager().addToCluserNodeLabelsWithDefaultExclusivity(
        new java.util.HashSet<>(java.util.Arrays.asList("gpu", "ssd")));
    MockNM plain = rm.registerNode("h1:1234", 8 * GB, 8);
    MockNM gpuNode = rm.registerNode("h2:1234", 8 * GB, 8);
    rm.getRMContext().getNodeLabelManager().replaceLabelsOnNode(
        Collections.singletonMap(gpuNode.getNodeId(), Collections.singleton("gpu")));
    rm.drainEvents();
    RMApp refused = submit(rm, "a", "u1", GB);
    MockAM amA = MockRM.launchAndRegisterAM(refused, rm, plain);
    try {
      amA.allocate(Collections.singletonList(
          amA.createResourceReq(ResourceRequest.ANY, GB, 1, 1, "gpu")),
          Collections.<ContainerId>emptyList());
      fail("an ask for label gpu was accepted in a queue that may not access it");
    } catch (Exception e) {
      String why = RmHarness.reason(e);
      assertTrue(why, why.contains("queue=a doesn't have permission to access all labels")
          && why.contains("labelExpression of resource request=gpu"));
    }
    RMApp app = submit(rm, "b", "u2", GB);
    MockAM am = MockRM.launchAndRegisterAM(app, rm, plain);
    am.allocate(Collections.singletonList(am.createResourceReq(ResourceRequest.ANY, GB, 1, 2,
        "gpu")), Collections.<ContainerId>emptyList());
    for (int i = 0; i < 3; i++) {
      plain.nodeHeartbeat(true);
      gpuNode.nodeHeartbeat(true);
      rm.drainEvents();
    }
    List<Container> got = am.allocate(Collections.<ResourceRequest>emptyList(),
        Collections.<ContainerId>emptyList()).getAllocatedContainers();
    assertEquals(2, got.size());
    for (Container c : got) {
      assertEquals(gpuNode.getNodeId(), c.getNodeId());
    }
    assertConsistent(rm);
  }

  /**
   * A refresh that changes a queue's labels reaches the queue and the RM's label manager
   * (which refuses to remove a label a queue may access), and one that changes only other
   * settings leaves them as they were.
   */
  @Test(timeout = 120_000)
  public void aRefreshTellsTheLabelManagerWhichQueuesUseWhichLabels() throws Exception {
    String withSsd = xml("root.queues", "a,b", "root.a.capacity", "50", "root.b.capacity", "50",
        "root.a.accessible-node-labels", "ssd", "root.a.accessible-node-labels.ssd.capacity",
        "100");
    YarnConfiguration conf = conf(withSsd);
    conf.setBoolean(YarnConfiguration.NODE_LABELS_ENABLED, true);
    MockRM rm = start(conf);
    org.apache.hadoop.yarn.server.resourcemanager.nodelabels.RMNodeLabelsManager labels =
        rm.getRMContext().getNodeLabelManager();
    labels.addToCluserNodeLabelsWithDefaultExclusivity(new HashSet<>(Arrays.asList("ssd")));
    // Only a limit changes: queue a keeps label ssd, and the label manager knows it.
    RmHarness.refresh(rm, conf, withSsd.replace("</configuration>",
        "<property><name>yarn.scheduler.capacity.root.a.user-limit-factor</name>"
            + "<value>2</value></property></configuration>"));
    assertEquals(Collections.singleton("ssd"),
        rm.getResourceScheduler().getQueueInfo("a", false, false).getAccessibleNodeLabels());
    try {
      labels.removeFromClusterNodeLabels(Collections.singleton("ssd"));
      fail("the label manager removed label ssd, which queue a may access");
    } catch (java.io.IOException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("ssd"));
    }
    // Queue a no longer may: the label manager lets the label go.
    RmHarness.refresh(rm, conf, xml("root.queues", "a,b", "root.a.capacity", "50",
        "root.b.capacity", "50", "root.a.accessible-node-labels", " "));
    assertEquals(Collections.<String>emptySet(),
        rm.getResourceScheduler().getQueueInfo("a", false, false).getAccessibleNodeLabels());
    labels.removeFromClusterNodeLabels(Collections.singleton("ssd"));
    assertEquals(Collections.<String>emptySet(), labels.getClusterNodeLabelNames());
    assertConsistent(rm);
  }

  @Test(timeout = 120_000)
  public void headroomComesFromTheCore() throws Exception {
    MockRM rm = start(conf(xml("root.queues", "a,b", "root.a.capacity", "25",
        "root.b.capacity", "75", "root.a.maximum-capacity", "25")));
    MockNM nm = rm.registerNode("h1:1234", 16 * GB, 16);
    RMApp app = submit(rm, "a", "u1", GB);
    MockAM am = MockRM.launchAndRegisterAM(app, rm, nm);
    // Queue a may use 4 GB (25% of 16, its maximum too); the AM holds 1 GB.
    AllocateResponse r = am.allocate(ResourceRequest.ANY, GB, 1, Collections.<ContainerId>emptyList());
    assertEquals(3 * GB, r.getAvailableResources().getMemorySize());
  }

  // ----- node events -------------------------------------------------------------------

  @Test(timeout = 120_000)
  public void aNodeGrownByTheAdminTakesMoreContainers() throws Exception {
    MockRM rm = start(conf(TWO_QUEUES));
    MockNM nm = rm.registerNode("h1:1234", 4 * GB, 4);
    RMApp app = submit(rm, "a", "u1", GB);
    MockAM am = MockRM.launchAndRegisterAM(app, rm, nm);
    am.allocate(ResourceRequest.ANY, GB, 5, Collections.<ContainerId>emptyList());
    assertEquals("a 4 GB node holds the AM and 3 containers", 3, collect(rm, am, nm, 5).size());

    rm.getAdminService().updateNodeResource(UpdateNodeResourceRequest.newInstance(
        Collections.singletonMap(nm.getNodeId(),
            ResourceOption.newInstance(Resource.newInstance(8 * GB, 8), -1))));
    rm.drainEvents();
    assertEquals("the grown node takes the other two", 2, collect(rm, am, nm, 2).size());
    assertEquals(6 * GB, coreUsedMb(rm, "root.a"));
    assertConsistent(rm);
  }

  @Test(timeout = 120_000)
  public void anUnlaunchedContainerExpiresAndItsResourcesReturn() throws Exception {
    YarnConfiguration conf = conf(TWO_QUEUES);
    conf.setLong(YarnConfiguration.RM_CONTAINER_ALLOC_EXPIRY_INTERVAL_MS, 2000);
    MockRM rm = start(conf);
    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = submit(rm, "a", "u1", GB);
    MockAM am = MockRM.launchAndRegisterAM(app, rm, nm);
    nm.nodeHeartbeat(am.getApplicationAttemptId(), 1, ContainerState.RUNNING);
    am.allocate(ResourceRequest.ANY, 2 * GB, 1, Collections.<ContainerId>emptyList());
    ContainerId id = collect(rm, am, nm, 1).get(0).getId();
    assertEquals(3 * GB, coreUsedMb(rm, "root.a"));

    // The AM pulled the container (ACQUIRED) but never launches it: CONTAINER_EXPIRED.
    waitFor("the container expires", () -> scheduler(rm).getRMContainer(id) == null);
    rm.drainEvents();
    assertEquals(GB, coreUsedMb(rm, "root.a"));
    assertEquals(GB, scheduler(rm).getRootQueueMetrics().getAllocatedMB());
    assertConsistent(rm);
  }

  @Test(timeout = 120_000)
  public void killingAReservationFreesTheNode() throws Exception {
    MockRM rm = start(conf(TWO_QUEUES));
    MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
    MockNM nm2 = rm.registerNode("h2:1234", 4 * GB, 4);
    RMApp app1 = submit(rm, "a", "u1", GB);
    MockAM am1 = MockRM.launchAndRegisterAM(app1, rm, nm1);
    am1.allocate("h2", GB, 3, Collections.<ContainerId>emptyList());
    assertEquals(3, collect(rm, am1, nm2, 3).size());
    RMApp app2 = submit(rm, "b", "u2", GB);
    MockAM am2 = MockRM.launchAndRegisterAM(app2, rm, nm1);

    // 2 GB does not fit on h2 (1 GB free): h2 is reserved for app2.
    am2.allocate(ResourceRequest.ANY, 2 * GB, 1, Collections.<ContainerId>emptyList());
    nm2.nodeHeartbeat(true);
    rm.drainEvents();
    SchedulerNode h2 = scheduler(rm).getSchedulerNode(nm2.getNodeId());
    RMContainer reserved = h2.getReservedContainer();
    assertNotNull("h2 should be reserved", reserved);
    assertConsistent(rm);

    // What the preemption monitor sends to take a reservation away.
    scheduler(rm).handle(new ContainerPreemptEvent(am2.getApplicationAttemptId(), reserved,
        SchedulerEventType.KILL_RESERVED_CONTAINER));
    rm.drainEvents();
    assertNull(h2.getReservedContainer());
    assertEquals(0, scheduler(rm).getRootQueueMetrics().getReservedMB());
    assertEquals(GB, coreUsedMb(rm, "root.b"));
    assertConsistent(rm);
  }

  // ----- queue APIs --------------------------------------------------------------------

  @Test(timeout = 120_000)
  public void queueInfoAndAclsAsTheClientsAskForThem() throws Exception {
    YarnConfiguration conf = conf(xml("root.queues", "a,b", "root.a.capacity", "30",
        "root.b.capacity", "70", "root.a.maximum-capacity", "60", "root.b.state", "STOPPED",
        "root.a.max-parallel-apps", "7",
        "root.acl_submit_applications", " ", "root.acl_administer_queue", "admin",
        "root.a.acl_submit_applications", "alice"));
    conf.setBoolean(YarnConfiguration.YARN_ACL_ENABLE, true);
    MockRM rm = start(conf);
    MockNM nm = rm.registerNode("h1:1234", 10 * GB, 10);
    RMApp app = submit(rm, "a", "alice", GB);
    MockRM.launchAndRegisterAM(app, rm, nm);

    QueueInfo root = scheduler(rm).getQueueInfo("root", true, true);
    assertEquals(2, root.getChildQueues().size());
    QueueInfo a = scheduler(rm).getQueueInfo("a", false, false);
    assertEquals("root.a", a.getQueuePath());
    assertEquals(0.3f, a.getCapacity(), 1e-6);
    assertEquals(0.6f, a.getMaximumCapacity(), 1e-6);
    // 1 GB of a's 3 GB guarantee.
    assertEquals(1 / 3f, a.getCurrentCapacity(), 1e-3);
    assertEquals(QueueState.RUNNING, a.getQueueState());
    assertEquals(7, a.getMaxParallelApps());
    assertEquals(QueueState.STOPPED, scheduler(rm).getQueueInfo("root.b", false, false).getQueueState());

    UserGroupInformation alice = UserGroupInformation.createRemoteUser("alice");
    UserGroupInformation admin = UserGroupInformation.createRemoteUser("admin");
    assertTrue(scheduler(rm).checkAccess(alice, QueueACL.SUBMIT_APPLICATIONS, "root.a"));
    assertFalse(scheduler(rm).checkAccess(alice, QueueACL.SUBMIT_APPLICATIONS, "root.b"));
    assertFalse(scheduler(rm).checkAccess(alice, QueueACL.ADMINISTER_QUEUE, "root.a"));
    assertTrue("administer on root reaches every queue",
        scheduler(rm).checkAccess(admin, QueueACL.ADMINISTER_QUEUE, "root.b"));
    assertFalse(scheduler(rm).checkAccess(admin, QueueACL.ADMINISTER_QUEUE, "nowhere"));
    Set<String> aliceAcls = new HashSet<>();
    for (QueueUserACLInfo info : alice.doAs(
        (java.security.PrivilegedExceptionAction<List<QueueUserACLInfo>>)
            () -> scheduler(rm).getQueueUserAclInfo())) {
      for (QueueACL acl : info.getUserAcls()) {
        aliceAcls.add(info.getQueueName() + ":" + acl);
      }
    }
    assertEquals(Collections.singleton("root.a:SUBMIT_APPLICATIONS"), aliceAcls);
    assertEquals(1, scheduler(rm).getAppsInQueue("root").size());
    assertEquals(1, scheduler(rm).getAppsInQueue("a").size());
    assertEquals(0, scheduler(rm).getAppsInQueue("b").size());
  }

  /**
   * One queue's QueueInfo reads the core's figures when first looked at, and keeps them:
   * the RM asks for an application's queue's QueueInfo twice in every AM heartbeat and
   * reads only its node labels. A client's answer carries the figures of the moment it is
   * written.
   */
  @Test(timeout = 120_000)
  public void aQueueInfoReadsTheCoresFiguresWhenFirstLookedAt() throws Exception {
    MockRM rm = start(conf(xml("root.queues", "a,b", "root.a.capacity", "30",
        "root.b.capacity", "70")));
    MockNM nm = rm.registerNode("h1:1234", 10 * GB, 10);
    QueueInfo early = scheduler(rm).getQueueInfo("a", false, false);
    QueueInfo looked = scheduler(rm).getQueueInfo("a", false, false);
    assertEquals(0f, looked.getCurrentCapacity(), 0);
    GetQueueInfoResponse answer = rm.getClientRMService().getQueueInfo(
        GetQueueInfoRequest.newInstance("a", false, false, false));
    assertEquals("root.a", early.getQueuePath());
    assertEquals(Collections.singleton("*"), early.getAccessibleNodeLabels());

    RMApp app = submit(rm, "a", "alice", GB);
    MockRM.launchAndRegisterAM(app, rm, nm);
    // 1 GB of a's 3 GB guarantee: the AM container, placed before either was looked at.
    assertEquals(1 / 3f, early.getCurrentCapacity(), 1e-3);
    assertEquals(0.3f, early.getCapacity(), 1e-6);
    assertEquals(1 / 3f, answer.getQueueInfo().getCurrentCapacity(), 1e-3);
    assertEquals(1 / 3f, ((GetQueueInfoResponsePBImpl) rm.getClientRMService().getQueueInfo(
        GetQueueInfoRequest.newInstance("a", false, false, false))).getProto()
        .getQueueInfo().getCurrentCapacity(), 1e-3);
    // Kept from the first look, in the record and in its protocol form.
    assertEquals(0f, looked.getCurrentCapacity(), 0);
    assertEquals(0f, ((QueueInfoPBImpl) looked).getProto().getCurrentCapacity(), 0);
    assertEquals(QueueState.RUNNING, looked.getQueueState());
  }

  @Test(timeout = 120_000)
  public void withAclsOffTheRmGrantsEverything() throws Exception {
    MockRM rm = start(conf(xml("root.queues", "a", "root.a.capacity", "100",
        "root.acl_submit_applications", " ", "root.acl_administer_queue", " ")));
    UserGroupInformation anyone = UserGroupInformation.createRemoteUser("anyone");
    assertTrue(scheduler(rm).checkAccess(anyone, QueueACL.ADMINISTER_QUEUE, "root.a"));
    // What mapred queue -showacls reports stays what the file says.
    RustQueue a = scheduler(rm).queues().byPath("root.a");
    assertTrue(a.getQueueUserAclInfo(anyone).get(0).getUserAcls().isEmpty());
  }

  @Test(timeout = 120_000)
  public void onlyTheOwnerAndQueueAdministratorsMayKill() throws Exception {
    YarnConfiguration conf = conf(xml("root.queues", "a", "root.a.capacity", "100",
        "root.acl_submit_applications", " ", "root.acl_administer_queue", " ",
        "root.a.acl_submit_applications", "alice,carol", "root.a.acl_administer_queue", "boss"));
    conf.setBoolean(YarnConfiguration.YARN_ACL_ENABLE, true);
    // YARN's admin ACL is everyone by default; cluster admins could kill anything.
    conf.set(YarnConfiguration.YARN_ADMIN_ACL, "yarnadmin");
    MockRM rm = start(conf);
    rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = submit(rm, "a", "alice", GB);
    KillApplicationRequest kill = KillApplicationRequest.newInstance(app.getApplicationId());
    try {
      UserGroupInformation.createRemoteUser("carol").doAs(
          (java.security.PrivilegedExceptionAction<Object>) () ->
              rm.getClientRMService().forceKillApplication(kill));
      fail("carol killed alice's application");
    } catch (Exception e) {
      String why = RmHarness.reason(e);
      assertTrue(why, why.contains("User carol cannot perform operation MODIFY_APP"));
    }
    UserGroupInformation.createRemoteUser("boss").doAs(
        (java.security.PrivilegedExceptionAction<Object>) () ->
            rm.getClientRMService().forceKillApplication(kill));
    rm.waitForState(app.getApplicationId(), RMAppState.KILLED);
    assertConsistent(rm);
  }

  @Test(timeout = 120_000)
  public void killAllAppsInQueueKillsEveryApplicationThere() throws Exception {
    MockRM rm = start(conf(TWO_QUEUES));
    MockNM nm = rm.registerNode("h1:1234", 8 * GB, 8);
    RMApp a1 = submit(rm, "a", "u1", GB);
    RMApp a2 = submit(rm, "a", "u2", GB);
    RMApp b1 = submit(rm, "b", "u1", GB);
    MockRM.launchAndRegisterAM(a1, rm, nm);
    scheduler(rm).killAllAppsInQueue("a");
    rm.waitForState(a1.getApplicationId(), RMAppState.KILLED);
    rm.waitForState(a2.getApplicationId(), RMAppState.KILLED);
    rm.drainEvents();
    assertEquals(RMAppState.ACCEPTED, b1.getState());
    assertEquals(0, coreUsedMb(rm, "root.a"));
    assertConsistent(rm);
  }

  // ----- moves and priorities ----------------------------------------------------------

  @Test(timeout = 120_000)
  public void moveToQueueChecksTheTargetAndMovesUsage() throws Exception {
    YarnConfiguration conf = conf(xml("root.queues", "a,b,c", "root.a.capacity", "40",
        "root.b.capacity", "40", "root.c.capacity", "20", "maximum-am-resource-percent", "1.0",
        "root.acl_submit_applications", " ", "root.acl_administer_queue", " ",
        "root.a.acl_submit_applications", "alice", "root.b.acl_submit_applications", "alice",
        "root.c.acl_submit_applications", "carol"));
    conf.setBoolean(YarnConfiguration.YARN_ACL_ENABLE, true);
    MockRM rm = start(conf);
    MockNM nm = rm.registerNode("h1:1234", 10 * GB, 10);
    RMApp app = submit(rm, "a", "alice", GB);
    MockAM am = MockRM.launchAndRegisterAM(app, rm, nm);
    am.allocate(ResourceRequest.ANY, GB, 2, Collections.<ContainerId>emptyList());
    assertEquals(2, collect(rm, am, nm, 2).size());

    UserGroupInformation alice = UserGroupInformation.createRemoteUser("alice");
    // alice may not submit to c, so she may not move there.
    try {
      alice.doAs((java.security.PrivilegedExceptionAction<Object>) () ->
          rm.getClientRMService().moveApplicationAcrossQueues(
              MoveApplicationAcrossQueuesRequest.newInstance(app.getApplicationId(), "c")));
      fail("moved into a queue alice cannot submit to");
    } catch (Exception e) {
      // The client sees the RM's YarnException; doAs may wrap it.
      String why = RmHarness.reason(e);
      assertTrue(why, why.contains("cannot submit applications to target queue"));
    }
    alice.doAs((java.security.PrivilegedExceptionAction<Object>) () ->
        rm.getClientRMService().moveApplicationAcrossQueues(
            MoveApplicationAcrossQueuesRequest.newInstance(app.getApplicationId(), "b")));
    rm.drainEvents();
    assertEquals("root.b", app.getQueue());
    assertEquals(0, coreUsedMb(rm, "root.a"));
    assertEquals(3 * GB, coreUsedMb(rm, "root.b"));
    assertEquals(3 * GB, QueueMetrics.getQueueMetrics().get("root.b").getAllocatedMB());
    assertConsistent(rm);
  }

  @Test(timeout = 120_000)
  public void priorityIsCappedAndSavedToTheStateStore() throws Exception {
    YarnConfiguration conf = conf(xml("root.queues", "a,b", "root.a.capacity", "50",
        "root.b.capacity", "50", "root.b.default-application-priority", "4"));
    conf.setInt(YarnConfiguration.MAX_CLUSTER_LEVEL_APPLICATION_PRIORITY, 5);
    conf.setBoolean(YarnConfiguration.RECOVERY_ENABLED, true);
    conf.set(YarnConfiguration.RM_STORE, MemoryRMStateStore.class.getName());
    MockRM rm = start(conf);
    rm.registerNode("h1:1234", 8 * GB, 8);
    assertEquals(4, scheduler(rm).checkAndGetApplicationPriority(null, null, "b", null)
        .getPriority());
    RMApp app = submit(rm, "a", "u1", GB);
    rm.getRMAppManager().updateApplicationPriority(UserGroupInformation.getCurrentUser(),
        app.getApplicationId(), Priority.newInstance(9));
    assertEquals(5, app.getApplicationPriority().getPriority());
    RMStateStore.RMState saved = rm.getRMStateStore().loadState();
    assertEquals(5, saved.getApplicationState().get(app.getApplicationId())
        .getApplicationSubmissionContext().getPriority().getPriority());
  }

  // ----- work-preserving restart -------------------------------------------------------

  @Test(timeout = 180_000)
  public void workPreservingRestartKeepsRunningContainersAndTheirQueueUsage() throws Exception {
    YarnConfiguration conf = conf(TWO_QUEUES);
    conf.setBoolean(YarnConfiguration.RECOVERY_ENABLED, true);
    conf.setBoolean(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_ENABLED, true);
    conf.setLong(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS, 0);
    conf.set(YarnConfiguration.RM_STORE, MemoryRMStateStore.class.getName());
    MockRM rm1 = start(conf);
    MockNM nm = rm1.registerNode("h1:1234", 8 * GB, 8);
    RMApp app = submit(rm1, "a", "u1", GB);
    MockAM am = MockRM.launchAndRegisterAM(app, rm1, nm);
    ApplicationAttemptId attempt = am.getApplicationAttemptId();
    am.allocate(ResourceRequest.ANY, 2 * GB, 2, Collections.<ContainerId>emptyList());
    List<Container> tasks = collect(rm1, am, nm, 2);
    assertEquals(2, tasks.size());
    List<NMContainerStatus> running = new ArrayList<>();
    running.add(status(ContainerId.newContainerId(attempt, 1), Resource.newInstance(GB, 1), 0));
    for (Container c : tasks) {
      nm.nodeHeartbeat(attempt, c.getId().getContainerId(), ContainerState.RUNNING);
      running.add(status(c.getId(), c.getResource(), 1));
    }
    assertEquals(5 * GB, coreUsedMb(rm1, "root.a"));

    // The RM restarts on the same state store; the NodeManager re-registers with what runs.
    MockRM rm2 = RmHarness.start(conf, rm1.getRMStateStore());
    rms.add(rm2);
    nm.setResourceTrackerService(rm2.getResourceTrackerService());
    nm.registerNode(running, null);
    waitFor("the containers are recovered", () -> {
      SchedulerApplicationAttempt a = scheduler(rm2).getApplicationAttempt(attempt);
      return a != null && a.getLiveContainers().size() == 3;
    });
    rm2.drainEvents();
    assertEquals(5 * GB, coreUsedMb(rm2, "root.a"));
    assertEquals(5 * GB, scheduler(rm2).getRootQueueMetrics().getAllocatedMB());
    assertEquals(5 * GB, scheduler(rm2).getSchedulerNode(nm.getNodeId())
        .getAllocatedResource().getMemorySize());
    assertConsistent(rm2);

    // The AM re-registers and gets a new container: a new number, within what is left.
    am.setAMRMProtocol(rm2.getApplicationMasterService(), rm2.getRMContext());
    am.registerAppAttempt(false);
    am.allocate(ResourceRequest.ANY, 2 * GB, 1, Collections.<ContainerId>emptyList());
    List<Container> after = collect(rm2, am, nm, 1);
    assertEquals(1, after.size());
    Set<ContainerId> before = new HashSet<>();
    for (NMContainerStatus s : running) {
      before.add(s.getContainerId());
    }
    assertFalse("a recovered container's id was reused", before.contains(after.get(0).getId()));
    // Numbered in the restarted RM's epoch, as Apache's attempt numbers it (the epoch is set
    // when the RM recovers, after the scheduler is built): container_e01_…_000001.
    assertEquals(after.get(0).getId().toString(), (1L << 40) + 1,
        after.get(0).getId().getContainerId());
    assertEquals(7 * GB, coreUsedMb(rm2, "root.a"));
    assertConsistent(rm2);
  }

  private static NMContainerStatus status(ContainerId id, Resource size, int priority) {
    return NMContainerStatus.newInstance(id, 0, ContainerState.RUNNING, size, "recovered", 0,
        Priority.newInstance(priority), 0, "", ExecutionType.GUARANTEED, -1);
  }
}
