//! NodeManagers as the scheduler sees them: where they are, how big, how full.

use crate::ids::ContainerRef;
use crate::model::{Leaving, PartitionId, Reservation, DEFAULT_PARTITION};
use crate::resource::Resource;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

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
    /// The partition its label puts it in (see `Partitions`).
    pub partition: PartitionId,
    /// Resources held by containers on this node.
    pub allocated: Resource,
    /// Containers running here, as (application, container number).
    pub containers: HashSet<ContainerRef>,
    /// The one reservation this node may hold: an application waiting for enough room here.
    pub reservation: Option<Reservation>,
    /// Containers their application has let go of that still run here until the
    /// NodeManager reports them gone; their share stays in `allocated`.
    pub leaving: HashMap<ContainerRef, Leaving>,
    /// The most containers it has held at once: the size of Apache's map of a node's
    /// containers, whose iteration order ties in the preemption policy follow.
    pub most_containers: usize,
    /// Containers lazy preemption marked killable here, in the order they were marked: room
    /// a queue below its guarantee may take by killing them (Apache's
    /// `FiCaSchedulerNode.killableContainers`).
    pub killable: Vec<ContainerRef>,
    /// The most containers marked killable here at once (the size of Apache's map of them,
    /// whose iteration order decides which are killed first).
    pub most_killable: usize,
}

impl Node {
    /// A node with nothing running.
    pub fn new(node_id: String, host: String, rack: String, total: Resource) -> Self {
        Node {
            node_id,
            host,
            rack,
            total,
            partition: DEFAULT_PARTITION,
            allocated: Resource::ZERO,
            containers: HashSet::default(),
            reservation: None,
            leaving: HashMap::default(),
            most_containers: 0,
            killable: Vec::new(),
            most_killable: 0,
        }
    }

    /// Resources not held by any container.
    pub fn available(&self) -> Resource {
        self.total.minus(self.allocated)
    }

    /// Resources not held by any container, below zero where the node holds more than it
    /// offers (a container killed to make room keeps its share until its NodeManager
    /// reports it gone; Apache's `getUnallocatedResource`).
    pub fn unallocated(&self) -> Resource {
        self.total.difference(self.allocated)
    }

    /// A container was booked here: the most it has held at once may have grown.
    pub(crate) fn note_held(&mut self) {
        self.most_containers = self.most_containers.max(self.containers.len() + self.leaving.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn available_is_what_containers_leave_and_never_below_zero() {
        let mut n = Node::new("h:1".into(), "h".into(), "/r".into(), Resource::new(4096, 4));
        n.allocated = Resource::new(1024, 3);
        assert_eq!(n.available(), Resource::new(3072, 1));
        // A node whose resource was updated below what runs on it has nothing to offer.
        n.total = Resource::new(512, 1);
        assert_eq!(n.available(), Resource::ZERO);
    }
}
