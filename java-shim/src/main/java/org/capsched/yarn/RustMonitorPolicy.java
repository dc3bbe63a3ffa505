package org.capsched.yarn;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.monitor.SchedulingEditPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A scheduling-monitor policy of {@link RustCapacityScheduler} that stands in for one of
 * Apache's (see {@link RustPreemptionPolicy#monitorsFor}) and runs on an interval read from
 * the configuration accepted when the RM starts: each round asks the scheduler, whose core
 * decides, to do one thing.
 */
abstract class RustMonitorPolicy implements SchedulingEditPolicy {
  private static final Logger LOG = LoggerFactory.getLogger(RustMonitorPolicy.class);

  private RustCapacityScheduler scheduler;
  private long intervalMs;

  @Override
  public void init(Configuration config, RMContext context, ResourceScheduler sched) {
    scheduler = RustPreemptionPolicy.ours(sched, getPolicyName());
    intervalMs = intervalMs(scheduler.acceptedConfiguration());
    LOG.info("{} runs every {} ms", getPolicyName(), intervalMs);
  }

  /** The interval between rounds, from the configuration in force. */
  abstract long intervalMs(Configuration accepted);

  /** One round, on {@code scheduler}. */
  abstract void round(RustCapacityScheduler scheduler);

  @Override
  public synchronized void editSchedule() {
    round(scheduler);
  }

  @Override
  public long getMonitoringInterval() {
    return intervalMs;
  }
}
