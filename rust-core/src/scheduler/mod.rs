//! The one owner of scheduling state. Every event the ResourceManager delivers becomes a
//! method call here, one file per family of events: `nodes` (added, removed, resized),
//! `heartbeat` (NODE_UPDATE: releases, reservations, placements), `apps` (submissions,
//! attempts, asks, moves, priorities, recovery), `activation` (pending applications
//! becoming active under the ApplicationMaster and parallel-application limits) and
//! `refresh` (`refreshQueues`). Decisions come from the pure functions in `policy`;
//! containers and reservations are booked through the ledger (`model::ledger`).

mod activation;
mod apps;
mod expiry;
mod heartbeat;
mod managed;
mod nodes;
mod refresh;
mod runnable;

pub use refresh::{check_refresh, PreparedRefresh};

use crate::config::SchedulerConfig;
use crate::ids::{AppKey, ContainerId, Locality, NodeKey, QueueIndex, SchedulerKey};
use crate::model::{AmDiagnosis, LimitCache, QueueTree, Reservation, State};
use crate::policy::admission::{self, MoveRefusal, QueueAcl};
use crate::policy::limits;
use crate::policy::placement::Assignment;
use crate::preemption::{Action as PreemptionAction, Preemption};
use crate::resource::Resource;
use std::sync::Arc;

/// What the RM must do with an [`Allocation`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllocationKind {
    /// A new container.
    Allocate,
    /// Hold the node for a container that does not fit yet (RMContainer RESERVED).
    Reserve,
    /// Drop the node's reservation: the application no longer needs it.
    Unreserve,
    /// The reserved container now fits: it becomes a real container, same number.
    AllocateReserved,
    /// End a container lazy preemption marked killable, as PREEMPTED, to make room for
    /// a queue below its guarantee or to bring an ancestor of its queue back within its
    /// maximum (the core has taken it off the books already, but for its node's share,
    /// which goes when the RM reports the container gone).
    Preempt,
}

/// A container the scheduler decided to allocate, for the RM to materialise.
#[derive(Debug, Clone, PartialEq)]
pub struct Allocation {
    /// What to do.
    pub kind: AllocationKind,
    /// The application that gets it.
    pub app: AppKey,
    /// The container (the attempt it goes to and its number there).
    pub container: ContainerId,
    /// The node it goes on.
    pub node: NodeKey,
    /// Its size.
    pub resource: Resource,
    /// The request it satisfies.
    pub key: SchedulerKey,
    /// How local it is.
    pub locality: Locality,
}

impl Allocation {
    /// `container` on `node`, of the application, size, request and locality `a` decided.
    fn decided(kind: AllocationKind, node: NodeKey, container: ContainerId, a: &Assignment) -> Allocation {
        Allocation { kind, app: a.app, container, node, resource: a.resource, key: a.key, locality: a.locality }
    }

    /// The RM drops reservation `r` (the application no longer needs the node).
    fn unreserved(r: &Reservation) -> Allocation {
        Allocation {
            kind: AllocationKind::Unreserve,
            app: r.app,
            container: r.container,
            node: r.node,
            resource: r.resource,
            key: r.key,
            locality: Locality::OffSwitch,
        }
    }
}

impl Allocation {
    /// The RM ends container `c` (of `size`, for request `key`, on `node`) as preempted.
    fn preempted(c: crate::ids::ContainerRef, node: NodeKey, size: Resource, key: SchedulerKey) -> Allocation {
        Allocation {
            kind: AllocationKind::Preempt,
            app: c.0,
            container: c.1,
            node,
            resource: size,
            key,
            locality: Locality::OffSwitch,
        }
    }
}

/// The scheduler: state plus the rules for changing it.
#[derive(Debug, Clone)]
pub struct Scheduler {
    state: State,
    /// The preemption policy's memory across rounds (see [`Scheduler::preemption_round`]).
    preemption: Preemption,
    /// Killable containers killed outside a heartbeat (a parent a move pushed over its
    /// maximum), for the RM to end (see [`Scheduler::take_killed`]).
    killed: Vec<crate::ids::ContainerRef>,
    /// What applications waiting for their AM container were told since the last
    /// [`Scheduler::take_am_diagnoses`], in order.
    am_diagnoses: Vec<(AppKey, AmDiagnosis)>,
    /// The clock and memory of the deletion of idle auto-created queues.
    expiry: expiry::QueueExpiry,
    /// The guarantees managed parents' leaves hold (legacy auto-creation).
    managed: managed::ManagedParents,
    /// What a swap of the configuration replaced, to be dropped once the lock is released
    /// (see [`Scheduler::take_retired`]).
    retired: Retired,
    /// The benchmark floor's place among the leaves (see `Scheduler::place_first_fit`).
    #[cfg(feature = "diagnostics")]
    floor: heartbeat::FloorCursor,
}

impl Scheduler {
    /// A scheduler with no nodes and no applications. Capacities are worked out for the
    /// empty cluster at once, as Apache's queues do when they are built: an RM that has
    /// just started (or restarted) admits applications before any NodeManager registers,
    /// within each queue's `maximum-applications`.
    pub fn new(config: SchedulerConfig, epoch: u64) -> Self {
        let mut scheduler = Scheduler::over(State::new(config, epoch));
        scheduler.resize_cluster();
        scheduler
    }

    /// A scheduler over `state`, with nothing remembered across rounds yet.
    fn over(state: State) -> Self {
        Scheduler {
            state,
            preemption: Preemption::default(),
            killed: Vec::new(),
            am_diagnoses: Vec::new(),
            expiry: expiry::QueueExpiry::default(),
            managed: managed::ManagedParents::default(),
            retired: Retired::default(),
            #[cfg(feature = "diagnostics")]
            floor: heartbeat::FloorCursor::default(),
        }
    }

    /// Read access to everything, for reports and tests.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// A scheduler over a hand-made state (unit tests of the decision functions).
    #[cfg(test)]
    pub(crate) fn from_state_for_tests(state: State) -> Self {
        Scheduler::over(state)
    }

    /// The state, to change by hand (unit tests of the decision functions).
    #[cfg(test)]
    pub(crate) fn state_for_tests(&mut self) -> &mut State {
        &mut self.state
    }

    /// One round of the preemption policy at time `now` (ms): which containers to mark,
    /// kill, or (reservations) drop, for the RM to apply as events (see [`crate::preemption`]).
    /// Only the policy's own memory of marks changes here; the state changes when the RM
    /// applies the actions.
    pub fn preemption_round(&mut self, now: i64) -> Vec<PreemptionAction> {
        let settings = std::sync::Arc::clone(&self.state.config);
        let round = self.preemption.round(&self.state, &settings.global.preemption, now);
        for leaf in round.reordered {
            self.fair_reordered(leaf);
        }
        for (leaf, partition) in round.looked_up {
            self.state.queues.queues[leaf].user_limit_looked_up(LimitCache::of(partition));
        }
        for (leaf, partition, limit) in round.looked_up_among_all {
            self.state.queues.queues[leaf].user_limit_among_all_looked_up(LimitCache::of(partition), limit);
        }
        round.actions
    }

    /// MARK_CONTAINER_FOR_KILLABLE: the container's kill wait is over. True if the RM is to
    /// kill it now; with lazy preemption (`yarn.scheduler.capacity.lazy-preemption-enabled`)
    /// it is only marked killable instead, and runs on until its room is needed (see
    /// [`crate::model::State::mark_killable`]), so false.
    pub fn container_killable(&mut self, c: crate::ids::ContainerRef) -> bool {
        if !self.state.config.global.preemption.lazy {
            return true;
        }
        if self.state.mark_killable(c) {
            log::debug!("container {} of application {} marked killable", c.1, c.0);
        }
        false
    }

    /// The killable containers killed since the last call outside a heartbeat (whose own
    /// kills are in its result): the RM ends each as PREEMPTED. The core has taken them off
    /// its books already, but for their nodes' shares, which go when the RM reports them.
    pub fn take_killed(&mut self) -> Vec<crate::ids::ContainerRef> {
        std::mem::take(&mut self.killed)
    }

    /// The configuration and queue tree the last swap replaced, if no call took them yet.
    /// With a thousand queues, freeing them takes most of a millisecond: a refresh's caller
    /// drops them after releasing its locks, so that no heartbeat waits on it (see
    /// `Handle::commit_refresh_keeping`).
    pub fn take_retired(&mut self) -> Retired {
        std::mem::take(&mut self.retired)
    }

    /// What applications waiting for their ApplicationMaster's container were told about
    /// their activation since the last call, oldest first: the RM shows the latest as the
    /// application's diagnostics (Apache's `updateAMContainerDiagnostics`).
    pub fn take_am_diagnoses(&mut self) -> Vec<(AppKey, AmDiagnosis)> {
        std::mem::take(&mut self.am_diagnoses)
    }

    /// Tells `app`, if it still waits for its ApplicationMaster's container, `diagnosis`.
    pub(super) fn diagnose_am(&mut self, app: AppKey, diagnosis: AmDiagnosis) {
        if self.state.apps.get(&app).is_some_and(|a| a.am_container.is_none()) {
            self.am_diagnoses.push((app, diagnosis));
        }
    }

    /// Moves reservation `container` of `app` from node `from` to node `to`, as a
    /// preemption round decided (`allow-move-reservation`). False, changing nothing, if
    /// `from` no longer holds it or `to` is gone or reserved since.
    pub fn move_reservation(&mut self, app: AppKey, container: ContainerId, from: NodeKey, to: NodeKey) -> bool {
        let held = self
            .state
            .nodes
            .get(&from)
            .and_then(|n| n.reservation)
            .is_some_and(|r| (r.app, r.container) == (app, container));
        held && self.state.move_reservation(from, to)
    }

    /// A preemption round under `settings` rather than the configuration's (unit tests).
    #[cfg(test)]
    pub(crate) fn preemption_round_with(
        &mut self,
        settings: &crate::preemption::Settings,
        now: i64,
    ) -> Vec<PreemptionAction> {
        self.preemption.round(&self.state, settings, now).actions
    }

    /// A fair leaf ordered its applications (for a heartbeat or a preemption round): those
    /// whose cached usage was stale take it afresh (see `App::fair_usage`).
    pub(crate) fn fair_reordered(&mut self, leaf: QueueIndex) {
        let q = &self.state.queues.queues[leaf];
        if q.config.ordering_policy != crate::config::OrderingPolicy::Fair {
            return;
        }
        for key in &q.apps {
            if let Some(a) = self.state.apps.get_mut(key).filter(|a| a.active) {
                a.fair_reordered();
            }
        }
    }

    /// The preemption policy's memory (containers marked and when).
    pub fn preemption(&self) -> &Preemption {
        &self.preemption
    }

    /// What the application could still get (see [`limits::headroom`]).
    pub fn headroom(&self, app: AppKey) -> Resource {
        limits::headroom(&self.state, app)
    }

    /// The priority an application submitted (or updated) to `queue` runs at, or the one
    /// `caller` may not have there (see [`admission::application_priority`]).
    pub fn application_priority(
        &self,
        requested: Option<i64>,
        queue: &str,
        cluster_max: i64,
        caller: Option<&admission::Caller<'_>>,
    ) -> Result<i64, i64> {
        admission::application_priority(&self.state, requested, queue, cluster_max, caller)
    }

    /// The lifetime (seconds) an application submitted to `queue` gets (see
    /// [`admission::application_lifetime`]).
    pub fn application_lifetime(&self, queue: &str, requested: i64) -> i64 {
        admission::application_lifetime(&self.state, queue, requested)
    }

    /// The longest lifetime (seconds) `queue`'s applications may have (see
    /// [`admission::maximum_application_lifetime`]).
    pub fn maximum_application_lifetime(&self, queue: &str) -> i64 {
        admission::maximum_application_lifetime(&self.state, queue)
    }

    /// Whether `user` holds `acl` on `queue` (see [`admission::check_access`]).
    pub fn check_access(&self, queue: QueueIndex, acl: QueueAcl, user: &str, groups: &[String]) -> bool {
        admission::check_access(&self.state, queue, acl, user, groups)
    }

    /// Whether `user` holds `acl` on the queue `name` names (a path or a unique short name;
    /// any other name grants nothing). With `enforced_only`, as for the RM's own checks,
    /// every ACL is granted while `yarn.acl.enable` is false.
    pub fn may_access(&self, name: &str, acl: QueueAcl, user: &str, groups: &[String], enforced_only: bool) -> bool {
        if enforced_only && !self.state.config.cluster.acl_enabled {
            return true;
        }
        self.state.queues.resolve(name).is_ok_and(|q| self.check_access(q, acl, user, groups))
    }

    /// Whether `app` may move to the leaf `target` names, without moving it: the leaf's
    /// path, or why not (see [`admission::admit_move`]).
    pub fn check_move(&mut self, app: AppKey, target: &str) -> Result<String, MoveRefusal> {
        self.move_destination(app, target).map(|q| self.state.queues.get(q).path().to_string())
    }

    /// [`admission::admit_move`], with the one thing its check changes in Apache: once the
    /// target is known to be a leaf, the application forgets it asked in the default
    /// partition (see `App::forget_default_partition_request`), whether or not it may move.
    fn move_destination(&mut self, app: AppKey, target: &str) -> Result<QueueIndex, MoveRefusal> {
        let queue = admission::move_target(&self.state, app, target)?;
        if let Some(a) = self.state.apps.get_mut(&app) {
            a.forget_default_partition_request();
        }
        admission::admit_move_to(&self.state, app, queue)
    }
}

#[cfg(test)]
mod tests;

/// The configuration and queue tree the last refresh, or creation or deletion of a queue,
/// replaced (see [`Scheduler::take_retired`]); dropping it frees them. A scheduler keeps
/// only the latest: one whose owner never takes them frees each at the next swap.
#[derive(Default)]
pub struct Retired(Option<(Arc<SchedulerConfig>, QueueTree)>);

impl Retired {
    /// Whether nothing was replaced.
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }
}

/// A copy of a scheduler has nothing retired: what the original replaced is its own.
impl Clone for Retired {
    fn clone(&self) -> Self {
        Retired(None)
    }
}

impl std::fmt::Debug for Retired {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.is_empty() { "Retired(nothing)" } else { "Retired(a configuration and its tree)" })
    }
}
