package org.capsched.yarn;

import static org.junit.Assert.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;

import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.FileSystemBasedConfigurationProvider;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.MutableConfScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.MutableConfigurationProvider;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.conf.YarnConfigurationStore.LogMutation;
import org.apache.hadoop.yarn.webapp.dao.QueueConfigInfo;
import org.apache.hadoop.yarn.webapp.dao.SchedConfUpdateInfo;
import org.capsched.yarn.harness.CapacitySchedulerXmlLoader;
import org.capsched.yarn.harness.RmHarness;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;
import org.junit.runners.Parameterized.Parameters;

/**
 * Where the scheduler's configuration comes from — capacity-scheduler.xml through a
 * file-system based configuration provider (HA setups), or a mutable scheduler
 * configuration store — and how it changes: the same for Apache's scheduler and ours.
 */
@RunWith(Parameterized.class)
public class ConfigurationStoreContractTest {
  @Parameters(name = "{0}")
  public static Collection<Object[]> schedulers() {
    return Arrays.asList(new Object[] {"Apache", CapacityScheduler.class},
        new Object[] {"Rust", RustCapacityScheduler.class});
  }

  private final Class<? extends ResourceScheduler> schedulerClass;

  public ConfigurationStoreContractTest(String name,
      Class<? extends ResourceScheduler> schedulerClass) {
    this.schedulerClass = schedulerClass;
  }

  private YarnConfiguration storeConfiguration(Path store) throws Exception {
    YarnConfiguration conf = RmHarness.configuration(schedulerClass, RmHarness.xml(
        "root.queues", "a,b", "root.a.capacity", "30", "root.b.capacity", "70")
        .getBytes(StandardCharsets.UTF_8));
    conf.set(YarnConfiguration.RM_CONFIGURATION_PROVIDER_CLASS,
        FileSystemBasedConfigurationProvider.class.getName());
    conf.set(YarnConfiguration.FS_BASED_RM_CONF_STORE, store.toUri().toString());
    return conf;
  }

  @Test(timeout = 120_000)
  public void aStoreWithoutTheFileLeavesItToTheClasspath() throws Exception {
    Path store = Files.createTempDirectory("capsched-conf-store-");
    MockRM rm = RmHarness.start(storeConfiguration(store));
    try {
      assertEquals(0.3f, rm.getResourceScheduler().getQueueInfo("a", false, false)
          .getCapacity(), 1e-6f);
    } finally {
      rm.stop();
    }
  }

  /**
   * A change made the way the RM's REST service makes it (the store logs it, the RM
   * reinitializes the scheduler, the store keeps it) outlives a restart on a persistent
   * store, and a change the scheduler refuses is not kept.
   */
  @Test(timeout = 180_000)
  public void aMutableStoreKeepsAcceptedChangesAcrossARestart() throws Exception {
    for (String kind : new String[] {YarnConfiguration.FS_CONFIGURATION_STORE,
        YarnConfiguration.LEVELDB_CONFIGURATION_STORE}) {
      Path dir = Files.createTempDirectory("capsched-" + kind + "-store-");
      YarnConfiguration conf = RmHarness.configuration(schedulerClass, SEED);
      conf.set(YarnConfiguration.SCHEDULER_CONFIGURATION_STORE_CLASS, kind);
      conf.set(YarnConfiguration.SCHEDULER_CONFIGURATION_FS_PATH, dir.toUri().toString());
      conf.set(YarnConfiguration.RM_SCHEDCONF_STORE_PATH, dir.toString());
      MockRM rm1 = startSeeded(conf);
      try {
        assertEquals(kind, 0.3f, capacity(rm1, "a"), 1e-6f);
        assertEquals(kind, true, change(rm1, "root.a", "40", "root.b", "60"));
        assertEquals(kind, 0.4f, capacity(rm1, "a"), 1e-6f);
        assertEquals(kind + ": capacities summing to 110% are refused", false,
            change(rm1, "root.a", "50", "root.b", "60"));
        assertEquals(kind, 0.4f, capacity(rm1, "a"), 1e-6f);
      } finally {
        rm1.stop();
      }
      MockRM rm2 = startSeeded(conf);
      try {
        assertEquals(kind + " after a restart", 0.4f, capacity(rm2, "a"), 1e-6f);
      } finally {
        rm2.stop();
      }
    }
  }

  private static final byte[] SEED = RmHarness.xml("root.queues", "a,b", "root.a.capacity",
      "30", "root.b.capacity", "70").getBytes(StandardCharsets.UTF_8);

  /** Starts an RM whose store, if new, seeds itself from {@link #SEED}. */
  private static MockRM startSeeded(YarnConfiguration conf) throws Exception {
    Path seed = Files.createTempFile("capsched-seed-", ".xml");
    Files.write(seed, SEED);
    Thread thread = Thread.currentThread();
    ClassLoader original = thread.getContextClassLoader();
    thread.setContextClassLoader(new CapacitySchedulerXmlLoader(original, seed.toUri().toURL()));
    try {
      return RmHarness.start(conf);
    } finally {
      thread.setContextClassLoader(original);
    }
  }

  private static float capacity(MockRM rm, String queue) throws Exception {
    return rm.getResourceScheduler().getQueueInfo(queue, false, false).getCapacity();
  }

  /**
   * Sets two queues' capacities as RMWebServices' PUT does; returns whether the scheduler
   * took the change.
   */
  private static boolean change(MockRM rm, String queue1, String capacity1, String queue2,
      String capacity2) throws Exception {
    MutableConfigurationProvider store =
        ((MutableConfScheduler) rm.getResourceScheduler()).getMutableConfProvider();
    SchedConfUpdateInfo update = new SchedConfUpdateInfo();
    update.getUpdateQueueInfo().add(new QueueConfigInfo(queue1,
        Collections.singletonMap("capacity", capacity1)));
    update.getUpdateQueueInfo().add(new QueueConfigInfo(queue2,
        Collections.singletonMap("capacity", capacity2)));
    LogMutation log = store.logAndApplyMutation(UserGroupInformation.getCurrentUser(), update);
    try {
      rm.getAdminService().refreshQueues();
    } catch (IOException | YarnException refused) {
      store.confirmPendingMutation(log, false);
      return false;
    }
    store.confirmPendingMutation(log, true);
    return true;
  }
}
