//! The allocation decision: given the scheduler's state and a node with free room, which
//! application gets the next container there, of which request, at which locality. A pure
//! function of the state; `Scheduler` applies what it returns.
//!
//! It follows Apache's CapacityScheduler (3.4): parents order children with
//! `PriorityUtilizationQueueOrderingPolicy` and pass each a resource limit; a leaf serves
//! its activated applications in ordering-policy order, skipping users over their user
//! limit; each application's request groups are tried by priority, node-local, then
//! rack-local, then off-switch, with delay scheduling by missed opportunities.

use crate::config::OrderingPolicy;
use crate::ids::{AppKey, ContainerId, ContainerRef, Locality, NodeKey, QueueIndex, SchedulerKey};
use crate::java_order;
use crate::model::{App, Node, RequestGroup, Reservation, State, DEFAULT_PARTITION};
use crate::model::{LimitCache, PartitionId};
use crate::policy::limits::{
    child_limit_in, effective_limit_in, published_limit, user_limit, user_limit_inputs_in, weighted_limit, within_limit,
};
use crate::policy::locality::{try_group, GroupResult};
use crate::policy::ordering::{active_apps, children_in_order, ordered_apps};
use crate::resource::Resource;

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
    pub unreserve: Option<(NodeKey, ContainerId)>,
    /// Containers lazy preemption marked killable on the node, to kill first to make room
    /// (see [`killable_to_make_room`]).
    pub kill: Vec<ContainerRef>,
}

/// What one pass over the tree decided for a node: its outcome, and its effects on the
/// caches Apache keeps, which the scheduler applies whatever the outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// What the pass ended with.
    pub outcome: Outcome,
    /// What the pass did to the caches.
    pub effects: PassEffects,
}

/// How a pass over part of the tree ended for the node: the one outcome of placement, from
/// a request group up to the root.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A container for the node.
    Allocate(Assignment),
    /// A container that does not fit on the node yet: hold the node for it.
    Reserve(Assignment),
    /// A request did not fit under its queue's limit (Apache's `SkippedType.QUEUE_LIMIT`),
    /// leaving this much of the limit unusable: the parent passes its later children that
    /// much less (the "blocked headroom").
    QueueLimit(Resource),
    /// Nothing here: the next application, or the next queue, may try.
    Nothing,
}

/// What a pass did besides deciding, replayed by the scheduler as Apache's allocator does
/// it during the pass (its caches then see the same values ours do).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PassEffects {
    /// Request groups that were offered this node and passed it up (for locality): each
    /// counts one missed scheduling opportunity.
    pub missed: Vec<(AppKey, SchedulerKey)>,
    /// Leaves that worked out their users' limits on this pass, with the limit each now
    /// publishes for its ApplicationMaster limit and its applications' headroom (Apache's
    /// `computeUserLimitAndSetHeadroom` refreshing `queueResourceLimitsInfo`), and the
    /// user-limit cache the lookup read (the node's partition, in the pass's mode).
    pub published: Vec<(QueueIndex, Resource, LimitCache)>,
    /// Applications this pass worked a headroom out for in their leaf for the first time (see
    /// `App::headroom_queue`).
    pub headroom_tracked: Vec<AppKey>,
    /// Fair leaves that ordered their applications on this pass (their stale caches are
    /// taken afresh; see `App::fair_usage`).
    pub reordered: Vec<QueueIndex>,
    /// Request groups for the default partition that got past the queue's headroom on this
    /// pass: each counts one missed non-partitioned opportunity (the count a lent node
    /// waits for; see [`next_non_exclusive_assignment`]).
    pub non_partitioned_missed: Vec<(AppKey, SchedulerKey)>,
}

/// Finds the next container to place on `node`, in its own partition: only requests for
/// it are placed, within the queues' shares of it (Apache's `RESPECT_PARTITION_EXCLUSIVITY`).
pub fn next_assignment(state: &State, node: &Node) -> Decision {
    let partition = state.partitions.get(node.partition);
    let pass = Pass { partition: node.partition, label: &partition.name, ignore_exclusivity: false };
    run_pass(state, &pass, node, partition.resource)
}

/// Lends a non-exclusive node's idle room to requests for the default partition, when its
/// own partition's pass placed nothing (Apache's `IGNORE_PARTITION_EXCLUSIVITY`): every
/// queue may use the partition up to the whole of it, starting from the default
/// partition's resource at the root; a request has first to have missed as many
/// opportunities in the default partition as the cluster has nodes, and no
/// ApplicationMaster container is placed this way unless
/// `yarn.resourcemanager.node-labels.am.allow-non-exclusive-allocation` says so. None for a
/// node in the default partition or an exclusive one.
pub fn next_non_exclusive_assignment(state: &State, node: &Node) -> Option<Decision> {
    let partition = state.partitions.get(node.partition);
    if node.partition == DEFAULT_PARTITION || partition.exclusive {
        return None;
    }
    let pass = Pass { partition: node.partition, label: &partition.name, ignore_exclusivity: true };
    Some(run_pass(state, &pass, node, state.default_partition()))
}

fn run_pass(state: &State, pass: &Pass<'_>, node: &Node, root_limit: Resource) -> Decision {
    let mut effects = PassEffects::default();
    // Apache's computeAvailableContainers: room for one minimum allocation, in the
    // resources the calculator schedules, counting what killable containers hold.
    let room = node.unallocated().plus(state.killable_on(node));
    let outcome = if state.calculator().fits(state.minimum_allocation(), room) {
        visit_queue(state, pass, 0, node, root_limit, &mut effects)
    } else {
        Outcome::Nothing
    };
    Decision { outcome, effects }
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
        let minimum = state.minimum_allocation();
        let node_factor = calc.ratio_f32(group.capability(), maximum);
        let minimum_factor = calc.ratio_f32(maximum.minus(minimum), maximum);
        let waits = app.re_reservations(key) as f32 / reserved as f32;
        starvation = (waits * (1.0 - node_factor.min(minimum_factor))) as i64;
    }
    starvation + wanted - reserved > 0
}

/// The partition a pass places containers in (the node's), and how.
struct Pass<'a> {
    partition: PartitionId,
    /// Its label (`""`: the default partition).
    label: &'a str,
    /// The pass lends a non-exclusive partition to requests for the default one.
    ignore_exclusivity: bool,
}

impl Pass<'_> {
    fn is_default(&self) -> bool {
        self.partition == DEFAULT_PARTITION
    }

    /// The partition the requests this pass serves ask for (Apache's `precheckNode`).
    fn asked(&self) -> &str {
        if self.ignore_exclusivity {
            ""
        } else {
            self.label
        }
    }

    /// The limit `queue` works to, passed `passed` by its parent (Apache's
    /// `getCurrentLimitResource`): its maximum in the partition, or the whole partition
    /// when the pass lends it.
    fn limit(&self, state: &State, queue: QueueIndex, passed: Resource) -> Resource {
        if self.ignore_exclusivity {
            state.partitions.get(self.partition).resource
        } else {
            effective_limit_in(state, self.partition, queue, passed)
        }
    }
}

fn visit_queue(
    state: &State,
    pass: &Pass<'_>,
    queue: QueueIndex,
    node: &Node,
    passed: Resource,
    effects: &mut PassEffects,
) -> Outcome {
    let q = state.queues.get(queue);
    // A queue that may not access the partition is passed over (every queue may access
    // the default partition), unless the partition is lent.
    if !pass.is_default() && !pass.ignore_exclusivity && !q.config.accessible_node_labels.allows(pass.label) {
        return Outcome::Nothing;
    }
    if q.is_leaf() {
        return visit_leaf(state, pass, queue, node, passed, effects);
    }
    let limit = pass.limit(state, queue, passed);
    // A queue at or over its limit gets nothing more (Apache's canAssignToThisQueue),
    // unless giving up its reservations would bring it under (continue-looking). A parent
    // does not count what its killable containers in the partition hold: that room may be
    // taken back. What
    // it could give up is what its queue metrics count reserved, which is the default
    // partition's whatever the pass (so a parent at its limit in a labelled partition gets
    // nothing more while it holds reservations there).
    let killable = state.killable_under_in(queue, pass.partition);
    let used = q.used_in(pass.partition).minus(killable);
    let could_unreserve =
        if state.config.global.reservations_continue_look_all_nodes { q.reserved } else { Resource::ZERO };
    if !within_limit(state, used, limit, could_unreserve) {
        return Outcome::Nothing;
    }
    let calc = state.calculator();
    // What the children are passed starts from the queue's maximum in the partition, even
    // when the pass lends it (Apache's getResourceLimitsOfChild).
    let parent_limit =
        if pass.ignore_exclusivity { effective_limit_in(state, pass.partition, queue, passed) } else { limit };
    let mut blocked: Option<Resource> = None;
    for child in children_in_order(state, queue, pass.partition) {
        let child_limit =
            child_limit_in(state, pass.partition, parent_limit, blocked.unwrap_or(Resource::ZERO), queue, child);
        match visit_queue(state, pass, child, node, child_limit, effects) {
            placed @ (Outcome::Allocate(_) | Outcome::Reserve(_)) => return placed,
            Outcome::QueueLimit(unusable) => {
                let unusable = calc.max(state.cluster, unusable, Resource::ZERO);
                blocked = Some(blocked.unwrap_or(Resource::ZERO).plus(unusable));
            }
            Outcome::Nothing => {}
        }
    }
    blocked.map_or(Outcome::Nothing, Outcome::QueueLimit)
}

fn visit_leaf(
    state: &State,
    pass: &Pass<'_>,
    queue: QueueIndex,
    node: &Node,
    passed: Resource,
    effects: &mut PassEffects,
) -> Outcome {
    let calc = state.calculator();
    let q = state.queues.get(queue);
    // A leaf with nothing asked of it in the partition (by its active or its pending
    // applications) is passed over without a look at its limits.
    if !q.apps.iter().any(|k| state.apps.get(k).is_some_and(|a| a.is_asking_in(pass.asked()))) {
        return Outcome::Nothing;
    }
    let limit = pass.limit(state, queue, passed);
    // The unweighted limit is the same for every user of the leaf during this pass.
    let mut base_limit: Option<Resource> = None;
    let mut may_kill: Option<bool> = None;
    let (mut fifo_order, fair_order);
    let apps: &mut dyn Iterator<Item = (AppKey, &App)> = if q.config.ordering_policy == OrderingPolicy::Fifo {
        // The leaf keeps its applications in FIFO order already.
        fifo_order = active_apps(state, queue);
        &mut fifo_order
    } else {
        fair_order = ordered_apps(state, queue);
        effects.reordered.push(queue);
        &mut fair_order.iter().copied()
    };
    let continue_looking = state.config.global.reservations_continue_look_all_nodes;
    // Apache checks the queue's limit at the first application, and again at each next
    // one only while they hold reservations that continue-looking could give up.
    let mut check_queue_limit = true;
    for (key, app) in apps {
        // What the application could give up to come under the queue's and its user's
        // limits is what it has reserved in the default partition, whatever the pass
        // (Apache's getCurrentReservation); what the request may count on against the
        // queue's headroom is what it has reserved in the pass's partition.
        let app_reserved =
            if continue_looking { state.app_reserved_in(app, DEFAULT_PARTITION) } else { Resource::ZERO };
        if check_queue_limit {
            if !within_limit(state, q.used_in(pass.partition), limit, app_reserved) {
                return Outcome::Nothing;
            }
            // A pass in a labelled partition publishes too, its limit capped by the default
            // partition's maximum (Apache's updateCurrentResourceLimits, whatever the
            // partition): the AM limit and the headroom then work from it.
            if effects.published.last().is_none_or(|(leaf, ..)| *leaf != queue) {
                let cache = LimitCache { partition: pass.partition, ignoring_exclusivity: pass.ignore_exclusivity };
                effects.published.push((queue, published_limit(state, queue, passed), cache));
            }
            check_queue_limit = continue_looking && !app_reserved.is_none();
        }
        if app.headroom_queue != Some(queue) {
            effects.headroom_tracked.push(key);
        }
        if !app.is_asking_in(pass.asked()) {
            continue;
        }
        let base = *base_limit.get_or_insert_with(|| pass_user_limit(state, pass, queue));
        let ul = weighted_limit(state, queue, base, &app.user);
        let user = q.users.get_remembered(&app.user, &app.user_slot);
        let user_used = user.map_or(Resource::ZERO, |u| u.used_in(pass.partition));
        // A user may go over the limit by one container, never further (Apache compares
        // what the user holds, before this container, with the limit) — unless its own
        // reservations are what puts it over, and it gives one up (continue-looking). That
        // second look is at the default partition's usage and reservations, in any pass:
        // in a labelled partition a user over its limit there but not in the default
        // partition goes on (to the headroom check, where a request that does not fit
        // blocks the queue's share of the node for its siblings), reservations or not.
        let mut user_must_unreserve = Resource::ZERO;
        if calc.greater_than(state.cluster, user_used, ul) {
            let user_default_used = user.map_or(Resource::ZERO, |u| u.used);
            if !continue_looking || calc.greater_than(state.cluster, user_default_used.minus(app_reserved), ul) {
                continue;
            }
            user_must_unreserve = user_used.difference(ul);
        }
        let app_reserved_here = match pass.partition {
            DEFAULT_PARTITION => app_reserved,
            _ if continue_looking => state.app_reserved_in(app, pass.partition),
            _ => Resource::ZERO,
        };
        let room = Room {
            headroom: limit.difference(q.used_in(pass.partition)),
            app_reserved: app_reserved_here,
            user_must_unreserve,
            continue_looking,
            may_kill: *may_kill.get_or_insert_with(|| may_take_killable_room(state, queue, node.partition)),
        };
        match try_app(state, pass, key, app, node, &room, effects) {
            Outcome::Nothing => continue,
            decided => return decided,
        }
    }
    Outcome::Nothing
}

/// The limit for one unit of user weight in `queue` during `pass`. (Kept out of
/// `visit_leaf`, which runs for every application, as it runs once per leaf.)
#[inline(never)]
fn pass_user_limit(state: &State, pass: &Pass<'_>, queue: QueueIndex) -> Resource {
    let mut inputs = user_limit_inputs_in(state, pass.partition, queue);
    // A lent partition caps a user at the whole of it, not at a share of the queue's
    // guarantee there (which may be nothing).
    if pass.ignore_exclusivity {
        inputs.ceiling = Some(inputs.cluster);
    }
    user_limit(state.calculator(), &inputs)
}

/// What an application may use on this node.
struct Room {
    /// The queue's limit minus what it uses (below zero when it is over in some resource).
    headroom: Resource,
    /// The application's reservations in the pass's partition, when continue-looking may
    /// give them up (else zero).
    app_reserved: Resource,
    /// How far the user is over its limit (to be made up by giving up a reservation).
    user_must_unreserve: Resource,
    /// `reservations-continue-look-all-nodes`.
    continue_looking: bool,
    /// Whether the leaf may take room killable containers hold (see
    /// [`may_take_killable_room`]).
    may_kill: bool,
}

/// Apache's `setPreemptionAllowed`: a leaf below its guarantee in the node's `partition`
/// may take the room that containers lazy preemption marked killable hold (a leaf with no
/// guarantee there, when its share of the partition used is below its share guaranteed).
pub fn may_take_killable_room(state: &State, leaf: QueueIndex, partition: crate::model::PartitionId) -> bool {
    if state.killable.is_empty() {
        return false;
    }
    let q = state.queues.get(leaf);
    let guaranteed = state.guaranteed_in(leaf, partition);
    let used = q.used_in(partition);
    if !guaranteed.is_none() {
        return state.calculator().compare(state.cluster, used, guaranteed).is_lt();
    }
    let total = state.partitions.get(partition).resource;
    let used_share = state.calculator().divide(total, used, total) as f32;
    used_share < q.shares_in(partition).0 as f32
}

/// Apache's allocator with lazy preemption: when `size` does not fit what `node` has free,
/// the killable containers there, in the order the node's map of them iterates, until it
/// does. None if even all of them are not enough.
pub fn killable_to_make_room(state: &State, node: &Node, size: Resource) -> Option<Vec<ContainerRef>> {
    let calc = state.calculator();
    let mut room = node.unallocated();
    let mut kill = Vec::new();
    for c in state.killable_in_map_order(node) {
        room = room.plus(state.containers[&c].resource);
        kill.push(c);
        if calc.fits(size, room) {
            return Some(kill);
        }
    }
    None
}

// Kept out of `visit_leaf`: most applications a pass looks at stop before it (at their
// user limit, say), and a smaller loop there keeps its lookups inlined.
#[inline(never)]
fn try_app(
    state: &State,
    pass: &Pass<'_>,
    key: AppKey,
    app: &App,
    node: &Node,
    room: &Room,
    effects: &mut PassEffects,
) -> Outcome {
    let calc = state.calculator();
    let missed = &mut effects.missed;
    for (&sk, group) in &app.requests {
        if group.wanted() == 0 {
            continue;
        }
        // An attempt waiting for its ApplicationMaster container is not placed on a lent
        // node (Apache skips the whole application).
        if pass.ignore_exclusivity && app.blacklist.waiting_for_am && !state.config.cluster.am_non_exclusive {
            return Outcome::Nothing;
        }
        // A request for another partition is passed over without an opportunity counted
        // (Apache's precheckNode).
        if group.partition != pass.asked() {
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
            return Outcome::QueueLimit(room.headroom);
        }
        // A request for the default partition counts the passes it gets this far (Apache's
        // missedNonPartitionedRequestSchedulingOpportunity): until it has missed as many as
        // the cluster has nodes, a lent node skips the application. (In a default node's
        // pass the count is taken below, where nothing is placed: a placement there starts
        // it over at once.)
        let non_partitioned = group.partition.is_empty();
        if non_partitioned && pass.ignore_exclusivity {
            effects.non_partitioned_missed.push((key, sk));
            if app.missed_non_partitioned(sk) + 1 < state.nodes.len() as u64 {
                return Outcome::Nothing;
            }
        }
        // Apache checks the blacklist after the headroom, and skips the whole application
        // without counting a missed opportunity.
        if app.blacklist.excludes(&node.host, &node.rack) {
            if non_partitioned && !pass.ignore_exclusivity {
                effects.non_partitioned_missed.push((key, sk));
            }
            return Outcome::Nothing;
        }
        // What must be given up to place a container of `size`: the part above the queue's
        // headroom, or the user's excess, whichever is larger.
        let need = |size: Resource| calc.max(state.cluster, size.difference(room.headroom), room.user_must_unreserve);
        // A node- or rack-local level this node cannot serve hands over to the next level
        // (Apache's LOCALITY_SKIPPED); at the off-switch level the application is skipped,
        // with the opportunity counted.
        let mut after = None;
        let skipped = loop {
            let (locality, size, fits, kill) = match try_group(state, app, sk, group, node, after) {
                GroupResult::Placed(locality, size) => (locality, size, true, Vec::new()),
                GroupResult::NoRoom(locality, size) => match room.may_kill {
                    true => match killable_to_make_room(state, node, size) {
                        Some(kill) => (locality, size, true, kill),
                        None => (locality, size, false, Vec::new()),
                    },
                    false => (locality, size, false, Vec::new()),
                },
                GroupResult::Skipped => break None,
                GroupResult::Delayed => break Some(Outcome::Nothing),
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
                            break Some(Outcome::Nothing);
                        }
                        after = Some(locality);
                        continue;
                    }
                }
                return Outcome::Allocate(Assignment { app: key, key: sk, resource: size, locality, unreserve, kill });
            }
            // The node cannot hold the request now: reserve the node for it (Apache's
            // reservations), so smaller containers do not starve it.
            let over = room.continue_looking && calc.any_above_zero(need);
            if should_reserve && !over {
                if node.reservation.is_some() {
                    break Some(Outcome::Nothing);
                }
                missed.push((key, sk));
                return Outcome::Reserve(Assignment {
                    app: key,
                    key: sk,
                    resource: size,
                    locality,
                    unreserve: None,
                    kill: Vec::new(),
                });
            }
            if locality == Locality::OffSwitch {
                break Some(Outcome::Nothing);
            }
            after = Some(locality);
        };
        if non_partitioned && !pass.ignore_exclusivity {
            effects.non_partitioned_missed.push((key, sk));
        }
        // The application passes on this node (waiting for locality, or nowhere to put
        // it): the request group missed an opportunity. A group the node cannot serve at
        // all lets the next group try.
        if let Some(outcome) = skipped {
            missed.push((key, sk));
            return outcome;
        }
    }
    Outcome::Nothing
}

/// Apache's `findNodeToUnreserve`: a reservation of the same request on another node,
/// at least as large as `wanted`.
fn find_reservation_to_drop(
    state: &State,
    app: &App,
    key: SchedulerKey,
    wanted: Resource,
    here: &Node,
) -> Option<(NodeKey, ContainerId)> {
    let calc = state.calculator();
    // The first, in Apache's map order, that is at least as large as what must be given up
    // (in every resource the calculator schedules).
    reservations_in_map_order(state, app, key)
        .into_iter()
        .find(|r| state.nodes[&r.node].node_id != here.node_id && calc.fits(wanted, r.resource))
        .map(|r| (r.node, r.container))
}

/// An application's reservations of one request on live nodes, in the order Apache's
/// `HashMap` by node holds them (reserved in container order, then iterated by the node
/// ids' hashes).
pub fn reservations_in_map_order<'a>(state: &State, app: &'a App, key: SchedulerKey) -> Vec<&'a Reservation> {
    let mut held: Vec<(&'a Reservation, &str)> = app
        .reservations
        .values()
        .filter(|r| r.key == key)
        .filter_map(|r| state.nodes.get(&r.node).map(|n| (r, n.node_id.as_str())))
        .collect();
    held.sort_unstable_by_key(|(r, _)| r.container);
    let ids: Vec<&str> = held.iter().map(|(_, id)| *id).collect();
    java_order::node_map_order(&ids, ids.len()).into_iter().map(|i| held[i].0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ClusterSettings, SchedulerConfig};
    use crate::ids::ANY;
    use crate::model::Ask;
    use crate::policy::admission::Submission;
    use crate::scheduler::Scheduler;

    const KEY: SchedulerKey = SchedulerKey { priority: 1, allocation_request_id: 0 };

    /// `a` (30%, at most 50%) and `b` (70%) on one 10 GB node; an application per queue,
    /// asking for `counts` containers of 1 GB.
    fn two_queues(counts: [u32; 2]) -> (Scheduler, [AppKey; 2]) {
        let xml = "<configuration>
          <property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>
          <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>30</value></property>
          <property><name>yarn.scheduler.capacity.root.a.maximum-capacity</name><value>50</value></property>
          <property><name>yarn.scheduler.capacity.root.a.user-limit-factor</name><value>10</value></property>
          <property><name>yarn.scheduler.capacity.root.b.capacity</name><value>70</value></property>
        </configuration>";
        let mut s =
            Scheduler::new(SchedulerConfig::from_xml(xml.as_bytes(), "t", ClusterSettings::default()).unwrap(), 0);
        s.add_node("h1:1", "h1", "/r", Resource::new(10 * 1024, 10));
        let apps = [(1, "a", counts[0]), (2, "b", counts[1])].map(|(id, queue, count)| {
            let (app, _) = s.submit(&Submission::new(id, queue, "u", Resource::ZERO)).unwrap();
            s.add_attempt(app, 1, false);
            let capability = Resource::new(1024, 1);
            s.update_requests(
                app,
                &[Ask { key: KEY, resource_name: ANY.into(), capability, count, relax_locality: true }],
            );
            app
        });
        (s, apps)
    }

    fn next(s: &Scheduler) -> Outcome {
        let st = s.state();
        next_assignment(st, st.nodes.values().next().unwrap()).outcome
    }

    #[test]
    fn the_queue_furthest_below_its_guarantee_is_served_first() {
        let (s, [_, b]) = two_queues([1, 1]);
        // Both idle: the larger guarantee first.
        match next(&s) {
            Outcome::Allocate(a) => assert_eq!((a.app, a.locality), (b, Locality::OffSwitch)),
            other => panic!("expected an allocation, got {other:?}"),
        }
    }

    #[test]
    fn a_queue_at_its_maximum_gets_nothing_more_and_its_sibling_goes_on() {
        let (mut s, [a, b]) = two_queues([8, 2]);
        let mut placed = Vec::new();
        for _ in 0..10 {
            let node = *s.state().nodes.keys().next().unwrap();
            placed.extend(s.node_heartbeat(node, &[]).into_iter().map(|x| x.app));
        }
        let in_a = placed.iter().filter(|&&k| k == a).count();
        assert_eq!(in_a, 5, "a stops at its maximum, 50% of 10 GB");
        assert_eq!(placed.iter().filter(|&&k| k == b).count(), 2);
        // Room is left on the node, but a, at its maximum, is passed over.
        assert_eq!(next(&s), Outcome::Nothing);
    }
}
