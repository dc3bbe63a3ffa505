//! Limits, as pure functions of the state: what a parent passes each child, what a leaf
//! publishes for its ApplicationMaster limit and headroom, the user limit (Apache's
//! `UsersManager` formula: the queue shared among *active* users by weight, with
//! `minimum-user-limit-percent` as the floor and `user-limit-factor` times the guarantee
//! as the ceiling), the ApplicationMaster limits and an application's headroom.

use crate::ids::{AppKey, QueueIndex};
use crate::model::{LimitCache, PartitionId, State, DEFAULT_PARTITION};
use crate::resource::{Resource, ResourceCalculator};

/// The limit a parent passes to a child (Apache's `getResourceLimitsOfChild`): what the
/// parent may still use under its own `limit` (less what blocked siblings leave unusable),
/// plus what its killable containers hold (room it may take back) and what the child
/// already holds, rounded down to the minimum allocation. The child applies its own
/// maximum. As in Apache, nothing is floored: a parent holding more than its limit (a
/// refresh shrank it, a node left) passes a limit below zero in some resource, which
/// decides what its children's ApplicationMaster limits are worked out from.
pub fn child_limit(
    state: &State,
    limit: Resource,
    blocked: Resource,
    parent: QueueIndex,
    child: QueueIndex,
) -> Resource {
    child_limit_in(state, DEFAULT_PARTITION, limit, blocked, parent, child)
}

/// [`child_limit`] in `partition` (counting the parent's killable containers there).
pub fn child_limit_in(
    state: &State,
    partition: PartitionId,
    limit: Resource,
    blocked: Resource,
    parent: QueueIndex,
    child: QueueIndex,
) -> Resource {
    let p = state.queues.get(parent);
    let c = state.queues.get(child);
    let killable = state.killable_under_in(parent, partition);
    let room = limit.difference(blocked).difference(p.used_in(partition)).plus(killable).plus(c.used_in(partition));
    state.calculator().round_down_to(room, state.minimum_allocation())
}

/// The limit a queue works to when its parent passes it `passed` (Apache's
/// `getCurrentLimitResource`): the smaller of that and the queue's maximum.
pub fn effective_limit(state: &State, queue: QueueIndex, passed: Resource) -> Resource {
    state.calculator().min(state.cluster, state.queues.get(queue).maximum(), passed)
}

/// [`effective_limit`] in `partition`.
pub fn effective_limit_in(state: &State, partition: PartitionId, queue: QueueIndex, passed: Resource) -> Resource {
    state.calculator().min(state.cluster, state.maximum_in(queue, partition), passed)
}

/// The limit a leaf publishes when its parent passes it `passed` (Apache's
/// `cachedResourceLimitsForHeadroom`): the leaf's maximum, rounded down to the minimum
/// allocation, or `passed` if smaller.
pub fn published_limit(state: &State, leaf: QueueIndex, passed: Resource) -> Resource {
    let calc = state.calculator();
    let maximum = calc.round_down_to(state.queues.get(leaf).maximum(), state.minimum_allocation());
    calc.min(state.cluster, maximum, passed)
}

/// What every leaf publishes after the cluster or the configuration changes (Apache's
/// `updateClusterResource`): the root passes the whole cluster down, and every parent
/// passes each child its share as it stands.
pub fn published_limits(state: &State) -> Vec<(QueueIndex, Resource)> {
    published_limits_under(state, 0)
}

/// The same for the leaves under `top` alone, `top` handed the whole cluster as its limit —
/// what Apache's parent works out when a queue is created under it
/// (`updateClusterResource(cluster, new ResourceLimits(cluster))`).
pub fn published_limits_under(state: &State, top: QueueIndex) -> Vec<(QueueIndex, Resource)> {
    let mut out = Vec::new();
    let mut stack = vec![(top, state.default_partition())];
    while let Some((queue, passed)) = stack.pop() {
        let q = state.queues.get(queue);
        if q.is_leaf() {
            out.push((queue, published_limit(state, queue, passed)));
            continue;
        }
        let limit = effective_limit(state, queue, passed);
        for &child in &q.config.children {
            stack.push((child, child_limit(state, limit, Resource::ZERO, queue, child)));
        }
    }
    out
}

/// True when `used` is under `limit`, or would be without `could_unreserve`.
pub fn within_limit(state: &State, used: Resource, limit: Resource, could_unreserve: Resource) -> bool {
    let calc = state.calculator();
    calc.compare(state.cluster, used, limit).is_lt()
        || (!could_unreserve.is_none() && calc.compare(state.cluster, used.minus(could_unreserve), limit).is_lt())
}

/// The user-limit inputs of a leaf queue as they stand.
pub fn user_limit_inputs(state: &State, queue: QueueIndex) -> QueueForUserLimit {
    user_limit_inputs_in(state, DEFAULT_PARTITION, queue)
}

/// [`user_limit_inputs`] in `partition`: its resources, the leaf's shares of them and its
/// users' usage there. (In a labelled partition the users' usage ratios are summed
/// afresh, where Apache keeps a running float sum.)
pub fn user_limit_inputs_in(state: &State, partition: PartitionId, queue: QueueIndex) -> QueueForUserLimit {
    let q = state.queues.get(queue);
    if partition != DEFAULT_PARTITION {
        let calc = state.calculator();
        let resource = state.partitions.get(partition).resource;
        let (active_used, active_weight) =
            q.users.iter().filter(|(_, u)| u.is_active()).fold((Resource::ZERO, 0.0), |(used, w), (name, u)| {
                (used.plus(u.used_in(partition)), w + q.config.user_weight(name))
            });
        let ratio: f32 = q.users.values().map(|u| calc.ratio_f32(u.used_in(partition), resource)).sum();
        return QueueForUserLimit {
            cluster: resource,
            guaranteed: state.guaranteed_in(queue, partition),
            maximum: state.maximum_in(queue, partition),
            minimum_allocation: state.minimum_allocation(),
            consumed: calc.multiply_and_normalize_up(resource, f64::from(ratio), state.minimum_allocation()),
            active_users_used: active_used,
            active_users_weight: active_weight,
            minimum_user_limit_percent: q.config.minimum_user_limit_percent,
            user_limit_factor: q.config.user_limit_factor,
            ceiling: None,
        };
    }
    let active = q.users.active_sums(|name| q.config.user_weight(name));
    QueueForUserLimit {
        cluster: state.default_partition(),
        guaranteed: q.guaranteed(),
        maximum: q.maximum(),
        minimum_allocation: state.minimum_allocation(),
        consumed: q.users_consumed(state.calculator(), state.default_partition(), state.minimum_allocation()),
        active_users_used: active.used,
        active_users_weight: active.weight,
        minimum_user_limit_percent: q.config.minimum_user_limit_percent,
        user_limit_factor: q.config.user_limit_factor,
        ceiling: None,
    }
}

/// The limit for `user` in `queue` now, weight applied.
pub fn limit_for_user(state: &State, queue: QueueIndex, user: &str) -> Resource {
    weighted_limit(state, queue, user_limit(state.calculator(), &user_limit_inputs(state, queue)), user)
}

/// [`limit_for_user`] in `partition`.
pub fn limit_for_user_in(state: &State, partition: PartitionId, queue: QueueIndex, user: &str) -> Resource {
    if partition == DEFAULT_PARTITION {
        return limit_for_user(state, queue, user);
    }
    weighted_limit(state, queue, user_limit(state.calculator(), &user_limit_inputs_in(state, partition, queue)), user)
}

/// `limit` (the limit for one unit of user weight) scaled by `user`'s weight in `queue`.
/// The weight is the one the leaf's record of the user holds: a user the leaf has no
/// record of (it was forgotten there) weighs 1, as Apache looks the weight up among the
/// leaf's users, finds none, and takes the default.
pub fn weighted_limit(state: &State, queue: QueueIndex, limit: Resource, user: &str) -> Resource {
    let q = state.queues.get(queue);
    let weight = q.config.user_weight(user);
    if weight == 1.0 || !q.users.contains_key(user) {
        return limit;
    }
    weighted_user_limit(state.calculator(), limit, weight, state.minimum_allocation())
}

/// Everything the user-limit formula reads about one leaf queue.
#[derive(Debug, Clone, Copy)]
pub struct QueueForUserLimit {
    /// The cluster (partition) resource.
    pub cluster: Resource,
    /// The queue's guaranteed resource.
    pub guaranteed: Resource,
    /// The queue's maximum resource (used when `user-limit-factor` is -1).
    pub maximum: Resource,
    /// `yarn.scheduler.minimum-allocation-*`.
    pub minimum_allocation: Resource,
    /// What the queue holds, as the formula sees it (`Queue::users_consumed`).
    pub consumed: Resource,
    /// Resources held by the queue's active users.
    pub active_users_used: Resource,
    /// Sum of the active users' weights.
    pub active_users_weight: f64,
    /// `minimum-user-limit-percent`.
    pub minimum_user_limit_percent: f64,
    /// `user-limit-factor`.
    pub user_limit_factor: f64,
    /// The ceiling when set, in place of the one `user-limit-factor` gives (a pass lending
    /// a non-exclusive partition caps users at the whole partition).
    pub ceiling: Option<Resource>,
}

/// The limit for one unit of user weight (Apache's `computeUserLimit` for active users):
///
/// - the queue's capacity is its guarantee, or what it uses plus one minimum allocation once
///   it has grown past the guarantee (so users can keep growing into idle capacity);
/// - each active user gets `max(ceil(active users' usage / their weights),
///   capacity × minimum-user-limit-percent)`;
/// - capped at `guarantee × user-limit-factor` (or the queue's maximum when the factor is
///   -1), rounded up to the minimum allocation.
pub fn user_limit(calc: ResourceCalculator, q: &QueueForUserLimit) -> Resource {
    let capacities = capacities_for_user_limit(calc, q);
    limit_for_unit_weight(calc, q, capacities, q.active_users_used.plus(q.minimum_allocation), q.active_users_weight)
}

/// The limit for one unit of user weight counting every user of the queue, active or not
/// (Apache's `computeUserLimit` for all users, which intra-queue preemption reads): the
/// queue's current capacity shared by all their weights, with the same floor and ceiling.
pub fn user_limit_among_all(calc: ResourceCalculator, q: &QueueForUserLimit, all_users_weight: f64) -> Resource {
    let capacities = capacities_for_user_limit(calc, q);
    limit_for_unit_weight(calc, q, capacities, capacities.1, all_users_weight)
}

/// [`unit_limit_among_all`] in `partition`.
pub fn unit_limit_among_all_in(state: &State, queue: QueueIndex, partition: PartitionId) -> Resource {
    if partition == DEFAULT_PARTITION {
        return unit_limit_among_all(state, queue);
    }
    let q = state.queues.get(queue);
    let all_weight: f32 = q.users.keys().map(|name| q.config.user_weight(name) as f32).sum();
    user_limit_among_all(state.calculator(), &user_limit_inputs_in(state, partition, queue), f64::from(all_weight))
}

/// [`user_limit_among_all`] for `queue` as it stands, its users' weights summed in single
/// precision as Apache sums them; [`weighted_limit`] gives each user's.
pub fn unit_limit_among_all(state: &State, queue: QueueIndex) -> Resource {
    let q = state.queues.get(queue);
    let all_weight: f32 = q.users.keys().map(|name| q.config.user_weight(name) as f32).sum();
    user_limit_among_all(state.calculator(), &user_limit_inputs(state, queue), f64::from(all_weight))
}

/// The queue's capacity for the formula (its guarantee, at least one minimum allocation)
/// and its current capacity (that, or what it consumes plus one minimum allocation once
/// it has grown past it).
fn capacities_for_user_limit(calc: ResourceCalculator, q: &QueueForUserLimit) -> (Resource, Resource) {
    let required = q.minimum_allocation;
    let queue_capacity = calc.max(q.cluster, q.guaranteed, required);
    let current_capacity = if calc.compare(q.cluster, q.consumed, queue_capacity).is_lt() {
        queue_capacity
    } else {
        q.consumed.plus(required)
    };
    (queue_capacity, current_capacity)
}

/// `resource_used` shared by `weight` users, at least `minimum-user-limit-percent` of the
/// current capacity, at most the ceiling `user-limit-factor` sets, rounded up.
fn limit_for_unit_weight(
    calc: ResourceCalculator,
    q: &QueueForUserLimit,
    (queue_capacity, current_capacity): (Resource, Resource),
    resource_used: Resource,
    weight: f64,
) -> Resource {
    let share = calc.divide_and_ceil(resource_used, weight);
    let floor = calc.divide_and_ceil(current_capacity.scaled(q.minimum_user_limit_percent), 100.0);
    let limit = calc.max(q.cluster, share, floor);
    let ceiling = if let Some(ceiling) = q.ceiling {
        ceiling
    } else if q.user_limit_factor == -1.0 || q.guaranteed.is_none() {
        calc.round_down_to(q.maximum, q.minimum_allocation)
    } else {
        queue_capacity.scaled(q.user_limit_factor)
    };
    calc.round_up(calc.min(q.cluster, limit, ceiling), q.minimum_allocation)
}

/// The limit for a user of `weight` (Apache multiplies and rounds down).
pub fn weighted_user_limit(calc: ResourceCalculator, limit: Resource, weight: f64, step: Resource) -> Resource {
    calc.multiply_and_normalize_down(limit, weight, step)
}

/// Apache's `calculateAndGetAMResourceLimitPerPartition`: `maximum-am-resource-percent`
/// of the queue's published limit (see `Queue::published_limit`), or of its guarantee
/// when that does not fit in the limit, rounded up to the minimum allocation.
pub fn queue_am_limit(state: &State, queue: QueueIndex) -> Resource {
    queue_am_limit_in(state, queue, DEFAULT_PARTITION)
}

/// [`queue_am_limit`] in `partition`: in a labelled one, the partition's own
/// `maximum-am-resource-percent` of the queue's guarantee there (nothing where the queue
/// has no share of it).
pub fn queue_am_limit_in(state: &State, queue: QueueIndex, partition: PartitionId) -> Resource {
    let calc = state.calculator();
    let q = state.queues.get(queue);
    let guaranteed = state.guaranteed_in(queue, partition);
    // A labelled partition has no current limit to weigh against the guarantee.
    let limit = if partition == DEFAULT_PARTITION { q.published_limit } else { Resource::ZERO };
    let usable = if calc.fits(guaranteed, limit) { limit } else { guaranteed };
    // Apache holds the percentage as a Java float; widened, 0.2 is a little over 0.2,
    // which the Dominant calculator rounds up.
    let percent = am_percent_in(state, queue, partition) as f32 as f64;
    calc.multiply_and_normalize_up(usable, percent, state.minimum_allocation())
}

/// The share of the queue's part of `partition` its ApplicationMasters may hold: its
/// `maximum-am-resource-percent`, or the label's own (none for a label the queue has no
/// share of).
fn am_percent_in(state: &State, queue: QueueIndex, partition: PartitionId) -> f64 {
    let config = &state.queues.get(queue).config;
    if partition == DEFAULT_PARTITION {
        return config.maximum_am_resource_percent;
    }
    let label = &state.partitions.get(partition).name;
    config.node_labels.get(label).map_or(0.0, |c| c.maximum_am_resource_percent)
}

/// Apache's `getUserAMResourceLimitPerPartition`: the queue's guarantee times
/// `maximum-am-resource-percent`, the user's share (at least
/// `minimum-user-limit-percent`, weighted) and `user-limit-factor` (ignored when it is
/// -1), within the queue's AM limit. The share counts active users and users whose
/// only applications still wait for activation, as last counted (`PendingUsersCount`).
pub fn user_am_limit(state: &State, queue: QueueIndex, user: &str, queue_am_limit: Resource) -> Resource {
    user_am_limit_in(state, queue, user, DEFAULT_PARTITION, queue_am_limit)
}

/// [`user_am_limit`] in `partition` (its guarantee and AM percentage there).
pub fn user_am_limit_in(
    state: &State,
    queue: QueueIndex,
    user: &str,
    partition: PartitionId,
    queue_am_limit: Resource,
) -> Resource {
    let calc = state.calculator();
    let q = state.queues.get(queue);
    let users = q.users.values().filter(|u| u.is_active()).count() + q.pending_users.get();
    let weight = q.config.user_weight(user);
    let share = ((q.config.minimum_user_limit_percent / 100.0) as f32).max(1.0 / users.max(1) as f32);
    let share = (share * weight as f32).min(1.0);
    let percent = am_percent_in(state, queue, partition) as f32;
    let by =
        if q.config.user_limit_factor == -1.0 { percent } else { percent * share * q.config.user_limit_factor as f32 };
    let limit =
        calc.multiply_and_normalize_up(state.guaranteed_in(queue, partition), by as f64, state.minimum_allocation());
    calc.min(state.cluster, limit, queue_am_limit)
}

/// What the application could still get (Apache's headroom): the smaller of its
/// user's room under the user limit and its queue's room under the queue's published
/// limit, rounded down to the minimum allocation, and no more than the cluster has free.
/// Zero until its headroom has a leaf to be worked out in (see `App::headroom_queue`).
pub fn headroom(state: &State, app: AppKey) -> Resource {
    let Some(a) = state.apps.get(&app) else { return Resource::ZERO };
    let Some(leaf) = a.headroom_queue else { return Resource::ZERO };
    // An application asking in labelled partitions is told the sum of its headroom in
    // each partition it asks in (Apache's CapacityHeadroomProvider).
    let partitions = &a.requested_partitions;
    if partitions.iter().all(|p| p.is_empty()) {
        return headroom_in(state, leaf, &a.user, a.headroom_user_forgotten);
    }
    let mut sum = partitions.iter().fold(Resource::ZERO, |sum, label| {
        let h = match state.partitions.find(label) {
            Some(DEFAULT_PARTITION) => headroom_in(state, leaf, &a.user, a.headroom_user_forgotten),
            Some(p) => labelled_headroom(state, leaf, &a.user, p),
            None => Resource::ZERO,
        };
        sum.plus(h)
    });
    sum.memory_mb = sum.memory_mb.max(0);
    sum
}

/// The user-limit caches working out `app`'s headroom reads (see [`headroom`]): the
/// default partition's, or each partition it asks in.
pub fn headroom_caches(state: &State, app: &crate::model::App) -> Vec<LimitCache> {
    let partitions = &app.requested_partitions;
    if partitions.iter().all(|p| p.is_empty()) {
        return vec![LimitCache::of(DEFAULT_PARTITION)];
    }
    partitions.iter().filter_map(|label| state.partitions.find(label)).map(LimitCache::of).collect()
}

/// The headroom of `user` in `leaf` in the labelled `partition`: the room under its user
/// limit there and under the leaf's maximum share of it, within what the partition has
/// free (Apache's `getHeadroom` for a partition).
fn labelled_headroom(state: &State, leaf: QueueIndex, user: &str, partition: PartitionId) -> Resource {
    let calc = state.calculator();
    let q = state.queues.get(leaf);
    let limit = limit_for_user_in(state, partition, leaf, user);
    let user_used = q.users.get(user).map_or(Resource::ZERO, |u| u.used_in(partition));
    let room = limit.minus(user_used).component_min(state.maximum_in(leaf, partition).minus(q.used_in(partition)));
    let headroom = calc.round_down_to(room, state.minimum_allocation());
    let resource = state.partitions.get(partition).resource;
    let free = resource.difference(state.queues.get(0).used_in(partition));
    calc.min(resource, free, headroom)
}

/// What any application of `user` in the leaf could still get: the headroom above, which
/// Apache also publishes as the user's available resources in its queue metrics.
pub fn user_headroom(state: &State, leaf: QueueIndex, user: &str) -> Resource {
    headroom_in(state, leaf, user, false)
}

/// The headroom of `user` in `leaf`. A `forgotten` user (one the leaf dropped after its
/// application moved away, whose old record Apache's headroom provider still holds)
/// counts as holding nothing there.
fn headroom_in(state: &State, leaf: QueueIndex, user: &str, forgotten: bool) -> Resource {
    let calc = state.calculator();
    let q = state.queues.get(leaf);
    let user_used = if forgotten { Resource::ZERO } else { q.users.get(user).map_or(Resource::ZERO, |u| u.used) };
    let user_room = limit_for_user(state, leaf, user).minus(user_used);
    let queue_room = q.published_limit.minus(q.used);
    let headroom = calc.round_down_to(user_room.component_min(queue_room), state.minimum_allocation());
    // What the cluster has free, not floored: Apache subtracts plainly, so where the
    // calculator ignores vcores the cluster may be over in them, and an AM is told so.
    let partition = state.default_partition();
    let free = partition.difference(state.queues.get(0).used);
    calc.min(partition, free, headroom)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GB: i64 = 1024;

    fn queue(users_used: i64, active_weight: f64, mulp: f64, ulf: f64) -> QueueForUserLimit {
        QueueForUserLimit {
            cluster: Resource::new(1000 * GB, 1000),
            guaranteed: Resource::new(100 * GB, 100),
            maximum: Resource::new(1000 * GB, 1000),
            minimum_allocation: Resource::new(GB, 1),
            consumed: Resource::new(users_used, 1),
            active_users_used: Resource::new(users_used, 1),
            active_users_weight: active_weight,
            minimum_user_limit_percent: mulp,
            user_limit_factor: ulf,
            ceiling: None,
        }
    }

    #[test]
    fn one_user_gets_the_whole_guarantee_times_the_factor() {
        let c = ResourceCalculator::Memory;
        // An idle queue: the single user may take the guarantee (factor 1)...
        assert_eq!(user_limit(c, &queue(0, 1.0, 100.0, 1.0)).memory_mb, 100 * GB);
        // ... or twice it with user-limit-factor 2 once the queue has grown.
        assert_eq!(user_limit(c, &queue(150 * GB, 1.0, 100.0, 2.0)).memory_mb, 151 * GB);
        assert_eq!(user_limit(c, &queue(300 * GB, 1.0, 100.0, 2.0)).memory_mb, 200 * GB);
    }

    #[test]
    fn minimum_user_limit_percent_is_the_floor_as_users_arrive() {
        let c = ResourceCalculator::Memory;
        // minimum-user-limit-percent 20: with 2 active users on a full queue each gets half...
        assert_eq!(user_limit(c, &queue(100 * GB, 2.0, 20.0, 1.0)).memory_mb, 51 * GB);
        // ... with 5, a fifth; with 6 or more the share stays at the 20% floor.
        assert_eq!(user_limit(c, &queue(100 * GB, 5.0, 20.0, 1.0)).memory_mb, 21 * GB);
        let six = user_limit(c, &queue(100 * GB, 6.0, 20.0, 1.0)).memory_mb;
        assert_eq!(six, 21 * GB);
        assert!(six * 5 > 100 * GB, "five users at the floor already fill the queue; a sixth waits");
    }

    #[test]
    fn weights_scale_the_limit_down_to_the_minimum_allocation() {
        let c = ResourceCalculator::Memory;
        let l = user_limit(c, &queue(100 * GB, 2.0, 100.0, 1.0));
        assert_eq!(weighted_user_limit(c, l, 0.5, Resource::new(GB, 1)).memory_mb, 50 * GB);
    }
}
