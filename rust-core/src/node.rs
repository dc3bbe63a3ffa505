//! NodeManagers as the scheduler sees them: where they are, how big, how full.

use crate::resource::Resource;
use rustc_hash::FxHashSet as HashSet;

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
    /// The one reservation this node may hold: an application waiting for enough room here.
    pub reservation: Option<Reservation>,
}

/// A node held for one application's container that does not fit yet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reservation {
    /// The application it is held for.
    pub app: crate::application::AppKey,
    /// The container number reserved (kept when the container is finally allocated).
    pub number: u64,
    /// The request it is for.
    pub key: crate::application::SchedulerKey,
    /// The container's size.
    pub resource: Resource,
}

impl Node {
    /// A node with nothing running.
    pub fn new(node_id: String, host: String, rack: String, total: Resource) -> Self {
        Node {
            node_id,
            host,
            rack,
            total,
            allocated: Resource::ZERO,
            containers: HashSet::default(),
            reservation: None,
        }
    }

    /// Resources not held by any container.
    pub fn available(&self) -> Resource {
        self.total.minus(self.allocated)
    }
}
