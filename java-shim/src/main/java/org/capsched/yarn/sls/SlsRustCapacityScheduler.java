package org.capsched.yarn.sls;

import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.SchedulingRequest;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Queue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.apache.hadoop.yarn.sls.SLSRunner;
import org.apache.hadoop.yarn.sls.scheduler.SLSSchedulerCommons;
import org.apache.hadoop.yarn.sls.scheduler.SchedulerMetrics;
import org.apache.hadoop.yarn.sls.scheduler.SchedulerWrapper;
import org.apache.hadoop.yarn.sls.scheduler.Tracker;
import org.capsched.yarn.RustCapacityScheduler;

/**
 * Our scheduler as Apache's Scheduler Load Simulator (hadoop-sls) drives a scheduler: name
 * this class as {@code yarn.resourcemanager.scheduler.class} in the simulator's
 * yarn-site.xml, with this jar on its classpath, and {@code slsrun.sh} runs the trace on it.
 *
 * <p>The simulator's runner only wraps Apache's own schedulers (it swaps in its
 * {@code SLSCapacityScheduler} when it finds {@code CapacityScheduler} named); any other
 * scheduler must be a {@link SchedulerWrapper} itself. This is the same wrapper as Apache's,
 * around ours: every event and every {@code allocate()} goes through the simulator's
 * {@link SLSSchedulerCommons}, which times it, keeps the per-queue counters and the
 * real-time tracking page, and ends the simulation when the last application ends; then on
 * to {@link RustCapacityScheduler} unchanged. Its metrics are those the simulator keeps for
 * Apache's CapacityScheduler, so the two runs' outputs read alike. (The metrics are torn
 * down when the last application ends, as with Apache's wrapper; the simulator's
 * {@code stopMetrics}, which Apache's also calls when the RM stops, is not open to other
 * packages.)
 */
public class SlsRustCapacityScheduler extends RustCapacityScheduler implements SchedulerWrapper {

  private final SLSSchedulerCommons commons = new SLSSchedulerCommons(this);
  private volatile SLSRunner runner;

  @Override
  public void setConf(Configuration conf) {
    super.setConf(conf);
    // The simulator picks its metrics by scheduler class and knows Apache's three only.
    commons.initMetrics(CapacityScheduler.class, conf);
  }

  @Override
  public Allocation allocate(ApplicationAttemptId attemptId, List<ResourceRequest> ask,
      List<SchedulingRequest> schedulingRequests, List<ContainerId> release,
      List<String> blacklistAdditions, List<String> blacklistRemovals,
      ContainerUpdates updateRequests) {
    return commons.allocate(attemptId, ask, schedulingRequests, release, blacklistAdditions,
        blacklistRemovals, updateRequests);
  }

  @Override
  public Allocation allocatePropagated(ApplicationAttemptId attemptId,
      List<ResourceRequest> ask, List<SchedulingRequest> schedulingRequests,
      List<ContainerId> release, List<String> blacklistAdditions,
      List<String> blacklistRemovals, ContainerUpdates updateRequests) {
    return super.allocate(attemptId, ask, schedulingRequests, release, blacklistAdditions,
        blacklistRemovals, updateRequests);
  }

  @Override
  public void handle(SchedulerEvent event) {
    commons.handle(event);
  }

  @Override
  public void propagatedHandle(SchedulerEvent event) {
    super.handle(event);
  }

  /** The queue's full path, for a name as the trace gives it (full path or short name). */
  @Override
  public String getRealQueueName(String queue) throws YarnException {
    Queue found = getQueue(queue);
    if (found == null) {
      throw new YarnException("Can't find the queue by the given name: " + queue
          + "! Please check that capacity-scheduler.xml defines queue " + queue + ".");
    }
    // Our queues are named by full path (see RustQueue.getQueueName).
    return found.getQueueName();
  }

  @Override
  public SchedulerMetrics getSchedulerMetrics() {
    return commons.getSchedulerMetrics();
  }

  @Override
  public Tracker getTracker() {
    return commons.getTracker();
  }

  @Override
  public void setSLSRunner(SLSRunner runner) {
    this.runner = runner;
  }

  @Override
  public SLSRunner getSLSRunner() {
    return runner;
  }
}
