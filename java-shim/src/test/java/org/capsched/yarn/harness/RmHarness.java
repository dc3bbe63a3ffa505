package org.capsched.yarn.harness;

import java.lang.reflect.Field;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.security.SecurityUtil;
import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.DecommissioningNodesWatcher;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceTrackerService;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.RMStateStore;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.slf4j.event.Level;

/**
 * Starts a real ResourceManager (Hadoop's MockRM: the RM with an in-process dispatcher and
 * no RPC servers) with a given scheduler class and capacity-scheduler.xml. The file is
 * served as THE capacity-scheduler.xml of the RM's classpath (through the configuration's
 * class loader), so both schedulers find it exactly as in a deployed RM with the default
 * configuration provider, and no other copy (Hadoop's test jars carry some) can interfere.
 */
public final class RmHarness {
  static {
    DefaultMetricsSystem.setMiniClusterMode(true);
    // Test nodes have made-up host names (h1, h2); like Hadoop's own RM tests, build
    // token services from names rather than resolved addresses.
    SecurityUtil.setTokenServiceUseIp(false);
  }

  private RmHarness() {
  }

  /** A configuration that makes the RM read {@code capacitySchedulerXml}. */
  public static YarnConfiguration configuration(Class<? extends ResourceScheduler> scheduler,
      byte[] capacitySchedulerXml) throws Exception {
    Path dir = Files.createTempDirectory("capsched-rm-");
    Path file = dir.resolve(YarnConfiguration.CS_CONFIGURATION_FILE);
    Files.write(file, capacitySchedulerXml);
    YarnConfiguration conf = new YarnConfiguration();
    conf.setClassLoader(new CapacitySchedulerXmlLoader(conf.getClassLoader(), file.toUri().toURL()));
    conf.setClass(YarnConfiguration.RM_SCHEDULER, scheduler, ResourceScheduler.class);
    // The RM's node-attribute and node-label stores default to one directory under /tmp for
    // every RM of the user: two test runs at once (two checkouts) would write each other's
    // mirror files. Each RM gets its own, beside its configuration.
    conf.set(YarnConfiguration.FS_NODE_ATTRIBUTE_STORE_ROOT_DIR,
        dir.resolve("node-attribute").toUri().toString());
    conf.set(YarnConfiguration.FS_NODE_LABELS_STORE_ROOT_DIR,
        dir.resolve("node-labels").toUri().toString());
    return conf;
  }

  /** Starts an RM; throws whatever the RM throws when the configuration is refused. */
  public static MockRM start(YarnConfiguration conf) throws Exception {
    return start(conf, null);
  }

  /**
   * Starts an RM on {@code store} (a restarted RM recovers from its predecessor's store;
   * null for a new one).
   */
  public static MockRM start(YarnConfiguration conf, RMStateStore store) throws Exception {
    QueueMetrics.clearQueueMetrics();
    MockRM rm = new HarnessRM(conf, store);
    // MockRM turns every logger to DEBUG; at scenario scale that costs minutes.
    GenericTestUtils.setRootLogLevel(Level.WARN);
    try {
      rm.start();
    } catch (RuntimeException e) {
      rm.stop();
      throw e;
    }
    return rm;
  }

  /**
   * Hadoop's MockRM, less the RM it leaks. MockRM's resource tracker does nothing when
   * stopped, so the tracker's DecommissioningNodesWatcher keeps its timer thread, and that
   * timer's task keeps the stopped RM's context — every node, application and container of
   * the run — reachable for the rest of the JVM: each run left the next a bigger heap to
   * collect around (500,000 RMContainers after 25 benchmark runs). Stopping this RM stops
   * the watcher as the real tracker's serviceStop does.
   */
  private static final class HarnessRM extends MockRM {
    HarnessRM(Configuration conf, RMStateStore store) {
      super(conf, store);
    }

    @Override
    protected void serviceStop() throws Exception {
      try {
        super.serviceStop();
      } finally {
        stopDecommissioningWatcher(getResourceTrackerService());
      }
    }

    static void pinClusterTimestamp(long timestamp) {
      setClusterTimeStamp(timestamp);
    }

    private static void stopDecommissioningWatcher(ResourceTrackerService tracker)
        throws ReflectiveOperationException {
      if (tracker == null) {
        return;
      }
      Field field = ResourceTrackerService.class.getDeclaredField("decommissioningWatcher");
      field.setAccessible(true);
      DecommissioningNodesWatcher watcher = (DecommissioningNodesWatcher) field.get(tracker);
      if (watcher != null) {
        field.set(tracker, null);
        watcher.stop();
      }
    }
  }

  /**
   * Sets the cluster timestamp the running RM puts in new application (and so attempt and
   * container) ids; starting an RM sets it to the time of day.
   */
  static void pinClusterTimestamp(long timestamp) {
    HarnessRM.pinClusterTimestamp(timestamp);
  }

  /**
   * {@code yarn rmadmin -refreshQueues} with {@code xml} as the RM's capacity-scheduler.xml
   * (the file {@link #configuration} serves for {@code conf}): the scheduler's
   * {@code reinitialize}, as the admin service calls it.
   */
  public static void refresh(MockRM rm, YarnConfiguration conf, String xml) throws Exception {
    URL file = conf.getClassLoader().getResource(YarnConfiguration.CS_CONFIGURATION_FILE);
    Files.write(Paths.get(file.toURI()), xml.getBytes(StandardCharsets.UTF_8));
    rm.getResourceScheduler().reinitialize(new YarnConfiguration(conf), rm.getRMContext());
  }

  /** capacity-scheduler.xml from name/value pairs (names without "yarn.scheduler.capacity."). */
  public static String xml(String... pairs) {
    StringBuilder b = new StringBuilder("<configuration>\n");
    for (int i = 0; i < pairs.length; i += 2) {
      b.append("  <property><name>yarn.scheduler.capacity.").append(pairs[i])
          .append("</name><value>").append(pairs[i + 1]).append("</value></property>\n");
    }
    return b.append("</configuration>\n").toString();
  }

  /**
   * Heartbeats {@code nm} (up to 20 times) until the AM has pulled {@code n} more
   * containers; returns what it got.
   */
  public static List<Container> collect(MockRM rm, MockAM am, MockNM nm, int n)
      throws Exception {
    List<Container> got = new ArrayList<>();
    for (int i = 0; i < 20 && got.size() < n; i++) {
      nm.nodeHeartbeat(true);
      rm.drainEvents();
      got.addAll(am.allocate(Collections.emptyList(), Collections.emptyList())
          .getAllocatedContainers());
    }
    return got;
  }

  /** The innermost message of a failure, which is where the RM puts the reason. */
  public static String reason(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getClass().getSimpleName() + ": " + root.getMessage();
  }
}
