package org.capsched.yarn;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.monitor.SchedulingEditPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity.ProportionalCapacityPreemptionPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.apache.hadoop.yarn.util.Clock;
import org.apache.hadoop.yarn.util.SystemClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Capacity preemption for {@link RustCapacityScheduler}. The RM's scheduling monitor runs it
 * every {@code yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval} ms, as
 * it runs Apache's {@code ProportionalCapacityPreemptionPolicy} — which refuses any scheduler
 * but Apache's own, so {@link #monitorsFor} puts this policy in its place. Each round the
 * Rust core decides, under the policy's keys as the configuration in force sets them (the
 * RM hands the core its {@code yarn.resourcemanager.monitor.capacity.preemption.*} keys
 * with the capacity ones), which containers to mark, kill or unreserve; the scheduler
 * sends the RM's own preemption events for them, which its event thread applies.
 */
public final class RustPreemptionPolicy implements SchedulingEditPolicy {
  private static final Logger LOG = LoggerFactory.getLogger(RustPreemptionPolicy.class);

  private final Clock clock;
  private RustCapacityScheduler scheduler;

  /** The policy on the system clock, as the scheduling monitor makes it. */
  public RustPreemptionPolicy() {
    this(SystemClock.getInstance());
  }

  /** The policy on {@code clock} (tests drive time themselves). */
  public RustPreemptionPolicy(Clock clock) {
    this.clock = clock;
  }

  @Override
  public void init(Configuration config, RMContext context, ResourceScheduler sched) {
    scheduler = ours(sched, "RustPreemptionPolicy preempts");
    LOG.info("Capacity preemption by the Rust core, every {} ms", getMonitoringInterval());
  }

  /** One round: the core decides, the scheduler sends the events. */
  @Override
  public synchronized void editSchedule() {
    scheduler.preempt(clock.getTime());
  }

  /** As Apache's policy: read from the configuration in force at each tick. */
  @Override
  public long getMonitoringInterval() {
    return scheduler.acceptedConfiguration().getLong(
        CapacitySchedulerConfiguration.PREEMPTION_MONITORING_INTERVAL,
        CapacitySchedulerConfiguration.DEFAULT_PREEMPTION_MONITORING_INTERVAL);
  }

  @Override
  public String getPolicyName() {
    return "RustPreemptionPolicy";
  }

  /**
   * {@code sched} as this scheduler, for a monitor policy that works on it alone; for any
   * other scheduler, the exception Apache's policies throw, saying {@code what} the policy
   * does and for which scheduler.
   */
  static RustCapacityScheduler ours(ResourceScheduler sched, String what) {
    if (!(sched instanceof RustCapacityScheduler)) {
      throw new YarnRuntimeException("Class " + sched.getClass().getCanonicalName()
          + " not instance of " + RustCapacityScheduler.class.getCanonicalName()
          + ": " + what + " for the Rust capacity scheduler only");
    }
    return (RustCapacityScheduler) sched;
  }

  /**
   * The RM's configuration with the scheduling monitors this scheduler can run: where
   * Apache's preemption policy is named, this one; where Apache's deletion of idle
   * auto-created queues is, {@link RustQueueDeletionPolicy}; Apache's other queue policies,
   * which work on Apache's scheduler's queues alone, dropped with a warning (an RM with
   * them listed would otherwise fail to start). {@code conf} itself is left alone.
   */
  static Configuration monitorsFor(Configuration conf) {
    if (!conf.getBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS,
        YarnConfiguration.DEFAULT_RM_SCHEDULER_ENABLE_MONITORS)) {
      return conf;
    }
    List<String> kept = new ArrayList<>();
    for (String policy : conf.getTrimmedStrings(
        YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES)) {
      if (policy.equals(ProportionalCapacityPreemptionPolicy.class.getName())) {
        LOG.info("Scheduling monitor: {} is named; this scheduler runs its own capacity "
            + "preemption, {}, with the same keys", policy, RustPreemptionPolicy.class.getName());
        policy = RustPreemptionPolicy.class.getName();
      } else if (policy.equals(RustQueueDeletionPolicy.APACHE_POLICY)) {
        LOG.info("Scheduling monitor: {} is named; this scheduler deletes idle auto-created "
            + "queues with {}, by the same keys", policy, RustQueueDeletionPolicy.class.getName());
        policy = RustQueueDeletionPolicy.class.getName();
      } else if (policy.equals(RustQueueManagementPolicy.APACHE_POLICY)) {
        LOG.info("Scheduling monitor: {} is named; this scheduler manages auto-created leaves "
            + "with {}, by the same keys", policy, RustQueueManagementPolicy.class.getName());
        policy = RustQueueManagementPolicy.class.getName();
      } else if (policy.startsWith(
          "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.")) {
        LOG.warn("Scheduling monitor: {} works on Apache's CapacityScheduler only; this "
            + "scheduler does not run it", policy);
        continue;
      }
      if (!kept.contains(policy)) {
        kept.add(policy);
      }
    }
    Configuration out = new Configuration(conf);
    out.setStrings(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES, kept.toArray(new String[0]));
    return out;
  }
}
