package org.capsched.yarn;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.PendingAsk;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;
import org.apache.hadoop.yarn.util.resource.Resources;

/**
 * The benchmark's stock-bookkeeping floor: the floor's placement (each node heartbeat places
 * the first pending ask that fits, up to the off-switch limit, taking the applications in
 * turn from where the last heartbeat stopped; see {@link FloorScheduler}) on Apache's own
 * objects instead of ours. It is Apache's FifoScheduler with its walk replaced: a heartbeat
 * runs the base class's node update, then places each container with FifoScheduler's own
 * private {@code assignContainer} (a {@code FifoAppAttempt}'s {@code allocate}, the
 * {@code FiCaSchedulerNode}'s {@code allocateContainer}, the used-resource sum), and sets the
 * available gauge as FifoScheduler does. FifoScheduler's own walk is left out because it also
 * works every application's headroom out on every heartbeat, which is not bookkeeping.
 *
 * <p>So floor / stock floor is what our shim's materialising costs against Apache's classes
 * for the same placements: the "our floor at most 0.7× the stock-bookkeeping floor".
 */
public class StockFloorScheduler extends FifoScheduler {
  /** AbstractYarnScheduler's nodeUpdate, called past FifoScheduler's override. */
  private static final MethodHandle BASE_NODE_UPDATE;
  /** FifoScheduler's private per-container placement. */
  private static final MethodHandle ASSIGN;
  /** FifoScheduler's private available-resources gauge update. */
  private static final MethodHandle AVAILABLE;

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
      AVAILABLE = fifo.findVirtual(FifoScheduler.class, "updateAvailableResourcesMetrics",
          MethodType.methodType(void.class));
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** The applications in id order, as the floor takes them; rebuilt when their number changes. */
  private final List<ApplicationId> order = new ArrayList<>();
  private int next;
  private int most = 1;

  @Override
  public void serviceInit(Configuration conf) throws Exception {
    // The floor's limit per heartbeat is capacity-scheduler.xml's off-switch limit.
    Configuration cs = new Configuration(false);
    cs.setClassLoader(conf.getClassLoader());
    cs.addResource(YarnConfiguration.CS_CONFIGURATION_FILE);
    most = Math.max(1,
        cs.getInt("yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments", 1));
    super.serviceInit(conf);
  }

  @Override
  protected synchronized void nodeUpdate(RMNode nm) {
    try {
      BASE_NODE_UPDATE.invoke(this, nm);
      FiCaSchedulerNode node = (FiCaSchedulerNode) getNode(nm.getNodeID());
      if (node != null && Resources.fitsIn(getMinimumResourceCapability(),
          node.getUnallocatedResource())) {
        placeFirstFit(node);
      }
      AVAILABLE.invoke(this);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  private void placeFirstFit(FiCaSchedulerNode node) throws Throwable {
    if (order.size() != applications.size()) {
      order.clear();
      order.addAll(applications.keySet());
      order.sort(null);
      next = 0;
    }
    int count = order.size();
    int placed = 0;
    int looked = 0;
    while (placed < most && looked < count) {
      SchedulerApplication<FifoAppAttempt> app = applications.get(order.get(next % count));
      FifoAppAttempt attempt = app == null ? null : app.getCurrentAppAttempt();
      int got = 0;
      if (attempt != null) {
        synchronized (attempt) {
          for (SchedulerRequestKey key : attempt.getSchedulerKeys()) {
            PendingAsk ask = attempt.getPendingAsk(key, ResourceRequest.ANY);
            if (ask.getCount() > 0
                && Resources.fitsIn(ask.getPerAllocationResource(), node.getUnallocatedResource())) {
              got = (int) ASSIGN.invoke(this, node, attempt, key, 1,
                  ask.getPerAllocationResource(), NodeType.OFF_SWITCH);
              break;
            }
          }
        }
      }
      if (got > 0) {
        placed += got;
      } else {
        next = (next + 1) % count;
        looked++;
      }
    }
  }
}
