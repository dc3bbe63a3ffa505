package org.capsched.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;

import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.capsched.yarn.harness.RmHarness;
import org.junit.Test;

/**
 * A node reservation made by the Rust core, through a real ResourceManager: the RM's node
 * and attempt hold a RESERVED RMContainer, queue metrics count it, and the reserved
 * container becomes a real one (same container id) when the node frees enough room.
 */
public class ReservationThroughRmTest {
  private static final int GB = 1024;

  @Test(timeout = 120_000)
  public void aLargeContainerReservesANodeUntilItFits() throws Exception {
    String xml = "<configuration>"
        + "<property><name>yarn.scheduler.capacity.root.queues</name><value>a</value></property>"
        + "<property><name>yarn.scheduler.capacity.root.a.capacity</name><value>100</value></property>"
        + "<property><name>yarn.scheduler.capacity.maximum-am-resource-percent</name><value>1.0</value></property>"
        + "</configuration>";
    MockRM rm = RmHarness.start(RmHarness.configuration(RustCapacityScheduler.class,
        xml.getBytes(StandardCharsets.UTF_8)));
    try {
      MockNM nm1 = rm.registerNode("h1:1234", 8 * GB, 8);
      MockNM nm2 = rm.registerNode("h2:1234", 8 * GB, 8);
      RustCapacityScheduler scheduler = (RustCapacityScheduler) rm.getResourceScheduler();

      // app1 holds 5 GB on each node (its AM and 4 containers on h1, 5 on h2).
      RMApp app1 = MockRMAppSubmitter.submit(rm,
          MockRMAppSubmissionData.Builder.createWithMemory(GB, rm).withQueue("a")
              .withUser("u1").build());
      MockAM am1 = MockRM.launchAndRegisterAM(app1, rm, nm1);
      List<Container> onH1 = allocateOn(am1, "h1", 4, nm1, rm);
      List<Container> onH2 = allocateOn(am1, "h2", 5, nm2, rm);
      assertEquals(4, onH1.size());
      assertEquals(5, onH2.size());

      // app2's AM lands on h1 (2 GB free there, 3 GB on h2: 5 GB free in all).
      RMApp app2 = MockRMAppSubmitter.submit(rm,
          MockRMAppSubmissionData.Builder.createWithMemory(GB, rm).withQueue("a")
              .withUser("u2").build());
      MockAM am2 = MockRM.launchAndRegisterAM(app2, rm, nm1);

      // A 4 GB container fits on no node: h2 is reserved for it.
      am2.allocate("*", 4 * GB, 1, Collections.<ContainerId>emptyList());
      nm2.nodeHeartbeat(true);
      rm.drainEvents();
      SchedulerNode h2 = scheduler.getSchedulerNode(nm2.getNodeId());
      RMContainer reserved = h2.getReservedContainer();
      assertNotNull("h2 should be reserved", reserved);
      assertEquals(RMContainerState.RESERVED, reserved.getState());
      assertEquals(4 * GB, scheduler.getRootQueueMetrics().getReservedMB());
      assertEquals(0, am2.allocate(Collections.<ResourceRequest>emptyList(),
          Collections.<ContainerId>emptyList()).getAllocatedContainers().size());

      // app1 releases one container on h2: 4 GB free there, and the reservation is fulfilled.
      am1.allocate(Collections.<ResourceRequest>emptyList(),
          Collections.singletonList(onH2.get(0).getId()));
      rm.drainEvents();
      nm2.nodeHeartbeat(true);
      rm.drainEvents();
      List<Container> got = am2.allocate(Collections.<ResourceRequest>emptyList(),
          Collections.<ContainerId>emptyList()).getAllocatedContainers();
      assertEquals(1, got.size());
      assertEquals(4 * GB, got.get(0).getResource().getMemorySize());
      assertEquals(nm2.getNodeId(), got.get(0).getNodeId());
      assertEquals("the reserved container id is kept", reserved.getContainerId(), got.get(0).getId());
      assertNull(h2.getReservedContainer());
      assertEquals(0, scheduler.getRootQueueMetrics().getReservedMB());
    } finally {
      rm.stop();
    }
  }

  /** Asks for {@code n} 1 GB containers on {@code host} and heartbeats until they come. */
  private static List<Container> allocateOn(MockAM am, String host, int n, MockNM nm, MockRM rm)
      throws Exception {
    am.allocate(host, GB, n, Collections.<ContainerId>emptyList());
    return RmHarness.collect(rm, am, nm, n);
  }
}
