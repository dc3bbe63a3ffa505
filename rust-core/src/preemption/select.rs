//! Which containers give back what each leaf owes (Apache's `FifoCandidatesSelector`):
//! leaf by leaf, the applications its ordering policy would serve last go first — under
//! FIFO the lowest priority and then the youngest — and within an application its
//! least important, newest containers; reserved containers are dropped on the way, and
//! ApplicationMaster containers are taken last, and only while the AMs passed over
//! exceed the leaf's share for AMs.

use super::arith::{sub, Calc};
use super::ideal::TempQueue;
use super::{Action, ActionKind, Candidate};
use crate::ids::{AppKey, ContainerId, ContainerRef, QueueIndex, SchedulerKey};
use crate::model::State;
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

/// The FIFO selector over `leaves` in order: containers toward each leaf's
/// `actually_to_be_preempted`. Reserved containers it passes are killed at once
/// (`KILL_RESERVED_CONTAINER`, unless `observe_only`), into `kills`.
#[allow(clippy::too_many_arguments)]
pub(super) fn fifo(
    state: &State,
    tqs: &[TempQueue],
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
    for &leaf in leaves {
        let tq = &tqs[leaf];
        if tq.preemption_disabled {
            continue;
        }
        let mut need =
            Need(calc.gt(cluster, tq.actually_to_be_preempted, Resource::ZERO).then_some(tq.actually_to_be_preempted));
        // Apache orders every such leaf's applications, owing or not.
        reordered.push(leaf);
        if need.is_paid() {
            continue;
        }
        let mut skipped_am: Vec<(Candidate, Resource)> = Vec::new();
        let mut am_size = Resource::ZERO;
        // The order the leaf would serve its applications in, backwards.
        for (key, app) in ordering::ordered_apps(state, leaf).into_iter().rev() {
            if need.is_paid() {
                break;
            }
            // (Apache's map of them by request comes first: each request's in its map by node.)
            let mut keys: Vec<SchedulerKey> = app.reservations.values().map(|r| r.key).collect();
            keys.sort_unstable();
            keys.dedup();
            let reserved = keys
                .into_iter()
                .flat_map(|k| reservations_in_map_order(state, app, k))
                .filter(|r| in_default_partition(state, r.node));
            for r in reserved {
                let c = Candidate { container: (key, r.container), reserved_on: Some(r.node), balance };
                if sel.chosen_set.contains(&c.container) {
                    continue;
                }
                if need.is_paid() {
                    break;
                }
                try_take(calc, cluster, conservative, sel, &mut need, c, r.resource);
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
            for (id, size) in containers_newest_first(state, key) {
                if need.is_paid() {
                    break;
                }
                let c = Candidate { container: (key, id), reserved_on: None, balance };
                if sel.chosen_set.contains(&c.container) || sel.passes_over_killable(state, &c.container) {
                    continue;
                }
                if app.am_container == Some(id) {
                    skipped_am.push((c, size));
                    am_size = am_size.plus(size);
                    continue;
                }
                try_take(calc, cluster, conservative, sel, &mut need, c, size);
            }
        }
        let q = state.queues.get(leaf);
        let am_share = super::arith::mul(q.effective_min, q.config.maximum_am_resource_percent as f32 as f64);
        for (c, size) in skipped_am {
            if need.is_paid() || calc.le(cluster, am_size, am_share) {
                break;
            }
            if try_take(calc, cluster, conservative, sel, &mut need, c, size) {
                am_size = sub(am_size, size);
            }
        }
    }
}

/// An application's live containers in the default partition (the one preemption works
/// for so far: Apache takes a container only towards what its node's partition owes),
/// least important request first (highest priority number, then highest
/// allocation-request id), newest first within a request (Apache's `sortContainers`).
pub(super) fn containers_newest_first(state: &State, app: AppKey) -> Vec<(ContainerId, Resource)> {
    let Some(a) = state.apps.get(&app) else { return Vec::new() };
    let mut out: Vec<_> = a
        .containers
        .iter()
        .filter_map(|&id| state.containers.get(&(app, id)).map(|c| (c.key, id, c.resource, c.node)))
        .filter(|&(.., node)| in_default_partition(state, node))
        .map(|(key, id, resource, _)| (key, id, resource))
        .collect();
    out.sort_by(|x, y| y.0.cmp(&x.0).then(y.1.cmp(&x.1)));
    out.into_iter().map(|(_, id, r)| (id, r)).collect()
}

/// Whether `node` is in the default partition (a node gone counts as in it).
pub(super) fn in_default_partition(state: &State, node: crate::ids::NodeKey) -> bool {
    state.nodes.get(&node).is_none_or(|n| n.partition == crate::model::DEFAULT_PARTITION)
}

/// What a selector's candidates already give back, taken off what the queues still owe
/// before the next selector runs (Apache's `deductPreemptableResourcesBasedSelectedCandidates`).
pub(super) fn deduct_selected(state: &State, tqs: &mut [TempQueue], calc: Calc, sel: &Selection) {
    for c in &sel.chosen {
        let Some(queue) = super::candidate_queue(state, c) else { continue };
        let Some(size) = candidate_size(state, c) else { continue };
        let q = &mut tqs[queue];
        if calc.gt(state.cluster, q.actually_to_be_preempted, size) {
            q.actually_to_be_preempted = sub(q.actually_to_be_preempted, size);
        }
        q.actually_to_be_preempted = calc.max(state.cluster, q.actually_to_be_preempted, Resource::ZERO);
    }
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
