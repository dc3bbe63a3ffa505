package org.capsched.yarn;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.monitor.SchedulingEditPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes idle auto-created queues for {@link RustCapacityScheduler}, in place of Apache's
 * {@code AutoCreatedQueueDeletionPolicy} (which works on Apache's scheduler only):
 * {@link RustPreemptionPolicy#monitorsFor} puts this one where the operator named
 * Apache's. As Apache's, it runs every
 * {@code yarn.scheduler.capacity.auto-queue-creation-v2.queue-expiration-time} seconds
 * (read when the RM starts); the core marks each created queue that could go and deletes
 * it the next round if it is still idle and unused for longer than that time.
 */
public final class RustQueueDeletionPolicy implements SchedulingEditPolicy {
  private static final Logger LOG = LoggerFactory.getLogger(RustQueueDeletionPolicy.class);

  /** Apache's policy class, which operators name in the monitor's policies. */
  static final String APACHE_POLICY =
      "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity."
          + "AutoCreatedQueueDeletionPolicy";

  private RustCapacityScheduler scheduler;
  private long intervalMs;

  @Override
  public void init(Configuration config, RMContext context, ResourceScheduler sched) {
    scheduler = RustPreemptionPolicy.ours(sched, "RustQueueDeletionPolicy deletes queues");
    long seconds = scheduler.acceptedConfiguration().getLong(
        CapacitySchedulerConfiguration.AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME,
        CapacitySchedulerConfiguration.DEFAULT_AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME);
    intervalMs = seconds * 1000;
    LOG.info("Idle auto-created queues are deleted after {} s, checked every {} ms", seconds,
        intervalMs);
  }

  /** One round: the core marks and deletes, the scheduler's queue directory follows. */
  @Override
  public synchronized void editSchedule() {
    scheduler.deleteExpiredQueues();
  }

  @Override
  public long getMonitoringInterval() {
    return intervalMs;
  }

  @Override
  public String getPolicyName() {
    return "RustQueueDeletionPolicy";
  }
}
