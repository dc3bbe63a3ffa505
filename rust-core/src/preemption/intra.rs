//! Intra-queue preemption: inside a leaf, containers taken from some applications for
//! others in the same leaf (Apache's `IntraQueueCandidatesSelector` with its
//! `FifoIntraQueuePreemptionPlugin`, docs/apache-preemption.md §4.4). It runs after the
//! selectors between queues, on the leaves their ideal assignment found under-served, in
//! each partition (the applications' usage, asks, AMs and users' limits there):
//! 1. `demand`: the leaf's applications are given what they use and ask for, the highest
//!    priority first (or, with fair ordering and user limits first, the users using least
//!    first), each user no more than its limit counting all the leaf's users, out of what
//!    the leaf keeps once it has given other queues their due. An application left short
//!    is owed by the lower-priority applications holding more than they were given —
//!    with `userlimit_first` only those whose user is over its limit, and another user's
//!    application at the same priority only down to that limit. One round takes no more
//!    than `max-allowable-limit` of the leaf's guarantee;
//! 2. `select`: containers are taken from the owing applications, the lowest priority
//!    first, never ApplicationMasters, and (`userlimit_first`) never taking a user below
//!    its limit.
//!
//! Apache's comparisons, roundings and "subtract but not below zero" steps are kept as
//! they are: they decide which containers are marked.

use super::arith::{add, floor0, mul, sub, Calc};
use super::ideal::{PartitionQueues, TempQueue};
use super::select::{candidate_node, candidate_size, containers_newest_first, try_take, Need, Selection};
use super::{Candidate, Settings};
use crate::config::{IntraQueueOrder, OrderingPolicy};
use crate::ids::{AppKey, QueueIndex};
use crate::model::{LimitCache, PartitionId, State, DEFAULT_PARTITION};
use crate::policy::limits;
use crate::policy::ordering::FairKey;
use crate::resource::Resource;
use rustc_hash::FxHashMap as HashMap;
use std::cmp::Ordering;

/// One application of a leaf as the round sees it (Apache's `TempAppPerPartition`).
#[derive(Debug, Clone)]
struct TempApp {
    key: AppKey,
    /// Index of its user in [`Leaf::users`].
    user: usize,
    priority: i64,
    app_id: (i64, i32),
    fair: FairKey,
    used: Resource,
    /// Its ApplicationMaster's size, once the AM container is running.
    am_used: Resource,
    pending: Resource,
    /// What earlier selectors of this round took from it.
    selected: Resource,
    ideal: Resource,
    to_be_preempted: Resource,
    actually_to_be_preempted: Resource,
    /// What it is to get from other applications.
    from_other: Resource,
}

impl TempApp {
    fn used_deduct_am(&self) -> Resource {
        sub(self.used, self.am_used)
    }
}

/// One user of a leaf as the round sees it (Apache's `TempUserPerPartition`).
#[derive(Debug, Clone)]
struct TempUser {
    name: String,
    used: Resource,
    /// Its activated applications' ApplicationMasters.
    am_used: Resource,
    /// Its limit counting all users, less `am_used`.
    limit: Resource,
    ideal: Resource,
    selected: Resource,
    /// A same-priority application of another user has already been given this user's
    /// excess over its limit.
    excess_given: bool,
}

impl TempUser {
    fn used_deduct_am(&self) -> Resource {
        sub(self.used, self.am_used)
    }

    fn over_limit(&self, calc: Calc, cluster: Resource) -> bool {
        calc.gt(cluster, self.used_deduct_am(), self.limit)
    }
}

/// A leaf's applications in one partition, the lowest priority first, with what each
/// owes there.
#[derive(Debug)]
pub(super) struct Leaf {
    queue: QueueIndex,
    partition: PartitionId,
    apps: Vec<TempApp>,
    users: Vec<TempUser>,
    /// The leaf's user limit counting all users, at weight one, as the demand read it.
    unit_limit: Resource,
}

/// What each under-served leaf's applications owe one another in each partition (in the
/// round's order of partitions), given the containers `sel` already holds, with the
/// leaves whose users' limits were looked up.
pub(super) fn demand(
    state: &State,
    parts: &[PartitionQueues],
    calc: Calc,
    settings: &Settings,
    sel: &Selection,
) -> Vec<Leaf> {
    let mut out = Vec::new();
    for part in parts {
        let selected = selected_by_app(state, sel, part.partition);
        for &queue in part.under_served.queues() {
            let q = state.queues.get(queue);
            if !q.is_leaf() {
                continue;
            }
            let tq = &part.tqs[queue];
            if (used_capacity_in(state, queue, part) as f32) < settings.intra_queue_minimum_threshold {
                continue;
            }
            let reassignable = sub(tq.used, tq.actually_to_be_preempted);
            if let Some(leaf) = leaf_demand(state, tq, part, calc, settings, reassignable, sel.allowed, &selected) {
                out.push(leaf);
            }
        }
    }
    out
}

/// The leaf's used capacity in the partition: what it uses there over its guarantee
/// there (at least one minimum allocation).
fn used_capacity_in(state: &State, queue: QueueIndex, part: &PartitionQueues) -> f64 {
    let q = state.queues.get(queue);
    let calc = state.calculator();
    if part.partition == DEFAULT_PARTITION {
        return q.used_capacity(calc, state.cluster, state.minimum_allocation());
    }
    if part.total.is_none() {
        return 0.0;
    }
    let guaranteed = calc.max(part.total, state.guaranteed_in(queue, part.partition), state.minimum_allocation());
    calc.divide(part.total, q.used_in(part.partition), guaranteed)
}

/// What earlier selectors took from each application in `partition`, as Apache counts
/// it: by the partition each container asked for (a container a non-exclusive partition
/// lent to an ask for the default partition counts in the default partition).
fn selected_by_app(state: &State, sel: &Selection, partition: PartitionId) -> HashMap<AppKey, Resource> {
    let mut out: HashMap<AppKey, Resource> = HashMap::default();
    for c in &sel.chosen {
        let asked = state.containers.get(&c.container).map(|x| {
            if x.asked_default {
                DEFAULT_PARTITION
            } else {
                state.nodes.get(&x.node).map_or(DEFAULT_PARTITION, |n| n.partition)
            }
        });
        if asked.is_some_and(|p| p != partition) {
            continue;
        }
        if let Some(size) = candidate_size(state, c) {
            let e = out.entry(c.container.0).or_insert(Resource::ZERO);
            *e = add(*e, size);
        }
    }
    out
}

/// What application `a` (`key`) holds in `partition`: its live containers on that
/// partition's nodes.
fn app_used_in(state: &State, key: AppKey, a: &crate::model::App, partition: PartitionId) -> Resource {
    if !state.partitions.has_labels() {
        return a.used;
    }
    a.containers
        .iter()
        .filter_map(|&id| state.containers.get(&(key, id)))
        .filter(|c| state.nodes.get(&c.node).map_or(DEFAULT_PARTITION, |n| n.partition) == partition)
        .fold(Resource::ZERO, |sum, c| add(sum, c.resource))
}

/// Apache's `computeAppsIdealAllocation` for one leaf; None when it has fewer than two
/// applications.
#[allow(clippy::too_many_arguments)]
fn leaf_demand(
    state: &State,
    tq: &TempQueue,
    part: &PartitionQueues,
    calc: Calc,
    settings: &Settings,
    reassignable: Resource,
    allowed: Resource,
    selected: &HashMap<AppKey, Resource>,
) -> Option<Leaf> {
    let cluster = state.cluster;
    let partition = part.partition;
    let label = state.partitions.get(partition).name.as_str();
    let q = state.queues.get(tq.queue);
    let user_limit_first = settings.intra_queue_order == IntraQueueOrder::UserLimitFirst;
    // ApplicationMasters of activated applications (in this partition) are left alone,
    // and left out.
    let mut am_by_user: HashMap<&str, Resource> = HashMap::default();
    let mut am_used = Resource::ZERO;
    let apps: Vec<(AppKey, &crate::model::App)> =
        q.apps.iter().filter_map(|&k| state.app(k).map(|a| (k, a))).filter(|(_, a)| a.runnable).collect();
    for (_, a) in apps.iter().filter(|(_, a)| a.active && a.am_partition == partition) {
        let e = am_by_user.entry(a.user.as_str()).or_insert(Resource::ZERO);
        *e = add(*e, a.am_resource);
        am_used = add(am_used, a.am_resource);
    }
    let mut reassignable = sub(reassignable, am_used);
    if apps.len() < 2 {
        return None;
    }
    let size_based = q.config.fair_size_based_weight;
    let mut users: Vec<TempUser> = Vec::new();
    let mut user_index: HashMap<&str, usize> = HashMap::default();
    // Apache's cached limit, unless invalidated since (a user who joined the leaf since
    // does not count until then); in a labelled partition, worked out afresh (read from
    // its own cache, as Apache's plugin reads it, the round parted from Apache's at seed
    // 459 for a reason not found yet).
    let unit_limit = match partition {
        DEFAULT_PARTITION => q
            .pending_users
            .cached_among_all(LimitCache::of(partition))
            .unwrap_or_else(|| limits::unit_limit_among_all(state, tq.queue)),
        _ => limits::unit_limit_among_all_in(state, tq.queue, partition),
    };
    let mut temp: Vec<TempApp> = Vec::with_capacity(apps.len());
    for &(key, a) in &apps {
        let user = *user_index.entry(a.user.as_str()).or_insert_with(|| {
            let am_used = am_by_user.get(a.user.as_str()).copied().unwrap_or(Resource::ZERO);
            let limit = limits::weighted_limit(state, tq.queue, unit_limit, &a.user);
            users.push(TempUser {
                name: a.user.clone(),
                used: q.users.get(&a.user).map_or(Resource::ZERO, |u| u.used_in(partition)),
                am_used,
                limit: sub(limit, am_used),
                ideal: Resource::ZERO,
                selected: Resource::ZERO,
                excess_given: false,
            });
            users.len() - 1
        });
        temp.push(TempApp {
            key,
            user,
            priority: a.priority,
            app_id: a.app_id,
            fair: FairKey::of(a, size_based),
            used: app_used_in(state, key, a, partition),
            am_used: if a.am_container.is_some() && a.am_partition == partition {
                a.am_resource
            } else {
                Resource::ZERO
            },
            pending: a.pending_in(label),
            selected: Resource::ZERO,
            ideal: Resource::ZERO,
            to_be_preempted: Resource::ZERO,
            actually_to_be_preempted: Resource::ZERO,
            from_other: Resource::ZERO,
        });
    }
    // The order applications are given their share in: the leaf's own order, or with fair
    // ordering and user limits first, the users using least first.
    let by_users = q.config.ordering_policy == OrderingPolicy::Fair && user_limit_first;
    let order = |a: &TempApp, b: &TempApp| -> Ordering {
        if !by_users {
            return b.priority.cmp(&a.priority).then(a.app_id.cmp(&b.app_id));
        }
        if a.user == b.user {
            return a.fair.cmp(&b.fair);
        }
        let (ua, ub) = (users[a.user].used_deduct_am(), users[b.user].used_deduct_am());
        if ua == ub {
            a.app_id.cmp(&b.app_id)
        } else if calc.lt(cluster, ua, ub) {
            Ordering::Less
        } else {
            Ordering::Greater
        }
    };
    // (Insertion, not `sort_by`: under DRF the users' comparison is not a total order.)
    let mut sorted: Vec<TempApp> = Vec::with_capacity(temp.len());
    for a in temp {
        let at = sorted.iter().position(|b| order(&a, b) == Ordering::Less).unwrap_or(sorted.len());
        sorted.insert(at, a);
    }
    // Highest first: each is given what it uses and asks for, within its user's limit and
    // what the leaf has left.
    for a in &mut sorted {
        if calc.le(cluster, reassignable, Resource::ZERO)
            || (calc.any_zero_or_negative(reassignable) && settings.intra_queue_conservative_drf)
        {
            continue;
        }
        let u = &mut users[a.user];
        a.selected = selected.get(&a.key).copied().unwrap_or(Resource::ZERO);
        u.selected = add(u.selected, a.selected);
        let wanted = sub(add(a.used_deduct_am(), a.pending), a.selected);
        if !calc.lt(cluster, u.ideal, u.limit) {
            continue;
        }
        let ideal = calc.min(cluster, wanted, sub(u.limit, u.ideal));
        a.ideal = calc.min(cluster, reassignable, ideal);
        u.ideal = add(u.ideal, a.ideal);
        let held = sub(a.used_deduct_am(), a.selected);
        if calc.gt(cluster, a.ideal, held) {
            a.from_other = sub(a.ideal, held);
        }
        reassignable = floor0(sub(reassignable, a.ideal));
    }
    sorted.reverse();
    let mut apps = sorted;
    // Lowest first: what each holds beyond its share, within the round's limit for the leaf.
    let mut cap = mul(tq.guaranteed, f64::from(settings.intra_queue_max_allowable_limit));
    cap = if calc.gt(cluster, cap, tq.actually_to_be_preempted) {
        sub(cap, tq.actually_to_be_preempted)
    } else {
        Resource::ZERO
    };
    let mut limit = calc.min(cluster, cap, allowed);
    let minimum_allocation = state.minimum_allocation();
    for a in &mut apps {
        if calc.le(cluster, limit, Resource::ZERO) || calc.le(cluster, a.used, Resource::ZERO) {
            continue;
        }
        let mut excess = floor0(sub(floor0(sub(sub(a.used, a.ideal), a.selected)), a.am_used));
        if user_limit_first {
            excess = floor0(sub(excess, minimum_allocation));
        }
        a.to_be_preempted = calc.min(cluster, calc.max(cluster, excess, Resource::ZERO), limit);
        limit = floor0(sub(limit, a.to_be_preempted));
    }
    settle_who_gives(calc, cluster, &mut apps, &mut users, user_limit_first);
    if log::log_enabled!(log::Level::Debug) {
        for a in &apps {
            log::debug!(
                "intra-queue preemption: {} {:?} of {} priority {} used {} pending {} ideal {} from others {} \
                 to give {} giving {}",
                q.path(),
                a.app_id,
                users[a.user].name,
                a.priority,
                a.used,
                a.pending,
                a.ideal,
                a.from_other,
                a.to_be_preempted,
                a.actually_to_be_preempted
            );
        }
    }
    Some(Leaf { queue: tq.queue, partition, apps, users, unit_limit })
}

/// Each application owed something, the highest first, is given it by the lower-priority
/// applications able to give, the lowest first (Apache's
/// `validateOutSameAppPriorityFromDemand`): never by its own user's applications of the
/// same or higher priority; with user limits first, by another user's only while that
/// user is over its limit, and at the same priority only down to it.
fn settle_who_gives(
    calc: Calc,
    cluster: Resource,
    apps: &mut [TempApp],
    users: &mut [TempUser],
    user_limit_first: bool,
) {
    for h in (0..apps.len()).rev() {
        if !calc.gt(cluster, apps[h].from_other, Resource::ZERO) {
            continue;
        }
        for l in 0..apps.len() {
            if !calc.gt(cluster, apps[l].to_be_preempted, Resource::ZERO) {
                continue;
            }
            let same_user = apps[h].user == apps[l].user;
            if same_user && apps[l].priority >= apps[h].priority {
                continue;
            }
            if calc.le(cluster, apps[l].to_be_preempted, apps[l].actually_to_be_preempted)
                || apps[h].from_other == Resource::ZERO
            {
                continue;
            }
            let giver = &mut users[apps[l].user];
            let giver_over = giver.over_limit(calc, cluster);
            if !same_user && !giver_over && user_limit_first {
                continue;
            }
            let mut available = sub(apps[l].to_be_preempted, apps[l].actually_to_be_preempted);
            if !same_user && apps[l].priority == apps[h].priority && giver_over {
                let excess = if giver.excess_given {
                    Resource::ZERO
                } else {
                    sub(sub(giver.used_deduct_am(), giver.selected), giver.limit)
                };
                if calc.lt(cluster, excess, available) {
                    giver.excess_given = true;
                    available = excess;
                }
            }
            if calc.gt(cluster, available, Resource::ZERO) {
                let take = calc.min(cluster, apps[h].from_other, available);
                apps[h].from_other = sub(apps[h].from_other, take);
                apps[l].actually_to_be_preempted = add(apps[l].actually_to_be_preempted, take);
            }
        }
    }
}

/// What the selectors before this one took comes off what each application of its leaf
/// gives in the container's partition (Apache subtracts each container from every
/// application of the container's queue there, where that application gives more than
/// the container, compared within the partition's resources).
pub(super) fn deduct_selected(
    state: &State,
    parts: &[PartitionQueues],
    leaves: &mut [Leaf],
    calc: Calc,
    sel: &Selection,
) {
    let mut by_queue: HashMap<(QueueIndex, PartitionId), usize> = HashMap::default();
    for (i, l) in leaves.iter().enumerate() {
        by_queue.insert((l.queue, l.partition), i);
    }
    for c in &sel.chosen {
        let Some(partition) = candidate_node(state, c).and_then(|n| state.nodes.get(&n)).map(|n| n.partition) else {
            continue;
        };
        let Some(queue) = super::candidate_queue(state, c) else { continue };
        let Some(&i) = by_queue.get(&(queue, partition)) else { continue };
        let Some(size) = candidate_size(state, c) else { continue };
        let total = parts.iter().find(|p| p.partition == partition).map_or(Resource::ZERO, |p| p.total);
        for a in &mut leaves[i].apps {
            if calc.gt(total, a.actually_to_be_preempted, size) {
                a.actually_to_be_preempted = sub(a.actually_to_be_preempted, size);
            }
        }
    }
}

/// Containers toward each leaf's total in each partition, from its giving applications'
/// containers there, the lowest priority first (none in leaves whose switch turns
/// intra-queue preemption off).
pub(super) fn select(
    state: &State,
    calc: Calc,
    settings: &Settings,
    parts: &[PartitionQueues],
    leaves: &[Leaf],
    sel: &mut Selection,
) {
    let cluster = state.cluster;
    let user_limit_first = settings.intra_queue_order == IntraQueueOrder::UserLimitFirst;
    // (Apache reads the switch from the leaf's default-partition copy.)
    let switches = &super::ideal::default_of(parts).tqs;
    for part in parts {
        let partition = part.partition;
        for &queue in part.under_served.queues() {
            if switches[queue].intra_disabled {
                continue;
            }
            // A leaf left out of the demand owes nothing.
            let Some(leaf) = leaves.iter().find(|l| l.queue == queue && l.partition == partition) else { continue };
            let total = leaf.apps.iter().fold(Resource::ZERO, |acc, a| add(acc, a.actually_to_be_preempted));
            let mut need = Need(Some(total));
            let q = state.queues.get(queue);
            let mut rolling: HashMap<&str, Resource> =
                q.users.iter().map(|(n, u)| (n.as_str(), u.used_in(partition))).collect();
            for a in leaf.apps.iter().filter(|a| a.actually_to_be_preempted != Resource::ZERO) {
                let Some(app) = state.apps.get(&a.key) else { continue };
                let user = &leaf.users[a.user];
                let floor = add(user.limit, user.am_used);
                let here = containers_newest_first(state, a.key).into_iter().filter(|c| c.2 == partition);
                for (id, size, _) in here {
                    if need.is_paid() {
                        break;
                    }
                    let c = Candidate { container: (a.key, id), reserved_on: None, balance: false };
                    if sel.chosen_set.contains(&c.container)
                        || sel.passes_over_killable(state, &c.container)
                        || app.am_container == Some(id)
                    {
                        continue;
                    }
                    let used = rolling.get(user.name.as_str()).copied().unwrap_or(Resource::ZERO);
                    if user_limit_first && calc.le(cluster, sub(used, size), floor) {
                        break;
                    }
                    if try_take(calc, cluster, settings.intra_queue_conservative_drf, sel, &mut need, c, size)
                        && user_limit_first
                    {
                        rolling.insert(user.name.as_str(), sub(used, size));
                    }
                }
            }
        }
    }
}

/// The leaves whose users' limits counting all users the demand looked up, each with the
/// partition it looked in and the limit it read (for the leaf's cache to keep).
pub(super) fn looked_up(leaves: &[Leaf]) -> impl Iterator<Item = (QueueIndex, PartitionId, Resource)> + '_ {
    leaves.iter().map(|l| (l.queue, l.partition, l.unit_limit))
}
