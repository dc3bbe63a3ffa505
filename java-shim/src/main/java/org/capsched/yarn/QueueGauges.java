package org.capsched.yarn;

import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.nodelabels.RMNodeLabelsManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapschedQueueMetrics;
import org.apache.hadoop.yarn.util.resource.ResourceCalculator;
import org.apache.hadoop.yarn.util.resource.Resources;

/**
 * The gauges of every queue's metrics record ({@link CapschedQueueMetrics}), published
 * from the core's queue and user reports when a record is read, not on the heartbeat
 * path. Each gauge carries the figure Apache's CapacityScheduler publishes under its name:
 * <ul>
 * <li>UsedCapacity, AbsoluteUsedCapacity: the queue's usage as a share of its guarantee
 *     and of the cluster;
 * <li>GuaranteedCapacity, GuaranteedAbsoluteCapacity, MaxCapacity, MaxAbsoluteCapacity:
 *     its capacities as shares of its parent and of the cluster;
 * <li>GuaranteedMB/VCores, MaxCapacityMB/VCores: the default partition (the cluster while
 *     no node has a label) times its absolute capacity and absolute maximum, rounded down
 *     to the minimum allocation;
 * <li>AvailableMB/VCores: what is left of its guarantee (the root: of the cluster, which
 *     the scheduler keeps current as containers come and go);
 * <li>AMResourceLimitMB/VCores, UsedAMResourceMB/VCores: its ApplicationMasters' limit
 *     and usage; per user, the user's weighted limit and usage;
 * <li>per user, AvailableMB/VCores: the user's headroom;
 * <li>ActiveUsers: a leaf's users who share it now, and ActiveApplications: the
 *     applications that make their users active (Apache counts them as its users
 *     manager is told, per leaf, its ancestors and the user; they are moved here by the
 *     difference since the last publication, through the same calls).
 * </ul>
 * The arithmetic here only restates what the core reports in the units of the record.
 */
final class QueueGauges {
  private final NativeScheduler core;
  private final Supplier<QueueDirectory> queues;
  private final Supplier<Resource> cluster;
  private final Supplier<Resource> wholeCluster;
  private final Supplier<ResourceCalculator> calculator;
  private final Resource minimumAllocation;
  /** The core's change count the gauges were last published at; -1 before the first. */
  private long published = -1;
  /** The active applications published per leaf and user (see {@link #publishActive}). */
  private final Map<RustQueue, Map<String, Integer>> activeApps = new HashMap<>();
  /** The users of each leaf published last; one who leaves holds no AM there any more. */
  private Map<RustQueue, Set<String>> usersPublished = new HashMap<>();

  /**
   * {@code cluster} gives the default partition's resource (what the gauges' shares are
   * of), {@code wholeCluster} every node's (what Apache's calculator compares against).
   */
  QueueGauges(NativeScheduler core, Supplier<QueueDirectory> queues,
      Supplier<Resource> cluster, Supplier<Resource> wholeCluster,
      Supplier<ResourceCalculator> calculator, Resource minimumAllocation) {
    this.core = core;
    this.queues = queues;
    this.cluster = cluster;
    this.wholeCluster = wholeCluster;
    this.calculator = calculator;
    this.minimumAllocation = minimumAllocation;
  }

  /**
   * Publishes every queue's gauges, unless the core has not changed since the last time.
   * Once the scheduler has stopped, the gauges keep their last values.
   *
   * <p>It takes no scheduler lock: it runs inside the metrics system, which holds its own
   * monitor while it samples every source, and a scheduler thread holding the scheduler's
   * lock may need that monitor (to register a new user's metrics); the reports are read
   * under the core's own lock, and a report made during a refresh of the queues is left
   * for the next read.
   */
  synchronized void refresh() {
    long changes;
    ViewReport view;
    try {
      changes = core.changes();
      if (changes == published) {
        return;
      }
      view = core.viewReport();
    } catch (IllegalStateException closed) {
      return;
    }
    if (publish(view.queues, view.users, view.partitions)) {
      published = changes;
    }
  }

  /** Sets every gauge from the reports; false if they do not match the queue directory. */
  private boolean publish(QueueReport report, UserReport users, PartitionReport partitions) {
    QueueDirectory dir = queues.get();
    if (report.size() != dir.size()) {
      // A refresh of the queues is being applied; the next read publishes.
      return false;
    }
    Resource clusterResource = cluster.get();
    Resource whole = wholeCluster.get();
    ResourceCalculator rc = calculator.get();
    for (int i = 0; i < dir.size(); i++) {
      RustQueue queue = dir.at(i);
      publishQueue(queue.getMetrics(), new QueueSnapshot(queue.getPath(), report, i),
          clusterResource, whole, rc, i > 0);
    }
    publishPartitions(dir, partitions, whole, rc);
    Map<RustQueue, Map<String, Integer>> active = new HashMap<>();
    Map<RustQueue, Set<String>> present = new HashMap<>();
    for (int u = 0; u < users.size(); u++) {
      int q = users.queueIndex(u);
      if (q >= 0 && q < dir.size()) {
        RustQueue leaf = dir.at(q);
        CapschedQueueMetrics metrics = leaf.getMetrics();
        String user = users.name(u);
        present.computeIfAbsent(leaf, k -> new HashSet<>()).add(user);
        metrics.setAvailableResourcesToUser(RMNodeLabelsManager.NO_LABEL, user, users.headroom(u));
        metrics.setAMResouceLimitForUser(RMNodeLabelsManager.NO_LABEL, user, users.amLimit(u));
        metrics.setUserAmResourceUsed(user, users.amUsed(u));
        if (users.appsCountedActive(u) > 0) {
          active.computeIfAbsent(leaf, k -> new HashMap<>()).put(user, users.appsCountedActive(u));
        }
      }
    }
    for (Map.Entry<RustQueue, Set<String>> e : usersPublished.entrySet()) {
      for (String user : e.getValue()) {
        if (!present.getOrDefault(e.getKey(), Collections.emptySet()).contains(user)) {
          e.getKey().getMetrics().setUserAmResourceUsed(user, Resources.none());
        }
      }
    }
    usersPublished = present;
    publishActive(active);
    return true;
  }

  /**
   * Each queue's AvailableMB/VCores in every labelled partition it lists (its records in
   * that partition, Apache's PartitionQueueMetrics): what is left of its guarantee there,
   * compared against every node as Apache's {@code getMaxAvailableResourceToQueuePartition}
   * compares.
   */
  private static void publishPartitions(QueueDirectory dir, PartitionReport partitions,
      Resource wholeCluster, ResourceCalculator rc) {
    for (int row = 0; row < partitions.size(); row++) {
      int owner = partitions.owner(row);
      if (!partitions.isQueue(row) || owner < 0 || owner >= dir.size()) {
        continue;
      }
      Resource guaranteed = partitions.effectiveMin(row);
      Resource used = partitions.used(row);
      dir.at(owner).getMetrics().setAvailableResourcesToQueue(partitions.label(row),
          Resources.greaterThan(rc, wholeCluster, guaranteed, used)
              ? Resources.componentwiseMax(Resources.subtract(guaranteed, used), Resources.none())
              : Resources.none());
    }
  }

  /**
   * Moves ActiveUsers and ActiveApplications to {@code now} (per leaf and user, the
   * applications that make the user active) from what was published last, through the
   * calls Apache's users manager makes: each application counted or no longer counted
   * updates its leaf, the leaf's ancestors and the user's record, as in Apache.
   */
  private void publishActive(Map<RustQueue, Map<String, Integer>> now) {
    Set<RustQueue> leaves = new HashSet<>(activeApps.keySet());
    leaves.addAll(now.keySet());
    for (RustQueue leaf : leaves) {
      Map<String, Integer> before = activeApps.getOrDefault(leaf, Collections.emptyMap());
      Map<String, Integer> after = now.getOrDefault(leaf, Collections.emptyMap());
      CapschedQueueMetrics metrics = leaf.getMetrics();
      Set<String> names = new HashSet<>(before.keySet());
      names.addAll(after.keySet());
      for (String user : names) {
        int was = before.getOrDefault(user, 0);
        int is = after.getOrDefault(user, 0);
        for (int i = was; i < is; i++) {
          metrics.activateApp(user);
        }
        for (int i = is; i < was; i++) {
          metrics.deactivateApp(user);
        }
      }
      for (int i = before.size(); i < after.size(); i++) {
        metrics.incrActiveUsers();
      }
      for (int i = after.size(); i < before.size(); i++) {
        metrics.decrActiveUsers();
      }
    }
    activeApps.clear();
    activeApps.putAll(now);
  }

  /** A share as the record holds it: 0 where it has no value (an empty cluster's). */
  private static float share(double value) {
    return Double.isNaN(value) ? 0f : (float) value;
  }

  private void publishQueue(CapschedQueueMetrics m, QueueSnapshot q, Resource clusterResource,
      Resource wholeCluster, ResourceCalculator rc, boolean withAvailable) {
    String partition = RMNodeLabelsManager.NO_LABEL;
    m.setUsedCapacity(partition, share(q.getUsedCapacity()));
    m.setAbsoluteUsedCapacity(partition, share(q.getAbsoluteUsedCapacity()));
    // (Configured and derived shares are published as they are: an absolute-resource
    // queue's maximum over a parent with nothing is NaN, as Apache derives it.)
    m.setGuaranteedCapacities(partition, (float) q.getCapacity(), (float) q.getAbsoluteCapacity());
    m.setMaxCapacities(partition, (float) q.getMaximumCapacity(),
        (float) q.getAbsoluteMaximumCapacity());
    m.setGuaranteedResources(partition, rc.multiplyAndNormalizeDown(clusterResource,
        q.getAbsoluteCapacity(), minimumAllocation));
    m.setMaxCapacityResources(partition, rc.multiplyAndNormalizeDown(clusterResource,
        q.getAbsoluteMaximumCapacity(), minimumAllocation));
    m.setAMResouceLimit(partition, q.getAmResourceLimit());
    m.setAmResourceUsed(q.getAmResourceUsed());
    if (withAvailable) {
      Resource guaranteed = q.getEffectiveMinResource();
      Resource used = Resource.newInstance(q.getUsedMemoryMb(), (int) q.getUsedVcores());
      // Compared as Apache's getMaxAvailableResourceToQueuePartition does: against every
      // node, whatever the partition.
      m.setAvailableResourcesToQueue(partition,
          Resources.greaterThan(rc, wholeCluster, guaranteed, used)
              ? Resources.componentwiseMax(Resources.subtract(guaranteed, used), Resources.none())
              : Resources.none());
    }
  }
}
