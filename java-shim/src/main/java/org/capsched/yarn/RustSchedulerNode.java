package org.capsched.yarn;

import java.util.HashMap;
import java.util.Map;
import java.util.function.BiConsumer;

import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node as the RM tracks it, with the compact key the Rust core gave it. A container its
 * application lets go of while it runs here keeps its share of the node until the
 * NodeManager reports it gone (the RM's SchedulerNode waits for that); the node tells the
 * core when that happens.
 *
 * <p>It is a {@link SchedulerNode} rather than Apache's capacity-scheduler node
 * ({@code FiCaSchedulerNode}), which builds its "Assigned container" line for every
 * container placed whether or not INFO is on. This node writes the same line, under the
 * same logger name (so an operator's log4j settings for it still apply), only when that
 * logger is on. Apache's node also tracks the containers its preemption policy marked
 * killable; the core keeps that here, so the node has no such records.
 */
final class RustSchedulerNode extends SchedulerNode {
  /** Apache's capacity-scheduler node's logger, whose lines this node writes. */
  private static final Logger NODE_LOG = LoggerFactory.getLogger(
      "org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode");

  private final int key;
  /** Told (application key, container) when the NodeManager frees a container held here. */
  private final BiConsumer<Integer, ContainerId> freed;
  /** Containers held here after their application let go of them, by the core's app key. */
  private final Map<ContainerId, Integer> held = new HashMap<>();

  RustSchedulerNode(RMNode node, boolean usePortForNodeName, int key,
      BiConsumer<Integer, ContainerId> freed) {
    // With the labels the node registered with, as Apache's scheduler builds its nodes.
    super(node, usePortForNodeName, node.getNodeLabels());
    this.key = key;
    this.freed = freed;
  }

  /** The core's key for this node. */
  int key() {
    return key;
  }

  @Override
  protected synchronized void allocateContainer(RMContainer rmContainer,
      boolean launchedOnNode) {
    super.allocateContainer(rmContainer, launchedOnNode);
    if (NODE_LOG.isInfoEnabled()) {
      Container container = rmContainer.getContainer();
      NODE_LOG.info("Assigned container " + container.getId() + " of capacity "
          + container.getResource() + " on host " + getRMNode().getNodeAddress()
          + ", which has " + getNumContainers() + " containers, " + getAllocatedResource()
          + " used and " + getUnallocatedResource() + " available after allocation");
    }
  }

  /**
   * Holds {@code container} here for {@code attempt}: the core reserved this node for it
   * (or reserved it again). A node holds one reservation, of one attempt; anything else is
   * a bookkeeping error, refused as Apache's node refuses it.
   */
  @Override
  public synchronized void reserveResource(SchedulerApplicationAttempt attempt,
      SchedulerRequestKey schedulerKey, RMContainer container) {
    RMContainer current = getReservedContainer();
    if (current != null) {
      if (!container.getContainer().getNodeId().equals(getNodeID())) {
        throw new IllegalStateException("Trying to reserve container " + container
            + " on node " + container.getReservedNode() + " when currently reserved resource "
            + current + " on node " + current.getReservedNode());
      }
      ApplicationAttemptId holder = current.getContainer().getId().getApplicationAttemptId();
      if (!holder.equals(container.getContainer().getId().getApplicationAttemptId())) {
        throw new IllegalStateException("Trying to reserve container " + container
            + " for application " + attempt.getApplicationAttemptId()
            + " when currently reserved container " + current + " on node " + this);
      }
    }
    if (NODE_LOG.isDebugEnabled()) {
      NODE_LOG.debug((current == null ? "Reserved" : "Updated reserved") + " container "
          + container.getContainer().getId() + " on node " + this
          + " for application attempt " + attempt.getApplicationAttemptId());
    }
    setReservedContainer(container);
  }

  /** Lets go of the reservation {@code attempt} holds here; refused if another holds it. */
  @Override
  public synchronized void unreserveResource(SchedulerApplicationAttempt attempt) {
    RMContainer current = getReservedContainer();
    if (current != null && current.getContainer() != null
        && current.getContainer().getId() != null) {
      ApplicationAttemptId holder = current.getContainer().getId().getApplicationAttemptId();
      if (holder != null && !holder.equals(attempt.getApplicationAttemptId())) {
        throw new IllegalStateException("Trying to unreserve for application "
            + attempt.getApplicationAttemptId() + " when currently reserved for application "
            + holder.getApplicationId() + " on node " + this);
      }
    }
    setReservedContainer(null);
  }

  /**
   * Lets the RM's records go of a finished container; true if the node still holds it
   * (it runs here and the NodeManager has not reported it gone), in which case the core is
   * told when it does.
   */
  synchronized boolean release(ContainerId id, int appKey) {
    releaseContainer(id, false);
    if (getContainer(id) == null) {
      return false;
    }
    held.put(id, appKey);
    return true;
  }

  @Override
  public synchronized void releaseContainer(ContainerId id, boolean releasedByNode) {
    Integer appKey = releasedByNode ? held.remove(id) : null;
    super.releaseContainer(id, releasedByNode);
    if (appKey != null) {
      freed.accept(appKey, id);
    }
  }
}
