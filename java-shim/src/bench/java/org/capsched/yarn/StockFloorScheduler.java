package org.capsched.yarn;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueUserACLInfo;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractUsersManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ActiveUsersManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Queue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.PendingAsk;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;
import org.apache.hadoop.yarn.util.Records;
import org.apache.hadoop.yarn.util.resource.Resources;

/**
 * The benchmark's stock-bookkeeping floor: the floor's placement (each node heartbeat places
 * the first pending ask that fits, up to the off-switch limit, the leaves taking turns
 * container by container from where the last heartbeat stopped; see {@link FloorScheduler}) on Apache's own
 * objects instead of ours. It is Apache's FifoScheduler with its walk replaced: a heartbeat
 * runs the base class's node update, then places each container with FifoScheduler's own
 * private {@code assignContainer} (a {@code FifoAppAttempt}'s {@code allocate}, the
 * {@code FiCaSchedulerNode}'s {@code allocateContainer}, the used-resource sum), and sets the
 * available gauge as FifoScheduler does. FifoScheduler's own walk is left out because it also
 * works every application's headroom out on every heartbeat, which is not bookkeeping.
 *
 * <p>FifoScheduler keeps one queue's metrics without users; a CapacityScheduler, Apache's or
 * ours, keeps a leaf's, each ancestor's and each user's at every level. So the stock floor
 * puts each application in a stand-in for its leaf ({@link Leaf}) whose metrics are Apache's
 * QueueMetrics in the same hierarchy (the leaf's parent's, up to root), with user metrics, as
 * Apache's CapacityScheduler's; the root's are the scheduler's.
 *
 * <p>So floor / stock floor is what our shim's materialising costs against Apache's classes
 * for the same placements: the "our floor at most 0.7× the stock-bookkeeping floor".
 * Benchmark sections (a) and (c) only: applications are never removed from their leaves.
 */
public class StockFloorScheduler extends FifoScheduler {
  /** AbstractYarnScheduler's nodeUpdate, called past FifoScheduler's override. */
  private static final MethodHandle BASE_NODE_UPDATE;
  /** FifoScheduler's private per-container placement. */
  private static final MethodHandle ASSIGN;

  static {
    try {
      // As FifoScheduler's own super.nodeUpdate call: an invokespecial from FifoScheduler,
      // whose direct superclass is AbstractYarnScheduler (one from this class would resolve
      // to FifoScheduler's override).
      MethodHandles.Lookup fifo =
          MethodHandles.privateLookupIn(FifoScheduler.class, MethodHandles.lookup());
      BASE_NODE_UPDATE = fifo.findSpecial(AbstractYarnScheduler.class, "nodeUpdate",
          MethodType.methodType(void.class, RMNode.class), FifoScheduler.class);
      ASSIGN = fifo.findVirtual(FifoScheduler.class, "assignContainer",
          MethodType.methodType(int.class, FiCaSchedulerNode.class, FifoAppAttempt.class,
              SchedulerRequestKey.class, int.class, Resource.class, NodeType.class));
      USED = fifo.findGetter(FifoScheduler.class, "usedResource", Resource.class);
      NEW_ATTEMPT = MethodHandles.privateLookupIn(FifoAppAttempt.class, MethodHandles.lookup())
          .findConstructor(FifoAppAttempt.class, MethodType.methodType(void.class,
              ApplicationAttemptId.class, String.class, Queue.class, ActiveUsersManager.class,
              RMContext.class));
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** FifoScheduler's private sum of what its containers hold. */
  private static final MethodHandle USED;
  /** FifoAppAttempt's package-private constructor. */
  private static final MethodHandle NEW_ATTEMPT;

  /** The leaves (and their parents) by path, made as applications name them. */
  private final Map<String, Leaf> leaves = new HashMap<>();
  private Leaf root;

  /**
   * The leaves in the order of their first application, each with its applications in id
   * order, as the floor takes them; rebuilt when the number of applications changes.
   */
  private final List<List<ApplicationId>> order = new ArrayList<>();
  /** Per leaf, its first application that may still ask (those before ask for nothing). */
  private int[] first = new int[0];
  private int ordered = -1;
  private int next;
  private int most = 1;

  @Override
  public void serviceInit(Configuration conf) throws Exception {
    // The floor's limit per heartbeat is capacity-scheduler.xml's off-switch limit.
    Configuration cs = new Configuration(false);
    cs.setClassLoader(conf.getClassLoader());
    cs.addResource(YarnConfiguration.CS_CONFIGURATION_FILE);
    most = Math.max(1, cs.getInt(CapacitySchedulerConfiguration.OFFSWITCH_PER_HEARTBEAT_LIMIT,
        CapacitySchedulerConfiguration.DEFAULT_OFFSWITCH_PER_HEARTBEAT_LIMIT));
    super.serviceInit(conf);
    root = new Leaf("root", null, conf);
    leaves.put("root", root);
  }

  private Leaf leaf(String path) {
    Leaf q = leaves.get(path);
    if (q == null) {
      int dot = path.lastIndexOf('.');
      q = new Leaf(path, dot < 0 ? root : leaf(path.substring(0, dot)), getConfig());
      leaves.put(path, q);
    }
    return q;
  }

  @Override
  public QueueMetrics getRootQueueMetrics() {
    return root.metrics;
  }

  /** FifoScheduler's, in the application's leaf rather than its one queue. */
  @Override
  public synchronized void addApplication(ApplicationId id, String queue, String user,
      boolean isAppRecovering, boolean unmanagedAM) {
    Leaf q = leaf(queue);
    applications.put(id, new SchedulerApplication<>(q, user, unmanagedAM));
    q.metrics.submitApp(user, unmanagedAM);
    rmContext.getDispatcher().getEventHandler()
        .handle(new RMAppEvent(id, RMAppEventType.APP_ACCEPTED));
  }

  /** FifoScheduler's, the attempt in its application's leaf. */
  @Override
  public synchronized void addApplicationAttempt(ApplicationAttemptId id,
      boolean transferStateFromPreviousAttempt, boolean isAttemptRecovering) {
    SchedulerApplication<FifoAppAttempt> app = applications.get(id.getApplicationId());
    Leaf q = (Leaf) app.getQueue();
    try {
      app.setCurrentAppAttempt(
          (FifoAppAttempt) NEW_ATTEMPT.invoke(id, app.getUser(), (Queue) q, q.users, rmContext));
    } catch (Throwable t) {
      throw unchecked(t);
    }
    q.metrics.submitAppAttempt(app.getUser(), app.isUnmanagedAM());
    rmContext.getDispatcher().getEventHandler()
        .handle(new RMAppAttemptEvent(id, RMAppAttemptEventType.ATTEMPT_ADDED));
  }

  @Override
  protected synchronized void nodeUpdate(RMNode nm) {
    try {
      BASE_NODE_UPDATE.invoke(this, nm);
      FiCaSchedulerNode node = (FiCaSchedulerNode) getNode(nm.getNodeID());
      if (node != null) {
        placeFirstFit(node);
      }
      // FifoScheduler's available gauge, on the root.
      root.metrics.setAvailableResourcesToQueue(
          Resources.subtract(getClusterResource(), (Resource) USED.invoke(this)));
    } catch (Throwable t) {
      throw unchecked(t);
    }
  }

  /** What a method handle threw, rethrown as it was if unchecked. */
  private static RuntimeException unchecked(Throwable t) {
    if (t instanceof RuntimeException) {
      return (RuntimeException) t;
    }
    if (t instanceof Error) {
      throw (Error) t;
    }
    return new IllegalStateException(t);
  }

  private void placeFirstFit(FiCaSchedulerNode node) throws Throwable {
    if (ordered != applications.size()) {
      List<ApplicationId> ids = new ArrayList<>(applications.keySet());
      ids.sort(null);
      Map<Queue, List<ApplicationId>> byLeaf = new LinkedHashMap<>();
      for (ApplicationId id : ids) {
        byLeaf.computeIfAbsent(applications.get(id).getQueue(), q -> new ArrayList<>()).add(id);
      }
      order.clear();
      order.addAll(byLeaf.values());
      first = new int[order.size()];
      ordered = applications.size();
      next = 0;
    }
    int count = order.size();
    int placed = 0;
    int looked = 0;
    // A node without room for the smallest container is walked no further, as the floor's.
    while (placed < most && looked < count
        && Resources.fitsIn(getMinimumResourceCapability(), node.getUnallocatedResource())) {
      int got = 0;
      // The leaves take turns container by container; in a leaf, the first application
      // with an ask that fits, those that ask for nothing passed once (as the floor's).
      int leaf = next % count;
      List<ApplicationId> apps = order.get(leaf);
      for (int i = first[leaf]; i < apps.size() && got <= 0; i++) {
        got = placeOne(node, applications.get(apps.get(i)));
        if (got < 0 && i == first[leaf]) {
          first[leaf]++;
        }
      }
      if (got > 0) {
        placed += got;
      } else {
        looked++;
      }
      next = (next + 1) % count;
    }
  }

  /**
   * One container for the application's first pending ask that fits the node: how many
   * were placed (0 or 1), or -1 when the application asks for nothing.
   */
  private int placeOne(FiCaSchedulerNode node, SchedulerApplication<FifoAppAttempt> app)
      throws Throwable {
    FifoAppAttempt attempt = app == null ? null : app.getCurrentAppAttempt();
    if (attempt == null) {
      return -1;
    }
    boolean asking = false;
    synchronized (attempt) {
      for (SchedulerRequestKey key : attempt.getSchedulerKeys()) {
        PendingAsk ask = attempt.getPendingAsk(key, ResourceRequest.ANY);
        if (ask.getCount() <= 0) {
          continue;
        }
        asking = true;
        if (Resources.fitsIn(ask.getPerAllocationResource(), node.getUnallocatedResource())) {
          return (int) ASSIGN.invoke(this, node, attempt, key, 1, ask.getPerAllocationResource(),
              NodeType.OFF_SWITCH);
        }
      }
    }
    return asking ? 0 : -1;
  }

  /**
   * A leaf or parent queue for the stock floor: Apache's QueueMetrics under its parent's,
   * with user metrics, and FifoScheduler's answers to the rest.
   */
  private static final class Leaf implements Queue {
    final String path;
    final QueueMetrics metrics;
    final ActiveUsersManager users;

    Leaf(String path, Leaf parent, Configuration conf) {
      this.path = path;
      this.metrics = QueueMetrics.forQueue(path, parent, true, conf);
      this.users = new ActiveUsersManager(metrics);
    }

    @Override
    public String getQueueName() {
      return path;
    }

    @Override
    public QueueMetrics getMetrics() {
      return metrics;
    }

    @Override
    public QueueInfo getQueueInfo(boolean includeChildQueues, boolean recursive) {
      QueueInfo info = Records.newRecord(QueueInfo.class);
      info.setQueueName(path);
      return info;
    }

    @Override
    public List<QueueUserACLInfo> getQueueUserAclInfo(UserGroupInformation user) {
      return Collections.emptyList();
    }

    @Override
    public boolean hasAccess(QueueACL acl, UserGroupInformation user) {
      return true;
    }

    @Override
    public AbstractUsersManager getAbstractUsersManager() {
      return users;
    }

    @Override
    public void recoverContainer(Resource clusterResource,
        SchedulerApplicationAttempt schedulerAttempt, RMContainer rmContainer) {
    }

    @Override
    public Set<String> getAccessibleNodeLabels() {
      return null;
    }

    @Override
    public String getDefaultNodeLabelExpression() {
      return null;
    }

    @Override
    public void incPendingResource(String nodeLabel, Resource resourceToInc) {
    }

    @Override
    public void decPendingResource(String nodeLabel, Resource resourceToDec) {
    }

    @Override
    public Priority getDefaultApplicationPriority() {
      return Priority.newInstance(0);
    }

    @Override
    public void incReservedResource(String partition, Resource reservedRes) {
    }

    @Override
    public void decReservedResource(String partition, Resource reservedRes) {
    }
  }
}
