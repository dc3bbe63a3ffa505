//! The allocation decision: given the scheduler's state and a node with free room, which
//! application gets the next container there, of which request, at which locality.
//! A pure function of the state; `Scheduler` applies what it returns.

use crate::application::{App, AppKey, Locality, RequestGroup, SchedulerKey, ANY};
use crate::config::OrderingPolicy;
use crate::node::Node;
use crate::queue::QueueIndex;
use crate::resource::Resource;
use crate::scheduler::State;
use std::cmp::Ordering;

/// One container to place.
#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    /// Who gets it.
    pub app: AppKey,
    /// Which of its requests it satisfies.
    pub key: SchedulerKey,
    /// Its size.
    pub resource: Resource,
    /// How local it is.
    pub locality: Locality,
}

/// Finds the next container to place on `node`, or None when nothing fits or nobody asks.
/// `allow_off_switch` is false once the heartbeat's off-switch budget is spent.
pub fn next_assignment(state: &State, node: &Node, allow_off_switch: bool) -> Option<Assignment> {
    let min = state.config.cluster.minimum_allocation;
    if !state.calculator().fits(min, node.available()) {
        return None;
    }
    visit_queue(state, 0, node, allow_off_switch)
}

/// Descends from `queue`, children most under-served first.
fn visit_queue(state: &State, queue: QueueIndex, node: &Node, allow_off_switch: bool) -> Option<Assignment> {
    let q = state.queues.get(queue);
    if q.is_leaf() {
        return visit_leaf(state, queue, node, allow_off_switch);
    }
    let mut children: Vec<(f64, &str, QueueIndex)> = q
        .config
        .children
        .iter()
        .map(|&c| {
            let child = state.queues.get(c);
            (child.used_capacity(state.calculator(), state.cluster), child.path(), c)
        })
        .collect();
    children.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(Ordering::Equal).then_with(|| a.1.cmp(b.1)));
    children.into_iter().find_map(|(_, _, c)| visit_queue(state, c, node, allow_off_switch))
}

/// Applications of a leaf in the order its ordering policy serves them.
pub fn ordered_apps(state: &State, queue: QueueIndex) -> Vec<AppKey> {
    let q = state.queues.get(queue);
    let mut apps: Vec<(AppKey, &App)> =
        q.apps.iter().filter_map(|k| state.apps.get(k).map(|a| (*k, a))).collect();
    match q.config.ordering_policy {
        OrderingPolicy::Fifo => {
            apps.sort_by(|a, b| b.1.priority.cmp(&a.1.priority).then(a.1.app_id.cmp(&b.1.app_id)))
        }
        OrderingPolicy::Fair => apps.sort_by(|a, b| {
            a.1.used.memory_mb.cmp(&b.1.used.memory_mb).then(a.1.app_id.cmp(&b.1.app_id))
        }),
    }
    apps.into_iter().map(|(k, _)| k).collect()
}

fn visit_leaf(state: &State, queue: QueueIndex, node: &Node, allow_off_switch: bool) -> Option<Assignment> {
    for key in ordered_apps(state, queue) {
        let app = &state.apps[&key];
        if !app.is_pending() {
            continue;
        }
        for (&sk, group) in &app.requests {
            let Some(locality) = placement(group, node, allow_off_switch) else { continue };
            let size = group.capability;
            if !state.calculator().fits(size, node.available()) || !size.fits_in(node.available()) {
                continue;
            }
            if !within_queue_limits(state, queue, size) {
                // The queue (or an ancestor) is at its maximum: nothing more for it here.
                return None;
            }
            return Some(Assignment { app: key, key: sk, resource: size, locality });
        }
    }
    None
}

/// The best locality at which `group` may be placed on `node`, following Apache's rules:
/// node-local needs host, rack and `*` counts; rack-local needs rack and `*` counts and the
/// rack to allow relaxing; off-switch needs a `*` count that allows relaxing.
pub fn placement(group: &RequestGroup, node: &Node, allow_off_switch: bool) -> Option<Locality> {
    if group.count(ANY) == 0 {
        return None;
    }
    if group.count(&node.host) > 0 && group.count(&node.rack) > 0 {
        return Some(Locality::NodeLocal);
    }
    if group.count(&node.rack) > 0 && group.relaxes(&node.rack) {
        return Some(Locality::RackLocal);
    }
    if allow_off_switch && group.relaxes(ANY) && rack_allows_off_switch(group, node) {
        return Some(Locality::OffSwitch);
    }
    None
}

/// A request naming this node's rack with relaxLocality=false keeps containers on the
/// hosts it named.
fn rack_allows_off_switch(group: &RequestGroup, node: &Node) -> bool {
    group.relaxes(&node.rack)
}

/// True when `leaf` and every ancestor stay within their maximum capacity after taking `size`.
fn within_queue_limits(state: &State, leaf: QueueIndex, size: Resource) -> bool {
    state.queues.ancestors_inclusive(leaf).all(|i| {
        let q = state.queues.get(i);
        state.calculator().fits(q.used.plus(size), q.maximum(state.cluster))
    })
}
