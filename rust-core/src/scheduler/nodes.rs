//! Nodes joining, leaving and changing size, and what a new cluster size changes: every
//! queue's effective capacities, the limits leaves publish, activations, headroom.

use super::Scheduler;
use crate::ids::{ContainerRef, NodeKey, QueueIndex};
use crate::model::Node;
use crate::policy::limits::published_limits;
use crate::resource::Resource;

impl Scheduler {
    /// NODE_ADDED: returns the node's compact key.
    pub fn add_node(&mut self, node_id: &str, host: &str, rack: &str, total: Resource) -> NodeKey {
        let key = self.state.next_node;
        self.state.next_node += 1;
        self.state.nodes.insert(key, Node::new(node_id.into(), host.into(), rack.into(), total));
        self.state.most_nodes = self.state.most_nodes.max(self.state.nodes.len());
        self.resize_cluster();
        log::info!("added node {node_id} ({rack}) with {total}; cluster is now {}", self.state.cluster);
        key
    }

    /// NODE_REMOVED: the node's containers are gone; their resources return to their
    /// queues. Returns the containers that were still live on it.
    pub fn remove_node(&mut self, node: NodeKey) -> Vec<ContainerRef> {
        let Some(n) = self.state.nodes.get(&node) else { return Vec::new() };
        let lost: Vec<ContainerRef> = n.containers.iter().copied().collect();
        self.state.unbook_reservation(node);
        self.release(&lost);
        self.state.leaving.retain(|_, n| *n != node);
        if let Some(n) = self.state.nodes.remove(&node) {
            log::info!("removed node {} ({} containers lost)", n.node_id, lost.len());
        }
        self.resize_cluster();
        lost
    }

    /// NODE_RESOURCE_UPDATE: the node now offers `total`.
    pub fn update_node_resource(&mut self, node: NodeKey, total: Resource) {
        if let Some(n) = self.state.nodes.get_mut(&node) {
            n.total = total;
        }
        self.resize_cluster();
    }

    /// The cluster changed size (or the configuration changed, or the RM announced nodes
    /// again): capacities, published limits, activations and headroom follow, as in
    /// Apache's `updateClusterResource`.
    pub fn resize_cluster(&mut self) {
        let total = self.state.nodes.values().fold(Resource::ZERO, |acc, n| acc.plus(n.total));
        self.state.cluster = total;
        let calc = self.state.calculator();
        self.state.queues.update_effective_capacities(total, calc);
        self.sync_template_shares();
        let limits = published_limits(&self.state);
        self.state.queues.publish(limits);
        self.activate_all();
        self.refresh_leaves(|_| true);
    }

    /// A queue was created or deleted under `parent`: as Apache's parent then updates
    /// itself and the queues below it (and no other), shares are worked out again, the
    /// leaves below it publish new limits, activate what those allow and refresh their
    /// users' limits and headrooms.
    pub(super) fn resize_under(&mut self, parent: QueueIndex) {
        let calc = self.state.calculator();
        // The users' usage ratios are summed afresh only in the leaves below `parent`;
        // elsewhere they keep the float sums Apache's leaves keep.
        let below: std::collections::HashSet<QueueIndex> = self.state.queues.descendants(parent).into_iter().collect();
        let kept: Vec<(QueueIndex, f32)> = (0..self.state.queues.queues.len())
            .filter(|i| !below.contains(i))
            .map(|i| (i, self.state.queues.queues[i].users_usage_ratio))
            .collect();
        self.state.queues.update_effective_capacities(self.state.cluster, calc);
        self.sync_template_shares();
        for (i, ratio) in kept {
            self.state.queues.queues[i].users_usage_ratio = ratio;
        }
        let limits = crate::policy::limits::published_limits_under(&self.state, parent);
        let under: Vec<QueueIndex> = limits.iter().map(|(leaf, _)| *leaf).collect();
        self.state.queues.publish(limits);
        let mut leaves = under.clone();
        leaves.sort_unstable();
        for &leaf in &leaves {
            self.activate_pending(leaf);
        }
        self.refresh_leaves(|leaf| under.contains(&leaf));
    }

    /// Each chosen leaf invalidates its cached user limits and works out every active
    /// application's headroom, which looks them up again.
    fn refresh_leaves(&mut self, chosen: impl Fn(QueueIndex) -> bool) {
        let s = &mut self.state;
        for (index, q) in s.queues.queues.iter_mut().enumerate().filter(|(i, q)| q.is_leaf() && chosen(*i)) {
            q.users_changed();
            let mut any_active = false;
            for k in &q.apps {
                if let Some(a) = s.apps.get_mut(k).filter(|a| a.active) {
                    a.headroom_queue = Some(index);
                    a.headroom_user_forgotten = false;
                    any_active = true;
                }
            }
            if any_active {
                q.user_limit_looked_up();
            }
        }
    }
}
