//! The one owner of scheduling state. Every event the ResourceManager delivers becomes a
//! method call here; decisions come from the pure functions in `allocation` and
//! `admission`, and this type applies them.

use crate::admission;
pub use crate::admission::{QueueAcl, Rejection, Submission};
use crate::allocation::{limit_for_user, next_assignment, published_limits, Assignment, Decision};
use crate::application::{App, AppKey, Ask, ContainerRef, Locality, SchedulerKey, ANY};
use crate::config::{ConfigError, ConfigErrors, QueueState, SchedulerConfig};
use crate::node::{Node, NodeKey, Reservation};
use crate::queue::{QueueIndex, QueueTree};
use crate::resource::{Resource, ResourceCalculator};
use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

/// A container as the scheduler tracks it.
#[derive(Debug, Clone, PartialEq)]
pub struct Container {
    /// The node it runs on.
    pub node: NodeKey,
    /// Its size.
    pub resource: Resource,
    /// The request it satisfied.
    pub key: SchedulerKey,
}

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
}

impl AllocationKind {
    /// The code used on the JNI wire.
    pub fn code(self) -> i64 {
        match self {
            AllocationKind::Allocate => 0,
            AllocationKind::Reserve => 1,
            AllocationKind::Unreserve => 2,
            AllocationKind::AllocateReserved => 3,
        }
    }
}

/// A container the scheduler decided to allocate, for the RM to materialise.
#[derive(Debug, Clone, PartialEq)]
pub struct Allocation {
    /// What to do.
    pub kind: AllocationKind,
    /// The application that gets it.
    pub app: AppKey,
    /// Its number (`ContainerId.getContainerId()`).
    pub number: u64,
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
    /// Container `number` on `node`, of the application, size, request and locality `a`
    /// decided.
    fn decided(kind: AllocationKind, node: NodeKey, number: u64, a: &Assignment) -> Allocation {
        Allocation { kind, app: a.app, number, node, resource: a.resource, key: a.key, locality: a.locality }
    }
}

/// Everything the scheduler knows. Public so the pure decision functions can read it.
#[derive(Debug, Clone)]
pub struct State {
    /// The configuration in force.
    pub config: Arc<SchedulerConfig>,
    /// The queue tree with usage.
    pub queues: QueueTree,
    /// Live nodes.
    pub nodes: HashMap<NodeKey, Node>,
    /// Live applications.
    pub apps: HashMap<AppKey, App>,
    /// Live containers.
    pub containers: HashMap<ContainerRef, Container>,
    /// Total resources of all live nodes.
    pub cluster: Resource,
    /// The RM's epoch (bumped at each restart), carried in container numbers.
    pub epoch: u64,
    pub(crate) next_node: NodeKey,
    pub(crate) next_app: AppKey,
}

impl State {
    /// The configured resource calculator.
    pub fn calculator(&self) -> ResourceCalculator {
        self.config.global.resource_calculator
    }

    /// Missed opportunities a request waits for a node-local container before it takes a
    /// rack-local one: `node-locality-delay`, capped by the number of nodes (Apache's
    /// `getActualNodeLocalityDelay`).
    pub fn node_locality_delay(&self) -> u64 {
        (self.nodes.len() as u64).min(self.config.global.node_locality_delay.max(0) as u64)
    }

    /// Resources not held by any container, cluster-wide.
    pub fn cluster_available(&self) -> Resource {
        let used = self.queues.get(0).used;
        self.cluster.minus(used)
    }
}

/// The scheduler: state plus the rules for changing it.
#[derive(Debug, Clone)]
pub struct Scheduler {
    state: State,
}

impl Scheduler {
    /// A scheduler with no nodes and no applications.
    pub fn new(config: SchedulerConfig, epoch: u64) -> Self {
        let queues = QueueTree::build(&config);
        Scheduler {
            state: State {
                config: Arc::new(config),
                queues,
                nodes: HashMap::default(),
                apps: HashMap::default(),
                containers: HashMap::default(),
                cluster: Resource::ZERO,
                epoch,
                next_node: 0,
                next_app: 0,
            },
        }
    }

    /// Read access to everything, for reports and tests.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// A scheduler over a hand-made state (unit tests of the decision functions).
    #[cfg(test)]
    pub(crate) fn from_state_for_tests(state: State) -> Self {
        Scheduler { state }
    }

    // ----- nodes -------------------------------------------------------------------------

    /// NODE_ADDED: returns the node's compact key.
    pub fn add_node(&mut self, node_id: &str, host: &str, rack: &str, total: Resource) -> NodeKey {
        let key = self.state.next_node;
        self.state.next_node += 1;
        self.state.nodes.insert(key, Node::new(node_id.into(), host.into(), rack.into(), total));
        self.resize_cluster();
        log::info!("added node {node_id} ({rack}) with {total}; cluster is now {}", self.state.cluster);
        key
    }

    /// NODE_REMOVED: the node's containers are gone; their resources return to their
    /// queues. Returns the containers that were still live on it.
    pub fn remove_node(&mut self, node: NodeKey) -> Vec<ContainerRef> {
        let Some(n) = self.state.nodes.get(&node) else { return Vec::new() };
        let lost: Vec<ContainerRef> = n.containers.iter().copied().collect();
        self.unreserve(node);
        self.release(&lost);
        if let Some(n) = self.state.nodes.remove(&node) {
            log::info!("removed node {} ({} containers lost)", n.node_id, lost.len());
        }
        self.resize_cluster();
        lost
    }

    /// NODE_RESOURCE_UPDATE: the node now offers `total`.
    pub fn update_node_resource(&mut self, node: NodeKey, total: Resource) {
        if let Some(n) = self.state.nodes.get_mut(&node) {
            n.total = total;
        }
        self.resize_cluster();
    }

    fn resize_cluster(&mut self) {
        let total = self.state.nodes.values().fold(Resource::ZERO, |acc, n| acc.plus(n.total));
        self.state.cluster = total;
        let calc = self.state.calculator();
        self.state.queues.update_effective_capacities(total, calc);
        let limits = published_limits(&self.state);
        self.state.queues.publish(limits);
        self.activate_all();
        // Then each leaf invalidates its cached user limits and works out every active
        // application's headroom, which looks them up again.
        let s = &mut self.state;
        for (index, q) in s.queues.queues.iter_mut().enumerate().filter(|(_, q)| q.is_leaf()) {
            q.users_changed();
            let mut any_active = false;
            for k in &q.apps {
                if let Some(a) = s.apps.get_mut(k).filter(|a| a.active) {
                    a.headroom_queue = Some(index);
                    any_active = true;
                }
            }
            if any_active {
                q.user_limit_looked_up();
            }
        }
    }

    /// NODE_UPDATE: reclaims the containers that finished, then places as many containers
    /// on the node as the per-heartbeat limits allow.
    pub fn node_heartbeat(&mut self, node: NodeKey, finished: &[ContainerRef]) -> Vec<Allocation> {
        self.release(finished);
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
        let (mut off_switch, mut assigned) = (0, 0);
        // Apache's canAllocateMore: keep placing while the last placement succeeded, fewer
        // than the off-switch limit were off-switch, and the per-heartbeat cap allows.
        while assigned < max_total && off_switch < max_off_switch {
            let n = &self.state.nodes[&node];
            let Decision { assignment, reserve, missed, published, headroom_tracked } = next_assignment(&self.state, n);
            for &(leaf, _) in &published {
                self.state.queues.queues[leaf].user_limit_looked_up();
            }
            self.state.queues.publish(published);
            for app in headroom_tracked {
                if let Some(a) = self.state.apps.get_mut(&app) {
                    a.headroom_queue = Some(a.queue);
                }
            }
            for (app, key) in missed {
                if let Some(a) = self.state.apps.get_mut(&app) {
                    a.count_opportunity(key);
                }
            }
            if let Some(r) = reserve {
                // A reservation starts the locality wait over as an allocation does, as
                // soon as it is decided (before the commit-time check).
                let full_reset = self.state.config.global.rack_locality_full_reset;
                if let Some(a) = self.state.apps.get_mut(&r.app) {
                    a.restart_locality_wait(r.key, r.locality, full_reset);
                }
                if self.queues_accept(r.app, r.resource, Resource::ZERO) {
                    out.push(self.reserve(node, r));
                }
                break;
            }
            let Some(a) = assignment else { break };
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
            }
            let released =
                a.unreserve.and_then(|(other, _)| self.state.nodes.get(&other)?.reservation.map(|r| r.resource));
            if !self.queues_accept(a.app, a.resource, released.unwrap_or(Resource::ZERO)) {
                continue;
            }
            if let Some((other, _)) = a.unreserve {
                if let Some(r) = self.unreserve(other) {
                    out.push(Allocation {
                        kind: AllocationKind::Unreserve,
                        app: r.app,
                        number: r.number,
                        node: other,
                        resource: r.resource,
                        key: r.key,
                        locality: Locality::OffSwitch,
                    });
                }
            }
            out.push(self.apply(node, a));
        }
        out
    }

    /// Apache's commit-time check (`AbstractCSQueue.accept`): a new container or
    /// reservation of `resource` (giving up `released`) must leave the application's leaf
    /// and every ancestor within its maximum, in every resource the calculator schedules.
    /// A decision that fails it is dropped.
    fn queues_accept(&self, app: AppKey, resource: Resource, released: Resource) -> bool {
        let s = &self.state;
        let Some(a) = s.apps.get(&app) else { return false };
        let calc = s.calculator();
        let net = resource.minus(released);
        s.queues.ancestors_inclusive(a.queue).all(|i| {
            let q = s.queues.get(i);
            calc.fits(q.used.plus(net), q.maximum(s.cluster))
        })
    }

    fn apply(&mut self, node: NodeKey, a: Assignment) -> Allocation {
        let s = &mut self.state;
        let n = s.nodes.get_mut(&node).expect("assignment for a live node");
        let app = s.apps.get_mut(&a.app).expect("assignment for a live application");
        let number = app.next_container_number();
        app.record_allocation(a.key, &n.host, &n.rack, a.locality);
        let still_asking = app.is_asking();
        app.containers.insert(number);
        app.used = app.used.plus(a.resource);
        n.allocated = n.allocated.plus(a.resource);
        n.containers.insert((a.app, number));
        let queue = app.queue;
        let user = app.user.clone();
        s.queues.charge_user(queue, &user, a.resource);
        s.containers.insert((a.app, number), Container { node, resource: a.resource, key: a.key });
        if !still_asking {
            self.count_user_active(a.app, false);
        }
        Allocation::decided(AllocationKind::Allocate, node, number, &a)
    }

    /// Holds `node` for `a`, which does not fit yet. The reserved resources count as used
    /// by the queue and user, as in Apache, so the guarantee accounting sees them.
    fn reserve(&mut self, node: NodeKey, a: Assignment) -> Allocation {
        let s = &mut self.state;
        let app = s.apps.get_mut(&a.app).expect("reservation for a live application");
        let number = app.next_container_number();
        app.reservations.insert(number, (node, a.key, a.resource));
        app.re_reservations.remove(&a.key);
        let (queue, user) = (app.queue, app.user.clone());
        s.queues.charge_user(queue, &user, a.resource);
        s.queues.track_reserved(queue, a.resource, false);
        if let Some(n) = s.nodes.get_mut(&node) {
            n.reservation = Some(Reservation { app: a.app, number, key: a.key, resource: a.resource });
        }
        log::debug!("reserved node {node} for application {} ({})", a.app, a.resource);
        Allocation::decided(AllocationKind::Reserve, node, number, &a)
    }

    /// Drops `node`'s reservation, returning its resources. Returns it, if there was one.
    fn unreserve(&mut self, node: NodeKey) -> Option<Reservation> {
        let s = &mut self.state;
        let r = s.nodes.get_mut(&node)?.reservation.take()?;
        if let Some(app) = s.apps.get_mut(&r.app) {
            app.reservations.remove(&r.number);
            app.re_reservations.remove(&r.key);
            let (queue, user) = (app.queue, app.user.clone());
            s.queues.refund_user(queue, &user, r.resource);
            s.queues.track_reserved(queue, r.resource, true);
        }
        Some(r)
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
        let cancel = |r: &Reservation| Allocation {
            kind: AllocationKind::Unreserve,
            app: r.app,
            number: r.number,
            node,
            resource: r.resource,
            key: r.key,
            locality: Locality::OffSwitch,
        };
        if !wanted {
            self.unreserve(node);
            return vec![cancel(&r)];
        }
        // Each heartbeat of its reserved node is a scheduling opportunity for the request
        // (Apache counts it before trying the node), whatever comes of it.
        if let Some(app) = self.state.apps.get_mut(&r.app) {
            app.count_opportunity(r.key);
        }
        let n = &self.state.nodes[&node];
        let calc = self.state.calculator();
        let (host, rack) = (n.host.clone(), n.rack.clone());
        // The level Apache tries the reservation at (`assignContainersOnNode` with the
        // reserved container): node-local while both the host and its rack are asked for,
        // rack-local while the rack is and the node-locality delay has passed, off-switch
        // otherwise. The size asked at that level decides whether the node can take it.
        let app = &self.state.apps[&r.app];
        let group = &app.requests[&r.key];
        let (locality, level) = if group.count(&host) > 0 && group.count(&rack) > 0 {
            (Locality::NodeLocal, host.as_str())
        } else if group.count(&rack) > 0 && self.state.node_locality_delay() < app.missed(r.key) {
            (Locality::RackLocal, rack.as_str())
        } else {
            (Locality::OffSwitch, ANY)
        };
        let asked = group.capability_at(level);
        if !calc.fits(asked, n.available()) {
            // What the application asks for now does not fit yet: keep holding the node.
            if let Some(app) = self.state.apps.get_mut(&r.app) {
                *app.re_reservations.entry(r.key).or_insert(0) += 1;
            }
            return Vec::new();
        }
        if !calc.fits(r.resource, n.available()) {
            // The application shrank its ask since the node was reserved: the new size
            // fits, the reserved one does not. Apache places the reserved size anyway and
            // over-commits the node; we give the reservation up, so the smaller ask is
            // placed like any other.
            self.unreserve(node);
            return vec![cancel(&r)];
        }
        // The reservation becomes the container. The queues and the user held its
        // resources already, so (as in Apache) their usage does not change.
        let s = &mut self.state;
        if let Some(n) = s.nodes.get_mut(&node) {
            n.reservation = None;
        }
        let app = s.apps.get_mut(&r.app).expect("checked above");
        app.reservations.remove(&r.number);
        app.re_reservations.remove(&r.key);
        app.record_allocation(r.key, &host, &rack, locality);
        let still_asking = app.is_asking();
        app.containers.insert(r.number);
        app.used = app.used.plus(r.resource);
        let queue = app.queue;
        let n = s.nodes.get_mut(&node).expect("live node");
        n.allocated = n.allocated.plus(r.resource);
        n.containers.insert((r.app, r.number));
        s.queues.track_reserved(queue, r.resource, true);
        s.containers.insert((r.app, r.number), Container { node, resource: r.resource, key: r.key });
        if !still_asking {
            self.count_user_active(r.app, false);
        }
        vec![Allocation {
            kind: AllocationKind::AllocateReserved,
            app: r.app,
            number: r.number,
            node,
            resource: r.resource,
            key: r.key,
            locality,
        }]
    }

    /// Containers that completed, were released, expired or were killed: their resources
    /// return to node, application and queues. Unknown containers are ignored (the RM may
    /// report a container twice).
    pub fn release(&mut self, containers: &[ContainerRef]) {
        for c in containers {
            // A reserved container the RM killed (KILL_RESERVED_CONTAINER) ends its reservation.
            let reserved_on = self.state.apps.get(&c.0).and_then(|a| a.reservations.get(&c.1)).map(|(n, _, _)| *n);
            if let Some(node) = reserved_on {
                self.unreserve(node);
                continue;
            }
            let Some(container) = self.state.containers.remove(c) else { continue };
            if let Some(n) = self.state.nodes.get_mut(&container.node) {
                n.allocated = n.allocated.minus(container.resource);
                n.containers.remove(c);
            }
            if let Some(app) = self.state.apps.get_mut(&c.0) {
                app.used = app.used.minus(container.resource);
                app.containers.remove(&c.1);
                let (queue, user) = (app.queue, app.user.clone());
                self.state.queues.refund_user(queue, &user, container.resource);
            }
        }
    }

    // ----- applications ----------------------------------------------------------------

    /// APP_ADDED: admits the application into its leaf queue, or says why not.
    pub fn submit(&mut self, sub: &Submission) -> Result<(AppKey, String), Rejection> {
        let queue = admission::admit(&self.state, sub)?;
        let key = self.state.next_app;
        self.state.next_app += 1;
        let epoch = self.state.epoch;
        let mut app = App::new(sub.app_id, queue, sub.user.clone(), sub.priority, epoch);
        app.am_resource = sub.am_resource;
        self.state.apps.insert(key, app);
        self.enqueue(key);
        Ok((key, self.state.queues.get(queue).path().to_string()))
    }

    /// Puts `app` into its leaf as a pending application of its user.
    fn enqueue(&mut self, app: AppKey) {
        let a = &self.state.apps[&app];
        let (queue, user) = (a.queue, a.user.clone());
        self.insert_in_fifo_order(app);
        self.state.queues.queues[queue].users.entry(user).or_default().pending_apps += 1;
    }

    /// Inserts `app` into its leaf's list at its FIFO place: higher priority first, then
    /// earlier submission. The list stays sorted, so FIFO leaves never sort on a heartbeat.
    fn insert_in_fifo_order(&mut self, app: AppKey) {
        let apps = &self.state.apps;
        let a = &apps[&app];
        let new_key = crate::allocation::fifo_key(a);
        let q = &mut self.state.queues.queues[a.queue];
        let at = q.apps.partition_point(|k| apps.get(k).is_some_and(|a| crate::allocation::fifo_key(a) <= new_key));
        q.apps.insert(at, app);
    }

    /// Takes `app` out of its leaf: deactivated if it was active, its user forgotten if
    /// that was the user's last application and the user no longer counts as active. Its
    /// containers stay charged.
    fn dequeue(&mut self, app: AppKey) {
        let Some(a) = self.state.apps.get(&app) else { return };
        let (queue, user, am, active) = (a.queue, a.user.clone(), a.am_resource, a.active);
        if active {
            self.deactivate(queue, &user, am);
        }
        let q = &mut self.state.queues.queues[queue];
        q.apps.retain(|&k| k != app);
        if let Some(u) = q.users.get_mut(&user) {
            if !active {
                u.pending_apps = u.pending_apps.saturating_sub(1);
            }
        }
        q.forget_user_if_idle(&user);
        if let Some(a) = self.state.apps.get_mut(&app) {
            a.active = false;
        }
    }

    /// `moveApplication`: moves `app` and everything it holds (containers, reservations)
    /// to the leaf `target` names, if [`admission::admit_move`] allows. In the new queue
    /// the application is activated again under that queue's limits. Returns the new
    /// queue's path.
    pub fn move_app(&mut self, app: AppKey, target: &str) -> Result<String, admission::MoveRefusal> {
        let dest = admission::admit_move(&self.state, app, target)?;
        let a = &self.state.apps[&app];
        let source = a.queue;
        if dest != source {
            let (user, reserved) = (a.user.clone(), a.reserved());
            let held = a.used.plus(reserved);
            // Its asks leave the users manager of the leaf (Apache's AppSchedulingInfo.move).
            self.count_user_active(app, false);
            // Usage leaves first, so that dequeuing forgets a user with nothing left here.
            let queues = &mut self.state.queues;
            queues.refund_user(source, &user, held);
            queues.track_reserved(source, reserved, true);
            self.dequeue(app);
            let queues = &mut self.state.queues;
            queues.charge_user(dest, &user, held);
            queues.track_reserved(dest, reserved, false);
            self.state.apps.get_mut(&app).expect("checked above").queue = dest;
            self.enqueue(app);
            // As in Apache, the leaf the application left and the one it joined each
            // look at their pending applications again; other leaves do not.
            self.activate_pending(source);
            self.activate_pending(dest);
            // Its asks join the new leaf's users manager, which counts it only if its
            // user has an activated application there.
            self.review_user_active(app, true);
            log::info!(
                "moved application {} from {} to {}",
                admission::application_name(self.state.apps[&app].app_id),
                self.state.queues.get(source).path(),
                self.state.queues.get(dest).path()
            );
        }
        Ok(self.state.queues.get(dest).path().to_string())
    }

    /// `updateApplicationPriority`: `app` now runs at `priority`, and takes its new place
    /// in its leaf's FIFO order (among the active or the pending applications alike).
    pub fn update_priority(&mut self, app: AppKey, priority: i64) {
        let Some(a) = self.state.apps.get_mut(&app) else { return };
        if a.priority == priority {
            return;
        }
        a.priority = priority;
        let (queue, active) = (a.queue, a.active);
        self.state.queues.queues[queue].apps.retain(|&k| k != app);
        self.insert_in_fifo_order(app);
        if !active {
            self.activate_pending(queue);
        }
    }

    /// The priority an application submitted (or updated) to `queue` runs at (see
    /// [`admission::application_priority`]).
    pub fn application_priority(&self, requested: Option<i64>, queue: &str, cluster_max: i64) -> i64 {
        admission::application_priority(&self.state, requested, queue, cluster_max)
    }

    /// Work-preserving recovery: a NodeManager re-registering after an RM restart reports
    /// a container this application holds. It is charged like an allocation, without a
    /// decision. Returns false (nothing recorded) for an unknown application or node, or
    /// a container already known.
    pub fn recover_container(
        &mut self,
        app: AppKey,
        number: u64,
        node: NodeKey,
        resource: Resource,
        key: SchedulerKey,
    ) -> bool {
        let s = &mut self.state;
        if s.containers.contains_key(&(app, number)) {
            return false;
        }
        let (Some(a), Some(n)) = (s.apps.get_mut(&app), s.nodes.get_mut(&node)) else { return false };
        a.containers.insert(number);
        a.used = a.used.plus(resource);
        // New containers must not reuse a recovered number (same epoch: the RM restarted
        // without bumping it, as with a non-persistent state store).
        a.last_container_number = a.last_container_number.max(number);
        n.allocated = n.allocated.plus(resource);
        n.containers.insert((app, number));
        let (queue, user) = (a.queue, a.user.clone());
        s.queues.charge_user(queue, &user, resource);
        s.containers.insert((app, number), Container { node, resource, key });
        true
    }

    /// Whether `user` holds `acl` on `queue` (see [`admission::check_access`]).
    pub fn check_access(&self, queue: QueueIndex, acl: QueueAcl, user: &str, groups: &[String]) -> bool {
        admission::check_access(&self.state, queue, acl, user, groups)
    }

    /// APP_ATTEMPT_ADDED: a new attempt starts with no outstanding requests. With
    /// `keep_containers` the previous attempt's containers stay with the application. An
    /// application that counted its user as active still does (Apache keys that by
    /// application, not attempt).
    pub fn add_attempt(&mut self, app: AppKey, attempt_id: i32) {
        if let Some(a) = self.state.apps.get_mut(&app) {
            a.attempt = Some(attempt_id);
            a.headroom_queue = None;
            a.clear_requests();
        }
        // Apache's addApplicationAttempt activates in the application's own leaf only.
        if let Some(queue) = self.state.apps.get(&app).map(|a| a.queue) {
            self.activate_pending(queue);
        }
    }

    /// APP_ATTEMPT_REMOVED: the attempt's outstanding requests are dropped. Its containers
    /// are released separately, one by one, as the RM kills them. As in Apache, dropping
    /// them does not stop the application counting its user as active.
    pub fn remove_attempt(&mut self, app: AppKey) {
        if let Some(a) = self.state.apps.get_mut(&app) {
            a.attempt = None;
            a.clear_requests();
        }
    }

    /// APP_REMOVED: the application is gone; any container the RM did not report killed is
    /// released too. Returns those containers.
    pub fn remove_app(&mut self, app: AppKey) -> Vec<ContainerRef> {
        let Some(a) = self.state.apps.get(&app) else { return Vec::new() };
        let left: Vec<ContainerRef> = a.containers.iter().map(|&n| (app, n)).collect();
        let reserved: Vec<NodeKey> = a.reservations.values().map(|(n, _, _)| *n).collect();
        let queue = a.queue;
        for node in reserved {
            self.unreserve(node);
        }
        self.release(&left);
        // Apache takes the attempt out of its leaf and activates the leaf's pending
        // applications (finishApplicationAttempt, in the application's own leaf only)
        // before the application's end stops its user counting as active
        // (finishApplication).
        self.dequeue(app);
        self.activate_pending(queue);
        self.count_user_active(app, false);
        if let Some(a) = self.state.apps.remove(&app) {
            self.state.queues.queues[queue].forget_user_if_idle(&a.user);
        }
        left
    }

    /// Counts `app` towards (or no longer towards) making its user "active" in its leaf,
    /// the users the user-limit formula shares the queue among. Apache's rule
    /// (`UsersManager.activateApplication`): an application counts from when it asks for
    /// a new request while its user already has an activated application in the queue,
    /// until it has nothing left to ask for — activation alone does not make it count.
    fn count_user_active(&mut self, app: AppKey, counts: bool) {
        let Some(a) = self.state.apps.get_mut(&app) else { return };
        if a.counts_user_active == counts {
            return;
        }
        a.counts_user_active = counts;
        let (queue, user) = (a.queue, a.user.clone());
        let q = &mut self.state.queues.queues[queue];
        if let Some(u) = q.users.get_mut(&user) {
            let was_active = u.is_active();
            if counts {
                u.apps_counted_active += 1;
            } else {
                u.apps_counted_active = u.apps_counted_active.saturating_sub(1);
            }
            if u.is_active() != was_active {
                q.users_changed();
            }
        }
    }

    /// After an application's asks change: it stops counting once it asks for nothing, and
    /// starts when a request newly asks for containers while its user has an activated
    /// application here.
    fn review_user_active(&mut self, app: AppKey, newly_asking: bool) {
        let Some(a) = self.state.apps.get(&app) else { return };
        if !a.is_asking() {
            self.count_user_active(app, false);
        } else if newly_asking {
            let user_has_active = self.state.queues.get(a.queue).users.get(&a.user).is_some_and(|u| u.active_apps > 0);
            if user_has_active {
                self.count_user_active(app, true);
            }
        }
    }

    fn deactivate(&mut self, queue: QueueIndex, user: &str, am_resource: Resource) {
        let path: Vec<QueueIndex> = self.state.queues.ancestors_inclusive(queue).collect();
        for i in path {
            let q = &mut self.state.queues.queues[i];
            q.running_apps = q.running_apps.saturating_sub(1);
        }
        let q = &mut self.state.queues.queues[queue];
        q.am_used = q.am_used.minus(am_resource);
        if let Some(u) = q.users.get_mut(user) {
            u.active_apps = u.active_apps.saturating_sub(1);
            u.am_used = u.am_used.minus(am_resource);
        }
    }

    /// Activates pending applications in every leaf, as far as the limits allow.
    fn activate_all(&mut self) {
        let leaves: Vec<QueueIndex> =
            (0..self.state.queues.queues.len()).filter(|&i| self.state.queues.get(i).is_leaf()).collect();
        for leaf in leaves {
            self.activate_pending(leaf);
        }
    }

    /// Apache's `activateApplications`: pending applications (with an attempt), in
    /// submission order, become active while the queue's and the user's
    /// ApplicationMaster limits and the `max-parallel-apps` limits allow. A queue with
    /// no active ApplicationMaster always lets one in, however small its AM limit.
    fn activate_pending(&mut self, queue: QueueIndex) {
        let calc = self.state.calculator();
        let pending: Vec<AppKey> = {
            let q = self.state.queues.get(queue);
            let mut p: Vec<AppKey> = q
                .apps
                .iter()
                .copied()
                .filter(|k| self.state.apps.get(k).is_some_and(|a| !a.active && a.attempt.is_some()))
                .collect();
            p.sort_by_key(|k| {
                let a = &self.state.apps[k];
                (std::cmp::Reverse(a.priority), a.app_id)
            });
            p
        };
        if pending.is_empty() {
            return;
        }
        let queue_am_limit = self.queue_am_limit(queue);
        // Apache works the user's AM limit out once per pass, for the first pending
        // application's user, and holds every user of the pass to it.
        let first_user = self.state.apps[&pending[0]].user.clone();
        let user_am_limit = self.user_am_limit(queue, &first_user, queue_am_limit);
        for key in pending {
            let (user, am) = {
                let a = &self.state.apps[&key];
                (a.user.clone(), a.am_resource)
            };
            let q = self.state.queues.get(queue);
            let active_in_queue = q.users.values().map(|u| u.active_apps).sum::<usize>();
            if !calc.fits(q.am_used.plus(am), queue_am_limit) && active_in_queue > 0 && !q.am_used.is_none() {
                continue;
            }
            let u = q.users.get(&user).cloned().unwrap_or_default();
            if !calc.fits(u.am_used.plus(am), user_am_limit) && active_in_queue > 0 && !q.am_used.is_none() {
                continue;
            }
            if !self.parallel_apps_allow(queue, &user) {
                continue;
            }
            let path: Vec<QueueIndex> = self.state.queues.ancestors_inclusive(queue).collect();
            for i in path {
                self.state.queues.queues[i].running_apps += 1;
            }
            let q = &mut self.state.queues.queues[queue];
            q.am_used = q.am_used.plus(am);
            let u = q.users.entry(user).or_default();
            u.am_used = u.am_used.plus(am);
            u.active_apps += 1;
            u.pending_apps = u.pending_apps.saturating_sub(1);
            if let Some(a) = self.state.apps.get_mut(&key) {
                a.active = true;
                log::info!(
                    "application {} of user {} activated in {}",
                    admission::application_name(a.app_id),
                    a.user,
                    self.state.queues.get(queue).path()
                );
            }
        }
    }

    /// Apache's `calculateAndGetAMResourceLimitPerPartition`: `maximum-am-resource-percent`
    /// of the queue's published limit (see `Queue::published_limit`), or of its guarantee
    /// when that does not fit in the limit, rounded up to the minimum allocation.
    pub fn queue_am_limit(&self, queue: QueueIndex) -> Resource {
        let s = &self.state;
        let calc = s.calculator();
        let q = s.queues.get(queue);
        let guaranteed = q.guaranteed(s.cluster);
        let limit = q.published_limit;
        let usable = if calc.fits(guaranteed, limit) { limit } else { guaranteed };
        // Apache holds the percentage as a Java float; widened, 0.2 is a little over 0.2,
        // which the Dominant calculator rounds up.
        let percent = q.config.maximum_am_resource_percent as f32 as f64;
        calc.multiply_and_normalize_up(usable, percent, s.config.cluster.minimum_allocation)
    }

    /// Apache's `getUserAMResourceLimitPerPartition`: the queue's guarantee times
    /// `maximum-am-resource-percent`, the user's share (at least
    /// `minimum-user-limit-percent`, weighted) and `user-limit-factor` (ignored when it is
    /// -1), within the queue's AM limit. The share counts active users and users whose
    /// only applications still wait for activation, as last counted (`PendingUsersCount`).
    pub fn user_am_limit(&self, queue: QueueIndex, user: &str, queue_am_limit: Resource) -> Resource {
        let s = &self.state;
        let calc = s.calculator();
        let q = s.queues.get(queue);
        let users = q.users.values().filter(|u| u.is_active()).count() + q.pending_users.get();
        let weight = q.config.user_weights.get(user).copied().unwrap_or(1.0);
        let share = ((q.config.minimum_user_limit_percent / 100.0) as f32).max(1.0 / users.max(1) as f32);
        let share = (share * weight as f32).min(1.0);
        let by = if q.config.user_limit_factor == -1.0 {
            q.config.maximum_am_resource_percent as f32
        } else {
            q.config.maximum_am_resource_percent as f32 * share * q.config.user_limit_factor as f32
        };
        let limit =
            calc.multiply_and_normalize_up(q.guaranteed(s.cluster), by as f64, s.config.cluster.minimum_allocation);
        calc.min(s.cluster, limit, queue_am_limit)
    }

    /// `max-parallel-apps` on the queue and its ancestors, and `user.max-parallel-apps`.
    fn parallel_apps_allow(&self, queue: QueueIndex, user: &str) -> bool {
        let s = &self.state;
        let queues_ok = s.queues.ancestors_inclusive(queue).all(|i| {
            let q = s.queues.get(i);
            q.config.max_parallel_apps.is_none_or(|m| (q.running_apps as i64) < m)
        });
        let user_running: usize = s
            .queues
            .queues
            .iter()
            .filter(|q| q.is_leaf())
            .map(|q| q.users.get(user).map_or(0, |u| u.active_apps))
            .sum();
        let user_ok = s.config.global.user_max_parallel_apps.is_none_or(|m| (user_running as i64) < m);
        queues_ok && user_ok
    }

    /// `allocate()`: records the AM's asks. Returns the application's headroom.
    pub fn update_requests(&mut self, app: AppKey, asks: &[Ask]) -> Resource {
        let mut newly_asking = false;
        // A request group's missed opportunities outlive its asks, as in Apache (an
        // attempt's count per scheduler key is only ever reset by an allocation).
        if let Some(a) = self.state.apps.get_mut(&app) {
            newly_asking = a.update_requests(asks);
        }
        self.review_user_active(app, newly_asking);
        // Apache answers with the headroom its provider works out, which looks the user
        // limit up in its leaf — once the application has one (see `App::headroom_queue`).
        if let Some(leaf) = self.state.apps.get(&app).and_then(|a| a.headroom_queue) {
            self.state.queues.queues[leaf].user_limit_looked_up();
        }
        self.headroom(app)
    }

    /// `allocate()`'s blacklist additions and removals. `waiting_for_am` says whether the
    /// attempt still waits for its AM container (the RM's own list then applies).
    pub fn update_blacklist(&mut self, app: AppKey, waiting_for_am: bool, additions: &[String], removals: &[String]) {
        if let Some(a) = self.state.apps.get_mut(&app) {
            a.blacklist.update(waiting_for_am, additions, removals);
        }
    }

    /// What the application could still get (Apache's headroom): the smaller of its
    /// user's room under the user limit and its queue's room under the queue's published
    /// limit, rounded down to the minimum allocation, and no more than the cluster has free.
    pub fn headroom(&self, app: AppKey) -> Resource {
        let s = &self.state;
        let Some(a) = s.apps.get(&app) else { return Resource::ZERO };
        let Some(leaf) = a.headroom_queue else { return Resource::ZERO };
        let calc = s.calculator();
        let q = s.queues.get(leaf);
        let user_used = q.users.get(&a.user).map_or(Resource::ZERO, |u| u.used);
        let user_room = limit_for_user(s, leaf, &a.user).minus(user_used);
        let queue_room = q.published_limit.minus(q.used);
        let headroom = calc.round_down_to(user_room.component_min(queue_room), s.config.cluster.minimum_allocation);
        calc.min(s.cluster, s.cluster_available(), headroom)
    }

    // ----- configuration -----------------------------------------------------------------

    /// `refreshQueues`: checks the refresh rules against the live state, then swaps the new
    /// configuration in. On any error nothing changes. Returns notices for the admin: as
    /// in Apache, the resource calculator is chosen when the scheduler starts, so a changed
    /// `resource-calculator` waits for the next restart.
    pub fn refresh(&mut self, mut new: SchedulerConfig) -> Result<Vec<String>, ConfigErrors> {
        check_refresh(&self.state, &new)?;
        let mut notices = Vec::new();
        let running = self.state.calculator();
        if new.global.resource_calculator != running {
            notices.push(format!(
                "yarn.scheduler.capacity.resource-calculator: {} takes effect at the next ResourceManager restart; {} stays in use (as Apache's scheduler does)",
                new.global.resource_calculator.class_name(),
                running.class_name()
            ));
            new.global.resource_calculator = running;
        }
        let mut tree = QueueTree::build(&new);
        tree.order_children_as_refreshed_from(&self.state.queues);
        for old in &self.state.queues.queues {
            if let Some(i) = tree.index_of_path(old.path()) {
                let q = &mut tree.queues[i];
                q.used = old.used;
                q.apps = old.apps.clone();
                q.users = old.users.clone();
                q.pending_users = old.pending_users.clone();
                q.am_used = old.am_used;
                q.running_apps = old.running_apps;
                q.reserved = old.reserved;
            }
        }
        for app in self.state.apps.values_mut() {
            let path = self.state.queues.get(app.queue).path();
            app.queue = tree.index_of_path(path).expect("refresh rules keep every queue that has applications");
            app.headroom_queue = app.headroom_queue.and_then(|q| tree.index_of_path(self.state.queues.get(q).path()));
        }
        self.state.config = Arc::new(new);
        self.state.queues = tree;
        self.resize_cluster();
        for n in &notices {
            log::warn!("{n}");
        }
        Ok(notices)
    }
}

/// The rules a new configuration must follow relative to the running one (Apache's
/// `validateQueueHierarchy`): a queue may only disappear once STOPPED and empty, a queue
/// keeps its path, and a leaf becomes a parent only while STOPPED and empty.
pub fn check_refresh(state: &State, new: &SchedulerConfig) -> Result<(), ConfigErrors> {
    let mut errors = Vec::new();
    for old in &state.queues.queues {
        let path = old.path();
        match new.queue_index(path) {
            None => {
                if let Some(moved) =
                    new.queues.iter().find(|q| q.name == old.config.name && old.is_leaf() && q.is_leaf())
                {
                    errors.push(ConfigError::queue(
                        path,
                        format!("cannot move to {}: a queue's path cannot change on refresh", moved.path),
                    ));
                } else if old.config.state != QueueState::Stopped {
                    errors.push(ConfigError::queue(path, format!(
                        "cannot be removed from the configuration: it is {}; set its state to STOPPED first and refresh, then remove it",
                        old.config.state.as_str()
                    )));
                } else if !old.apps.is_empty() {
                    errors.push(ConfigError::queue(
                        path,
                        format!("cannot be removed: {} applications are still in it", old.apps.len()),
                    ));
                }
            }
            Some(i) => {
                let newq = &new.queues[i];
                if old.is_leaf() && !newq.is_leaf() {
                    if old.config.state != QueueState::Stopped {
                        errors.push(ConfigError::queue(
                            path,
                            format!(
                                "cannot become a parent queue while it is {}; stop it first",
                                old.config.state.as_str()
                            ),
                        ));
                    } else if !old.apps.is_empty() {
                        errors.push(ConfigError::queue(
                            path,
                            format!("cannot become a parent queue: {} applications are still in it", old.apps.len()),
                        ));
                    }
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ConfigErrors(errors))
    }
}
