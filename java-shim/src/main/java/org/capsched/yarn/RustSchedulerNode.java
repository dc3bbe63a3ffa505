package org.capsched.yarn;

import java.util.HashMap;
import java.util.Map;
import java.util.function.BiConsumer;

import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;

/**
 * A node as the RM tracks it, with the compact key the Rust core gave it. A container its
 * application lets go of while it runs here keeps its share of the node until the
 * NodeManager reports it gone (the RM's SchedulerNode waits for that); the node tells the
 * core when that happens.
 */
final class RustSchedulerNode extends FiCaSchedulerNode {
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
