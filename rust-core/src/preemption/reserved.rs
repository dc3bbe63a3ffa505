//! Room for reserved containers (Apache's `ReservedContainerCandidatesSelector`, turned on
//! by `select_based_on_reserved_containers`; docs/apache-preemption.md §4.2): where a
//! node's reservation could be met by taking back some of its containers from queues
//! that owe resources, those containers are chosen — the nodes that cost least for what
//! they free first. It runs before the FIFO selector, with its own ideal assignment in
//! which reserved resources still count as pending and there is no natural termination.

use super::arith::{add, sub, Calc};
use super::ideal::PartitionQueues;
use super::select::Selection;
use super::{Candidate, OnNode};
use crate::ids::{ContainerRef, NodeKey, QueueIndex};
use crate::model::{PartitionId, State};
use crate::resource::Resource;
use rustc_hash::FxHashMap as HashMap;

/// What each leaf may still give this selector in each partition (its
/// `actually_to_be_preempted` there).
type Quota = HashMap<(QueueIndex, PartitionId), Resource>;

/// Chooses containers on nodes holding reservations, into `sel`: on each node, from the
/// queues that owe in its partition.
pub(super) fn select(state: &State, parts: &[PartitionQueues], calc: Calc, leaves: &[QueueIndex], sel: &mut Selection) {
    let cluster = state.cluster;
    let mut quota: Quota = HashMap::default();
    for &leaf in leaves {
        for part in parts {
            let t = &part.tqs[leaf];
            if !t.preemption_disabled && calc.gt(cluster, t.actually_to_be_preempted, Resource::ZERO) {
                quota.insert((leaf, part.partition), t.actually_to_be_preempted);
            }
        }
    }
    // A dry run over the reserved nodes, in the scheduler's map order, keeps those whose
    // reservation could be met; the cheapest go first (a stable sort).
    let mut costs: Vec<(f32, NodeKey)> = super::nodes_in_map_order(state)
        .into_iter()
        .filter(|node| state.nodes[node].reservation.is_some())
        .filter_map(|node| {
            let mut allowed = sel.allowed;
            on_node(state, calc, node, &mut quota, &mut allowed, sel, true).map(|(cost, _)| (cost, node))
        })
        .collect();
    costs.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (_, node) in costs {
        let mut allowed = sel.allowed;
        if let Some((_, chosen)) = on_node(state, calc, node, &mut quota, &mut allowed, sel, false) {
            for container in chosen {
                sel.chosen_set.insert(container);
                sel.chosen.push(Candidate { container, reserved_on: None, balance: false });
            }
        }
        sel.allowed = allowed;
    }
}

/// Whether taking some of `node`'s containers (the newest application's first, never an
/// ApplicationMaster, each within its queue's quota and the round's budget) would make
/// room for its reservation; if so, the cost (what is taken over what is reserved) and
/// the containers not already chosen. A dry run (`read_only`) consumes nothing. A failed
/// real run gives the quotas back but not the budget, as Apache's does.
fn on_node(
    state: &State,
    calc: Calc,
    node: NodeKey,
    quota: &mut Quota,
    allowed: &mut Resource,
    sel: &Selection,
    read_only: bool,
) -> Option<(f32, Vec<ContainerRef>)> {
    let n = state.nodes.get(&node)?;
    let reserved = n.reservation.as_ref()?.resource;
    let partition = n.partition;
    // What is free there (below zero on a node holding more than it offers), and what
    // killable containers hold, may be enough already; it counts toward the room either way.
    let mut room = n.unallocated().plus(state.killable_on(n));
    if calc.fits_in(reserved, room) {
        return None;
    }
    // Every container the node lists (those let go of but still running too), newest
    // first by ContainerId: the application, then the attempt, then the number.
    let mut running: Vec<OnNode> = super::containers_on_node(state, node).into_iter().filter(|c| !c.am).collect();
    running.sort_by_key(|c| std::cmp::Reverse((c.app_id, c.container.1.attempt, c.container.1.number)));
    let mut chosen: Vec<(ContainerRef, Resource, QueueIndex)> = Vec::new();
    let mut taken = Resource::ZERO;
    let mut met = false;
    for OnNode { container: c, size, queue, .. } in running {
        if state.killable.contains(&c) {
            continue;
        }
        let Some(queue) = queue else { continue };
        let Some(q) = quota.get_mut(&(queue, partition)) else { continue };
        if !(calc.fits_in(size, *q) && calc.fits_in(size, *allowed)) {
            continue;
        }
        if !read_only {
            *q = sub(*q, size);
            *allowed = sub(*allowed, size);
        }
        if !sel.chosen_set.contains(&c) {
            chosen.push((c, size, queue));
            taken = add(taken, size);
        }
        room = add(room, size);
        if calc.fits_in(reserved, room) {
            met = true;
            break;
        }
    }
    if !met {
        if !read_only {
            for (_, size, queue) in chosen {
                if let Some(q) = quota.get_mut(&(queue, partition)) {
                    *q = add(*q, size);
                }
            }
        }
        return None;
    }
    Some((calc.ratio(taken, reserved), chosen.into_iter().map(|(c, _, _)| c).collect()))
}
