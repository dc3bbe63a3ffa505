//! NODE_UPDATE: the node's finished containers are released, then its reservation is
//! served or as many containers placed as the per-heartbeat limits allow, each decision
//! passing Apache's commit-time check before it is booked.

use super::{Allocation, AllocationKind, Scheduler};
use crate::ids::{application_name, AppKey, ContainerRef, Locality, NodeKey, Release};
use crate::model::Reservation;
use crate::policy::locality::reserved_node_level;
use crate::policy::placement::{
    killable_to_make_room, may_take_killable_room, next_assignment, next_non_exclusive_assignment, Assignment,
    Decision, Outcome, PassEffects,
};
use crate::resource::Resource;

/// Where the benchmark floor resumes: the leaves that hold applications, in queue order,
/// each with the position of its first application that may still ask; the next leaf to
/// try; and how many applications there were when the leaves were listed.
#[cfg(feature = "diagnostics")]
#[derive(Debug, Clone, Default)]
pub(super) struct FloorCursor {
    leaves: Vec<(crate::ids::QueueIndex, usize)>,
    next: usize,
    apps: usize,
}

impl Scheduler {
    /// NODE_UPDATE: reclaims the containers that finished, then places as many containers
    /// on the node as the per-heartbeat limits allow.
    pub fn node_heartbeat(&mut self, node: NodeKey, finished: &[ContainerRef]) -> Vec<Allocation> {
        self.release(finished);
        let out = self.place_on(node);
        self.state.debug_assert_consistent();
        out
    }

    /// Serves the node's reservation, or places containers on it.
    fn place_on(&mut self, node: NodeKey) -> Vec<Allocation> {
        let mut out = Vec::new();
        if !self.state.nodes.contains_key(&node) {
            return out;
        }
        let g = &self.state.config.global;
        let max_total = if !g.multiple_assignments_enabled {
            1
        } else if g.max_container_assignments <= 0 {
            usize::MAX
        } else {
            g.max_container_assignments as usize
        };
        let max_off_switch = g.max_offswitch_assignments.max(1) as usize;
        if let Some(r) = self.state.nodes[&node].reservation {
            return self.serve_reservation(node, r);
        }
        #[cfg(feature = "diagnostics")]
        if self.state.config.global.bench_floor {
            return self.place_first_fit(node, max_total.min(max_off_switch));
        }
        let (mut off_switch, mut assigned) = (0, 0);
        // (A heartbeat does not move its node between partitions.)
        let partition = self.state.nodes[&node].partition;
        let in_default = partition == crate::model::DEFAULT_PARTITION;
        // Apache's canAllocateMore: keep placing while the last placement succeeded, fewer
        // than the off-switch limit were off-switch, and the per-heartbeat cap allows.
        while assigned < max_total && off_switch < max_off_switch {
            let n = &self.state.nodes[&node];
            let Decision { mut outcome, effects } = next_assignment(&self.state, n);
            self.apply_effects(effects);
            // Nothing for the node's own partition: a non-exclusive node lends its room to
            // the default partition's requests.
            let mut lent = false;
            if matches!(outcome, Outcome::Nothing | Outcome::QueueLimit(_)) {
                if let Some(decision) = next_non_exclusive_assignment(&self.state, &self.state.nodes[&node]) {
                    self.apply_effects(decision.effects);
                    outcome = decision.outcome;
                    lent = true;
                }
            }
            let a = match outcome {
                Outcome::Allocate(a) => a,
                Outcome::Reserve(r) => {
                    // A reservation starts the locality wait over as an allocation does, as
                    // soon as it is decided (before the commit-time check).
                    let full_reset = self.state.config.global.rack_locality_full_reset;
                    if let Some(a) = self.state.apps.get_mut(&r.app) {
                        a.restart_locality_wait(r.key, r.locality, full_reset);
                        if in_default {
                            a.reset_non_partitioned_misses(r.key);
                        }
                    }
                    if self.queues_accept(node, r.app, r.resource, Resource::ZERO, &[], lent) {
                        let app = r.app;
                        out.push(self.reserve(node, r));
                        self.enforce_parent_maximums(app, partition, &mut out);
                    }
                    break;
                }
                Outcome::QueueLimit(_) | Outcome::Nothing => break,
            };
            if a.locality == Locality::OffSwitch {
                off_switch += 1;
            }
            assigned += 1;
            // The opportunity counts, or a local placement starts the locality wait over,
            // as soon as the placement is decided: Apache does both before the commit-time
            // check, which may still turn the container down.
            let full_reset = self.state.config.global.rack_locality_full_reset;
            if let Some(app) = self.state.apps.get_mut(&a.app) {
                if !app.restart_locality_wait(a.key, a.locality, full_reset) {
                    app.count_opportunity(a.key);
                }
                // Placed in the default partition: the wait for a lent node starts over.
                if in_default {
                    app.reset_non_partitioned_misses(a.key);
                }
            }
            let released =
                a.unreserve.and_then(|(other, _)| self.state.nodes.get(&other)?.reservation.map(|r| r.resource));
            if !self.queues_accept(node, a.app, a.resource, released.unwrap_or(Resource::ZERO), &a.kill, lent) {
                continue;
            }
            if let Some(r) = a.unreserve.and_then(|(other, _)| self.state.unbook_reservation(other)) {
                out.push(Allocation::unreserved(&r));
            }
            for c in self.others_killable(a.app, &a.kill) {
                out.extend(self.kill_killable(c, &format!("to make room for {}", self.app_name(a.app))));
            }
            let app = a.app;
            out.push(self.apply(node, a));
            self.enforce_parent_maximums(app, partition, &mut out);
        }
        out
    }

    /// The benchmark floor (`capsched.bench.floor`, benchmark builds only): up to `most`
    /// containers on the node, the leaves taking turns container by container from where
    /// the last heartbeat stopped, each container for the first application of the leaf
    /// (in submission order) with a pending ask that fits — no limit, no locality rule, no
    /// ordering by usage; a leaf's applications that ask for nothing are passed once and
    /// not looked at again (until the leaves are listed again, when an application comes
    /// or goes), and a node without room for the smallest container is walked no
    /// further. So the floor places in the sequence a capacity scheduler's placements take
    /// on a cluster of equal leaves (a different leaf for each container, its applications
    /// first come first served), and the RM's objects it touches are as warm or as cold as
    /// theirs. The containers are booked as any other, so the RM materialises them with
    /// the same code.
    #[cfg(feature = "diagnostics")]
    fn place_first_fit(&mut self, node: NodeKey, most: usize) -> Vec<Allocation> {
        let mut out = Vec::new();
        if self.floor.apps != self.state.apps.len() {
            let queues = &self.state.queues.queues;
            self.floor.leaves = (0..queues.len()).filter(|&i| !queues[i].apps.is_empty()).map(|i| (i, 0)).collect();
            self.floor.apps = self.state.apps.len();
            self.floor.next = 0;
        }
        let count = self.floor.leaves.len();
        let mut looked = 0;
        while out.len() < most && looked < count {
            let available = self.state.nodes[&node].available();
            // A node without room for the smallest container is walked no further (Apache's
            // schedulers make the same check).
            if !self.state.minimum_allocation().fits_in(available) {
                break;
            }
            let (leaf, first) = &mut self.floor.leaves[self.floor.next % count];
            let apps = &self.state.queues.get(*leaf).apps;
            while apps.get(*first).is_some_and(|k| self.state.apps.get(k).is_none_or(|a| !a.is_asking())) {
                *first += 1;
            }
            let fit = apps[*first..].iter().find_map(|&app| {
                let a = self.state.apps.get(&app)?;
                a.requests
                    .iter()
                    .find(|(_, g)| g.wanted() > 0 && g.capability().fits_in(available))
                    .map(|(key, g)| (app, *key, g.capability()))
            });
            match fit {
                Some((app, key, resource)) => {
                    let a = Assignment {
                        app,
                        key,
                        resource,
                        locality: Locality::OffSwitch,
                        unreserve: None,
                        kill: Vec::new(),
                    };
                    out.push(self.apply(node, a));
                }
                None => looked += 1,
            }
            self.floor.next = (self.floor.next + 1) % count;
        }
        out
    }

    /// Of the killable containers `kill` whose room `app` takes, those its leaf kills:
    /// Apache's (`internalReleaseContainer`) kills only other leaves' and leaves a running
    /// container of its own alone, though it counted its room - the node then holds more
    /// than it has until that container ends or a later placement kills it.
    fn others_killable(&self, app: AppKey, kill: &[ContainerRef]) -> Vec<ContainerRef> {
        let leaf = self.state.apps.get(&app).map(|a| a.queue);
        kill.iter().copied().filter(|c| self.state.apps.get(&c.0).map(|a| a.queue) != leaf).collect()
    }

    /// Ends the killable container `c` as preempted (`why` says what for, in the log; see
    /// [`State::unbook_ended_by_core`] for what its node keeps).
    fn kill_killable(&mut self, c: ContainerRef, why: &str) -> Option<Allocation> {
        let owner = self.app_name(c.0);
        let queue = self.state.apps.get(&c.0).map(|a| self.state.queues.get(a.queue).path().to_string());
        let x = self.state.unbook_ended_by_core(c)?;
        log::info!(
            "killed killable container {} of {owner} in {} on {} {why}",
            c.1,
            queue.as_deref().unwrap_or("?"),
            self.state.nodes.get(&x.node).map_or("a removed node", |n| n.node_id.as_str()),
        );
        Some(Allocation::preempted(c, x.node, x.resource, x.key))
    }

    /// An application as YARN names it, for the log.
    fn app_name(&self, app: AppKey) -> String {
        self.state.apps.get(&app).map_or_else(|| format!("application key {app}"), |a| application_name(a.app_id))
    }

    /// Apache's parent `allocateResource`: once a container or reservation is booked in
    /// `partition`, each ancestor of the application's leaf (nearest first) that now uses
    /// more than its maximum there kills its killable containers there, in `ContainerId`
    /// order, until it does not.
    pub(super) fn enforce_parent_maximums(
        &mut self,
        app: AppKey,
        partition: crate::model::PartitionId,
        out: &mut Vec<Allocation>,
    ) {
        if self.state.killable.is_empty() {
            return;
        }
        let Some(leaf) = self.state.apps.get(&app).map(|a| a.queue) else { return };
        let parents: Vec<_> = self.state.queues.ancestors_inclusive(leaf).skip(1).collect();
        let calc = self.state.calculator();
        for parent in parents {
            let over = |s: &crate::model::State| {
                calc.greater_than(s.cluster, s.queues.get(parent).used_in(partition), s.maximum_in(parent, partition))
            };
            if !over(&self.state) {
                continue;
            }
            let why = format!("to bring {} back within its maximum", self.state.queues.get(parent).path());
            let in_partition = |s: &crate::model::State, c: &ContainerRef| {
                s.containers
                    .get(c)
                    .and_then(|x| s.nodes.get(&x.node))
                    .map_or(crate::model::DEFAULT_PARTITION, |n| n.partition)
                    == partition
            };
            let under: Vec<ContainerRef> = self
                .state
                .killable_containers_under(parent)
                .into_iter()
                .filter(|c| in_partition(&self.state, c))
                .collect();
            for c in under {
                out.extend(self.kill_killable(c, &why));
                if !over(&self.state) {
                    break;
                }
            }
        }
    }

    /// Replays what a pass did to Apache's caches: the limits leaves published (each a
    /// user-limit lookup), the applications whose headroom now has a leaf, and the missed
    /// scheduling opportunities.
    fn apply_effects(&mut self, effects: PassEffects) {
        let PassEffects { missed, published, headroom_tracked, reordered, non_partitioned_missed } = effects;
        for leaf in reordered {
            self.fair_reordered(leaf);
        }
        for &(leaf, _, cache) in &published {
            self.state.queues.queues[leaf].user_limit_looked_up(cache);
        }
        self.state.queues.publish(published.into_iter().map(|(leaf, limit, _)| (leaf, limit)));
        for app in headroom_tracked {
            if let Some(a) = self.state.apps.get_mut(&app) {
                a.headroom_queue = Some(a.queue);
                a.headroom_user_forgotten = false;
            }
        }
        for (app, key) in missed {
            if let Some(a) = self.state.apps.get_mut(&app) {
                a.count_opportunity(key);
            }
        }
        for (app, key) in non_partitioned_missed {
            if let Some(a) = self.state.apps.get_mut(&app) {
                a.count_non_partitioned_miss(key);
            }
        }
    }

    /// Apache's commit-time check (`AbstractCSQueue.accept`): a new container or
    /// reservation of `resource` (giving up the reservation `unreserved` and killing the
    /// killable containers `kill`) must leave the application's leaf and every ancestor
    /// within its maximum, in every resource the calculator schedules (in a partition
    /// `lent` to the default one's requests, within the whole partition). A decision that
    /// fails it is dropped.
    ///
    /// Apache takes everything given up off every queue's usage, wherever in the tree the
    /// killed containers are; a parent that ends up over its maximum then kills its own
    /// killable containers (see `enforce_parent_maximums`). Where even that could not bring
    /// a queue back within its maximum (the killed containers were another subtree's, and
    /// the queue has too few killable ones of its own), Apache's queue would stay over its
    /// hard cap; here the decision is dropped instead.
    ///
    /// The queues' usage and maximums in the node's partition are checked.
    fn queues_accept(
        &self,
        node: NodeKey,
        app: AppKey,
        resource: Resource,
        unreserved: Resource,
        kill: &[ContainerRef],
        lent: bool,
    ) -> bool {
        let s = &self.state;
        let Some(a) = s.apps.get(&app) else { return false };
        let calc = s.calculator();
        let partition = s.nodes.get(&node).map_or(crate::model::DEFAULT_PARTITION, |n| n.partition);
        // A lent partition holds every queue to the whole of it, not to its maximum.
        let whole = s.partitions.get(partition).resource;
        let maximum = |i| if lent { whole } else { s.maximum_in(i, partition) };
        let killed: Vec<(crate::ids::QueueIndex, Resource)> =
            kill.iter().filter_map(|c| Some((s.apps.get(&c.0)?.queue, s.containers.get(c)?.resource))).collect();
        let released = killed.iter().fold(unreserved, |sum, &(_, r)| sum.plus(r));
        let net = resource.minus(released);
        s.queues.ancestors_inclusive(a.queue).all(|i| {
            let q = s.queues.get(i);
            let used = q.used_in(partition);
            if !calc.fits(used.plus(net), maximum(i)) {
                return false;
            }
            if killed.is_empty() {
                return true;
            }
            // What leaves this queue for certain: the reservation, the killed containers
            // charged to it, and (a parent) every killable container under it there.
            let freed = if q.is_leaf() {
                killed.iter().filter(|&&(leaf, _)| leaf == i).fold(unreserved, |sum, &(_, r)| sum.plus(r))
            } else {
                unreserved.plus(s.killable_under_in(i, partition))
            };
            calc.fits(used.plus(resource).minus(freed), maximum(i))
        })
    }

    /// Books the container `a` decided on `node`.
    fn apply(&mut self, node: NodeKey, a: Assignment) -> Allocation {
        let s = &mut self.state;
        let n = &s.nodes[&node];
        let app = s.apps.get_mut(&a.app).expect("assignment for a live application");
        let id = app.next_container_id();
        let asked_default = app.asks_default_partition(a.key);
        app.note_if_am_container(id, a.key);
        app.record_allocation(a.key, &n.host, &n.rack, a.locality);
        // (A reservation fulfilled later does not mark it: Apache's leaf tells its
        // ordering policy of new allocations and reservations only.)
        app.fair_stale = true;
        let still_asking = app.is_asking();
        s.book_container(a.app, id, node, a.resource, a.key, asked_default);
        log::debug!("allocated {} on node {node} to application {} ({:?})", a.resource, a.app, a.locality);
        if !still_asking {
            self.count_user_active(a.app, false);
        }
        Allocation::decided(AllocationKind::Allocate, node, id, &a)
    }

    /// Holds `node` for `a`, which does not fit yet (see [`crate::model::State::book_reservation`]).
    fn reserve(&mut self, node: NodeKey, a: Assignment) -> Allocation {
        let app = self.state.apps.get_mut(&a.app).expect("reservation for a live application");
        let container = app.next_container_id();
        self.state.book_reservation(Reservation {
            app: a.app,
            container,
            node,
            origin: node,
            key: a.key,
            resource: a.resource,
            created_ms: 0,
        });
        log::debug!("reserved node {node} for application {} ({})", a.app, a.resource);
        Allocation::decided(AllocationKind::Reserve, node, container, &a)
    }

    /// A heartbeat from a reserved node: fulfil the reservation if the container fits now,
    /// cancel it if the application no longer wants it, else keep waiting. Either way the
    /// node serves nobody else this heartbeat (Apache's `allocateFromReservedContainer`).
    fn serve_reservation(&mut self, node: NodeKey, r: Reservation) -> Vec<Allocation> {
        let wanted = self
            .state
            .apps
            .get(&r.app)
            .is_some_and(|a| a.active && a.requests.get(&r.key).is_some_and(|g| g.wanted() > 0));
        if !wanted {
            self.state.unbook_reservation(node);
            return vec![Allocation::unreserved(&r)];
        }
        let n = &self.state.nodes[&node];
        if self.state.apps[&r.app].blacklist.excludes(&n.host, &n.rack) {
            // The application has blacklisted the node since it reserved it: Apache skips
            // the application there (before counting an opportunity) and keeps the
            // reservation, which holds the node until the blacklist or the ask changes.
            return Vec::new();
        }
        // Each heartbeat of its reserved node is a scheduling opportunity for the request
        // (Apache counts it before trying the node), whatever comes of it.
        if let Some(app) = self.state.apps.get_mut(&r.app) {
            app.count_opportunity(r.key);
        }
        let n = &self.state.nodes[&node];
        let calc = self.state.calculator();
        let (locality, asked) =
            reserved_node_level(&self.state, &self.state.apps[&r.app], r.key, n).expect("a wanted request");
        // A leaf below its guarantee may kill containers lazy preemption marked killable
        // here to make room.
        let mut room = n.unallocated();
        let mut kill = Vec::new();
        let leaf = self.state.apps[&r.app].queue;
        if !calc.fits(asked, room) && may_take_killable_room(&self.state, leaf, n.partition) {
            if let Some(k) = killable_to_make_room(&self.state, n, asked) {
                room = k.iter().fold(room, |s, c| s.plus(self.state.containers[c].resource));
                kill = k;
            }
        }
        if !calc.fits(asked, room) {
            // What the application asks for now does not fit yet: keep holding the node.
            if let Some(app) = self.state.apps.get_mut(&r.app) {
                *app.re_reservations.entry(r.key).or_insert(0) += 1;
            }
            return Vec::new();
        }
        if !calc.fits(r.resource, room) {
            // The application shrank its ask since the node was reserved: the new size
            // fits, the reserved one does not. Apache places the reserved size anyway and
            // over-commits the node; we give the reservation up, so the smaller ask is
            // placed like any other.
            self.state.unbook_reservation(node);
            return vec![Allocation::unreserved(&r)];
        }
        let (host, rack) = (n.host.clone(), n.rack.clone());
        let why = format!("to make room for the reservation of {}", self.app_name(r.app));
        let mut out: Vec<Allocation> =
            self.others_killable(r.app, &kill).into_iter().filter_map(|c| self.kill_killable(c, &why)).collect();
        self.state.fulfil_reservation(node);
        let app = self.state.apps.get_mut(&r.app).expect("checked above");
        app.note_if_am_container(r.container, r.key);
        app.record_allocation(r.key, &host, &rack, locality);
        if !app.is_asking() {
            self.count_user_active(r.app, false);
        }
        out.push(Allocation { kind: AllocationKind::AllocateReserved, locality, ..Allocation::unreserved(&r) });
        out
    }

    /// Containers that completed, were released, expired or were killed: their resources
    /// return to node, application and queues. A reserved container the RM killed
    /// (KILL_RESERVED_CONTAINER) ends its reservation. Unknown containers are ignored (the
    /// RM may report a container twice).
    pub fn release(&mut self, containers: &[ContainerRef]) {
        for &c in containers {
            self.release_one(c, false);
        }
    }

    /// Containers the RM is done with, in the order it reported them (see [`Release`]).
    pub fn apply_releases(&mut self, releases: &[Release]) {
        for &r in releases {
            match r {
                Release::Done(c) => self.release_one(c, false),
                Release::NodeHolds(c) => self.release_one(c, true),
                Release::NodeFreed(c) => {
                    self.state.free_on_node(c);
                }
                Release::Launched(c) => self.state.mark_launched(c),
            }
        }
    }

    fn release_one(&mut self, (app, id): ContainerRef, node_holds: bool) {
        let reserved_on = self.state.apps.get(&app).and_then(|a| a.reservations.get(&id)).map(|r| r.node);
        if let Some(node) = reserved_on {
            self.state.unbook_reservation(node);
        } else if node_holds {
            self.state.unbook_container_node_holds((app, id));
        } else if self.state.unbook_container((app, id)).is_none() {
            // One the core ended itself (a killable container killed for room), whose
            // node, the RM now says, is done with it too.
            self.state.free_on_node((app, id));
        }
    }
}
