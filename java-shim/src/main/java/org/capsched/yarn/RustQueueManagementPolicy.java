package org.capsched.yarn;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.monitor.SchedulingEditPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands managed parents' guarantees between their auto-created leaves for
 * {@link RustCapacityScheduler}, in place of Apache's {@code QueueManagementDynamicEditPolicy}
 * (which works on Apache's scheduler only): {@link RustPreemptionPolicy#monitorsFor} puts
 * this one where the operator named Apache's. As Apache's, it runs every
 * {@code yarn.resourcemanager.monitor.capacity.queue-management.monitoring-interval} ms
 * (read when the RM starts); each round the core takes the template's guarantee back from
 * leaves without applications and gives what is free to leaves with some, oldest
 * application first.
 */
public final class RustQueueManagementPolicy implements SchedulingEditPolicy {
  private static final Logger LOG = LoggerFactory.getLogger(RustQueueManagementPolicy.class);

  /** Apache's policy class, which operators name in the monitor's policies. */
  static final String APACHE_POLICY =
      "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity."
          + "QueueManagementDynamicEditPolicy";

  private RustCapacityScheduler scheduler;
  private long intervalMs;

  @Override
  public void init(Configuration config, RMContext context, ResourceScheduler sched) {
    scheduler = RustPreemptionPolicy.ours(sched, "RustQueueManagementPolicy manages queues");
    intervalMs = scheduler.acceptedConfiguration().getLong(
        CapacitySchedulerConfiguration.QUEUE_MANAGEMENT_MONITORING_INTERVAL,
        CapacitySchedulerConfiguration.DEFAULT_QUEUE_MANAGEMENT_MONITORING_INTERVAL);
    LOG.info("Managed parents' leaves are (de)activated every {} ms", intervalMs);
  }

  /** One round: the core decides, the scheduler's queue directory follows. */
  @Override
  public synchronized void editSchedule() {
    scheduler.manageQueues();
  }

  @Override
  public long getMonitoringInterval() {
    return intervalMs;
  }

  @Override
  public String getPolicyName() {
    return "RustQueueManagementPolicy";
  }
}
