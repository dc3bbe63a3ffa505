//! NodeManagers as the scheduler sees them: where they are, how big, how full.

use crate::resource::Resource;
use std::collections::HashSet;

/// Compact id of a node, handed to Java when the node is added.
pub type NodeKey = u32;

/// One NodeManager.
#[derive(Debug, Clone)]
pub struct Node {
    /// `host:port`, as YARN's `NodeId` prints.
    pub node_id: String,
    /// Host name, matched against node-local requests.
    pub host: String,
    /// Rack, matched against rack-local requests (`/default-rack` unless topology says).
    pub rack: String,
    /// Total resources the node offers.
    pub total: Resource,
    /// Resources held by containers on this node.
    pub allocated: Resource,
    /// Containers running here, as (application, container number).
    pub containers: HashSet<crate::application::ContainerRef>,
}

impl Node {
    /// A node with nothing running.
    pub fn new(node_id: String, host: String, rack: String, total: Resource) -> Self {
        Node { node_id, host, rack, total, allocated: Resource::ZERO, containers: HashSet::new() }
    }

    /// Resources not held by any container.
    pub fn available(&self) -> Resource {
        self.total.minus(self.allocated)
    }
}
