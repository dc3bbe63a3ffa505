package org.capsched.yarn;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;
import org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity.ProportionalCapacityPreemptionPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler;
import org.junit.Test;

/**
 * The scheduling monitors an operator's yarn-site.xml names, as this scheduler runs them:
 * where Apache's preemption policy or its deletion of idle auto-created queues is named,
 * ours; Apache's other CapacityScheduler-only queue-management policies left out (they would stop the RM from starting); anything else
 * as named. (PreemptionIT starts a real RM from YARN's default list.)
 */
public class PreemptionMonitorTest {
  private static final String QUEUE_MANAGEMENT =
      "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueueManagementDynamicEditPolicy";
  private static final String AUTO_REFRESH =
      "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueueConfigurationAutoRefreshPolicy";

  private static Configuration monitors(boolean enabled, String... policies) {
    Configuration conf = new Configuration(false);
    conf.setBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS, enabled);
    if (policies.length > 0) {
      conf.setStrings(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES, policies);
    }
    return conf;
  }

  @Test
  public void apachesPreemptionAndQueueManagementPoliciesAreRunAsOursAndItsAutoRefreshIsLeftOut() {
    Configuration conf = monitors(true, ProportionalCapacityPreemptionPolicy.class.getName(),
        QUEUE_MANAGEMENT, AUTO_REFRESH, "com.example.OwnPolicy");
    assertArrayEquals(new String[] {RustPreemptionPolicy.class.getName(),
        RustQueueManagementPolicy.class.getName(), "com.example.OwnPolicy"},
        RustPreemptionPolicy.monitorsFor(conf).getTrimmedStrings(
            YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES));
    assertArrayEquals("the operator's configuration itself is left alone",
        new String[] {ProportionalCapacityPreemptionPolicy.class.getName(), QUEUE_MANAGEMENT,
            AUTO_REFRESH, "com.example.OwnPolicy"},
        conf.getTrimmedStrings(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES));
  }

  @Test
  public void yarnsDefaultListMeansOurPolicyAndNamingOursTooRunsItOnce() {
    Configuration defaults = new YarnConfiguration();
    defaults.setBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS, true);
    assertArrayEquals(new String[] {RustPreemptionPolicy.class.getName()},
        RustPreemptionPolicy.monitorsFor(defaults).getTrimmedStrings(
            YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES));
    Configuration both = monitors(true, RustPreemptionPolicy.class.getName(),
        ProportionalCapacityPreemptionPolicy.class.getName());
    assertArrayEquals(new String[] {RustPreemptionPolicy.class.getName()},
        RustPreemptionPolicy.monitorsFor(both).getTrimmedStrings(
            YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES));
  }

  @Test
  public void apachesDeletionOfIdleAutoCreatedQueuesIsRunAsOurs() {
    Configuration conf = monitors(true, ProportionalCapacityPreemptionPolicy.class.getName(),
        "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity."
            + "AutoCreatedQueueDeletionPolicy");
    assertArrayEquals(new String[] {RustPreemptionPolicy.class.getName(),
        RustQueueDeletionPolicy.class.getName()},
        RustPreemptionPolicy.monitorsFor(conf).getTrimmedStrings(
            YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES));
  }

  @Test
  public void withTheMonitorOffNothingChanges() {
    Configuration off = monitors(false, ProportionalCapacityPreemptionPolicy.class.getName());
    assertSame(off, RustPreemptionPolicy.monitorsFor(off));
  }

  @Test
  public void thePolicyRefusesAnyOtherScheduler() {
    try {
      new RustPreemptionPolicy().init(new Configuration(false), null, new FifoScheduler());
      fail("a FifoScheduler was accepted");
    } catch (YarnRuntimeException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("Rust capacity scheduler only"));
    }
  }
}
