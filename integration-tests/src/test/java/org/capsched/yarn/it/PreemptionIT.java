package org.capsched.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.applications.distributedshell.Client;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.log4j.AppenderSkeleton;
import org.apache.log4j.Logger;
import org.apache.log4j.spi.LoggingEvent;
import org.junit.Test;

/**
 * Capacity preemption on a real cluster. The operator's yarn-site.xml turns the scheduling
 * monitor on and leaves its policy list at YARN's default (Apache's
 * ProportionalCapacityPreemptionPolicy): the RM starts, runs ours in its place, and a
 * long-running DistributedShell that filled the cluster from queue a gives back what
 * queue b, newly busy, is guaranteed. a's AM is told which containers it will lose (a
 * PreemptionMessage in its allocate() answers), they end as PREEMPTED, and the RM's
 * preemption counters (queue metrics, the application's report) say so. Inside a queue,
 * intra-queue preemption does the same for an application of higher priority.
 */
public class PreemptionIT {
  private static final String XML = "<configuration>\n"
      + prop("yarn.scheduler.capacity.root.queues", "a,b")
      + prop("yarn.scheduler.capacity.root.a.capacity", "30")
      + prop("yarn.scheduler.capacity.root.a.user-limit-factor", "10")
      + prop("yarn.scheduler.capacity.root.b.capacity", "70")
      + prop("yarn.scheduler.capacity.maximum-am-resource-percent", "0.5")
      + "%s</configuration>\n";

  private static String prop(String name, String value) {
    return "  <property><name>" + name + "</name><value>" + value + "</value></property>\n";
  }

  @Test(timeout = 300_000)
  public void aBusyQueueGetsItsGuaranteeBackThroughPreemption() throws Exception {
    busyQueueGetsItsGuaranteeBack("preemption", "");
  }

  /**
   * The same with lazy preemption: once their wait is over a's containers are only marked
   * killable, and b's allocations kill them on the nodes where b finds no room (the core
   * ends them as PREEMPTED through the heartbeat's decisions; each node's share returns
   * when its NodeManager reports the container gone).
   */
  @Test(timeout = 300_000)
  public void lazilyABusyQueueGetsItsGuaranteeBackAsItsAllocationsKillKillableContainers()
      throws Exception {
    Logger heartbeat = Logger.getLogger("org.capsched.core.scheduler.heartbeat");
    Captured kills = new Captured("killed killable container ");
    heartbeat.addAppender(kills);
    try {
      busyQueueGetsItsGuaranteeBack("lazy-preemption",
          prop("yarn.scheduler.capacity.lazy-preemption-enabled", "true"));
    } finally {
      heartbeat.removeAppender(kills);
    }
    // Each of the 8 containers a gave back was killed by one of b's allocations (none by
    // the policy at the end of its wait), on the node where b found no room.
    List<String> lines = kills.lines();
    assertTrue("b's allocations killed a's killable containers: " + lines, lines.size() >= 8);
    assertTrue(lines.toString(), lines.stream().allMatch(l -> l.contains(" in root.a ")
        && l.contains(" to make room for application_")));
  }

  /** The messages of a logger's records that contain {@code text}, while it is attached. */
  private static final class Captured extends AppenderSkeleton {
    private final String text;
    private final List<String> lines = new CopyOnWriteArrayList<>();

    Captured(String text) {
      this.text = text;
    }

    @Override
    protected void append(LoggingEvent event) {
      String message = event.getRenderedMessage();
      if (message != null && message.contains(text)) {
        lines.add(message);
      }
    }

    List<String> lines() {
      return lines;
    }

    @Override
    public void close() {
    }

    @Override
    public boolean requiresLayout() {
      return false;
    }
  }

  private void busyQueueGetsItsGuaranteeBack(String name, String extraXml) throws Exception {
    Path xml = Files.createTempFile(name + "-", ".xml");
    Files.write(xml, String.format(XML, extraXml).getBytes(StandardCharsets.UTF_8));
    // Each round seeks all of the excess.
    Configuration site = site("natural_termination_factor", "1.0");
    try (MiniCluster cluster = MiniCluster.start(name, 2, xml, site);
        YarnClient yarn = YarnClient.createYarnClient()) {
      yarn.init(cluster.config());
      yarn.start();
      // 8 GB in all, in 512 MB pieces: a's shell takes 512 MB for its AM and 14 x 512 MB.
      Thread wide = shell(cluster, "a", 14);
      QueueMetrics a = cluster.scheduler().getQueue("a").getMetrics();
      QueueMetrics b = cluster.scheduler().getQueue("b").getMetrics();
      Wait.until(120_000, () -> a.getAllocatedMB() >= 15 * 512,
          () -> "queue a holds its 15 containers (holds " + a.getAllocatedMB() + " MB)");

      // b's shell wants 512 MB + 8 x 512 MB, within its 70% guarantee (5.6 GB): a's ideal
      // share is what b leaves, so a gives back 8 containers.
      long start = System.currentTimeMillis();
      Thread late = shell(cluster, "b", 8);
      Wait.until(120_000, () -> b.getAllocatedMB() >= 9 * 512,
          () -> "queue b gets what it asked for (holds " + b.getAllocatedMB() + " MB, a "
              + a.getAllocatedMB() + " MB)");
      long waited = System.currentTimeMillis() - start;
      System.out.println("PreemptionIT (" + name + "): queue b waited " + waited
          + " ms for its guarantee");

      ApplicationReport wideApp = application(yarn, "a");
      assertToldThenPreempted(wideApp.getCurrentApplicationAttemptId(), 8);
      assertTrue("queue a counts its preempted containers: " + a.getAggregatePreemptedContainers(),
          a.getAggregatePreemptedContainers() >= 8);
      assertEquals(512L * a.getAggregatePreemptedContainers(), a.getAggregateMemoryMBPreempted());
      RMApp rmApp = cluster.yarn.getResourceManager().getRMContext().getRMApps()
          .get(wideApp.getApplicationId());
      assertEquals(a.getAggregatePreemptedContainers(),
          rmApp.getRMAppMetrics().getNumNonAMContainersPreempted());
      assertTrue("the application's usage report has its preempted resource-seconds",
          yarn.getApplicationReport(wideApp.getApplicationId()).getApplicationResourceUsageReport()
              .getPreemptedResourceSecondsMap().getOrDefault("memory-mb", 0L) > 0);
      assertEquals("b gives nothing back", 0, b.getAggregatePreemptedContainers());

      for (ApplicationReport app : yarn.getApplications(EnumSet.of(YarnApplicationState.RUNNING))) {
        yarn.killApplication(app.getApplicationId());
      }
      wide.join(60_000);
      late.join(60_000);
    }
  }

  /**
   * Intra-queue preemption on a real cluster: a DistributedShell at priority 1 fills queue
   * a; one at priority 5 in the same queue gets its AM in the last free 512 MB and then
   * its containers from the first one's, which are announced to its AM and end PREEMPTED.
   * Queue b stays idle, so nothing moves between queues.
   */
  @Test(timeout = 300_000)
  public void aHigherPriorityApplicationTakesFromALowerOneInItsQueue() throws Exception {
    Path xml = Files.createTempFile("intra-preemption-", ".xml");
    Files.write(xml, ("<configuration>\n"
        + prop("yarn.scheduler.capacity.root.queues", "a,b")
        + prop("yarn.scheduler.capacity.root.a.capacity", "50")
        + prop("yarn.scheduler.capacity.root.a.user-limit-factor", "10")
        + prop("yarn.scheduler.capacity.root.b.capacity", "50")
        + prop("yarn.scheduler.capacity.maximum-am-resource-percent", "0.5")
        + "</configuration>\n").getBytes(StandardCharsets.UTF_8));
    Configuration site = site("intra-queue-preemption.enabled", "true",
        "intra-queue-preemption.preemption-order-policy", "priority_first",
        "intra-queue-preemption.max-allowable-limit", "0.5");
    site.setInt(YarnConfiguration.MAX_CLUSTER_LEVEL_APPLICATION_PRIORITY, 10);
    try (MiniCluster cluster = MiniCluster.start("intra-preemption", 2, xml, site);
        YarnClient yarn = YarnClient.createYarnClient()) {
      yarn.init(cluster.config());
      yarn.start();
      Thread low = shell(cluster, "a", 14, 1);
      QueueMetrics a = cluster.scheduler().getQueue("a").getMetrics();
      Wait.until(120_000, () -> a.getAllocatedMB() >= 15 * 512,
          () -> "queue a holds the low-priority shell's 15 containers (holds " + a.getAllocatedMB() + " MB)");

      // The high-priority shell's 4 x 512 MB: 2 GB, within the round's limit (half of a's
      // 4 GB guarantee), taken from what the low-priority one holds beyond its share.
      long start = System.currentTimeMillis();
      Thread high = shell(cluster, "a", 4, 5);
      Wait.until(120_000, () -> usedContainers(yarn, "a", 5) >= 5,
          () -> "the high-priority shell gets its 4 containers (holds " + usedContainers(yarn, "a", 5) + ")");
      System.out.println("PreemptionIT: the high-priority application waited "
          + (System.currentTimeMillis() - start) + " ms for its containers");

      assertToldThenPreempted(application(yarn, "a", 1).getCurrentApplicationAttemptId(), 4);
      assertTrue("queue a counts its preempted containers: " + a.getAggregatePreemptedContainers(),
          a.getAggregatePreemptedContainers() >= 4);
      ApplicationAttemptId highAttempt = application(yarn, "a", 5).getCurrentApplicationAttemptId();
      assertTrue("nothing is taken from the high-priority application",
          PreemptionMessages.TOLD.getOrDefault(highAttempt, Collections.emptySet()).isEmpty());

      for (ApplicationReport app : yarn.getApplications(EnumSet.of(YarnApplicationState.RUNNING))) {
        yarn.killApplication(app.getApplicationId());
      }
      low.join(60_000);
      high.join(60_000);
    }
  }

  /**
   * The operator's yarn-site.xml keys, test-sized: the monitor on, rounds every half
   * second, kills two seconds after the mark, each round free to take the whole cluster,
   * and the AM service recording what AMs are told; then the policy keys given, in pairs
   * (without their prefix).
   */
  private static Configuration site(String... policyKeys) {
    Configuration site = new Configuration(false);
    site.setBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS, true);
    String policy = "yarn.resourcemanager.monitor.capacity.preemption.";
    site.set(policy + "monitoring_interval", "500");
    site.set(policy + "max_wait_before_kill", "2000");
    site.set(policy + "total_preemption_per_round", "1.0");
    for (int i = 0; i < policyKeys.length; i += 2) {
      site.set(policy + policyKeys[i], policyKeys[i + 1]);
    }
    site.set(YarnConfiguration.RM_APPLICATION_MASTER_SERVICE_PROCESSORS,
        PreemptionMessages.class.getName());
    return site;
  }

  /**
   * The attempt's AM was told of at least {@code n} containers it would lose, then saw at
   * least {@code n} end PREEMPTED (at its next heartbeats), each announced first, and never
   * its own.
   */
  private static void assertToldThenPreempted(ApplicationAttemptId attempt, int n) throws Exception {
    Set<ContainerId> told = PreemptionMessages.TOLD.getOrDefault(attempt, Collections.emptySet());
    assertTrue(attempt + "'s AM was told of at least " + n + " containers, told " + told, told.size() >= n);
    Wait.until(30_000, () -> PreemptionMessages.PREEMPTED.getOrDefault(attempt,
        Collections.emptySet()).size() >= n, () -> attempt + "'s AM sees " + n + " containers end PREEMPTED: "
        + PreemptionMessages.PREEMPTED.get(attempt));
    Set<ContainerId> preempted = PreemptionMessages.PREEMPTED.get(attempt);
    assertTrue("every container ended as preempted was announced first: told " + told
        + ", preempted " + preempted, told.containsAll(preempted));
    assertFalse("the AM container is spared", preempted.stream().anyMatch(c -> c.getContainerId() == 1));
  }

  /** A DistributedShell of {@code containers} long-running 512 MB containers in {@code queue}. */
  private static Thread shell(MiniCluster cluster, String queue, int containers) throws Exception {
    return shell(cluster, queue, containers, 0);
  }

  /** Likewise, at application priority {@code priority}. */
  private static Thread shell(MiniCluster cluster, String queue, int containers, int priority)
      throws Exception {
    String[] args = MiniCluster.distributedShell(queue, containers, "sleep", "600", 512, 512);
    if (priority != 0) {
      args = Stream.concat(Arrays.stream(args), Stream.of("--priority", Integer.toString(priority)))
          .toArray(String[]::new);
    }
    Client client = new Client(cluster.config());
    assertTrue("DistributedShell client rejected its arguments", client.init(args));
    Thread t = new Thread(() -> {
      try {
        client.run();
      } catch (Exception e) {
        // Killed at the end of the test.
      }
    }, "distributedshell-" + queue);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static ApplicationReport application(YarnClient yarn, String queue) throws Exception {
    return application(yarn, queue, -1);
  }

  /** The application in {@code queue} (at {@code priority}, unless that is -1). */
  private static ApplicationReport application(YarnClient yarn, String queue, int priority)
      throws Exception {
    for (ApplicationReport app : yarn.getApplications()) {
      if (app.getQueue().endsWith(queue)
          && (priority == -1 || app.getPriority().getPriority() == priority)) {
        return app;
      }
    }
    throw new AssertionError("no application in queue " + queue + " at priority " + priority);
  }

  /** How many containers the application in {@code queue} at {@code priority} holds; 0 before it exists. */
  private static int usedContainers(YarnClient yarn, String queue, int priority) {
    try {
      return application(yarn, queue, priority).getApplicationResourceUsageReport().getNumUsedContainers();
    } catch (Exception | AssertionError e) {
      return 0;
    }
  }
}
