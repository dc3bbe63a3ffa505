//! Which containers give back what each leaf owes (Apache's `FifoCandidatesSelector`):
//! leaf by leaf, the applications its ordering policy would serve last go first — under
//! FIFO the lowest priority and then the youngest — and within an application its
//! least important, newest containers; reserved containers are dropped on the way, and
//! ApplicationMaster containers are taken last, and only while the AMs passed over
//! exceed the leaf's share for AMs.

use super::arith::{sub, Calc};
use super::ideal::PartitionQueues;
use super::{Action, ActionKind, Candidate};
use crate::ids::{AppKey, ContainerId, ContainerRef, NodeKey, QueueIndex, SchedulerKey};
use crate::model::{PartitionId, State, DEFAULT_PARTITION};
use crate::policy::ordering;
use crate::policy::placement::reservations_in_map_order;
use crate::resource::Resource;
use rustc_hash::FxHashSet as HashSet;

/// What the selectors of one round share: the containers chosen so far and the budget
/// left (`total_preemption_per_round` of the cluster).
pub(super) struct Selection {
    pub chosen: Vec<Candidate>,
    pub chosen_set: HashSet<ContainerRef>,
    pub allowed: Resource,
    /// Lazy preemption is on: the FIFO and intra-queue selectors pass over containers
    /// marked killable (their room is the scheduler's to take already).
    pub skip_killable: bool,
}

impl Selection {
    /// Whether a selector that passes over killable containers passes over `c`.
    pub fn passes_over_killable(&self, state: &State, c: &ContainerRef) -> bool {
        self.skip_killable && state.killable.contains(c)
    }
}

/// One leaf's debt, as the shared test (`tryPreemptContainerAndDeductResToObtain`) works
/// it down; None once paid.
pub(super) struct Need(pub Option<Resource>);

impl Need {
    pub fn is_paid(&self) -> bool {
        self.0.is_none()
    }
}

/// Takes `c` (of size `size`) toward `need` if it still helps and fits the budget.
pub(super) fn try_take(
    calc: Calc,
    cluster: Resource,
    conservative: bool,
    sel: &mut Selection,
    need: &mut Need,
    c: Candidate,
    size: Resource,
) -> bool {
    if sel.chosen_set.contains(&c.container) {
        return false;
    }
    let Some(t) = need.0.as_mut() else { return false };
    // Apache marks types already paid off as -1 before it tests.
    if t.memory_mb == 0 {
        t.memory_mb = -1;
    }
    if t.vcores == 0 {
        t.vcores = -1;
    }
    if !(calc.any_above_zero(*t) && calc.fits_in(size, sel.allowed)) {
        return false;
    }
    let helps = if conservative {
        !calc.any_zero_or_negative(*t)
    } else {
        calc.lt(cluster, sub(*t, size).component_max(Resource::ZERO), t.component_max(Resource::ZERO))
    };
    if !helps {
        return false;
    }
    *t = sub(*t, size);
    sel.allowed = sub(sel.allowed, size);
    if calc.le(cluster, *t, Resource::ZERO) {
        need.0 = None;
    }
    sel.chosen_set.insert(c.container);
    sel.chosen.push(c);
    true
}

/// What one leaf owes in each partition, in the order Apache's `HashMap` of them iterates
/// (the order of the round's partitions); a partition leaves once paid.
pub(super) struct Needs(Vec<(PartitionId, Resource)>);

impl Needs {
    /// What `leaf` owes in each partition (Apache's `getResToObtainByPartitionForLeafQueue`).
    pub fn of(parts: &[PartitionQueues], calc: Calc, cluster: Resource, leaf: QueueIndex) -> Needs {
        Needs(
            parts
                .iter()
                .filter(|p| !p.tqs[leaf].preemption_disabled)
                .map(|p| (p.partition, p.tqs[leaf].actually_to_be_preempted))
                .filter(|&(_, r)| calc.gt(cluster, r, Resource::ZERO))
                .collect(),
        )
    }

    pub fn is_paid(&self) -> bool {
        self.0.is_empty()
    }

    /// The partitions still owed, in order.
    pub fn partitions(&self) -> Vec<PartitionId> {
        self.0.iter().map(|&(p, _)| p).collect()
    }
}

/// [`try_take`] toward what the leaf owes in `partition`, the partition of the
/// container's node (nothing if it owes nothing there).
#[allow(clippy::too_many_arguments)]
pub(super) fn try_take_in(
    calc: Calc,
    cluster: Resource,
    conservative: bool,
    sel: &mut Selection,
    needs: &mut Needs,
    partition: PartitionId,
    c: Candidate,
    size: Resource,
) -> bool {
    let Some(i) = needs.0.iter().position(|&(p, _)| p == partition) else { return false };
    let mut need = Need(Some(needs.0[i].1));
    let taken = try_take(calc, cluster, conservative, sel, &mut need, c, size);
    match need.0 {
        Some(left) => needs.0[i].1 = left,
        None => {
            needs.0.remove(i);
        }
    }
    taken
}

/// The FIFO selector over `leaves` in order: containers toward what each leaf owes in
/// each partition, those a non-exclusive partition lent it first. Reserved containers it
/// passes are killed at once (`KILL_RESERVED_CONTAINER`, unless `observe_only`), into
/// `kills`.
#[allow(clippy::too_many_arguments)]
pub(super) fn fifo(
    state: &State,
    parts: &[PartitionQueues],
    calc: Calc,
    leaves: &[QueueIndex],
    conservative: bool,
    observe_only: bool,
    balance: bool,
    sel: &mut Selection,
    kills: &mut Vec<Action>,
    reordered: &mut Vec<QueueIndex>,
) {
    let cluster = state.cluster;
    let defaults = &super::ideal::default_of(parts).tqs;
    for &leaf in leaves {
        if defaults[leaf].preemption_disabled {
            continue;
        }
        let mut needs = Needs::of(parts, calc, cluster, leaf);
        // Containers lent by a non-exclusive partition go first, the newest first, partition
        // by partition. (Apache walks the very map a paid partition leaves, so its round
        // throws when a partition is paid before the last: see divergences.txt,
        // preemption-fails-on-paid-partition. Ours goes on.)
        for partition in needs.partitions() {
            for (c, size) in lent_newest_first(state, leaf, partition) {
                if sel.chosen_set.contains(&c) {
                    continue;
                }
                let candidate = Candidate { container: c, reserved_on: None, balance };
                let on = container_partition(state, c);
                try_take_in(calc, cluster, conservative, sel, &mut needs, on, candidate, size);
            }
        }
        // Apache orders every such leaf's applications, owing or not.
        reordered.push(leaf);
        if needs.is_paid() {
            continue;
        }
        let mut skipped_am: Vec<(Candidate, Resource, PartitionId)> = Vec::new();
        let mut am_size = Resource::ZERO;
        // The order the leaf would serve its applications in, backwards.
        for (key, app) in ordering::ordered_apps(state, leaf).into_iter().rev() {
            if needs.is_paid() {
                break;
            }
            // (Apache's map of them by request comes first: each request's in its map by node.)
            let mut keys: Vec<SchedulerKey> = app.reservations.values().map(|r| r.key).collect();
            keys.sort_unstable();
            keys.dedup();
            let reserved = keys.into_iter().flat_map(|k| reservations_in_map_order(state, app, k));
            for r in reserved {
                let c = Candidate { container: (key, r.container), reserved_on: Some(r.node), balance };
                if sel.chosen_set.contains(&c.container) {
                    continue;
                }
                if needs.is_paid() {
                    break;
                }
                let on = node_partition(state, r.node);
                try_take_in(calc, cluster, conservative, sel, &mut needs, on, c, r.resource);
                if !observe_only {
                    kills.push(Action {
                        kind: ActionKind::KillReserved,
                        app: key,
                        container: r.container,
                        node: Some(r.node),
                        to: None,
                    });
                }
            }
            for (id, size, on) in containers_newest_first(state, key) {
                if needs.is_paid() {
                    break;
                }
                let c = Candidate { container: (key, id), reserved_on: None, balance };
                if sel.chosen_set.contains(&c.container) || sel.passes_over_killable(state, &c.container) {
                    continue;
                }
                if app.am_container == Some(id) {
                    skipped_am.push((c, size, on));
                    am_size = am_size.plus(size);
                    continue;
                }
                try_take_in(calc, cluster, conservative, sel, &mut needs, on, c, size);
            }
        }
        let q = state.queues.get(leaf);
        let am_share = super::arith::mul(q.effective_min, q.config.maximum_am_resource_percent as f32 as f64);
        for (c, size, on) in skipped_am {
            if needs.is_paid() || calc.le(cluster, am_size, am_share) {
                break;
            }
            if try_take_in(calc, cluster, conservative, sel, &mut needs, on, c, size) {
                am_size = sub(am_size, size);
            }
        }
    }
}

/// The live containers a non-exclusive `partition` lent to applications of `leaf`,
/// newest first by `ContainerId` (application, attempt, number): Apache's leaf keeps them
/// in a `TreeSet` per partition, and the selector walks it backwards.
fn lent_newest_first(state: &State, leaf: QueueIndex, partition: PartitionId) -> Vec<(ContainerRef, Resource)> {
    let q = state.queues.get(leaf);
    let mut out: Vec<((i64, i32), ContainerRef, Resource)> = Vec::new();
    for &key in &q.apps {
        let Some(a) = state.apps.get(&key) else { continue };
        for &id in &a.containers {
            if let Some(c) = state.containers.get(&(key, id)).filter(|c| c.lent_in == Some(partition)) {
                out.push((a.app_id, (key, id), c.resource));
            }
        }
    }
    out.sort_unstable_by_key(|&(app_id, (_, id), _)| std::cmp::Reverse((app_id, id.attempt, id.number)));
    out.into_iter().map(|(_, c, r)| (c, r)).collect()
}

/// The partition of `node` (a node gone counts as in the default one).
pub(super) fn node_partition(state: &State, node: NodeKey) -> PartitionId {
    state.nodes.get(&node).map_or(DEFAULT_PARTITION, |n| n.partition)
}

/// The partition of the node a live container runs on.
fn container_partition(state: &State, c: ContainerRef) -> PartitionId {
    state.containers.get(&c).map_or(DEFAULT_PARTITION, |x| node_partition(state, x.node))
}

/// An application's live containers, each with its node's partition, least important
/// request first (highest priority number, then highest allocation-request id), newest
/// first within a request (Apache's `sortContainers`).
pub(super) fn containers_newest_first(state: &State, app: AppKey) -> Vec<(ContainerId, Resource, PartitionId)> {
    let Some(a) = state.apps.get(&app) else { return Vec::new() };
    let mut out: Vec<_> = a
        .containers
        .iter()
        .filter_map(|&id| state.containers.get(&(app, id)).map(|c| (c.key, id, c.resource, c.node)))
        .map(|(key, id, resource, node)| (key, id, resource, node_partition(state, node)))
        .collect();
    out.sort_by(|x, y| y.0.cmp(&x.0).then(y.1.cmp(&x.1)));
    out.into_iter().map(|(_, id, r, p)| (id, r, p)).collect()
}

/// What a selector's candidates already give back, taken off what the queues still owe
/// in the partitions of their nodes before the next selector runs (Apache's
/// `deductPreemptableResourcesBasedSelectedCandidates`; a candidate whose node is gone
/// counts nowhere).
pub(super) fn deduct_selected(state: &State, parts: &mut [PartitionQueues], calc: Calc, sel: &Selection) {
    for c in &sel.chosen {
        let Some(node) = candidate_node(state, c).filter(|n| state.nodes.contains_key(n)) else { continue };
        let Some(queue) = super::candidate_queue(state, c) else { continue };
        let Some(size) = candidate_size(state, c) else { continue };
        let partition = node_partition(state, node);
        let Some(part) = parts.iter_mut().find(|p| p.partition == partition) else { continue };
        let total = part.total;
        let q = &mut part.tqs[queue];
        if calc.gt(total, q.actually_to_be_preempted, size) {
            q.actually_to_be_preempted = sub(q.actually_to_be_preempted, size);
        }
        q.actually_to_be_preempted = calc.max(total, q.actually_to_be_preempted, Resource::ZERO);
    }
}

/// The node a chosen container is reserved on or runs on (live, or let go of by its
/// application and still on its node).
pub(super) fn candidate_node(state: &State, c: &Candidate) -> Option<NodeKey> {
    c.reserved_on.or_else(|| {
        state
            .containers
            .get(&c.container)
            .map(|x| x.node)
            .or_else(|| super::leaving_of(state, c.container).map(|l| l.container.node))
    })
}

/// What a chosen container holds: its reservation's size, or its own (live, or let go of
/// by its application and still on its node).
pub(super) fn candidate_size(state: &State, c: &Candidate) -> Option<Resource> {
    match c.reserved_on {
        Some(node) => state.nodes.get(&node).and_then(|n| n.reservation.as_ref()).map(|r| r.resource),
        None => state
            .containers
            .get(&c.container)
            .map(|x| x.resource)
            .or_else(|| super::leaving_of(state, c.container).map(|l| l.container.resource)),
    }
}
