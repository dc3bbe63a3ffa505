package org.capsched.yarn;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;

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
public final class RustQueueManagementPolicy extends RustMonitorPolicy {
  /** Apache's policy class, which operators name in the monitor's policies. */
  static final String APACHE_POLICY =
      "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity."
          + "QueueManagementDynamicEditPolicy";

  @Override
  long intervalMs(Configuration accepted) {
    return accepted.getLong(CapacitySchedulerConfiguration.QUEUE_MANAGEMENT_MONITORING_INTERVAL,
        CapacitySchedulerConfiguration.DEFAULT_QUEUE_MANAGEMENT_MONITORING_INTERVAL);
  }

  /** One round: the core decides, the scheduler's queue directory follows. */
  @Override
  void round(RustCapacityScheduler scheduler) {
    scheduler.manageQueues();
  }

  @Override
  public String getPolicyName() {
    return "RustQueueManagementPolicy";
  }
}
