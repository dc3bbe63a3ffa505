package org.capsched.yarn;

import java.util.Map;
import java.util.function.BiConsumer;

import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.server.resourcemanager.nodelabels.RMNodeLabelsManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ClusterNodeTracker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the RM's node records say what the core knows about nodes: a node joined under the
 * key the core gave it, or left. Callers hold the scheduler's write lock. It logs under the
 * scheduler's name.
 */
final class NodeApplier {
  private static final Logger LOG = LoggerFactory.getLogger(RustCapacityScheduler.class);

  private final ClusterNodeTracker<RustSchedulerNode> nodeTracker;
  private final Map<Integer, RustSchedulerNode> nodesByKey;
  private final boolean usePortForNodeName;
  /** The RM's node-label manager; null in an RM context without one. */
  private final RMNodeLabelsManager labels;
  /** Told when a NodeManager frees a container its node held (see RustSchedulerNode). */
  private final BiConsumer<Integer, ContainerId> freed;

  /**
   * An applier that keeps the RM's {@code nodeTracker} and {@code nodesByKey} (the same
   * nodes, by the core's key); with {@code usePortForNodeName}, a node's name (which asks
   * name) is host:port, as the RM's own setting says. Nodes are activated in, and
   * deactivated from, the RM's node-label manager {@code labels} (null for none); its nodes
   * tell {@code freed} when a NodeManager frees a container they held.
   */
  NodeApplier(ClusterNodeTracker<RustSchedulerNode> nodeTracker,
      Map<Integer, RustSchedulerNode> nodesByKey, boolean usePortForNodeName,
      RMNodeLabelsManager labels, BiConsumer<Integer, ContainerId> freed) {
    this.nodeTracker = nodeTracker;
    this.labels = labels;
    this.freed = freed;
    this.nodesByKey = nodesByKey;
    this.usePortForNodeName = usePortForNodeName;
  }

  /** The name node-local asks use for {@code rmNode}. */
  String nameOf(RMNode rmNode) {
    return usePortForNodeName ? rmNode.getNodeID().toString() : rmNode.getHostName();
  }

  /** The node has joined, and the core knows it as {@code key}. */
  void added(RMNode rmNode, int key) {
    RustSchedulerNode node = new RustSchedulerNode(rmNode, usePortForNodeName, key, freed);
    nodeTracker.addNode(node);
    nodesByKey.put(key, node);
    // The RM's partition sizes (the default partition's resource, shown on its web pages
    // and used in application reports) count the node, as Apache's scheduler arranges.
    if (labels != null) {
      labels.activateNode(rmNode.getNodeID(), rmNode.getTotalCapability());
    }
    LOG.info("Added node {} ({}) with {}; cluster resource {}", rmNode.getNodeAddress(),
        rmNode.getRackName(), rmNode.getTotalCapability(), nodeTracker.getClusterCapacity());
  }

  /**
   * The node has left; the core released {@code leftover} ({@link Wire.ContainerRef}
   * records), containers the RM's records no longer held.
   */
  void removed(RustSchedulerNode node, long[] leftover) {
    nodeTracker.removeNode(node.getNodeID());
    nodesByKey.remove(node.key());
    if (labels != null) {
      labels.deactivateNode(node.getNodeID());
    }
    if (leftover.length > 0) {
      LOG.warn("Node {} still held {} containers the RM did not know; they were released",
          node.getNodeID(), leftover.length / Wire.ContainerRef.STRIDE);
    }
  }
}
