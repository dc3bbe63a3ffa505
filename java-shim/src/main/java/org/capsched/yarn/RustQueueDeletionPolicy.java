package org.capsched.yarn;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;

/**
 * Deletes idle auto-created queues for {@link RustCapacityScheduler}, in place of Apache's
 * {@code AutoCreatedQueueDeletionPolicy} (which works on Apache's scheduler only):
 * {@link RustPreemptionPolicy#monitorsFor} puts this one where the operator named
 * Apache's. As Apache's, it runs every
 * {@code yarn.scheduler.capacity.auto-queue-creation-v2.queue-expiration-time} seconds
 * (read when the RM starts); the core marks each created queue that could go and deletes
 * it the next round if it is still idle and unused for longer than that time.
 */
public final class RustQueueDeletionPolicy extends RustMonitorPolicy {
  /** Apache's policy class, which operators name in the monitor's policies. */
  static final String APACHE_POLICY =
      "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity."
          + "AutoCreatedQueueDeletionPolicy";

  @Override
  long intervalMs(Configuration accepted) {
    return accepted.getLong(CapacitySchedulerConfiguration.AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME,
        CapacitySchedulerConfiguration.DEFAULT_AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME) * 1000;
  }

  /** One round: the core marks and deletes, the scheduler's queue directory follows. */
  @Override
  void round(RustCapacityScheduler scheduler) {
    scheduler.deleteExpiredQueues();
  }

  @Override
  public String getPolicyName() {
    return "RustQueueDeletionPolicy";
  }
}
