package org.capsched.yarn;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;

/**
 * Compares what the Rust core holds with what the RM's own objects hold: every live and
 * reserved container (application, number, node, size), every node's allocated resources
 * and every queue's usage. The tests run it after every step. It lives in the scheduler's
 * package to reach the core, which the RM never needs to see.
 */
public final class ConsistencyCheck {
  private ConsistencyCheck() {
  }

  /**
   * The differences between {@code scheduler}'s core and its RM objects, one line each;
   * empty when the two sides agree. Both are read under the scheduler's write lock.
   */
  public static List<String> of(RustCapacityScheduler scheduler) {
    return scheduler.inspect(core -> compare(scheduler, core, true));
  }

  /**
   * The same, less the queues' metrics: for two RMs in one JVM (an HA pair in a test),
   * which share Hadoop's static queue-metrics registry, so that the second RM's queues
   * also count what the first one's held. (A real pair runs in two processes.)
   */
  public static List<String> ofContainersAndNodes(RustCapacityScheduler scheduler) {
    return scheduler.inspect(core -> compare(scheduler, core, false));
  }

  /**
   * Whether the core's last preemption round hung on the order of equally under-served
   * queues (see {@code Preemption::last_round_tie_order_mattered} in rust-core), for the
   * side-by-side snapshot.
   */
  public static boolean preemptionTieOrderMattered(RustCapacityScheduler scheduler) {
    return scheduler.inspect(NativeScheduler::preemptionTieOrderMattered);
  }

  /**
   * The containers the core has marked killable (lazy preemption), by node: for the
   * side-by-side snapshot, next to Apache's nodes' killable containers.
   */
  public static Map<NodeId, Set<ContainerId>> killable(RustCapacityScheduler scheduler) {
    return scheduler.inspect(core -> {
      Map<NodeId, Set<ContainerId>> out = new HashMap<>();
      long[] r = core.containerReport();
      for (int i = 0; i < r.length; i += Wire.ContainerReport.STRIDE) {
        if (r[i + Wire.ContainerReport.RESERVED] != 3) {
          continue;
        }
        RustApplication app = null;
        for (SchedulerApplication<RustAppAttempt> a
            : scheduler.getSchedulerApplications().values()) {
          if (((RustApplication) a).key() == (int) r[i + Wire.ContainerReport.APP]) {
            app = (RustApplication) a;
          }
        }
        RustSchedulerNode node = null;
        for (RustSchedulerNode n : scheduler.getNodeTracker().getAllNodes()) {
          if (n.key() == (int) r[i + Wire.ContainerReport.NODE]) {
            node = n;
          }
        }
        if (app == null || node == null) {
          continue;
        }
        out.computeIfAbsent(node.getNodeID(), k -> new TreeSet<>()).add(
            ContainerId.newContainerId(ApplicationAttemptId.newInstance(app.getApplicationId(),
                (int) r[i + Wire.ContainerReport.ATTEMPT]), r[i + Wire.ContainerReport.NUMBER]));
      }
      return out;
    });
  }

  private static List<String> compare(RustCapacityScheduler scheduler, NativeScheduler core,
      boolean metrics) {
    Map<Integer, RustApplication> appsByKey = new HashMap<>();
    for (SchedulerApplication<RustAppAttempt> app : scheduler.getSchedulerApplications().values()) {
      appsByKey.put(((RustApplication) app).key(), (RustApplication) app);
    }
    Map<Integer, RustSchedulerNode> nodesByKey = new TreeMap<>();
    for (RustSchedulerNode node : scheduler.getNodeTracker().getAllNodes()) {
      nodesByKey.put(node.key(), node);
    }
    Set<String> inCore = new TreeSet<>();
    Map<Integer, long[]> coreNodeUse = new HashMap<>();
    long[] r = core.containerReport();
    for (int i = 0; i < r.length; i += Wire.ContainerReport.STRIDE) {
      int appKey = (int) r[i + Wire.ContainerReport.APP];
      int nodeKey = (int) r[i + Wire.ContainerReport.NODE];
      long memory = r[i + Wire.ContainerReport.MEMORY];
      long vcores = r[i + Wire.ContainerReport.VCORES];
      // (3: a live container marked killable.)
      boolean reserved = r[i + Wire.ContainerReport.RESERVED] == 1;
      // A container its application let go of that the node still holds counts for the
      // node only (the RM's node keeps it too, its attempt does not).
      boolean leaving = r[i + Wire.ContainerReport.RESERVED] == 2;
      RustApplication app = appsByKey.get(appKey);
      RustSchedulerNode node = nodesByKey.get(nodeKey);
      if (!leaving) {
        inCore.add(describe(app == null ? "app-key-" + appKey
            : app.getApplicationId().toString(), (int) r[i + Wire.ContainerReport.ATTEMPT],
            r[i + Wire.ContainerReport.NUMBER], node == null ? "node-key-" + nodeKey
            : node.getNodeID().toString(), memory, vcores, reserved));
      }
      if (!reserved) {
        long[] use = coreNodeUse.computeIfAbsent(nodeKey, k -> new long[2]);
        use[0] += memory;
        use[1] += vcores;
      }
    }
    Set<String> inRm = new TreeSet<>();
    for (RustApplication app : appsByKey.values()) {
      RustAppAttempt attempt = app.getCurrentAppAttempt();
      if (attempt == null) {
        continue;
      }
      String appId = attempt.getApplicationId().toString();
      for (RMContainer c : attempt.getLiveContainers()) {
        Resource size = c.getContainer().getResource();
        inRm.add(describe(appId, c.getContainerId(), c.getAllocatedNode().toString(), size.getMemorySize(), size.getVirtualCores(),
            false));
      }
      for (RMContainer c : attempt.getReservedContainers()) {
        Resource size = c.getReservedResource();
        inRm.add(describe(appId, c.getContainerId(), c.getReservedNode().toString(), size.getMemorySize(), size.getVirtualCores(),
            true));
      }
    }
    List<String> out = new ArrayList<>();
    for (String c : inCore) {
      if (!inRm.contains(c)) {
        out.add("only in the core: " + c);
      }
    }
    for (String c : inRm) {
      if (!inCore.contains(c)) {
        out.add("only in the RM: " + c);
      }
    }
    for (RustSchedulerNode node : nodesByKey.values()) {
      long[] use = coreNodeUse.getOrDefault(node.key(), new long[2]);
      Resource rm = node.getAllocatedResource();
      if (use[0] != rm.getMemorySize() || use[1] != rm.getVirtualCores()) {
        out.add(String.format("node %s: core %d MB/%d vcores allocated, RM %s",
            node.getNodeID(), use[0], use[1], rm));
      }
    }
    // A queue's metrics count the default partition's containers as they were placed: a
    // node relabelled with containers on it moves them between partitions in the queue's
    // usage, not in its metrics (Apache's RM does the same), so on a cluster with labels the
    // two are not compared.
    boolean labelled = scheduler.labelManager() != null
        && !scheduler.labelManager().getClusterNodeLabelNames().isEmpty();
    for (QueueSnapshot q : metrics && !labelled ? scheduler.getQueueSnapshots()
        : java.util.Collections.<QueueSnapshot>emptyList()) {
      QueueMetrics m = scheduler.queues().byPath(q.getPath()).getMetrics();
      long mb = m.getAllocatedMB() + m.getReservedMB();
      long vcores = m.getAllocatedVirtualCores() + m.getReservedVirtualCores();
      if (mb != q.getUsedMemoryMb() || vcores != q.getUsedVcores()) {
        out.add(String.format("queue %s: core uses %d MB/%d vcores, RM metrics %d MB/%d vcores",
            q.getPath(), q.getUsedMemoryMb(), q.getUsedVcores(), mb, vcores));
      }
    }
    return out;
  }

  private static String describe(String app, ContainerId id, String node, long memory,
      long vcores, boolean reserved) {
    return describe(app, id.getApplicationAttemptId().getAttemptId(), id.getContainerId(), node,
        memory, vcores, reserved);
  }

  private static String describe(String app, int attempt, long number, String node,
      long memory, long vcores, boolean reserved) {
    return String.format("%s attempt %d container %d on %s: %d MB/%d vcores%s", app, attempt,
        number, node, memory, vcores, reserved ? " (reserved)" : "");
  }
}
