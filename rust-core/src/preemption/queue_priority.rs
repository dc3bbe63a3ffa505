//! Room for the reservations of under-served queues of higher priority (Apache's
//! `QueuePriorityContainerCandidateSelector`, turned on by
//! `…priority-utilization.underutilized-preemption.enabled`; docs/apache-preemption.md
//! §4.1). Where a parent orders its children by `priority-utilization`, a leaf whose
//! branch has the higher priority may take containers from leaves whose branch has a
//! lower one: a reservation older than the delay, of a leaf still below its guarantee, gets
//! the room it lacks on its node from those leaves' containers (oldest first, never an
//! ApplicationMaster), within the round's budget. It runs before every other selector.
//! With `allow-move-reservation`, a reservation that cannot get that room on its node
//! moves to the first node, in the scheduler's node order, where it could, and nothing is
//! taken for it yet. It moves once: Apache's scheduler finds the reservation to move by the
//! node its `RMContainer` was made on, which a move does not change, so a later attempt
//! (in the same round or another) finds that node no longer holds it.

use super::arith::{add, sub, Calc};
use super::ideal::{PartitionQueues, TempQueue};
use super::select::{node_partition, Selection};
use super::{Candidate, OnNode};
use crate::ids::{ContainerRef, NodeKey, QueueIndex};
use crate::java_order;
use crate::model::{PartitionId, Reservation, State};
use crate::resource::Resource;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::cmp::Ordering;

/// Which leaves may take from which: Apache's priority digraph, asked pair by pair. Leaf
/// `a` may take from leaf `b` when, below their lowest common ancestor, `a`'s branch has
/// the higher relative priority.
struct Priorities<'a> {
    tqs: &'a [TempQueue],
    /// Each queue's ancestors from the root down, itself last.
    paths: Vec<Vec<QueueIndex>>,
}

impl<'a> Priorities<'a> {
    /// The relation over the tree, or None when no two siblings differ in relative
    /// priority: then no leaf may take from another (Apache's digraph is empty).
    fn new(state: &State, tqs: &'a [TempQueue]) -> Option<Self> {
        let any_edge = tqs.iter().filter(|t| !t.children.is_empty()).any(|p| {
            let mut priorities = p.children.iter().map(|&c| tqs[c].relative_priority);
            priorities.next().is_some_and(|first| priorities.any(|x| x != first))
        });
        if !any_edge {
            return None;
        }
        let tree = &state.queues;
        let mut paths: Vec<Vec<QueueIndex>> = Vec::with_capacity(tree.queues.len());
        for (i, q) in tree.queues.iter().enumerate() {
            // Parents come before their children.
            let mut path = q.config.parent.map_or_else(Vec::new, |p| paths[p].clone());
            path.push(i);
            paths.push(path);
        }
        Some(Priorities { tqs, paths })
    }

    /// The relative priorities of the branches `a` and `b` take below their lowest common
    /// ancestor (None for the same queue).
    fn branches(&self, a: QueueIndex, b: QueueIndex) -> Option<(i64, i64)> {
        let (pa, pb) = (&self.paths[a], &self.paths[b]);
        let split = pa.iter().zip(pb).position(|(x, y)| x != y)?;
        Some((self.tqs[pa[split]].relative_priority, self.tqs[pb[split]].relative_priority))
    }

    /// Whether leaf `demanding` may take from leaf `other` (never from a queue that has
    /// left the tree, which Apache's digraph does not hold).
    fn may_take(&self, demanding: Option<QueueIndex>, other: Option<QueueIndex>) -> bool {
        let (Some(demanding), Some(other)) = (demanding, other) else { return false };
        self.branches(demanding, other).is_some_and(|(d, o)| d > o)
    }

    /// Whether leaf `q` may take from some leaf: some queue on its path has a sibling of
    /// lower relative priority.
    fn may_take_from_any(&self, q: QueueIndex) -> bool {
        self.paths[q].iter().skip(1).any(|&on_path| {
            let parent = &self.paths[on_path][self.paths[on_path].len() - 2];
            let mine = self.tqs[on_path].relative_priority;
            self.tqs[*parent].children.iter().any(|&s| self.tqs[s].relative_priority < mine)
        })
    }

    /// Apache's comparator of two containers by their leaves and creation times: one whose
    /// leaf may take from the other's first, else the older first. Not transitive.
    fn order(&self, a: (Option<QueueIndex>, i64), b: (Option<QueueIndex>, i64)) -> Ordering {
        if self.may_take(a.0, b.0) {
            Ordering::Less
        } else if self.may_take(b.0, a.0) {
            Ordering::Greater
        } else {
            a.1.cmp(&b.1)
        }
    }
}

/// The selector's settings.
#[derive(Debug, Clone, Copy)]
pub(super) struct Rules {
    /// `reserved-container-delay-ms`: how old a reservation must be.
    pub delay_ms: i64,
    /// `allow-move-reservation`.
    pub move_reservations: bool,
}

/// Chooses containers for reservations of leaves of higher priority, into `sel`, and
/// returns the reservations it moves, each with the node it goes to. `wall_now` is the
/// wall clock (ms) the reservations' ages are measured against.
pub(super) fn select(
    state: &State,
    parts: &[PartitionQueues],
    calc: Calc,
    rules: Rules,
    wall_now: i64,
    sel: &mut Selection,
) -> Vec<(Reservation, NodeKey)> {
    let mut moves = Vec::new();
    // Which leaf may take from which is read in the default partition (relative
    // priorities are the same in every partition).
    let Some(priorities) = Priorities::new(state, &super::ideal::default_of(parts).tqs) else { return moves };
    let queue_of = |r: &Reservation| state.apps.get(&r.app).map(|a| a.queue);
    // The reservations (in every partition) of leaves that may take from some leaf, in
    // the scheduler's node map order, then sorted by the comparator (as Java's sort
    // leaves them).
    let mut reservations: Vec<(QueueIndex, Reservation)> = super::nodes_in_map_order(state)
        .into_iter()
        .filter_map(|node| state.nodes[&node].reservation)
        .filter_map(|r| Some((queue_of(&r)?, r)))
        .filter(|&(q, _)| priorities.may_take_from_any(q))
        .collect();
    java_order::sort_like_java(&mut reservations, |a, b| {
        priorities.order((Some(a.0), a.1.created_ms), (Some(b.0), b.1.created_ms))
    });
    let mut taken_for: HashMap<(QueueIndex, PartitionId), Resource> = HashMap::default();
    let mut touched: HashSet<NodeKey> = HashSet::default();
    // Which nodes hold a reservation once this round's moves are made.
    let mut reserved_now: HashMap<NodeKey, bool> = HashMap::default();
    let all_nodes: Vec<NodeKey> = if rules.move_reservations { super::nodes_in_map_order(state) } else { Vec::new() };
    for (queue, r) in reservations {
        if wall_now - r.created_ms < rules.delay_ms || !state.nodes.contains_key(&r.node) {
            continue;
        }
        // A leaf holding its guarantee in the node's partition (counting what was taken
        // for it there already) takes nothing more.
        let partition = node_partition(state, r.node);
        let Some(part) = parts.iter().find(|p| p.partition == partition) else { continue };
        let t = &part.tqs[queue];
        let reserved = state.queues.get(queue).reserved_in(partition);
        let taken = taken_for.get(&(queue, partition)).copied().unwrap_or(Resource::ZERO);
        if calc.cmp(state.cluster, add(sub(t.used, reserved), taken), t.guaranteed).is_ge() {
            continue;
        }
        let room = if touched.contains(&r.node) {
            None
        } else {
            room_on_node(state, &priorities, calc, r.node, r.resource, queue, sel)
        };
        let Some(chosen) = room else {
            if rules.move_reservations && r.node == r.origin && may_move(state, &r) {
                // Apache's tryToMakeBetterReservationPlacement: to the first node of the
                // partition the reservation asked for that holds no reservation and where
                // preemption could make the room — and, for the scheduler to make the move,
                // in the partition of the node it is on.
                let asked = asked_partition(state, &r);
                let target = all_nodes.iter().copied().find(|&target| {
                    let reserved_there =
                        reserved_now.get(&target).copied().unwrap_or(state.nodes[&target].reservation.is_some());
                    Some(node_partition(state, target)) == asked
                        && node_partition(state, target) == partition
                        && !touched.contains(&target)
                        && !reserved_there
                        && room_on_node(state, &priorities, calc, target, r.resource, queue, sel).is_some()
                });
                if let Some(target) = target {
                    reserved_now.insert(r.node, false);
                    reserved_now.insert(target, true);
                    touched.insert(target);
                    moves.push((r, target));
                }
            }
            continue;
        };
        touched.insert(r.node);
        let taken = taken_for.entry((queue, partition)).or_insert(Resource::ZERO);
        *taken = add(*taken, r.resource);
        for (container, size) in chosen {
            sel.chosen_set.insert(container);
            sel.chosen.push(Candidate { container, reserved_on: None, balance: false });
            sel.allowed = sub(sel.allowed, size);
        }
    }
    moves
}

/// The partition a reservation's request asked for (its container's node label
/// expression); None for a label the cluster no longer has.
fn asked_partition(state: &State, r: &Reservation) -> Option<PartitionId> {
    let label = state.apps.get(&r.app).and_then(|a| a.requests.get(&r.key)).map_or("", |g| g.partition.as_str());
    state.partitions.find(label)
}

/// Apache's checks before moving a reservation: its request may be placed anywhere (its
/// `*` ask relaxes locality, or there is none).
fn may_move(state: &State, r: &Reservation) -> bool {
    state.apps.get(&r.app).is_some_and(|a| a.requests.get(&r.key).is_none_or(|g| g.relaxes(crate::ids::ANY)))
}

/// Whether taking containers of lower-priority leaves on `node` (with those chosen
/// already) makes room for a reservation of `size` of leaf `demanding`; if so, the
/// containers newly chosen, each within what is left of the round's budget.
fn room_on_node(
    state: &State,
    priorities: &Priorities<'_>,
    calc: Calc,
    node_key: NodeKey,
    size: Resource,
    demanding: QueueIndex,
    sel: &Selection,
) -> Option<Vec<(ContainerRef, Resource)>> {
    let node = &state.nodes[&node_key];
    let mut lacking = sub(size, sub(node.total, node.allocated));
    let running = running_in_order(state, priorities, node_key);
    for c in &running {
        if sel.chosen_set.contains(&c.container) {
            lacking = sub(lacking, c.size);
        }
    }
    if calc.fits_in(lacking, Resource::ZERO) {
        return Some(Vec::new());
    }
    let mut allowed = sel.allowed;
    let mut chosen = Vec::new();
    for OnNode { container: c, queue, size, am, .. } in running {
        if sel.chosen_set.contains(&c) || !priorities.may_take(Some(demanding), queue) || am {
            continue;
        }
        if calc.cmp(state.cluster, allowed, size).is_ge() {
            allowed = sub(allowed, size);
            lacking = sub(lacking, size);
            chosen.push((c, size));
        }
        if calc.fits_in(lacking, Resource::ZERO) {
            return Some(chosen);
        }
    }
    None
}

/// A node's containers (those let go of but still running too), as Apache's selector
/// visits them: the node's container map order (by hash, then booking), sorted by the
/// comparator.
fn running_in_order(state: &State, priorities: &Priorities<'_>, node: NodeKey) -> Vec<OnNode> {
    let mut held = super::containers_on_node(state, node);
    held.sort_by_key(|c| c.booked);
    let hashes: Vec<i32> = held
        .iter()
        .map(|c| java_order::container_id_hash(c.app_id, c.container.1.attempt, c.container.1.number as i64))
        .collect();
    let most = state.nodes.get(&node).map_or(0, |n| n.most_containers);
    let mut running: Vec<OnNode> = java_order::hash_order(&hashes, most).into_iter().map(|i| held[i]).collect();
    java_order::sort_like_java(&mut running, |a, b| priorities.order((a.queue, a.created_ms), (b.queue, b.created_ms)));
    running
}
