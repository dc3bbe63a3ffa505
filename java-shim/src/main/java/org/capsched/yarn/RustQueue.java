package org.capsched.yarn;

import java.util.Collections;
import java.util.List;
import java.util.Set;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueUserACLInfo;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.nodelabels.RMNodeLabelsManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractUsersManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Queue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceUsage;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapschedQueueMetrics;

/**
 * The RM-side face of one queue: its metrics and users manager (RM bookkeeping objects)
 * and views built from the Rust core's report. It holds no scheduling state of its own.
 * The same object lives across refreshes as long as the queue's path does.
 */
final class RustQueue implements Queue {
  private final RustCapacityScheduler scheduler;
  private final QueueViews views;
  private final String path;
  private final CapschedQueueMetrics metrics;
  private final AbstractUsersManager usersManager = new CoreUsers();
  private final RustQueue parent;
  /**
   * The resources the queue's applications ask for, as the RM's request bookkeeping
   * reports them to the queue (Apache's queue usage keeps them the same way, and its REST
   * view shows them); the core keeps its own.
   */
  private final ResourceUsage pending = new ResourceUsage();
  private volatile Resource maximumAllocation = Resource.newInstance(0, 0);
  private volatile Set<String> accessibleNodeLabels = Collections.emptySet();
  private volatile String defaultNodeLabelExpression;

  RustQueue(RustCapacityScheduler scheduler, QueueViews views, String path, RustQueue parent,
      boolean userMetrics, Configuration conf, Runnable gauges) {
    this.scheduler = scheduler;
    this.views = views;
    this.path = path;
    this.metrics = CapschedQueueMetrics.forQueue(path, parent, userMetrics, conf, gauges);
    this.parent = parent;
    // Apache's queues make their records in the default partition as they are set up; the
    // root's also makes the partition's own. (Set again to what it holds: no change.)
    if (parent == null) {
      metrics.setAvailableResourcesToQueue(RMNodeLabelsManager.NO_LABEL,
          metrics.getAvailableResources());
    } else {
      metrics.getPartitionQueueMetrics(RMNodeLabelsManager.NO_LABEL);
    }
  }

  /** The full path, such as root.engineering.qa. */
  String getPath() {
    return path;
  }

  /** The last path component. */
  String getShortName() {
    return path.substring(path.lastIndexOf('.') + 1);
  }

  /** Apache's CapacityScheduler names queues by full path in metrics and reports. */
  @Override
  public String getQueueName() {
    return path;
  }

  /** Apache's capacity-queue metrics; its gauges are published when it is read. */
  @Override
  public CapschedQueueMetrics getMetrics() {
    return metrics;
  }

  /**
   * The largest container its applications may ask for, as configured (set at every
   * (re)load, so that the RM's check of every AM heartbeat's asks crosses into the core
   * for nothing).
   */
  Resource maximumAllocation() {
    return maximumAllocation;
  }

  void setMaximumAllocation(Resource maximumAllocation) {
    this.maximumAllocation = maximumAllocation;
  }

  /** Every queue and every leaf's users as the core sees them now. */
  QueueView view() {
    return views.view();
  }

  /** The guarantee, a fraction of the cluster, as the core works it out now. */
  double absoluteCapacity() {
    return views.absoluteCapacity(path);
  }

  @Override
  public QueueInfo getQueueInfo(boolean includeChildQueues, boolean recursive) {
    return views.queueInfo(this, includeChildQueues, recursive);
  }

  @Override
  public List<QueueUserACLInfo> getQueueUserAclInfo(UserGroupInformation user) {
    return views.userAclInfo(path, user);
  }

  @Override
  public boolean hasAccess(QueueACL acl, UserGroupInformation user) {
    return views.hasAccess(user, acl, path, false);
  }

  @Override
  public AbstractUsersManager getAbstractUsersManager() {
    return usersManager;
  }

  /**
   * The queue's users as the RM's request bookkeeping tells them apart. The core learns
   * every application's asks from the AM heartbeat and decides who counts as active
   * (Apache's rule: asking while the user has an activated application); the queue's
   * ActiveUsers and ActiveApplications metrics are published from its report
   * (QueueGauges), not counted here.
   */
  private final class CoreUsers implements AbstractUsersManager {
    @Override
    public void activateApplication(String user, ApplicationId applicationId) {
      // The core saw the asks.
    }

    @Override
    public void deactivateApplication(String user, ApplicationId applicationId) {
      // The core saw the asks end.
    }

    @Override
    public int getNumActiveUsers() {
      return views.activeUsers(path);
    }
  }

  @Override
  public void recoverContainer(Resource clusterResource,
      SchedulerApplicationAttempt schedulerAttempt, RMContainer rmContainer) {
    // The RM's recoverContainersOnNode calls this for each container a NodeManager reports
    // after a restart: the core charges it to this queue.
    scheduler.recoverContainer(schedulerAttempt, rmContainer);
  }

  /**
   * The node labels this queue may access ("*" for every label) and its default label
   * expression (null for none), as the core works them out from the configuration.
   */
  void setNodeLabels(Set<String> accessible, String defaultExpression) {
    this.accessibleNodeLabels = accessible;
    this.defaultNodeLabelExpression = defaultExpression;
  }

  @Override
  public Set<String> getAccessibleNodeLabels() {
    return accessibleNodeLabels;
  }

  @Override
  public String getDefaultNodeLabelExpression() {
    return defaultNodeLabelExpression;
  }

  @Override
  public void incPendingResource(String nodeLabel, Resource resourceToInc) {
    pending.incPending(partition(nodeLabel), resourceToInc);
    if (parent != null) {
      parent.incPendingResource(nodeLabel, resourceToInc);
    }
  }

  @Override
  public void decPendingResource(String nodeLabel, Resource resourceToDec) {
    pending.decPending(partition(nodeLabel), resourceToDec);
    if (parent != null) {
      parent.decPendingResource(nodeLabel, resourceToDec);
    }
  }

  /** What the queue's applications (and its descendants') ask for in the default partition. */
  Resource pendingResource() {
    return pending.getPending(RMNodeLabelsManager.NO_LABEL);
  }

  /** What they ask for in the partition labelled {@code label}. */
  Resource pendingResource(String label) {
    return pending.getPending(partition(label));
  }

  private static String partition(String nodeLabel) {
    return nodeLabel == null ? RMNodeLabelsManager.NO_LABEL : nodeLabel;
  }

  @Override
  public Priority getDefaultApplicationPriority() {
    return Priority.newInstance(0);
  }

  @Override
  public void incReservedResource(String partition, Resource reservedRes) {
    // Reservations are tracked by the core.
  }

  @Override
  public void decReservedResource(String partition, Resource reservedRes) {
    // Reservations are tracked by the core.
  }

  @Override
  public String toString() {
    return path;
  }
}
