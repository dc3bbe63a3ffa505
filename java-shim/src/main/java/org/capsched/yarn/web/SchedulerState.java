package org.capsched.yarn.web;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Queue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerHealth;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.capsched.yarn.PartitionReport;
import org.capsched.yarn.QueueSnapshot;
import org.capsched.yarn.QueueView;
import org.capsched.yarn.RustCapacityScheduler;
import org.capsched.yarn.UserReport;

/**
 * The queues as an operator's view shows them (the scheduler page, the REST scheduler
 * view): one reading of the core's queues and users together, arranged as a tree, with the RM's
 * queue metrics and the configuration the core accepted beside them. Nothing here decides
 * anything; it only arranges what the core reported.
 */
public final class SchedulerState {
  private final List<QueueSnapshot> queues;
  private final List<List<Integer>> children;
  private final List<List<Integer>> usersByQueue;
  private final UserReport users;
  private final PartitionReport partitions;
  private final RustCapacityScheduler scheduler;
  private final List<QueueMetrics> metrics;
  private final List<Resource> pending;
  private final List<Set<String>> accessibleLabels;
  private final CapacitySchedulerConfiguration configuration;
  private final Resource cluster;
  private final SchedulerHealth health;

  private SchedulerState(RustCapacityScheduler scheduler) {
    QueueView view = scheduler.getQueueView();
    this.queues = view.queues();
    this.users = view.users();
    this.partitions = view.partitions();
    this.scheduler = scheduler;
    this.cluster = scheduler.getClusterResource();
    this.health = scheduler.getSchedulerHealth();
    this.configuration = new CapacitySchedulerConfiguration(scheduler.getConfiguration(), false);
    String[] dynamic = scheduler.getDynamicQueueKeys();
    for (int i = 0; i + 1 < dynamic.length; i += 2) {
      configuration.set(dynamic[i], dynamic[i + 1]);
    }
    int n = queues.size();
    children = QueueSnapshot.children(queues);
    usersByQueue = new ArrayList<>(n);
    metrics = new ArrayList<>(n);
    pending = new ArrayList<>(n);
    accessibleLabels = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      usersByQueue.add(new ArrayList<>());
      Queue queue = scheduler.getQueue(queues.get(i).getPath());
      metrics.add(queue == null ? null : queue.getMetrics());
      accessibleLabels.add(queue == null ? Collections.<String>emptySet()
          : queue.getAccessibleNodeLabels());
      pending.add(scheduler.getQueuePendingResource(queues.get(i).getPath()));
    }
    for (int u = 0; u < users.size(); u++) {
      int q = users.queueIndex(u);
      if (q >= 0 && q < n) {
        usersByQueue.get(q).add(u);
      }
    }
  }

  /** The scheduler's queues now. */
  public static SchedulerState of(RustCapacityScheduler scheduler) {
    return new SchedulerState(scheduler);
  }

  /** The number of queues; the root is queue 0. */
  public int size() {
    return queues.size();
  }

  public QueueSnapshot queue(int index) {
    return queues.get(index);
  }

  /** The queue's children, by index, in the order the core holds them. */
  public List<Integer> children(int index) {
    return Collections.unmodifiableList(children.get(index));
  }

  /** Whether the queue is a leaf (applications are submitted to leaves). */
  public boolean isLeaf(int index) {
    return index > 0 && queues.get(index).isLeaf();
  }

  /** The leaf's users, as indices into {@link #users()}. */
  public List<Integer> usersOf(int index) {
    return Collections.unmodifiableList(usersByQueue.get(index));
  }

  public UserReport users() {
    return users;
  }

  /** The RM's metrics of the queue; null if the queue has none (it has just been removed). */
  public QueueMetrics metrics(int index) {
    return metrics.get(index);
  }

  /** The node labels the queue may access ("*" for every label). */
  public Set<String> accessibleLabels(int index) {
    return accessibleLabels.get(index);
  }

  /** What the queue's applications and its descendants' ask for. */
  public Resource pending(int index) {
    return pending.get(index);
  }

  /** The same in the partition labelled {@code label}. */
  public Resource pending(int index, String label) {
    return scheduler.getQueuePendingResource(queues.get(index).getPath(), label);
  }

  /**
   * The labelled partitions the queues' and users' views list, owners indexed as
   * {@link #queue(int)} and {@link #users()} are.
   */
  public PartitionReport partitions() {
    return partitions;
  }

  /** The configuration the core runs with, for settings shown as configured. */
  public CapacitySchedulerConfiguration configuration() {
    return configuration;
  }

  /** The RM's record of the scheduler's last run and last operations. */
  public SchedulerHealth health() {
    return health;
  }

  /** The resources of every registered NodeManager. */
  public Resource cluster() {
    return cluster;
  }

  /**
   * The queue's weight over its siblings' (the share a weight queue gets of its parent);
   * 0 for a queue whose capacity is not a weight.
   */
  public float normalizedWeight(int index) {
    return (float) queues.get(index).getNormalizedWeight();
  }
}
