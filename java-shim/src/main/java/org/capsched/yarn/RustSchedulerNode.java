package org.capsched.yarn;

import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;

/** A node as the RM tracks it, with the compact key the Rust core gave it. */
final class RustSchedulerNode extends FiCaSchedulerNode {
  private final int key;

  RustSchedulerNode(RMNode node, boolean usePortForNodeName, int key) {
    super(node, usePortForNodeName);
    this.key = key;
  }

  /** The core's key for this node. */
  int key() {
    return key;
  }
}
