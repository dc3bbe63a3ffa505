//! The ideal assignment: what each queue would hold if the cluster were shared out afresh
//! — its guarantee first, then what is left among queues still asking, in proportion to
//! their guarantees, never above a queue's maximum — and so how much each leaf holds
//! beyond it (Apache's `PreemptableResourceCalculator` over `TempQueuePerPartition`s).
//! Everything is worked out on a snapshot of the queues taken at the start of the round.

use super::arith::{add, floor0, mul, sub, Calc};
use super::Settings;
use crate::config::QueueOrdering;
use crate::ids::QueueIndex;
use crate::java_order;
use crate::model::{PartitionId, State, DEFAULT_PARTITION};
use crate::policy::limits;
use crate::resource::Resource;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::cmp::Ordering;

/// One queue as the round sees it (Apache's `TempQueuePerPartition`).
#[derive(Debug, Clone)]
pub(super) struct TempQueue {
    pub queue: QueueIndex,
    pub children: Vec<QueueIndex>,
    pub abs_capacity: f32,
    pub guaranteed: Resource,
    pub max: Resource,
    /// What it holds, reservations included.
    pub used: Resource,
    /// What its active applications still ask for, within their users' limits.
    pub pending: Resource,
    /// The same, less what they have reserved.
    pub pending_deduct_reserved: Resource,
    pub preemption_disabled: bool,
    /// Its applications may not be taken from for one another.
    pub intra_disabled: bool,
    /// A leaf with active applications: working out their pending asks looked its users'
    /// limits up.
    pub looked_up: bool,
    /// Its `priority` among its siblings, when its parent orders by priority-utilization.
    pub relative_priority: i64,
    /// What its killable containers hold (lazy preemption): room the scheduler may take
    /// already, so not asked of it again.
    pub killable: Resource,
    pub ideal: Resource,
    pub to_be_preempted: Resource,
    /// What the leaf is asked to give back this round.
    pub actually_to_be_preempted: Resource,
    untouchable_extra: Resource,
    preemptable_extra: Resource,
    normalized: [f64; 2],
}

impl TempQueue {
    fn is_leaf(&self) -> bool {
        self.children.is_empty()
    }
}

/// One partition's queues as the round sees them (Apache's `TempQueuePerPartition`s of
/// one partition), indexed as the tree is.
#[derive(Debug)]
pub(super) struct PartitionQueues {
    pub partition: PartitionId,
    /// What the partition's live nodes offer (Apache's `totalPartitionResource`).
    pub total: Resource,
    pub tqs: Vec<TempQueue>,
    /// The queues found under-served in this partition.
    pub under_served: UnderServed,
}

/// The round's queues in every partition the cluster has (its labels and the default
/// partition), in the order Apache's policy keeps them: a `HashSet` of the labels.
pub(super) fn snapshot(state: &State, settings: &Settings) -> Vec<PartitionQueues> {
    let switches = super::switches_under(state, settings);
    let mut partitions = state.partitions.labelled();
    partitions.push((DEFAULT_PARTITION, ""));
    let names: Vec<&str> = partitions.iter().map(|&(_, name)| name).collect();
    java_order::hash_map_order(&names, names.len())
        .into_iter()
        .map(|i| {
            let (partition, label) = partitions[i];
            let tqs = partition_snapshot(state, settings, &switches, partition, label);
            let total = state.partitions.get(partition).resource;
            PartitionQueues { partition, total, tqs, under_served: UnderServed::default() }
        })
        .collect()
}

/// The default partition's queues (every round has them).
pub(super) fn default_of(parts: &[PartitionQueues]) -> &PartitionQueues {
    parts.iter().find(|p| p.partition == DEFAULT_PARTITION).expect("every round has the default partition")
}

/// Every queue of the tree in `partition`, with the figures the round starts from.
fn partition_snapshot(
    state: &State,
    settings: &Settings,
    switches: &[super::Switches],
    partition: PartitionId,
    label: &str,
) -> Vec<TempQueue> {
    let tree = &state.queues;
    let total = state.partitions.get(partition).resource;
    // In a non-exclusive partition a queue may hold more than its maximum share: what it
    // borrowed there.
    let exclusive = state.partitions.get(partition).exclusive;
    let mut out: Vec<TempQueue> = Vec::with_capacity(tree.queues.len());
    for (i, q) in tree.queues.iter().enumerate() {
        let parent = q.config.parent;
        // The shares, and the effective resources (Apache's `none()` for a queue without
        // keys for the label, when the shares of the partition count instead).
        let (abs_capacity, abs_maximum, effective_min, effective_max) = if partition == DEFAULT_PARTITION {
            (q.absolute_capacity as f32, q.absolute_maximum_capacity as f32, q.effective_min, q.effective_max)
        } else {
            let (capacity, maximum) = q.shares_in(partition);
            let configured = parent.is_none() || q.config.node_labels.contains_key(label);
            let (min, max) =
                if configured { state.effective_in(i, partition) } else { (Resource::ZERO, Resource::ZERO) };
            (capacity as f32, maximum as f32, min, max)
        };
        let abs_maximum = if exclusive { abs_maximum } else { 1.0 };
        let guaranteed =
            if effective_min == Resource::ZERO { mul(total, f64::from(abs_capacity)) } else { effective_min };
        let max = if effective_max == Resource::ZERO { mul(total, f64::from(abs_maximum)) } else { effective_max };
        let relative_priority = match parent {
            Some(p) if tree.get(p).config.queue_ordering == QueueOrdering::PriorityUtilization => q.config.priority,
            _ => 0,
        };
        let LeafPending { pending, pending_deduct_reserved, looked_up } =
            if q.is_leaf() { leaf_pending(state, i, partition, label) } else { LeafPending::default() };
        out.push(TempQueue {
            queue: i,
            children: q.config.children.clone(),
            abs_capacity,
            guaranteed,
            max,
            used: q.used_in(partition),
            pending,
            pending_deduct_reserved,
            preemption_disabled: switches[i].disabled,
            intra_disabled: switches[i].intra_queue_disabled,
            looked_up,
            relative_priority,
            killable: if settings.lazy { state.killable_under_in(i, partition) } else { Resource::ZERO },
            ideal: Resource::ZERO,
            to_be_preempted: Resource::ZERO,
            actually_to_be_preempted: Resource::ZERO,
            untouchable_extra: Resource::ZERO,
            preemptable_extra: Resource::ZERO,
            normalized: [0.0; 2],
        });
    }
    // A parent's pending is its children's (children come after their parent).
    for i in (0..out.len()).rev() {
        if !out[i].is_leaf() {
            let (p, d) = out[i].children.iter().fold((Resource::ZERO, Resource::ZERO), |(p, d), &c| {
                (add(p, out[c].pending), add(d, out[c].pending_deduct_reserved))
            });
            out[i].pending = p;
            out[i].pending_deduct_reserved = d;
        }
    }
    out
}

/// A leaf's pending figures for the round.
#[derive(Debug, Default)]
struct LeafPending {
    pending: Resource,
    pending_deduct_reserved: Resource,
    /// Some user's limit was looked up (the leaf has activated applications).
    looked_up: bool,
}

/// What a leaf's active applications ask for in `partition` (labelled `label`), with and
/// without what they have reserved there, each user's share capped by what its user
/// limit there still leaves it (Apache's `getTotalPendingResourcesConsideringUserLimit`,
/// called once for each figure). Apache takes each application's share in turn until the
/// user's room is gone; per resource that is the smaller of the room and the user's
/// summed asks, whatever the order.
fn leaf_pending(state: &State, leaf: QueueIndex, partition: PartitionId, label: &str) -> LeafPending {
    let q = state.queues.get(leaf);
    // Per user: its room, and its applications' asks summed (without, with reserved deducted).
    let mut by_user: HashMap<&str, (Resource, Resource, Resource)> = HashMap::default();
    for app in q.apps.iter().filter_map(|k| state.apps.get(k)).filter(|a| a.active) {
        let entry = by_user.entry(app.user.as_str()).or_insert_with(|| {
            let limit = limits::limit_for_user_in(state, partition, leaf, &app.user);
            let used = q.users.get(&app.user).map_or(Resource::ZERO, |u| u.used_in(partition));
            (floor0(sub(limit, used)), Resource::ZERO, Resource::ZERO)
        });
        let pending = app.pending_in(label);
        entry.1 = add(entry.1, floor0(pending));
        entry.2 = add(entry.2, floor0(sub(pending, state.app_reserved_in(app, partition))));
    }
    by_user.values().fold(
        LeafPending { looked_up: !by_user.is_empty(), ..LeafPending::default() },
        |acc, &(room, asked, asked_unreserved)| LeafPending {
            pending: add(acc.pending, asked.component_min(room)),
            pending_deduct_reserved: add(acc.pending_deduct_reserved, asked_unreserved.component_min(room)),
            looked_up: acc.looked_up,
        },
    )
}

/// The queues the ideal assignment found holding less than they use and ask for, in the
/// order it met them, over every level and every computation of the round (Apache's
/// under-served queues: intra-queue preemption looks inside these leaves only).
#[derive(Debug, Default)]
pub(super) struct UnderServed {
    order: Vec<QueueIndex>,
    seen: HashSet<QueueIndex>,
    /// Whether the round's result hung on the order in which equally under-served queues
    /// were offered resources (see [`UnderServed::tie_order_mattered`]).
    tie_order_mattered: bool,
}

impl UnderServed {
    fn add(&mut self, q: QueueIndex) {
        if self.seen.insert(q) {
            self.order.push(q);
        }
    }

    /// In the order they were first found.
    pub fn queues(&self) -> &[QueueIndex] {
        &self.order
    }

    /// True if, in some pass, two or more queues were equally under-served and what was
    /// left to hand out ran short of the shares they were offered: whichever came first
    /// got its whole share, the others less. Apache takes such a group from a priority
    /// heap filled from a `HashSet` of objects hashed by identity, so its order - and the
    /// ideal assignment, and what the round selects - changes from one JVM to the next;
    /// ours offers them in queue order.
    pub fn tie_order_mattered(&self) -> bool {
        self.tie_order_mattered
    }
}

/// How a selector's calculator works the ideal assignment out.
#[derive(Debug, Clone, Copy)]
pub(super) struct Mode {
    /// Reserved resources count as still pending, and there is no natural-termination
    /// factor (the reserved-container selector's, or the main one's with
    /// `additional_res_balance_based_on_reserved_containers`).
    pub reserved: bool,
    /// Leaves may grow past `max(used, guarantee)` (the balancing selector's).
    pub balance: bool,
}

/// Works out every queue's ideal assignment in every partition, and what each leaf gives
/// back there this round (Apache's `computeIdealAllocation`). `reserved_mode` counts
/// reserved resources as still pending and skips the natural-termination factor;
/// `balance` lets leaves grow past `max(used, guarantee)` (preemption to balance queues
/// after they are satisfied): see [`Mode`]. The queues found under-served are added to
/// each partition's `under_served`.
#[allow(clippy::too_many_arguments)]
pub(super) fn compute(
    parts: &mut [PartitionQueues],
    calc: Calc,
    cluster: Resource,
    settings: &Settings,
    leaves: &[QueueIndex],
    allowed: Resource,
    mode: Mode,
) {
    let Mode { reserved: reserved_mode, balance } = mode;
    for part in parts.iter_mut() {
        let tqs = &mut part.tqs;
        update_preemptable_extras(tqs, calc, part.total, 0);
        tqs[0].ideal = tqs[0].guaranteed;
        let mut pass = Pass { tqs, calc, allowed, reserved_mode, balance, under_served: &mut part.under_served };
        pass.recurse(0);
    }
    for &leaf in leaves {
        for part in parts.iter_mut() {
            let q = &mut part.tqs[leaf];
            if q.preemption_disabled {
                continue;
            }
            let dead_zone = mul(q.guaranteed, 1.0 + settings.max_ignored_over_capacity);
            q.actually_to_be_preempted = if calc.gt(cluster, q.used, dead_zone) {
                let r = q.to_be_preempted;
                if !reserved_mode && calc.gt(cluster, r, Resource::ZERO) {
                    calc.normalize_up(r, settings.natural_termination_factor)
                } else {
                    r
                }
            } else {
                Resource::ZERO
            };
        }
    }
}

/// What a queue holds beyond its guarantee, split into what preemption may take back and
/// what it may not (a disabled leaf's, or a parent's beyond its children's), bottom up.
fn update_preemptable_extras(tqs: &mut [TempQueue], calc: Calc, c: Resource, i: QueueIndex) {
    let children = tqs[i].children.clone();
    for &child in &children {
        update_preemptable_extras(tqs, calc, c, child);
    }
    let q = &tqs[i];
    let mut extra = sub(q.used, q.guaranteed);
    if calc.lt(c, extra, Resource::ZERO) {
        extra = Resource::ZERO;
    }
    let (untouchable, preemptable) = if children.is_empty() {
        if q.preemption_disabled {
            (extra, Resource::ZERO)
        } else {
            (Resource::ZERO, extra)
        }
    } else {
        let from_children = children.iter().fold(Resource::ZERO, |acc, &ch| add(acc, tqs[ch].preemptable_extra));
        let untouchable =
            if calc.cmp(c, from_children, extra).is_ge() { Resource::ZERO } else { sub(extra, from_children) };
        (untouchable, calc.min(c, from_children, extra))
    };
    tqs[i].untouchable_extra = untouchable;
    tqs[i].preemptable_extra = preemptable;
}

struct Pass<'a> {
    tqs: &'a mut [TempQueue],
    calc: Calc,
    allowed: Resource,
    reserved_mode: bool,
    balance: bool,
    under_served: &'a mut UnderServed,
}

impl Pass<'_> {
    fn recurse(&mut self, i: QueueIndex) {
        if self.tqs[i].is_leaf() {
            return;
        }
        let children = self.tqs[i].children.clone();
        let total = self.tqs[i].ideal;
        self.distribute(&children, total);
        for c in children {
            self.recurse(c);
        }
    }

    /// One level: the parent's ideal `t` shared among `queues` (Apache's
    /// `computeIdealResourceDistribution`), then what each holds beyond it, scaled so the
    /// level gives back no more than the round allows.
    fn distribute(&mut self, queues: &[QueueIndex], t: Resource) {
        let calc = self.calc;
        let mut unassigned = t;
        let (with, without): (Vec<QueueIndex>, Vec<QueueIndex>) =
            queues.iter().partition(|&&q| calc.gt(t, self.tqs[q].guaranteed, Resource::ZERO));
        self.fixpoint(t, &with, &mut unassigned, false);
        if !without.is_empty() && calc.gt(t, unassigned, Resource::ZERO) {
            self.fixpoint(t, &without, &mut unassigned, true);
        }
        let needed = queues.iter().fold(Resource::ZERO, |acc, &q| {
            let q = &self.tqs[q];
            if calc.gt(t, q.used, q.ideal) {
                add(acc, sub(q.used, q.ideal))
            } else {
                acc
            }
        });
        let scaling = if calc.gt(t, needed, self.allowed) { calc.divide(t, self.allowed, needed) } else { 1.0 };
        for &q in queues {
            let q = &mut self.tqs[q];
            let keep = calc.max(t, calc.min(t, add(q.used, q.pending), q.guaranteed), q.ideal);
            let used = sub(q.used, q.killable);
            q.to_be_preempted =
                if calc.gt(t, used, keep) { mul(sub(used, keep), f64::from(scaling)) } else { Resource::ZERO };
        }
    }

    /// Offers `unassigned` to the most under-served queues first, round after round, in
    /// proportion to their (normalised) guarantees, until nothing is left or nobody takes
    /// more (Apache's `computeFixpointAllocation`).
    fn fixpoint(&mut self, t: Resource, queues: &[QueueIndex], unassigned: &mut Resource, ignore_guarantee: bool) {
        let calc = self.calc;
        let mut waiting: Vec<QueueIndex> = Vec::new();
        for &i in queues {
            let q = &mut self.tqs[i];
            q.ideal = if calc.gt(t, q.used, q.guaranteed) {
                add(q.guaranteed.component_min(q.used), q.untouchable_extra)
            } else {
                q.used
            };
            *unassigned = sub(*unassigned, q.ideal);
            if calc.lt(t, q.ideal, add(q.used, q.pending)) {
                waiting.push(i);
            }
        }
        while !waiting.is_empty() && calc.gt(t, *unassigned, Resource::ZERO) {
            self.reset_capacity(&waiting, ignore_guarantee);
            // The most under-served queue and every queue tied with it leave the heap.
            waiting.sort_by(|&a, &b| self.underserved_order(t, a, b));
            let head = waiting[0];
            let ties = waiting.iter().take_while(|&&q| self.underserved_order(t, head, q) == Ordering::Equal).count();
            let group: Vec<QueueIndex> = waiting.drain(..ties).collect();
            // Each is found under-served as it leaves the heap, and so is the one after
            // the last tie, which Apache peeks at.
            for &q in group.iter().chain(waiting.first()) {
                self.under_served.add(q);
            }
            let snapshot = *unassigned;
            let tied = group.len() > 1;
            for q in group {
                if !calc.any_above_zero(*unassigned) {
                    self.under_served.tie_order_mattered |= tied;
                    break;
                }
                let share = calc.normalize_up_each(snapshot, self.tqs[q].normalized);
                let offered = share.component_min(*unassigned);
                self.under_served.tie_order_mattered |= tied && offered != share;
                let left = self.offer(q, offered, t);
                let took = sub(offered, left);
                if calc.gt(t, took, Resource::ZERO) {
                    waiting.push(q);
                }
                *unassigned = floor0(sub(*unassigned, took));
            }
        }
        // Whoever still waits is under-served too (all are satisfied, yet inside a queue
        // applications may still be out of balance).
        waiting.sort_by(|&a, &b| self.underserved_order(t, a, b));
        for q in waiting {
            self.under_served.add(q);
        }
    }

    /// Lower ideal-to-guarantee ratio first; with priorities (priority-utilization),
    /// higher priority first unless only one of the two is under its guarantee (Apache's
    /// `TQComparator` over `PriorityUtilizationQueueOrderingPolicy.compare`).
    fn underserved_order(&self, t: Resource, a: QueueIndex, b: QueueIndex) -> Ordering {
        let pct = |q: &TempQueue| -> f64 {
            if self.calc.gt(t, q.guaranteed, Resource::ZERO) {
                f64::from(self.calc.divide(t, q.ideal, q.guaranteed))
            } else {
                f64::from(i32::MAX)
            }
        };
        let (qa, qb) = (&self.tqs[a], &self.tqs[b]);
        let (pa, pb) = (pct(qa), pct(qb));
        if qa.relative_priority != qb.relative_priority && ((pa < 1.0) == (pb < 1.0)) {
            return qb.relative_priority.cmp(&qa.relative_priority);
        }
        pa.total_cmp(&pb)
    }

    /// Each waiting queue's share of what is offered, per resource type, in single
    /// precision (Apache's `resetCapacity`).
    fn reset_capacity(&mut self, waiting: &[QueueIndex], ignore_guarantee: bool) {
        let n = waiting.len() as f32;
        if ignore_guarantee {
            for &q in waiting {
                self.tqs[q].normalized = [f64::from(1.0f32 / n); 2];
            }
            return;
        }
        let active = waiting.iter().fold(Resource::ZERO, |acc, &q| add(acc, self.tqs[q].guaranteed));
        let sum_abs: f32 = waiting.iter().map(|&q| self.tqs[q].abs_capacity).sum();
        let by_type = |r: Resource, i: usize| if i == 0 { r.memory_mb } else { r.vcores };
        for i in 0..2 {
            let zero_guarantee =
                waiting.iter().any(|&q| by_type(self.tqs[q].guaranteed, i) == 0 && self.tqs[q].abs_capacity != 0.0);
            for &q in waiting {
                let share = if sum_abs == 0.0 || by_type(active, i) == 0 {
                    1.0f32 / n
                } else if zero_guarantee {
                    self.tqs[q].abs_capacity / sum_abs
                } else {
                    by_type(self.tqs[q].guaranteed, i) as f32 / by_type(active, i) as f32
                };
                self.tqs[q].normalized[i] = f64::from(share);
            }
        }
    }

    /// Queue `i` takes what it can of `avail`: no more than its maximum allows, than it
    /// uses and asks for, and (a leaf, unless balancing) than the larger of its usage and
    /// its guarantee. Returns what it leaves.
    fn offer(&mut self, i: QueueIndex, avail: Resource, t: Resource) -> Resource {
        let calc = self.calc;
        let q = &mut self.tqs[i];
        let room = floor0(sub(q.max, q.ideal));
        let pending = if self.reserved_mode { q.pending } else { q.pending_deduct_reserved };
        let mut accepted = room.component_min(calc.min(t, avail, sub(add(q.used, pending), q.ideal)));
        if !self.balance && q.children.is_empty() {
            let cap = calc.max(t, sub(calc.max(t, q.used, q.guaranteed), q.ideal), Resource::ZERO);
            accepted = calc.min(t, accepted, cap);
        }
        let accepted = floor0(accepted).component_min(avail);
        q.ideal = add(q.ideal, accepted);
        sub(avail, accepted)
    }
}
