package org.capsched.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.curator.test.TestingServer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.applications.distributedshell.Client;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.HAUtil;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.ZKRMStateStore;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.capsched.yarn.ConsistencyCheck;
import org.capsched.yarn.RustCapacityScheduler;
import org.junit.Test;

/**
 * ResourceManager high availability with our scheduler: two RMs elect their leader through
 * a real ZooKeeper (Curator's test server) and keep their state in it (ZKRMStateStore).
 * The active RM is stopped while a DistributedShell application's containers run; the
 * standby takes over, and its scheduler — a fresh Rust core — recovers every running
 * container, reported by the NodeManagers as they re-register, into the application's
 * queue. The application finishes successfully, and everything it held is returned.
 */
public class HaFailoverIT {
  private static final String QUEUE = "root.engineering.development";

  @Test(timeout = 420_000)
  public void theStandbysSchedulerRecoversEveryRunningContainerAndTheApplicationFinishes()
      throws Exception {
    try (TestingServer zookeeper = new TestingServer(true);
        MiniCluster cluster = MiniCluster.start("ha", 2, 2, MiniCluster.sampleConfiguration(),
            haSettings(zookeeper.getConnectString()));
        YarnClient yarn = YarnClient.createYarnClient()) {
      int first = cluster.yarn.getActiveRMIndex();
      assertEquals("the first RM is made active at start", 0, first);
      yarn.init(cluster.config());
      yarn.start();

      // Two shell containers sleeping long enough to span the failover.
      String[] args = MiniCluster.distributedShell("development", 2, "sleep", "40", 512, 256);
      Client client = new Client(cluster.config());
      assertTrue("DistributedShell client rejected its arguments", client.init(args));
      ExecutorService runner = Executors.newSingleThreadExecutor();
      Future<Boolean> finished = runner.submit(client::run);

      ResourceManager active = cluster.yarn.getResourceManager(first);
      Wait.until(120_000, () -> liveContainers(active) >= 3,
          () -> "the AM and both shell containers run; live: " + liveContainers(active));
      ApplicationId app = onlyApplication(active).getApplicationId();

      cluster.yarn.stopResourceManager(first);
      int second = cluster.yarn.getActiveRMIndex();
      assertNotEquals("no RM took over", -1, second);
      assertNotEquals(first, second);
      ResourceManager standby = cluster.yarn.getResourceManager(second);
      assertTrue(standby.getResourceScheduler() instanceof RustCapacityScheduler);
      RustCapacityScheduler scheduler = (RustCapacityScheduler) standby.getResourceScheduler();

      // The NodeManagers re-register with the new active RM and report what runs; the
      // core takes each container back into the application's queue.
      Wait.until(120_000, () -> liveContainers(standby) >= 3,
          () -> "the new active RM recovers the running containers; live: "
              + liveContainers(standby));
      RMApp recovered = standby.getRMContext().getRMApps().get(app);
      assertEquals(QUEUE, recovered.getQueue());
      // (Both RMs live in this JVM and share Hadoop's static queue-metrics registry, so the
      // metrics are not compared: the new RM's queues count the old one's containers too.)
      Wait.until(30_000, () -> ConsistencyCheck.ofContainersAndNodes(scheduler).isEmpty(),
          () -> "the core and the new RM agree: "
              + ConsistencyCheck.ofContainersAndNodes(scheduler));
      // The AM (512 MB) and two shell containers (256 MB each), one vcore each.
      long[] used = usedByLeaf(scheduler, QUEUE);
      assertEquals("the core charges the recovered containers to " + QUEUE, 1024, used[0]);
      assertEquals(3, used[1]);

      assertTrue("DistributedShell did not finish successfully",
          finished.get(300, TimeUnit.SECONDS));
      runner.shutdown();
      ApplicationReport report = yarn.getApplicationReport(app);
      assertEquals(YarnApplicationState.FINISHED, report.getYarnApplicationState());
      assertEquals(FinalApplicationStatus.SUCCEEDED, report.getFinalApplicationStatus());
      assertEquals(QUEUE, report.getQueue());
      // Everything is returned once the RM has removed the finished attempt.
      Wait.until(60_000, () -> usedByLeaf(scheduler, QUEUE)[0] == 0
              && yarn.getQueueInfo("development").getCurrentCapacity() == 0f,
          () -> "the finished application's containers are returned");
      assertTrue(ConsistencyCheck.ofContainersAndNodes(scheduler).isEmpty());
    }
  }

  /**
   * yarn-site.xml for an HA pair electing through ZooKeeper and keeping state there. Each
   * RM's addresses are fixed before it starts (a standby binds its client ports only when it
   * becomes active, so clients and AMs must know them in advance, as in a real cluster), on
   * ports no outgoing connection can take meanwhile ({@link Ports}).
   */
  private static Configuration haSettings(String zookeeper) throws java.io.IOException {
    Configuration conf = new Configuration(false);
    conf.set(YarnConfiguration.RM_HA_IDS, "rm0,rm1");
    conf.setBoolean(YarnConfiguration.YARN_MINICLUSTER_FIXED_PORTS, true);
    // NodeManagers reach the RMs over RPC through the failover proxy, as real ones do (the
    // mini cluster's in-process shortcut stays bound to the RM active when they started).
    conf.setBoolean(YarnConfiguration.YARN_MINICLUSTER_USE_RPC, true);
    conf.setLong(YarnConfiguration.RESOURCEMANAGER_CONNECT_RETRY_INTERVAL_MS, 200);
    List<String> keys = YarnConfiguration.getServiceAddressConfKeys(new YarnConfiguration());
    java.util.Iterator<Integer> ports = Ports.free(2 * keys.size()).iterator();
    for (String id : new String[] {"rm0", "rm1"}) {
      for (String key : keys) {
        conf.set(HAUtil.addSuffix(key, id), "localhost:" + ports.next());
      }
    }
    conf.set(YarnConfiguration.RM_CLUSTER_ID, "capsched-ha");
    conf.set(YarnConfiguration.RM_ZK_ADDRESS, zookeeper);
    conf.setBoolean(YarnConfiguration.AUTO_FAILOVER_ENABLED, true);
    conf.setBoolean(YarnConfiguration.RECOVERY_ENABLED, true);
    conf.set(YarnConfiguration.RM_STORE, ZKRMStateStore.class.getName());
    conf.setBoolean(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_ENABLED, true);
    conf.setLong(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS, 2_000);
    conf.setInt(YarnConfiguration.RM_ZK_TIMEOUT_MS, 10_000);
    // Clients and AMs try the other RM quickly.
    conf.setLong(YarnConfiguration.CLIENT_FAILOVER_SLEEPTIME_BASE_MS, 100);
    conf.setLong(YarnConfiguration.CLIENT_FAILOVER_SLEEPTIME_MAX_MS, 1_000);
    return conf;
  }

  /** Memory and vcores the core charges to {@code path}. */
  private static long[] usedByLeaf(RustCapacityScheduler scheduler, String path) {
    for (org.capsched.yarn.QueueSnapshot q : scheduler.getQueueSnapshots()) {
      if (q.getPath().equals(path)) {
        return new long[] {q.getUsedMemoryMb(), q.getUsedVcores()};
      }
    }
    throw new AssertionError("no queue " + path);
  }

  /** Containers the RM's scheduler holds for its one running application (0 before). */
  private static int liveContainers(ResourceManager rm) {
    if (rm.getRMContext().getRMApps().isEmpty()) {
      return 0;
    }
    RMApp app = onlyApplication(rm);
    if (app.getCurrentAppAttempt() == null) {
      return 0;
    }
    SchedulerApplicationAttempt attempt = ((org.apache.hadoop.yarn.server.resourcemanager
        .scheduler.AbstractYarnScheduler<?, ?>) rm.getResourceScheduler())
        .getApplicationAttempt(app.getCurrentAppAttempt().getAppAttemptId());
    if (attempt == null) {
      return 0;
    }
    Collection<RMContainer> live = attempt.getLiveContainers();
    return live.size();
  }

  private static RMApp onlyApplication(ResourceManager rm) {
    List<RMApp> apps = new java.util.ArrayList<>(rm.getRMContext().getRMApps().values());
    assertEquals("applications on the RM", 1, apps.size());
    return apps.get(0);
  }
}
