//! Users inside a leaf queue and the limit each may hold: Apache's `UsersManager`
//! formula (Hadoop 3.x), which shares the queue among *active* users (those with
//! outstanding requests) by weight, with `minimum-user-limit-percent` as the floor and
//! `user-limit-factor` times the queue's capacity as the ceiling.

use crate::resource::{Resource, ResourceCalculator};

/// One user's standing in one leaf queue.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UserState {
    /// Resources the user's containers hold in this queue.
    pub used: Resource,
    /// `used` as a share of the cluster (the dominant share under DRF), as last worked out
    /// (Apache's per-user usage ratio, a Java float).
    pub usage_ratio: f32,
    /// Resources held by the user's ApplicationMasters in this queue.
    pub am_used: Resource,
    /// The user's applications that are activated (may get containers).
    pub active_apps: usize,
    /// The user's applications waiting for activation (AM or parallel-app limits).
    pub pending_apps: usize,
    /// The user's applications that make it "active" (see `Scheduler::count_user_active`:
    /// Apache's rule, not simply those asking); the user is active when > 0.
    pub apps_counted_active: usize,
}

impl UserState {
    /// True when the user counts towards sharing the queue.
    pub fn is_active(&self) -> bool {
        self.apps_counted_active > 0
    }

    /// True when the user has no applications left in the queue (none still counting it
    /// as active either).
    pub fn is_idle(&self) -> bool {
        self.active_apps == 0 && self.pending_apps == 0 && self.used.is_none() && self.apps_counted_active == 0
    }

    /// Works the usage ratio out again for `used` against `cluster`, returning how much it
    /// moved (Apache's `User.updateUsageRatio`), for the leaf to add to its sum.
    pub fn update_usage_ratio(&mut self, calc: ResourceCalculator, cluster: Resource) -> f32 {
        let ratio = calc.ratio_f32(self.used, cluster);
        let delta = ratio - self.usage_ratio;
        self.usage_ratio = ratio;
        delta
    }
}

/// How many of a leaf's users have applications that all still wait for activation, as
/// Apache's `UsersManager` knows it. It counts them only when it recomputes its cached user
/// limits, and it recomputes only at a limit lookup after something invalidated the cache
/// (`userLimitNeedsRecompute`: a user becoming active or inactive, a container charged or
/// released, the cluster or the configuration changing). Submissions and activations do
/// not invalidate it, so the count the per-user ApplicationMaster limit reads can lag.
#[derive(Debug, Clone, Default)]
pub struct PendingUsersCount {
    /// Bumped by every invalidation.
    version: u64,
    /// The version the count was taken at; `None` before the first lookup.
    counted_at: Option<u64>,
    count: usize,
}

impl PendingUsersCount {
    /// `userLimitNeedsRecompute`.
    pub fn invalidate(&mut self) {
        self.version += 1;
    }

    /// A user-limit lookup: counts the users again if the cache was invalidated since the
    /// last count.
    pub fn look_up<'a>(&mut self, users: impl Iterator<Item = &'a UserState>) {
        if self.counted_at != Some(self.version) {
            self.count = users.filter(|u| u.pending_apps > 0 && u.active_apps == 0).count();
            self.counted_at = Some(self.version);
        }
    }

    /// The count as of the last lookup that took it.
    pub fn get(&self) -> usize {
        self.count
    }
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
    let required = q.minimum_allocation;
    let queue_capacity = calc.max(q.cluster, q.guaranteed, required);
    let consumed = q.consumed;
    let current_capacity = if calc.compare(q.cluster, consumed, queue_capacity).is_lt() {
        queue_capacity
    } else {
        consumed.plus(required)
    };
    let resource_used = q.active_users_used.plus(required);
    let share = calc.divide_and_ceil(resource_used, q.active_users_weight);
    let floor = calc.divide_and_ceil(current_capacity.scaled(q.minimum_user_limit_percent), 100.0);
    let limit = calc.max(q.cluster, share, floor);
    let ceiling = if q.user_limit_factor == -1.0 || q.guaranteed.is_none() {
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
