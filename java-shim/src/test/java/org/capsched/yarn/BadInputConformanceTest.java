package org.capsched.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.capsched.yarn.harness.RmHarness;
import org.junit.Test;

/**
 * Bad input at the scheduler's doors, through a real RM, with Apache's CapacityScheduler and
 * with ours: malformed and hostile asks through an AM's {@code allocate()} (sizes of any
 * sign or past the maximum, huge counts, unknown priorities, hosts and racks,
 * duplicates, releases of containers that are not the AM's) and hostile refreshes (broken
 * XML, a queue that names itself, enormous values, ten thousand queues). Each gets the
 * same answer from both — the same exception and message, or the same containers — and
 * leaves the RM serving: a plain ask is placed afterwards, and with ours the core and the
 * RM's objects agree after every call. One difference is ours on purpose: a negative
 * container count (see {@link #aNegativeCountCancelsTheAskAndTheApplicationIsStillServed}).
 */
public class BadInputConformanceTest {
  private static final int GB = 1024;
  private static final String XML = RmHarness.xml("root.queues", "a,b",
      "root.a.capacity", "50", "root.b.capacity", "50", "root.a.maximum-capacity", "100",
      "maximum-am-resource-percent", "1.0", "root.a.user-limit-factor", "2");

  /** One hostile allocate() call: its asks and its releases. */
  private static final class Call {
    final String name;
    final List<ResourceRequest> asks;
    final boolean releaseForeign;

    Call(String name, boolean releaseForeign, ResourceRequest... asks) {
      this.name = name;
      this.asks = Arrays.asList(asks);
      this.releaseForeign = releaseForeign;
    }
  }

  private static ResourceRequest ask(String where, int memory, int vcores, int count) {
    return ask(1, where, memory, vcores, count, true);
  }

  private static ResourceRequest ask(int priority, String where, int memory, int vcores,
      int count, boolean relax) {
    return ResourceRequest.newInstance(Priority.newInstance(priority), where,
        Resource.newInstance(memory, vcores), count, relax);
  }

  /**
   * The calls, made anew for each RM: the RM keeps an ask's object in its request table and
   * counts it down as it allocates.
   */
  private static List<Call> calls() {
    return Arrays.asList(
      new Call("negative memory", false, ask(ResourceRequest.ANY, -GB, 1, 1)),
      new Call("negative vcores", false, ask(ResourceRequest.ANY, GB, -1, 1)),
      new Call("zero size", false, ask(ResourceRequest.ANY, 0, 0, 1)),
      new Call("memory over the maximum", false, ask(ResourceRequest.ANY, 8 * GB + 1, 1, 1)),
      new Call("vcores over the maximum", false, ask(ResourceRequest.ANY, GB, 5, 1)),
      new Call("huge count", false, ask(ResourceRequest.ANY, GB, 1, Integer.MAX_VALUE)),
      new Call("unknown priority", false, ask(1_000_000, ResourceRequest.ANY, GB, 1, 2, true)),
      new Call("negative priority", false, ask(-3, ResourceRequest.ANY, GB, 1, 1, true)),
      new Call("unknown host and rack, relaxed", false, ask("no-such-host.invalid", GB, 1, 1),
          ask("/no-such-rack", GB, 1, 1), ask(ResourceRequest.ANY, GB, 1, 1)),
      new Call("unknown host, not relaxed", false,
          ask(1, "no-such-host.invalid", GB, 1, 1, true),
          ask(1, "/default-rack", GB, 1, 1, false), ask(1, ResourceRequest.ANY, GB, 1, 1, false)),
      new Call("the same ask twice", false, ask(ResourceRequest.ANY, GB, 1, 3),
          ask(ResourceRequest.ANY, GB, 1, 1)),
      new Call("a release of a container that is not the AM's", true));
  }

  @Test(timeout = 300_000)
  public void hostileAsksGetApachesAnswersAndChangeNothing() throws Exception {
    List<String> apache = allocateOutcomes(CapacityScheduler.class, false);
    List<String> ours = allocateOutcomes(RustCapacityScheduler.class, false);
    assertEquals(String.join("\n", apache), String.join("\n", ours));
  }

  /**
   * A negative container count, which the RM's validation lets through. Apache's scheduler
   * adds it into the application's pending resources, and an application whose pending
   * resources sum to nothing or less is passed over: it gets no container again, for any
   * ask, until its asks outweigh the negative one. Ours takes a negative count as zero (the
   * ask is cancelled), and the application's other asks are served. (README: what differs.)
   */
  @Test(timeout = 300_000)
  public void aNegativeCountCancelsTheAskAndTheApplicationIsStillServed() throws Exception {
    List<String> apache = allocateOutcomes(CapacityScheduler.class, true);
    List<String> ours = allocateOutcomes(RustCapacityScheduler.class, true);
    String negative = "negative count -> accepted; 0 containers of []";
    assertEquals(Arrays.asList(negative,
        "a plain ask afterwards -> 0 containers of []"), apache);
    assertEquals(Arrays.asList(negative,
        "a plain ask afterwards -> 1 containers of [1024MB/1@p2]"), ours);
  }

  private List<String> allocateOutcomes(Class<? extends ResourceScheduler> type,
      boolean negativeCount) throws Exception {
    MockRM rm = RmHarness.start(RmHarness.configuration(type,
        XML.getBytes(StandardCharsets.UTF_8)));
    try {
      MockNM nm = rm.registerNode("127.0.0.1:1234", 16 * GB, 16);
      RMApp app = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
          .createWithMemory(GB, rm).withQueue("a").withUser("alice").build());
      MockAM am = MockRM.launchAndRegisterAM(app, rm, nm);
      ApplicationAttemptId foreign = ApplicationAttemptId.newInstance(
          app.getApplicationId(), 7);
      List<String> out = new ArrayList<>();
      List<Call> calls = negativeCount
          ? Collections.singletonList(new Call("negative count", false,
              ask(ResourceRequest.ANY, GB, 1, -5)))
          : calls();
      for (Call call : calls) {
        List<ContainerId> release = call.releaseForeign
            ? Collections.singletonList(ContainerId.newContainerId(foreign, 3))
            : Collections.<ContainerId>emptyList();
        String outcome;
        try {
          am.allocate(call.asks, release);
          List<Container> got = collect(rm, am, nm);
          outcome = "accepted; " + got.size() + " containers of " + sizes(got);
          // Back to a clean slate: the asks cancelled, what came released.
          List<ResourceRequest> cancel = new ArrayList<>();
          for (ResourceRequest r : call.asks) {
            ResourceRequest zero = ResourceRequest.clone(r);
            zero.setNumContainers(0);
            cancel.add(zero);
          }
          List<ContainerId> done = new ArrayList<>();
          got.forEach(c -> done.add(c.getId()));
          am.allocate(cancel, done);
          nm.nodeHeartbeat(true);
          rm.drainEvents();
        } catch (Exception e) {
          outcome = e.getClass().getSimpleName() + ": " + firstLine(RmHarness.reason(e));
        }
        out.add(call.name + " -> " + outcome.replaceAll("_\\d{13}_", "_TS_"));
        assertConsistent(rm);
      }
      // Still serving: a plain ask is placed.
      am.allocate(Collections.singletonList(ask(2, ResourceRequest.ANY, GB, 1, 1, true)),
          Collections.<ContainerId>emptyList());
      List<Container> after = collect(rm, am, nm);
      out.add("a plain ask afterwards -> " + after.size() + " containers of " + sizes(after));
      assertConsistent(rm);
      return out;
    } finally {
      rm.stop();
    }
  }

  /** Heartbeats until the AM has pulled what it will get (three rounds). */
  private static List<Container> collect(MockRM rm, MockAM am, MockNM nm) throws Exception {
    List<Container> got = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      nm.nodeHeartbeat(true);
      rm.drainEvents();
      AllocateResponse r = am.allocate(Collections.<ResourceRequest>emptyList(),
          Collections.<ContainerId>emptyList());
      got.addAll(r.getAllocatedContainers());
    }
    return got;
  }

  private static String sizes(List<Container> got) {
    List<String> out = new ArrayList<>();
    for (Container c : got) {
      out.add(c.getResource().getMemorySize() + "MB/" + c.getResource().getVirtualCores()
          + "@p" + c.getPriority().getPriority());
    }
    Collections.sort(out);
    return out.toString();
  }

  private static String firstLine(String message) {
    return message == null ? "" : message.split("\n")[0];
  }

  private static void assertConsistent(MockRM rm) {
    if (rm.getResourceScheduler() instanceof RustCapacityScheduler) {
      List<String> differences = ConsistencyCheck.of(
          (RustCapacityScheduler) rm.getResourceScheduler());
      assertTrue(String.join("\n", differences), differences.isEmpty());
    }
  }

  // ----- refreshes ---------------------------------------------------------------------

  @Test(timeout = 300_000)
  public void hostileRefreshesGetApachesAnswersAndChangeNothing() throws Exception {
    StringBuilder tenThousand = new StringBuilder();
    for (int i = 0; i < 10_000; i++) {
      tenThousand.append(i == 0 ? "" : ",").append("q").append(i);
    }
    StringBuilder manyLeaves = new StringBuilder("<configuration>\n  <property><name>"
        + "yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>\n"
        + "  <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>50</value>"
        + "</property>\n  <property><name>yarn.scheduler.capacity.root.b.capacity</name>"
        + "<value>50</value></property>\n  <property><name>yarn.scheduler.capacity.root.b."
        + "queues</name><value>" + tenThousand + "</value></property>\n");
    for (int i = 1; i <= 10_000; i++) {
      manyLeaves.append("  <property><name>yarn.scheduler.capacity.root.b.q").append(i)
          .append(".capacity</name><value>0.01</value></property>\n");
    }
    manyLeaves.append("</configuration>\n");
    List<String> refreshes = Arrays.asList(
        "<configuration><property><name>yarn.scheduler.capacity.root.queues</name>",
        XML.replace("<value>a,b</value>", "<value>a,b,a</value>"),
        XML.replace("</configuration>", "  <property><name>yarn.scheduler.capacity.root.a."
            + "queues</name><value>a</value></property>\n</configuration>"),
        XML.replace("<value>2</value>", "<value>1e308</value>"),
        XML.replace("</configuration>", "  <property><name>yarn.scheduler.capacity.root.a."
            + "maximum-applications</name><value>99999999999999999999</value></property>\n"
            + "</configuration>"),
        XML.replace("</configuration>", "  <property><name>yarn.scheduler.capacity.root.a."
            + "maximum-am-resource-percent</name><value>-0.5</value></property>\n"
            + "</configuration>"),
        manyLeaves.toString());
    List<String> apache = refreshOutcomes(CapacityScheduler.class, refreshes);
    List<String> ours = refreshOutcomes(RustCapacityScheduler.class, refreshes);
    assertEquals(String.join("\n", apache), String.join("\n", ours));
  }

  private List<String> refreshOutcomes(Class<? extends ResourceScheduler> type,
      List<String> refreshes) throws Exception {
    YarnConfiguration conf = RmHarness.configuration(type, XML.getBytes(StandardCharsets.UTF_8));
    MockRM rm = RmHarness.start(conf);
    try {
      MockNM nm = rm.registerNode("127.0.0.1:1234", 16 * GB, 16);
      RMApp app = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
          .createWithMemory(GB, rm).withQueue("a").withUser("alice").build());
      MockAM am = MockRM.launchAndRegisterAM(app, rm, nm);
      URL file = conf.getClassLoader().getResource(YarnConfiguration.CS_CONFIGURATION_FILE);
      List<String> out = new ArrayList<>();
      int n = 0;
      for (String xml : refreshes) {
        Files.write(Paths.get(file.toURI()), xml.getBytes(StandardCharsets.UTF_8));
        String outcome;
        try {
          rm.getResourceScheduler().reinitialize(new YarnConfiguration(conf), rm.getRMContext());
          outcome = "accepted; " + rm.getResourceScheduler().getQueueInfo("root", true, true)
              .getChildQueues().size() + " queues under root";
        } catch (Exception e) {
          outcome = "refused";
        }
        // Back to the first configuration (refused refreshes changed nothing; queues an
        // accepted one added must be stopped before they may go, so that may be refused).
        Files.write(Paths.get(file.toURI()), XML.getBytes(StandardCharsets.UTF_8));
        try {
          rm.getResourceScheduler().reinitialize(new YarnConfiguration(conf), rm.getRMContext());
        } catch (Exception e) {
          outcome += "; going back refused";
        }
        out.add("refresh " + (++n) + " -> " + outcome);
        assertConsistent(rm);
      }
      am.allocate(Collections.singletonList(ask(ResourceRequest.ANY, GB, 1, 1)),
          Collections.<ContainerId>emptyList());
      out.add("a plain ask afterwards -> " + collect(rm, am, nm).size() + " containers");
      assertConsistent(rm);
      return out;
    } finally {
      rm.stop();
    }
  }
}
