//! Nodes joining, leaving and changing size, and what a new cluster size changes: every
//! queue's effective capacities, the limits leaves publish, activations, headroom.

use super::Scheduler;
use crate::config::queue::LabelAccess;
use crate::ids::{AppKey, ContainerRef, NodeKey, QueueIndex};
use crate::model::{LimitCache, Node, PartitionId, DEFAULT_PARTITION};
use crate::policy::limits::published_limits;
use crate::resource::Resource;

impl Scheduler {
    /// NODE_ADDED: returns the node's compact key.
    pub fn add_node(&mut self, node_id: &str, host: &str, rack: &str, total: Resource) -> NodeKey {
        self.add_labelled_node(node_id, host, rack, total, ("", true))
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

    /// NODE_LABELS_UPDATE: the cluster's node labels are now `labels` (name, exclusive),
    /// as the RM's label manager holds them, and each node of `changes` is in the
    /// partition its label names (`""`: the default partition). Nodes whose label is gone
    /// return to the default partition; a label the cluster does not have leaves its node
    /// where it is (the label manager hands out only labels it has). Then capacities and
    /// limits are worked out again, as Apache's `updateClusterResource`.
    pub fn relabel_nodes(&mut self, labels: &[(String, bool)], changes: &[(NodeKey, String)]) {
        self.state.partitions.replace_labels(labels);
        let mut moves: Vec<(NodeKey, usize, usize)> = Vec::new();
        for (node, label) in changes {
            let Some(partition) = self.state.partitions.find(label) else {
                log::warn!("node label '{label}' is not one of the cluster's; the node keeps its partition");
                continue;
            };
            if let Some(n) = self.state.nodes.get(node).filter(|n| n.partition != partition) {
                log::info!("node {} is now in partition '{label}'", n.node_id);
                moves.push((*node, n.partition, partition));
            }
        }
        let gone: Vec<(NodeKey, usize)> = self
            .state
            .nodes
            .iter()
            .filter(|(_, n)| !self.state.partitions.get(n.partition).live)
            .map(|(&k, n)| (k, n.partition))
            .collect();
        for (node, from) in gone {
            if !moves.iter().any(|(k, _, _)| *k == node) {
                moves.push((node, from, DEFAULT_PARTITION));
            }
        }
        for (node, from, to) in moves {
            self.move_node_partition(node, from, to);
        }
        self.resize_cluster();
    }

    /// The node moves from partition `from` to `to`, and what its containers and its
    /// reservation hold moves with it, in their queues and users (Apache's
    /// `nodePartitionUpdated`).
    fn move_node_partition(&mut self, node: NodeKey, from: usize, to: usize) {
        let s = &mut self.state;
        let Some(n) = s.nodes.get_mut(&node) else { return };
        n.partition = to;
        let mut held: Vec<(AppKey, Resource, bool, bool)> = n
            .containers
            .iter()
            .filter_map(|c| {
                let x = s.containers.get(c)?;
                let am = s.apps.get(&c.0).is_some_and(|a| a.am_container == Some(c.1));
                Some((c.0, x.resource, false, am))
            })
            .collect();
        if let Some(r) = n.reservation {
            held.push((r.app, r.resource, true, false));
        }
        for (app, resource, reserved, am) in held {
            let Some(a) = s.apps.get_mut(&app) else { continue };
            let (queue, user) = (a.queue, a.user.clone());
            s.queues.refund_user_in(from, queue, &user, resource);
            s.queues.charge_user_in(to, queue, &user, resource);
            if reserved {
                s.queues.track_reserved_in(from, queue, resource, true);
                s.queues.track_reserved_in(to, queue, resource, false);
            }
            // An ApplicationMaster's container takes the application's AM to the new
            // partition, and what it counts against the AM limits with it: out of the
            // partition the node leaves, as Apache's `nodePartitionUpdated` takes it —
            // below nothing there for an AM a non-exclusive node was lent, which was
            // counted in the default partition (Apache's books go negative; ours follow).
            if am {
                a.am_partition = to;
                if a.active {
                    let q = &mut s.queues.queues[queue];
                    q.move_am(&user, from, to, resource);
                }
            }
        }
    }

    /// NODE_ADDED for a node that registers with a label already (`""`: none); a label the
    /// scheduler has not heard of yet joins the cluster's, `exclusive` or not.
    pub fn add_labelled_node(
        &mut self,
        node_id: &str,
        host: &str,
        rack: &str,
        total: Resource,
        (label, exclusive): (&str, bool),
    ) -> NodeKey {
        let partition = self.state.partitions.ensure(label, exclusive);
        let key = self.state.next_node;
        let mut node = Node::new(node_id.into(), host.into(), rack.into(), total);
        node.partition = partition;
        self.state.next_node += 1;
        self.state.nodes.insert(key, node);
        self.state.most_nodes = self.state.most_nodes.max(self.state.nodes.len());
        self.resize_cluster();
        let place = if label.is_empty() { String::new() } else { format!(" in partition '{label}'") };
        log::info!("added node {node_id} ({rack}){place} with {total}; cluster is now {}", self.state.cluster);
        key
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
        self.state.partitions.recount(self.state.nodes.values().map(|n| (n.partition, n.total)));
        self.rework_for_cluster();
    }

    /// [`Scheduler::resize_cluster`] for a cluster the scheduler has counted already (every
    /// change to the nodes counts it again): what a refresh runs under the lock, without
    /// a walk over every node.
    pub(super) fn rework_for_cluster(&mut self) {
        debug_assert_eq!(
            self.state.cluster,
            self.state.nodes.values().fold(Resource::ZERO, |acc, n| acc.plus(n.total)),
            "the cluster is counted at every change to its nodes"
        );
        let calc = self.state.calculator();
        self.state.queues.update_effective_capacities_in(self.state.default_partition(), self.state.cluster, calc);
        self.update_partition_capacities();
        self.sync_template_shares();
        let limits = published_limits(&self.state);
        self.state.queues.publish(limits);
        self.update_shown_partitions(|_| true);
        self.activate_all();
        self.refresh_leaves(|_| true);
    }

    /// Every queue's capacities in the labelled partitions, for what their nodes offer now,
    /// and — as Apache works capacities out for every label a queue is configured for — in
    /// those the queues name that the cluster does not have (offering nothing).
    fn update_partition_capacities(&mut self) {
        let state = &mut self.state;
        let configured: Vec<String> = state.queues.queues.first().map_or_else(Vec::new, |root| {
            root.config.node_labels.keys().filter(|l| state.partitions.find(l).is_none()).cloned().collect()
        });
        let absent: Vec<PartitionId> = configured.iter().map(|l| state.partitions.id_of(l)).collect();
        let mut labels: Vec<(PartitionId, &str, Resource)> = state
            .partitions
            .labelled()
            .into_iter()
            .map(|(id, label)| (id, label, state.partitions.get(id).resource))
            .collect();
        labels.extend(absent.iter().map(|&id| (id, state.partitions.get(id).name.as_str(), Resource::ZERO)));
        state.queues.update_partition_capacities(&labels, state.cluster);
    }

    /// The partitions the queues' views list after a cluster update of the queues
    /// `chosen` (see `QueueTree::update_shown_partitions`). Nothing to do on a cluster
    /// that has never had a label.
    fn update_shown_partitions(&mut self, chosen: impl Fn(QueueIndex) -> bool) {
        let state = &mut self.state;
        let labelled = |q: &crate::model::Queue| {
            !q.config.node_labels.is_empty()
                || matches!(&q.config.accessible_node_labels, LabelAccess::Labels(l) if l.iter().any(|x| !x.is_empty()))
        };
        if state.partitions.labelled().is_empty() && !state.queues.queues.iter().any(labelled) {
            return;
        }
        let mut ids = |labels: &mut dyn Iterator<Item = &String>| -> Vec<PartitionId> {
            labels.filter(|l| !l.is_empty()).map(|l| state.partitions.id_of(l)).collect()
        };
        let mut configured = Vec::with_capacity(state.queues.queues.len());
        let mut named = Vec::with_capacity(state.queues.queues.len());
        for q in &state.queues.queues {
            configured.push(ids(&mut q.config.node_labels.keys()));
            named.push(match &q.config.accessible_node_labels {
                LabelAccess::Labels(labels) => ids(&mut labels.iter()),
                LabelAccess::Any => Vec::new(),
            });
        }
        state.queues.update_shown_partitions(&configured, &named, chosen);
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
        self.state.queues.update_effective_capacities_in(self.state.default_partition(), self.state.cluster, calc);
        self.update_partition_capacities();
        self.sync_template_shares();
        for (i, ratio) in kept {
            self.state.queues.queues[i].users_usage_ratio = ratio;
        }
        let limits = crate::policy::limits::published_limits_under(&self.state, parent);
        let under: Vec<QueueIndex> = limits.iter().map(|(leaf, _)| *leaf).collect();
        self.state.queues.publish(limits);
        let below_inclusive: std::collections::HashSet<QueueIndex> =
            below.iter().copied().chain(std::iter::once(parent)).collect();
        self.update_shown_partitions(|q| below_inclusive.contains(&q));
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
            // A leaf whose activated applications all have their headroom here already
            // (the usual refresh) need not visit them.
            if !q.headroom_settled {
                for k in &q.apps {
                    if let Some(a) = s.apps.get_mut(k).filter(|a| a.active) {
                        a.headroom_queue = Some(index);
                        a.headroom_user_forgotten = false;
                    }
                }
                q.headroom_settled = true;
            }
            let active = || q.apps.iter().filter_map(|k| s.apps.get(k)).filter(|a| a.active);
            debug_assert!(
                active().all(|a| a.headroom_queue == Some(index) && !a.headroom_user_forgotten),
                "{}: an activated application's headroom is elsewhere",
                q.path()
            );
            // The users count the leaf's activated applications.
            let any_active = q.users.values().any(|u| u.active_apps > 0);
            debug_assert_eq!(
                any_active,
                active().next().is_some(),
                "{}: the users miscount its activated applications",
                q.path()
            );
            if any_active {
                q.user_limit_looked_up(LimitCache::of(DEFAULT_PARTITION));
            }
        }
    }
}
