package org.capsched.yarn.harness;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.nodelabels.RMNodeLabelsManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.AbstractLeafQueue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CSQueue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueueCapacities;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.UserInfo;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.UsersManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.SchedulingMode;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.ResourceInfo;
import org.apache.hadoop.yarn.util.resource.Resources;
import org.capsched.yarn.QueueSnapshot;
import org.capsched.yarn.RustCapacityScheduler;
import org.capsched.yarn.UserReport;

/**
 * What each scheduler says of its queues and their users, beyond the RM's metrics: state,
 * configured and effective capacities (every resource), application limits, the
 * ApplicationMaster limit and usage, and each user's usage, limit and applications — the
 * figures Apache's scheduler page and REST view show. Apache's are read from its queue
 * objects, ours from the core's reports, into the same "fact = value" lines.
 */
final class QueueProbe {
  /** Whether the cluster had no resources when the facts being taken were read. */
  private static boolean emptyCluster;

  private QueueProbe() {
  }

  /** Adds the queue and user facts of {@code scheduler} to {@code facts}. */
  static void addFacts(ResourceScheduler scheduler, Map<String, String> facts) {
    // Shares of an empty cluster are not compared: Apache's absolute-resource queues then
    // report 0, NaN or a ratio of configured vectors depending on the calculator (ours
    // NaN); the effective vectors are compared all the same.
    emptyCluster = scheduler.getClusterResource().getMemorySize() == 0;
    if (scheduler instanceof CapacityScheduler) {
      apache((CapacityScheduler) scheduler, ((CapacityScheduler) scheduler).getRootQueue(), facts);
    } else if (scheduler instanceof RustCapacityScheduler) {
      ours((RustCapacityScheduler) scheduler, facts);
    }
  }

  private static void apache(CapacityScheduler scheduler, CSQueue q, Map<String, String> facts) {
    QueueCapacities c = q.getQueueCapacities();
    facts.put("queue-capacity " + q.getQueuePath(), capacity(q.getState().toString(), c.getCapacity(),
        c.getMaximumCapacity(), c.getAbsoluteCapacity(), c.getAbsoluteMaximumCapacity(),
        q.getEffectiveCapacity(RMNodeLabelsManager.NO_LABEL),
        q.getEffectiveMaxCapacity(RMNodeLabelsManager.NO_LABEL)));
    facts.put("queue-runnable " + q.getQueuePath(), Integer.toString(runnable(q)));
    if (q instanceof AbstractLeafQueue) {
      AbstractLeafQueue leaf = (AbstractLeafQueue) q;
      // Apache caches the ApplicationMaster limit at each activation pass and a user's
      // limit at each lookup that follows a change; its scheduler page shows those cached
      // figures (a user's limit reads 0 until first looked up). Both are compared as they
      // stand now: worked out afresh, without touching what Apache's decisions read (its AM
      // limit cache is read only by the per-user AM limit, which works it out again first,
      // and computeUserLimit caches nothing).
      Resource amLimit = leaf.calculateAndGetAMResourceLimit();
      facts.put("queue-limits " + q.getQueuePath(), limits(leaf.getMaxApplications(),
          leaf.getMaxApplicationsPerUser(), leaf.getNumActiveApplications(),
          leaf.getNumPendingApplications(), amLimit,
          leaf.getQueueResourceUsage().getAMUsed(), leaf.getUserAMResourceLimit()));
      Resource limit = userLimit(scheduler, leaf);
      for (UserInfo u : leaf.getUsersManager().getUsersInfo()) {
        if (isEmpty(resource(u.getResourcesUsed()), resource(u.getAMResourcesUsed()),
            u.getNumActiveApplications(), u.getNumPendingApplications())) {
          continue;
        }
        Resource weighted = Resources.multiplyAndNormalizeDown(scheduler.getResourceCalculator(), limit,
            u.getUserWeight(), leaf.getMinimumAllocation());
        facts.put("queue-user " + q.getQueuePath() + " " + u.getUsername(), user(
            resource(u.getResourcesUsed()), resource(u.getAMResourcesUsed()), weighted,
            u.getNumActiveApplications(), u.getNumPendingApplications(), u.getUserWeight()));
      }
      Set<String> active = new TreeSet<>(activeUsersSet(leaf.getUsersManager()));
      if (!active.isEmpty()) {
        facts.put("queue-active-users " + q.getQueuePath(), String.join(",", active));
      }
      int count = leaf.getUsersManager().getNumActiveUsers();
      if (count > 0) {
        facts.put("queue-active-count " + q.getQueuePath(), Integer.toString(count));
      }
    }
    List<CSQueue> children = q.getChildQueues();
    if (children != null) {
      for (CSQueue child : children) {
        apache(scheduler, child, facts);
      }
    }
  }

  /**
   * The users Apache shares a leaf among (its active-users set, which its user limit and
   * REST view read). Its count of active users is kept apart and drifts from the set when
   * it forgets a user still counted (divergences.txt: miscounted-user). Neither is
   * compared; the check that recognises that divergence reads both.
   */
  @SuppressWarnings("unchecked")
  private static Set<String> activeUsersSet(UsersManager users) {
    try {
      java.lang.reflect.Field f = UsersManager.class.getDeclaredField("activeUsersSet");
      f.setAccessible(true);
      return (Set<String>) f.get(users);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot read Apache's active users", e);
    }
  }

  /**
   * A user with nothing in the leaf: no usage, no applications. Apache lists such a user
   * until an attempt of its ends (or, having seen it at a submission it refused, for
   * good); ours forgets it once it has nothing. Both are left out (README: differences).
   */
  private static boolean isEmpty(Resource used, Resource amUsed, int active, int pending) {
    return used.getMemorySize() == 0 && used.getVirtualCores() == 0 && amUsed.getMemorySize() == 0
        && amUsed.getVirtualCores() == 0 && active == 0 && pending == 0;
  }

  /** How many applications Apache counts against max-parallel-apps in {@code q}. */
  private static int runnable(CSQueue q) {
    try {
      Method m = Class.forName("org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.AbstractCSQueue")
          .getDeclaredMethod("getNumRunnableApps");
      m.setAccessible(true);
      return (Integer) m.invoke(q);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot read Apache's runnable count", e);
    }
  }

  /** Apache's limit for an active user of weight 1 in {@code leaf} now (uncached). */
  private static Resource userLimit(CapacityScheduler scheduler, AbstractLeafQueue leaf) {
    try {
      Method compute = UsersManager.class.getDeclaredMethod("computeUserLimit", String.class,
          Resource.class, String.class, SchedulingMode.class, boolean.class);
      compute.setAccessible(true);
      return (Resource) compute.invoke(leaf.getUsersManager(), null, scheduler.getClusterResource(),
          RMNodeLabelsManager.NO_LABEL, SchedulingMode.RESPECT_PARTITION_EXCLUSIVITY, true);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot read Apache's user limit", e);
    }
  }


  private static void ours(RustCapacityScheduler scheduler, Map<String, String> facts) {
    List<QueueSnapshot> queues = scheduler.getQueueSnapshots();
    for (int i = 0; i < queues.size(); i++) {
      QueueSnapshot q = queues.get(i);
      facts.put("queue-runnable " + q.getPath(), Integer.toString(q.getNumRunnableApplications()));
      facts.put("queue-capacity " + q.getPath(), capacity(q.getState().toString(), q.getCapacity(),
          q.getMaximumCapacity(), q.getAbsoluteCapacity(), q.getAbsoluteMaximumCapacity(),
          q.getEffectiveMinResource(), q.getEffectiveMaxResource()));
      if (q.isLeaf()) {
        facts.put("queue-limits " + q.getPath(), limits(q.getMaximumApplications(),
            q.getMaximumApplicationsPerUser(), q.getNumActiveApplications(),
            q.getNumPendingApplications(), q.getAmResourceLimit(), q.getAmResourceUsed(),
            q.getUserAmResourceLimit()));
      }
    }
    UserReport users = scheduler.getUserReport();
    for (int u = 0; u < users.size(); u++) {
      if (isEmpty(users.used(u), users.amUsed(u), users.activeApplications(u), users.pendingApplications(u))) {
        continue;
      }
      facts.put("queue-user " + queues.get(users.queueIndex(u)).getPath() + " " + users.name(u),
          user(users.used(u), users.amUsed(u), users.limit(u), users.activeApplications(u),
              users.pendingApplications(u), users.weight(u)));
    }
    Map<String, Set<String>> active = new TreeMap<>();
    for (int u = 0; u < users.size(); u++) {
      if (users.isActive(u)) {
        active.computeIfAbsent(queues.get(users.queueIndex(u)).getPath(), k -> new TreeSet<>()).add(users.name(u));
      }
    }
    for (Map.Entry<String, Set<String>> e : active.entrySet()) {
      facts.put("queue-active-users " + e.getKey(), String.join(",", e.getValue()));
    }
  }

  private static String capacity(String state, double capacity, double max, double absolute,
      double absoluteMax, Resource effectiveMin, Resource effectiveMax) {
    if (emptyCluster) {
      return String.format("state=%s effective-min=%s effective-max=%s", state, text(effectiveMin),
          text(effectiveMax));
    }
    return String.format("state=%s capacity=%.4f max=%.4f abs=%.4f abs-max=%.4f effective-min=%s effective-max=%s",
        state, capacity, max, absolute, absoluteMax, text(effectiveMin), text(effectiveMax));
  }

  private static String limits(int maxApps, int maxAppsPerUser, int active, int pending,
      Resource amLimit, Resource amUsed, Resource userAmLimit) {
    return String.format("max-apps=%d max-apps-per-user=%d active=%d pending=%d am-limit=%s am-used=%s user-am-limit=%s",
        maxApps, maxAppsPerUser, active, pending, text(amLimit), text(amUsed), text(userAmLimit));
  }

  private static String user(Resource used, Resource amUsed, Resource limit, int active,
      int pending, double weight) {
    return String.format("used=%s am-used=%s limit=%s active=%d pending=%d weight=%.2f",
        text(used), text(amUsed), text(limit), active, pending, weight);
  }

  private static Resource resource(ResourceInfo info) {
    return Resource.newInstance(info.getMemorySize(), info.getvCores());
  }

  /** MEMORY MB/VCORES, as the snapshot writes every resource. */
  static String text(Resource r) {
    return r == null ? "none" : r.getMemorySize() + "MB/" + r.getVirtualCores();
  }
}
