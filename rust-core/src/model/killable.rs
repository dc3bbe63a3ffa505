//! Containers lazy preemption marked killable (`yarn.scheduler.capacity.lazy-preemption-enabled`):
//! their kill wait is over, but they run on until a queue below its guarantee needs their
//! room on their node, or an ancestor of their queue goes over its maximum (see
//! docs/apache-preemption.md §8). A mark lasts as long as the container: any end of it
//! (finished, released, killed, lost with its node) forgets it.

use crate::ids::{ContainerRef, NodeKey, QueueIndex};
use crate::java_order;
use crate::model::{Node, State};
use crate::resource::Resource;

impl State {
    /// Marks the live container `c` killable (Apache's `markContainerToKillable`). False if
    /// it is not live, or is marked already.
    pub fn mark_killable(&mut self, c: ContainerRef) -> bool {
        let Some(node) = self.containers.get(&c).map(|x| x.node) else { return false };
        let Some(n) = self.nodes.get_mut(&node) else { return false };
        if !self.killable.insert(c) {
            return false;
        }
        n.killable.push(c);
        n.most_killable = n.most_killable.max(n.killable.len());
        true
    }

    /// The container `c` on `node` ended: a mark it had is forgotten.
    pub(super) fn forget_killable(&mut self, c: ContainerRef, node: NodeKey) {
        if !self.killable.is_empty() && self.killable.remove(&c) {
            if let Some(n) = self.nodes.get_mut(&node) {
                n.killable.retain(|&k| k != c);
            }
        }
    }

    /// What the containers marked killable on `node` hold.
    pub fn killable_on(&self, node: &Node) -> Resource {
        node.killable.iter().filter_map(|c| self.containers.get(c)).fold(Resource::ZERO, |s, c| s.plus(c.resource))
    }

    /// The containers marked killable on `node`, in the order Apache's `HashMap` of them
    /// iterates (by `ContainerId` hash; the order an allocation kills them in).
    pub fn killable_in_map_order(&self, node: &Node) -> Vec<ContainerRef> {
        let hashes: Vec<i32> = node
            .killable
            .iter()
            .map(|&(app, id)| {
                let app_id = self.apps.get(&app).map_or((0, 0), |a| a.app_id);
                java_order::container_id_hash(app_id, id.attempt, id.number as i64)
            })
            .collect();
        java_order::hash_order(&hashes, node.most_killable).into_iter().map(|i| node.killable[i]).collect()
    }

    /// What the killable containers of the leaves under `queue` (itself included) hold.
    pub fn killable_under(&self, queue: QueueIndex) -> Resource {
        self.killable_of(queue).fold(Resource::ZERO, |s, (_, _, r)| s.plus(r))
    }

    /// [`State::killable_under`] on the nodes of `partition` (Apache's killable resource
    /// by partition, which the preemption policy reads).
    pub fn killable_under_in(&self, queue: QueueIndex, partition: crate::model::PartitionId) -> Resource {
        self.killable_of(queue)
            .filter(|(_, c, _)| {
                let node = self.containers.get(c).and_then(|x| self.nodes.get(&x.node));
                node.map_or(crate::model::DEFAULT_PARTITION, |n| n.partition) == partition
            })
            .fold(Resource::ZERO, |s, (_, _, r)| s.plus(r))
    }

    /// The killable containers of the leaves under `queue`, in `ContainerId` order
    /// (cluster timestamp, application, attempt, number): the order a parent over its
    /// maximum kills them in.
    pub fn killable_containers_under(&self, queue: QueueIndex) -> Vec<ContainerRef> {
        let mut out: Vec<((i64, i32), ContainerRef)> = self.killable_of(queue).map(|(id, c, _)| (id, c)).collect();
        out.sort_unstable_by_key(|&(app_id, (_, id))| (app_id, id.attempt, id.number));
        out.into_iter().map(|(_, c)| c).collect()
    }

    /// The killable containers of the leaves under `queue`, with their application's id
    /// and their size, in no particular order.
    fn killable_of(&self, queue: QueueIndex) -> impl Iterator<Item = ((i64, i32), ContainerRef, Resource)> + '_ {
        self.killable.iter().filter_map(move |c| {
            let a = self.apps.get(&c.0)?;
            let x = self.containers.get(c)?;
            self.queues.ancestors_inclusive(a.queue).any(|q| q == queue).then_some((a.app_id, *c, x.resource))
        })
    }
}
