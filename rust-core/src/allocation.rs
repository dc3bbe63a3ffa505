//! The allocation decision: given the scheduler's state and a node with free room, which
//! application gets the next container there, of which request, at which locality. A pure
//! function of the state; `Scheduler` applies what it returns.
//!
//! It follows Apache's CapacityScheduler (3.4): parents order children with
//! `PriorityUtilizationQueueOrderingPolicy` and pass each a resource limit; a leaf serves
//! its activated applications in ordering-policy order, skipping users over their user
//! limit; each application's request groups are tried by priority, node-local, then
//! rack-local, then off-switch, with delay scheduling by missed opportunities.

use crate::application::{App, AppKey, Locality, RequestGroup, SchedulerKey, ANY};
use crate::config::{CapacitySpec, OrderingPolicy, QueueOrdering};
use crate::node::Node;
use crate::queue::QueueIndex;
use crate::resource::Resource;
use crate::scheduler::State;
use crate::user_limit::{user_limit, weighted_user_limit, QueueForUserLimit};
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
    /// A reservation of the same application to drop first (node, container number):
    /// with `reservations-continue-look-all-nodes`, an application at its queue or user
    /// limit because of reservations may take a node that fits by giving one up.
    pub unreserve: Option<(crate::node::NodeKey, u64)>,
}

/// What one pass over the tree decided for a node.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Decision {
    /// The container to place, if any.
    pub assignment: Option<Assignment>,
    /// A container that does not fit on this node yet: hold the node for it.
    pub reserve: Option<Assignment>,
    /// Request groups that were offered this node and passed it up (for locality): each
    /// counts one missed scheduling opportunity.
    pub missed: Vec<(AppKey, SchedulerKey)>,
    /// Leaves that worked out their users' limits on this pass, with the limit each now
    /// publishes for its ApplicationMaster limit and its applications' headroom (Apache's
    /// `computeUserLimitAndSetHeadroom` refreshing `queueResourceLimitsInfo`).
    pub published: Vec<(QueueIndex, Resource)>,
    /// Applications this pass worked a headroom out for in their leaf for the first time (see
    /// `App::headroom_queue`).
    pub headroom_tracked: Vec<AppKey>,
}

/// How an application or request group fared on the node.
enum Attempt {
    Assigned(Assignment),
    /// The head-of-line request does not fit on this node: reserve it.
    Reserve(Assignment),
    /// Nothing for this request group here (no ask this node could serve); not counted
    /// as an opportunity. Try the next group.
    PrioritySkipped,
    /// The application passes on this node (delayed for locality); try the next application.
    AppSkipped,
    /// The queue has no room for the request; the leaf stops.
    QueueLimit,
}

/// Finds the next container to place on `node`.
pub fn next_assignment(state: &State, node: &Node) -> Decision {
    let mut decision = Decision::default();
    let min = state.config.cluster.minimum_allocation;
    // Apache's computeAvailableContainers: room for one minimum allocation, in the
    // resources the calculator schedules.
    if !state.calculator().fits(min, node.available()) {
        return decision;
    }
    match visit_queue(state, 0, node, state.cluster, &mut decision) {
        Outcome::Placed(Placement::Allocate(a)) => decision.assignment = Some(a),
        Outcome::Placed(Placement::Reserve(a)) => decision.reserve = Some(a),
        Outcome::QueueLimit(_) | Outcome::Nothing => {}
    }
    decision
}

/// What a queue did with the node.
enum Placement {
    Allocate(Assignment),
    Reserve(Assignment),
}

/// How a visit to a queue ended.
enum Outcome {
    Placed(Placement),
    /// A request did not fit under the queue's limit (Apache's `SkippedType.QUEUE_LIMIT`),
    /// leaving this much of the limit unusable: the parent passes its later children that
    /// much less (the "blocked headroom").
    QueueLimit(Resource),
    Nothing,
}

/// Apache's `shouldAllocOrReserveNewContainer`: the application may place or reserve
/// another container of `key` while it wants more than it holds reservations for — or,
/// once its reservations have waited through re-reservations ("starvation"), a few more,
/// fewer for containers that take a larger part of the maximum allocation.
fn may_reserve(state: &State, app: &App, key: SchedulerKey, group: &RequestGroup) -> bool {
    let wanted = i64::from(group.wanted());
    let reserved = app.reservations_for(key) as i64;
    let mut starvation = 0;
    if reserved > 0 {
        let calc = state.calculator();
        let maximum = state.queues.get(app.queue).config.maximum_allocation;
        let minimum = state.config.cluster.minimum_allocation;
        let node_factor = calc.ratio_f32(group.capability(), maximum);
        let minimum_factor = calc.ratio_f32(maximum.minus(minimum), maximum);
        let waits = app.re_reservations(key) as f32 / reserved as f32;
        starvation = (waits * (1.0 - node_factor.min(minimum_factor))) as i64;
    }
    starvation + wanted - reserved > 0
}

/// The limit a parent passes to a child (Apache's `getResourceLimitsOfChild`): what the
/// parent may still use under its own `limit` (less what blocked siblings leave unusable),
/// plus what the child already holds, rounded down to the minimum allocation. The child
/// applies its own maximum.
pub fn child_limit(
    state: &State,
    limit: Resource,
    blocked: Resource,
    parent: QueueIndex,
    child: QueueIndex,
) -> Resource {
    let p = state.queues.get(parent);
    let c = state.queues.get(child);
    // The child's usage is added first: a parent may hold more than its limit (a refresh
    // shrank it), where Apache's difference goes negative and `minus` would stop at zero.
    let room = limit.plus(c.used).minus(blocked).minus(p.used);
    state.calculator().round_down_to(room, state.config.cluster.minimum_allocation)
}

/// The limit a queue works to when its parent passes it `passed` (Apache's
/// `getCurrentLimitResource`): the smaller of that and the queue's maximum.
fn effective_limit(state: &State, queue: QueueIndex, passed: Resource) -> Resource {
    state.calculator().min(state.cluster, state.queues.get(queue).maximum(state.cluster), passed)
}

/// The limit a leaf publishes when its parent passes it `passed` (Apache's
/// `cachedResourceLimitsForHeadroom`): the leaf's maximum, rounded down to the minimum
/// allocation, or `passed` if smaller.
fn published_limit(state: &State, leaf: QueueIndex, passed: Resource) -> Resource {
    let calc = state.calculator();
    let maximum =
        calc.round_down_to(state.queues.get(leaf).maximum(state.cluster), state.config.cluster.minimum_allocation);
    calc.min(state.cluster, maximum, passed)
}

/// What every leaf publishes after the cluster or the configuration changes (Apache's
/// `updateClusterResource`): the root passes the whole cluster down, and every parent
/// passes each child its share as it stands.
pub fn published_limits(state: &State) -> Vec<(QueueIndex, Resource)> {
    let mut out = Vec::new();
    let mut stack = vec![(0, state.cluster)];
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

fn visit_queue(state: &State, queue: QueueIndex, node: &Node, passed: Resource, decision: &mut Decision) -> Outcome {
    let q = state.queues.get(queue);
    if q.is_leaf() {
        return visit_leaf(state, queue, node, passed, decision);
    }
    let limit = effective_limit(state, queue, passed);
    // A queue at or over its limit gets nothing more (Apache's canAssignToThisQueue),
    // unless giving up its reservations would bring it under (continue-looking).
    if !within_limit(state, q.used, limit, q.reserved) {
        return Outcome::Nothing;
    }
    let calc = state.calculator();
    let mut blocked: Option<Resource> = None;
    for child in ordered_children(state, queue) {
        let child_limit = child_limit(state, limit, blocked.unwrap_or(Resource::ZERO), queue, child);
        match visit_queue(state, child, node, child_limit, decision) {
            Outcome::Placed(p) => return Outcome::Placed(p),
            Outcome::QueueLimit(unusable) => {
                let unusable = calc.max(state.cluster, unusable, Resource::ZERO);
                blocked = Some(blocked.unwrap_or(Resource::ZERO).plus(unusable));
            }
            Outcome::Nothing => {}
        }
    }
    blocked.map_or(Outcome::Nothing, Outcome::QueueLimit)
}

/// Children in the order a parent offers them a node (Apache's
/// `PriorityUtilizationQueueOrderingPolicy`): queues with a guarantee before queues
/// without; then the least used relative to its guarantee (absolute usage between two
/// queues without a guarantee); with `priority-utilization`, the higher `<q>.priority`
/// first when both are under, or both over, their guarantee; ties go to the larger
/// configured capacity, then to configuration order.
pub fn ordered_children(state: &State, parent: QueueIndex) -> Vec<QueueIndex> {
    let calc = state.calculator();
    let min = state.config.cluster.minimum_allocation;
    let respect_priority = state.queues.get(parent).config.queue_ordering == QueueOrdering::PriorityUtilization;
    struct Key {
        index: QueueIndex,
        abs: f64,
        used: f64,
        abs_used: f64,
        priority: i64,
        min_resource: Resource,
    }
    let mut keys: Vec<Key> = state
        .queues
        .get(parent)
        .config
        .children
        .iter()
        .map(|&c| {
            let q = state.queues.get(c);
            Key {
                index: c,
                abs: q.absolute_capacity as f32 as f64,
                used: q.used_capacity(calc, state.cluster, min) as f32 as f64,
                abs_used: q.absolute_used_capacity(calc, state.cluster) as f32 as f64,
                priority: if respect_priority { q.config.priority } else { 0 },
                min_resource: match q.config.capacity {
                    CapacitySpec::Absolute(r) => r,
                    _ => Resource::ZERO,
                },
            }
        })
        .collect();
    let by_usage = |u1: f64, u2: f64, p1: i64, p2: i64| -> Ordering {
        if p1 == p2 || !((u1 < 1.0 && u2 < 1.0) || (u1 >= 1.0 && u2 >= 1.0)) {
            u1.total_cmp(&u2)
        } else {
            p2.cmp(&p1)
        }
    };
    keys.sort_by(|a, b| {
        let first = match (a.abs > 0.0, b.abs > 0.0) {
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            (false, false) => by_usage(a.abs_used, b.abs_used, a.priority, b.priority),
            (true, true) => by_usage(a.used, b.used, a.priority, b.priority),
        };
        first.then_with(|| {
            if !a.min_resource.is_none() || !b.min_resource.is_none() {
                b.min_resource
                    .memory_mb
                    .cmp(&a.min_resource.memory_mb)
                    .then(b.min_resource.vcores.cmp(&a.min_resource.vcores))
            } else {
                b.abs.total_cmp(&a.abs)
            }
        })
    });
    keys.into_iter().map(|k| k.index).collect()
}

/// Activated applications of a leaf in the order its ordering policy serves them. A leaf
/// keeps its applications in FIFO order (priority, then submission), so FIFO needs no sort.
pub fn ordered_apps(state: &State, queue: QueueIndex) -> Vec<(AppKey, &App)> {
    let q = state.queues.get(queue);
    let mut apps: Vec<(AppKey, &App)> =
        q.apps.iter().filter_map(|k| state.apps.get(k).map(|a| (*k, a))).filter(|(_, a)| a.active).collect();
    if q.config.ordering_policy == OrderingPolicy::Fair {
        apps.sort_by(|a, b| a.1.used.memory_mb.cmp(&b.1.used.memory_mb).then(a.1.app_id.cmp(&b.1.app_id)));
    }
    apps
}

/// The FIFO position of an application: higher priority first, then earlier submission.
pub fn fifo_key(app: &App) -> (std::cmp::Reverse<i64>, (i64, i32)) {
    (std::cmp::Reverse(app.priority), app.app_id)
}

/// The user-limit inputs of a leaf queue as they stand.
pub fn user_limit_inputs(state: &State, queue: QueueIndex) -> QueueForUserLimit {
    let q = state.queues.get(queue);
    let (active_used, active_weight) =
        q.users.iter().filter(|(_, u)| u.is_active()).fold((Resource::ZERO, 0.0), |(used, w), (name, u)| {
            (used.plus(u.used), w + q.config.user_weights.get(name).copied().unwrap_or(1.0))
        });
    QueueForUserLimit {
        cluster: state.cluster,
        guaranteed: q.guaranteed(state.cluster),
        maximum: q.maximum(state.cluster),
        minimum_allocation: state.config.cluster.minimum_allocation,
        consumed: q.users_consumed(state.calculator(), state.cluster, state.config.cluster.minimum_allocation),
        active_users_used: active_used,
        active_users_weight: active_weight,
        minimum_user_limit_percent: q.config.minimum_user_limit_percent,
        user_limit_factor: q.config.user_limit_factor,
    }
}

/// The limit for `user` in `queue` now, weight applied.
pub fn limit_for_user(state: &State, queue: QueueIndex, user: &str) -> Resource {
    weighted_limit(state, queue, user_limit(state.calculator(), &user_limit_inputs(state, queue)), user)
}

fn weighted_limit(state: &State, queue: QueueIndex, limit: Resource, user: &str) -> Resource {
    let weights = &state.queues.get(queue).config.user_weights;
    if weights.is_empty() {
        return limit;
    }
    let weight = weights.get(user).copied().unwrap_or(1.0);
    if weight == 1.0 {
        return limit;
    }
    weighted_user_limit(state.calculator(), limit, weight, state.config.cluster.minimum_allocation)
}

fn visit_leaf(state: &State, queue: QueueIndex, node: &Node, passed: Resource, decision: &mut Decision) -> Outcome {
    let calc = state.calculator();
    let q = state.queues.get(queue);
    // A leaf with nothing asked of it (by its active or its pending applications) is
    // passed over without a look at its limits.
    if !q.apps.iter().any(|k| state.apps.get(k).is_some_and(App::is_asking)) {
        return Outcome::Nothing;
    }
    let limit = effective_limit(state, queue, passed);
    // The unweighted limit is the same for every user of the leaf during this pass.
    let mut base_limit: Option<Resource> = None;
    let fair_order;
    let apps: &mut dyn Iterator<Item = (AppKey, &App)> = if q.config.ordering_policy == OrderingPolicy::Fifo {
        // The leaf keeps its applications in FIFO order already.
        &mut q.apps.iter().filter_map(|k| state.apps.get(k).map(|a| (*k, a))).filter(|(_, a)| a.active)
    } else {
        fair_order = ordered_apps(state, queue);
        &mut fair_order.iter().copied()
    };
    let continue_looking = state.config.global.reservations_continue_look_all_nodes;
    // Apache checks the queue's limit at the first application, and again at each next
    // one only while they hold reservations that continue-looking could give up.
    let mut check_queue_limit = true;
    for (key, app) in apps {
        let app_reserved = if continue_looking { app.reserved() } else { Resource::ZERO };
        if check_queue_limit {
            if !within_limit(state, q.used, limit, app_reserved) {
                return Outcome::Nothing;
            }
            if decision.published.last().is_none_or(|(leaf, _)| *leaf != queue) {
                decision.published.push((queue, published_limit(state, queue, passed)));
            }
            check_queue_limit = continue_looking && !app_reserved.is_none();
        }
        if app.headroom_queue != Some(queue) {
            decision.headroom_tracked.push(key);
        }
        if !app.is_asking() {
            continue;
        }
        let base = *base_limit.get_or_insert_with(|| user_limit(calc, &user_limit_inputs(state, queue)));
        let ul = weighted_limit(state, queue, base, &app.user);
        let user_used = q.users.get(&app.user).map_or(Resource::ZERO, |u| u.used);
        // A user may go over the limit by one container, never further (Apache compares
        // what the user holds, before this container, with the limit) — unless its own
        // reservations are what puts it over, and it gives one up (continue-looking).
        let mut user_must_unreserve = Resource::ZERO;
        if calc.greater_than(state.cluster, user_used, ul) {
            if app_reserved.is_none() || calc.greater_than(state.cluster, user_used.minus(app_reserved), ul) {
                continue;
            }
            user_must_unreserve = user_used.difference(ul);
        }
        let room = Room { headroom: limit.difference(q.used), app_reserved, user_must_unreserve, continue_looking };
        match try_app(state, key, app, node, &room, &mut decision.missed) {
            Attempt::Assigned(a) => return Outcome::Placed(Placement::Allocate(a)),
            Attempt::Reserve(a) => return Outcome::Placed(Placement::Reserve(a)),
            Attempt::QueueLimit => return Outcome::QueueLimit(room.headroom),
            Attempt::AppSkipped | Attempt::PrioritySkipped => continue,
        }
    }
    Outcome::Nothing
}

/// True when `used` is under `limit`, or would be without `could_unreserve`.
fn within_limit(state: &State, used: Resource, limit: Resource, could_unreserve: Resource) -> bool {
    let calc = state.calculator();
    calc.compare(state.cluster, used, limit).is_lt()
        || (!could_unreserve.is_none() && calc.compare(state.cluster, used.minus(could_unreserve), limit).is_lt())
}

/// What an application may use on this node.
struct Room {
    /// The queue's limit minus what it uses (below zero when it is over in some resource).
    headroom: Resource,
    /// The application's reservations, when continue-looking may give them up (else zero).
    app_reserved: Resource,
    /// How far the user is over its limit (to be made up by giving up a reservation).
    user_must_unreserve: Resource,
    /// `reservations-continue-look-all-nodes`.
    continue_looking: bool,
}

fn try_app(
    state: &State,
    key: AppKey,
    app: &App,
    node: &Node,
    room: &Room,
    missed: &mut Vec<(AppKey, SchedulerKey)>,
) -> Attempt {
    let calc = state.calculator();
    for (&sk, group) in &app.requests {
        if group.wanted() == 0 {
            continue;
        }
        let required = group.capability();
        let should_reserve = may_reserve(state, app, sk, group);
        // Without continue-looking a request with enough reservations waits for them.
        if !room.continue_looking && !should_reserve {
            continue;
        }
        // Apache's checkHeadroom: the request must fit what the queue has left (plus what
        // giving up reservations would free) in every resource the calculator schedules.
        if !calc.fits(required, room.headroom.plus(room.app_reserved)) {
            return Attempt::QueueLimit;
        }
        // Apache checks the blacklist after the headroom, and skips the whole application
        // without counting a missed opportunity.
        if app.blacklist.excludes(&node.host, &node.rack) {
            return Attempt::AppSkipped;
        }
        // What must be given up to place a container of `size`: the part above the queue's
        // headroom, or the user's excess, whichever is larger.
        let need = |size: Resource| calc.max(state.cluster, size.difference(room.headroom), room.user_must_unreserve);
        // A node- or rack-local level this node cannot serve hands over to the next level
        // (Apache's LOCALITY_SKIPPED); at the off-switch level the application is skipped,
        // with the opportunity counted.
        let mut after = None;
        let skipped = loop {
            let (locality, size, fits) = match try_group(state, app, sk, group, node, after) {
                GroupResult::Placed(locality, size) => (locality, size, true),
                GroupResult::NoRoom(locality, size) => (locality, size, false),
                GroupResult::Skipped => break None,
                GroupResult::Delayed => break Some(Attempt::AppSkipped),
            };
            let need = need(size);
            if fits {
                let mut unreserve = None;
                // Apache's `isAnyMajorResourceAboveZero`: under the Default calculator a
                // vcore shortfall is no reason to give up a reservation.
                let must_unreserve = calc.any_above_zero(need);
                if room.continue_looking && (!should_reserve || must_unreserve) {
                    let wanted = if must_unreserve { need } else { size };
                    unreserve = find_reservation_to_drop(state, app, sk, wanted, node);
                    if unreserve.is_none() {
                        if locality == Locality::OffSwitch {
                            break Some(Attempt::AppSkipped);
                        }
                        after = Some(locality);
                        continue;
                    }
                }
                return Attempt::Assigned(Assignment { app: key, key: sk, resource: size, locality, unreserve });
            }
            // The node cannot hold the request now: reserve the node for it (Apache's
            // reservations), so smaller containers do not starve it.
            let over = room.continue_looking && calc.any_above_zero(need);
            if should_reserve && !over {
                if node.reservation.is_some() {
                    break Some(Attempt::AppSkipped);
                }
                missed.push((key, sk));
                return Attempt::Reserve(Assignment { app: key, key: sk, resource: size, locality, unreserve: None });
            }
            if locality == Locality::OffSwitch {
                break Some(Attempt::AppSkipped);
            }
            after = Some(locality);
        };
        match skipped {
            Some(attempt) => {
                missed.push((key, sk));
                return attempt;
            }
            None => continue,
        }
    }
    Attempt::PrioritySkipped
}

/// Apache's `findNodeToUnreserve`: a reservation of the same request on another node,
/// at least as large as `wanted`.
fn find_reservation_to_drop(
    state: &State,
    app: &App,
    key: SchedulerKey,
    wanted: Resource,
    here: &Node,
) -> Option<(crate::node::NodeKey, u64)> {
    let calc = state.calculator();
    // Apache keeps an application's reservations of one request in a HashMap by node and
    // takes the first, in that map's order, that is at least as large as what must be
    // given up (in every resource the calculator schedules).
    let mut held: Vec<(u64, crate::node::NodeKey, &str)> = app
        .reservations
        .iter()
        .filter(|(_, (_, k, _))| *k == key)
        .filter_map(|(number, (node, _, _))| state.nodes.get(node).map(|n| (*number, *node, n.node_id.as_str())))
        .collect();
    held.sort_unstable();
    let ids: Vec<&str> = held.iter().map(|(_, _, id)| *id).collect();
    crate::java_order::node_map_order(&ids)
        .into_iter()
        .map(|i| held[i])
        .find(|(number, node, id)| {
            *id != here.node_id && calc.fits(wanted, app.reservations[number].2) && state.nodes.contains_key(node)
        })
        .map(|(number, node, _)| (node, number))
}

enum GroupResult {
    /// A container of this size fits here at this locality.
    Placed(Locality, Resource),
    /// No request of this group can use this node at all.
    Skipped,
    /// Waiting for a more local node.
    Delayed,
    /// Allowed here at this locality but the node lacks room for this size.
    NoRoom(Locality, Resource),
}

/// Apache's `assignContainersOnNode` + `canAssign` for one request group on one node,
/// from the most local level after `after` (all levels when `None`): the caller comes
/// back with the level it could not use (Apache's LOCALITY_SKIPPED) to try the next.
fn try_group(
    state: &State,
    app: &App,
    key: SchedulerKey,
    group: &RequestGroup,
    node: &Node,
    after: Option<Locality>,
) -> GroupResult {
    // A container larger than the whole node can never be placed here; do not hold the
    // node for it.
    // Both questions in the resources the calculator schedules: under the Default
    // calculator vcores do not stop a container.
    let calc = state.calculator();
    if !calc.fits(group.capability(), node.total) {
        return GroupResult::Skipped;
    }
    // A container is placed at the size asked at its locality level; one the node could
    // never hold skips that level (Apache's LOCALITY_SKIPPED).
    let at = |locality: Locality, name: &str| {
        let size = group.capability_at(name);
        if !calc.fits(size, node.total) {
            None
        } else if calc.fits(size, node.available()) {
            Some(GroupResult::Placed(locality, size))
        } else {
            Some(GroupResult::NoRoom(locality, size))
        }
    };
    let nodes = state.nodes.len() as u64;
    // The opportunity this node represents counts too.
    let missed = app.missed(key) + 1;
    let g = &state.config.global;
    let mut delayed = false;
    let node_level = after.is_none();
    let rack_level = after.is_none_or(|l| l == Locality::NodeLocal);
    if node_level && group.count(&node.host) > 0 {
        if group.count(&node.rack) > 0 {
            if let Some(r) = at(Locality::NodeLocal, &node.host) {
                return r;
            }
        }
        delayed = true;
    }
    if rack_level && group.count(&node.rack) > 0 {
        if !group.relaxes(&node.rack) {
            return GroupResult::Skipped;
        }
        if state.node_locality_delay() < missed {
            if let Some(r) = at(Locality::RackLocal, &node.rack) {
                return r;
            }
        }
        delayed = true;
    }
    if group.count(ANY) > 0 {
        if !group.relaxes(ANY) || !group.relaxes(&node.rack) {
            return GroupResult::Skipped;
        }
        let uniq = group.unique_locations();
        let can = if uniq <= 1 {
            true
        } else if g.rack_locality_additional_delay > -1 {
            missed > nodes.min((g.node_locality_delay + g.rack_locality_additional_delay).max(0) as u64)
        } else {
            let wait_factor = ((uniq - 1) as f64 / nodes.max(1) as f64).min(1.0);
            (nodes as f64).min(group.count(ANY) as f64 * wait_factor) < missed as f64
        };
        if can {
            return at(Locality::OffSwitch, ANY).unwrap_or(GroupResult::Skipped);
        }
        return GroupResult::Delayed;
    }
    if delayed {
        GroupResult::Delayed
    } else {
        GroupResult::Skipped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ClusterSettings, SchedulerConfig};
    use crate::scheduler::Scheduler;

    fn scheduler(extra: &str) -> Scheduler {
        let xml = format!(
            "<configuration>
              <property><name>yarn.scheduler.capacity.root.queues</name><value>a,b,c,z</value></property>
              <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>20</value></property>
              <property><name>yarn.scheduler.capacity.root.b.capacity</name><value>30</value></property>
              <property><name>yarn.scheduler.capacity.root.c.capacity</name><value>50</value></property>
              <property><name>yarn.scheduler.capacity.root.z.capacity</name><value>0</value></property>
              {extra}
            </configuration>"
        );
        let cfg = SchedulerConfig::from_xml(xml.as_bytes(), "t.xml", ClusterSettings::default()).unwrap();
        let mut s = Scheduler::new(cfg, 0);
        s.add_node("n:1", "n", "/r", Resource::new(100 * 1024, 100));
        s
    }

    fn names(s: &Scheduler) -> Vec<String> {
        ordered_children(s.state(), 0).iter().map(|&i| s.state().queues.get(i).config.name.clone()).collect()
    }

    #[test]
    fn idle_children_go_larger_guarantee_first_and_unguaranteed_last() {
        assert_eq!(names(&scheduler("")), ["c", "b", "a", "z"]);
    }

    #[test]
    fn the_least_used_relative_to_its_guarantee_goes_first() {
        let mut s = scheduler("");
        let st = s.state().clone();
        let c = st.queues.resolve("c").unwrap();
        let a = st.queues.resolve("a").unwrap();
        // c uses 40% of its guarantee, a 50%: c first, then the idle b, then a.
        let mut tree = st.queues.clone();
        tree.charge(c, Resource::new(20 * 1024, 20));
        tree.charge(a, Resource::new(10 * 1024, 10));
        s = Scheduler::from_state_for_tests(crate::scheduler::State { queues: tree, ..st });
        assert_eq!(names(&s), ["b", "c", "a", "z"]);
    }

    #[test]
    fn priority_utilization_prefers_priority_among_queues_on_the_same_side_of_their_guarantee() {
        let extra = "<property><name>yarn.scheduler.capacity.root.ordering-policy</name><value>priority-utilization</value></property>
                     <property><name>yarn.scheduler.capacity.root.a.priority</name><value>5</value></property>";
        let s = scheduler(extra);
        // All idle (under their guarantee): a's priority wins.
        assert_eq!(names(&s)[0], "a");
    }
}
