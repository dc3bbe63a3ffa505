//! The ledger: the one place containers and reservations are booked and unbooked. Each
//! entry changes every record that holds it at once — the node, the application, its user
//! and its queues, and the container index — so the copies cannot drift apart. In debug
//! builds every change checks its own preconditions, and [`State::invariant_violations`]
//! checks the books as a whole.

use crate::ids::{AppKey, ContainerId, ContainerRef, NodeKey, SchedulerKey};
use crate::model::{Container, Leaving, Reservation, State};
use crate::resource::Resource;
use rustc_hash::FxHashMap as HashMap;

/// Where a container asked for the default partition (`asked_default`) and placed in
/// `partition` counts as lent: a labelled partition (Apache's leaf lists it among the
/// containers that ignored partition exclusivity, under that partition).
fn lent_in(asked_default: bool, partition: crate::model::PartitionId) -> Option<crate::model::PartitionId> {
    (asked_default && partition != crate::model::DEFAULT_PARTITION).then_some(partition)
}

impl State {
    /// A container of `resource` for request `key` now runs on `node` for `app`: booked to
    /// the node, the application, its user and its leaf and ancestors.
    pub fn book_container(
        &mut self,
        app: AppKey,
        id: ContainerId,
        node: NodeKey,
        resource: Resource,
        key: SchedulerKey,
        asked_default: bool,
    ) {
        let a = self.apps.get_mut(&app).expect("a container is booked to a live application");
        let n = self.nodes.get_mut(&node).expect("a container is booked on a live node");
        let new = a.containers.insert(id) & n.containers.insert((app, id));
        debug_assert!(new, "container {id} of application {app} booked twice");
        n.note_held();
        a.used = a.used.plus(resource);
        n.allocated = n.allocated.plus(resource);
        let (queue, user, partition) = (a.queue, a.user.clone(), n.partition);
        self.queues.charge_user_in(partition, queue, &user, resource);
        let container = self.stamped(node, resource, key, asked_default, partition);
        self.containers.insert((app, id), container);
    }

    /// A container booked now on `node` (in `partition`): stamped with the wall clock, as
    /// Apache stamps a new `RMContainer`, and with the next place in the booking order.
    fn stamped(
        &mut self,
        node: NodeKey,
        resource: Resource,
        key: SchedulerKey,
        asked_default: bool,
        partition: crate::model::PartitionId,
    ) -> Container {
        self.bookings += 1;
        Container {
            node,
            resource,
            key,
            created_ms: super::wall_clock_ms(),
            booked: self.bookings,
            asked_default,
            lent_in: lent_in(asked_default, partition),
            launched: false,
            freed_by_node: false,
        }
    }

    /// `app`'s containers are listed as lent again under their nodes' partitions now, as
    /// Apache's leaf lists them when they are attached to it (a move).
    pub fn relist_lent(&mut self, app: AppKey) {
        let State { apps, containers, nodes, .. } = self;
        let Some(a) = apps.get(&app) else { return };
        for &id in &a.containers {
            if let Some(c) = containers.get_mut(&(app, id)) {
                if let Some(n) = nodes.get(&c.node) {
                    c.lent_in = lent_in(c.asked_default, n.partition);
                }
            }
        }
    }

    /// The container ended (completed, released, expired, killed, or lost with its node):
    /// its resources return to the node, the application, its user and its queues. Returns
    /// it, or `None` for a container the books do not hold (the RM may report one twice).
    pub fn unbook_container(&mut self, c: ContainerRef) -> Option<Container> {
        let container = self.containers.remove(&c)?;
        self.forget_killable(c, container.node);
        let mut partition = crate::model::DEFAULT_PARTITION;
        if let Some(n) = self.nodes.get_mut(&container.node) {
            n.allocated = n.allocated.minus(container.resource);
            n.containers.remove(&c);
            partition = n.partition;
        }
        if let Some(app) = self.apps.get_mut(&c.0) {
            app.used = app.used.minus(container.resource);
            app.containers.remove(&c.1);
            app.fair_stale = true;
            let (queue, user) = (app.queue, app.user.clone());
            self.queues.refund_user_in(partition, queue, &user, container.resource);
        }
        Some(container)
    }

    /// Like [`State::unbook_container`] for the application, its user and its queues, but
    /// the node keeps the container's share until its NodeManager reports it gone
    /// ([`State::free_on_node`]).
    pub fn unbook_container_node_holds(&mut self, c: ContainerRef) -> Option<Container> {
        if self.containers.get(&c)?.freed_by_node {
            return self.unbook_container(c);
        }
        let (app_id, queue, am) = self
            .apps
            .get(&c.0)
            .map(|a| (a.app_id, self.queues.get(a.queue).path().to_string(), a.am_container == Some(c.1)))
            .unwrap_or_default();
        let container = self.unbook_container(c)?;
        if let Some(n) = self.nodes.get_mut(&container.node) {
            n.allocated = n.allocated.plus(container.resource);
            n.leaving.insert(c, Leaving { container: container.clone(), app_id, queue, am });
            self.leaving.insert(c, container.node);
        }
        Some(container)
    }

    /// A container the core ends itself (killed for room): it leaves the books at once, and
    /// its node's share with it unless its NodeManager runs it ([`Container::launched`]),
    /// as Apache's node keeps a launched container's share until the NodeManager reports it.
    pub fn unbook_ended_by_core(&mut self, c: ContainerRef) -> Option<Container> {
        if self.containers.get(&c)?.launched {
            self.unbook_container_node_holds(c)
        } else {
            self.unbook_container(c)
        }
    }

    /// The NodeManager reports `c` running on its node (see [`Container::launched`]).
    pub fn mark_launched(&mut self, c: ContainerRef) {
        if let Some(container) = self.containers.get_mut(&c) {
            container.launched = true;
        }
    }

    /// The NodeManager reports gone a container its node kept after its application let
    /// go of it: its share of the node is free. False if no node kept it.
    pub fn free_on_node(&mut self, c: ContainerRef) -> bool {
        let Some(node) = self.leaving.remove(&c) else {
            // Reported gone before its release reached the core (see
            // [`Container::freed_by_node`]).
            if let Some(container) = self.containers.get_mut(&c) {
                container.freed_by_node = true;
            }
            return false;
        };
        let Some(n) = self.nodes.get_mut(&node) else { return false };
        match n.leaving.remove(&c) {
            Some(gone) => {
                n.allocated = n.allocated.minus(gone.container.resource);
                true
            }
            None => false,
        }
    }

    /// Holds `r.node` for `r.app`. The reserved resources count as used by the queue and
    /// the user, as in Apache, so the guarantee accounting sees them; the request's
    /// re-reservation count starts over.
    pub fn book_reservation(&mut self, mut r: Reservation) {
        r.created_ms = super::wall_clock_ms();
        let a = self.apps.get_mut(&r.app).expect("a reservation is booked for a live application");
        a.reservations.insert(r.container, r);
        a.re_reservations.remove(&r.key);
        a.fair_stale = true;
        let (queue, user) = (a.queue, a.user.clone());
        let partition = self.nodes.get(&r.node).map_or(crate::model::DEFAULT_PARTITION, |n| n.partition);
        self.queues.charge_user_in(partition, queue, &user, r.resource);
        self.queues.track_reserved_in(partition, queue, r.resource, false);
        if let Some(n) = self.nodes.get_mut(&r.node) {
            debug_assert!(n.reservation.is_none(), "node {} reserved twice", r.node);
            n.reservation = Some(r);
        }
    }

    /// Drops `node`'s reservation, returning its resources to the user and the queues.
    /// Returns it, if there was one.
    pub fn unbook_reservation(&mut self, node: NodeKey) -> Option<Reservation> {
        let n = self.nodes.get_mut(&node)?;
        let r = n.reservation.take()?;
        let partition = n.partition;
        if let Some(a) = self.apps.get_mut(&r.app) {
            a.reservations.remove(&r.container);
            a.re_reservations.remove(&r.key);
            a.fair_stale = true;
            let (queue, user) = (a.queue, a.user.clone());
            self.queues.refund_user_in(partition, queue, &user, r.resource);
            self.queues.track_reserved_in(partition, queue, r.resource, true);
        }
        Some(r)
    }

    /// `from`'s reservation moves to `to`, which holds none: the application, its user and
    /// its queues hold it as before (Apache's `moveReservation`). False, changing nothing,
    /// if `from` holds no reservation or `to` is gone or reserved.
    pub fn move_reservation(&mut self, from: NodeKey, to: NodeKey) -> bool {
        if from == to || self.nodes.get(&to).is_none_or(|n| n.reservation.is_some()) {
            return false;
        }
        let Some(mut r) = self.nodes.get_mut(&from).and_then(|n| n.reservation.take()) else { return false };
        r.node = to;
        if let Some(a) = self.apps.get_mut(&r.app) {
            a.reservations.insert(r.container, r);
        }
        self.nodes.get_mut(&to).expect("checked above").reservation = Some(r);
        true
    }

    /// `node`'s reservation becomes the container it was held for, with the same id.
    /// The user and the queues held its resources already, so (as in Apache) their usage
    /// does not change: it only stops counting as reserved. Returns the reservation.
    pub fn fulfil_reservation(&mut self, node: NodeKey) -> Option<Reservation> {
        let n = self.nodes.get_mut(&node)?;
        let r = n.reservation.take()?;
        let partition = n.partition;
        let new = n.containers.insert((r.app, r.container));
        n.note_held();
        n.allocated = n.allocated.plus(r.resource);
        let a = self.apps.get_mut(&r.app).expect("a reservation belongs to a live application");
        let asked_default = a.asks_default_partition(r.key);
        a.reservations.remove(&r.container);
        a.re_reservations.remove(&r.key);
        // Not inside the assertion: release builds must book it too.
        let new = a.containers.insert(r.container) & new;
        debug_assert!(new, "reserved container {} booked twice", r.container);
        a.used = a.used.plus(r.resource);
        let queue = a.queue;
        self.queues.track_reserved_in(partition, queue, r.resource, true);
        // Apache makes a new RMContainer for the allocation, stamped now.
        let container = self.stamped(node, r.resource, r.key, asked_default, partition);
        self.containers.insert((r.app, r.container), container);
        Some(r)
    }

    /// What `app`'s reservations hold on nodes of `partition` (Apache's attempt usage,
    /// `getReserved(partition)`; its `getCurrentReservation()` is the default partition's).
    pub fn app_reserved_in(&self, app: &crate::model::App, partition: crate::model::PartitionId) -> Resource {
        if app.reservations.is_empty() {
            return Resource::ZERO;
        }
        app.reservations
            .values()
            .filter(|r| self.nodes.get(&r.node).map_or(crate::model::DEFAULT_PARTITION, |n| n.partition) == partition)
            .fold(Resource::ZERO, |sum, r| sum.plus(r.resource))
    }

    /// What `app`'s containers and reservations hold, by the partition of their nodes:
    /// (partition, used, reserved), the default partition first.
    pub fn held_by_partition(&self, app: AppKey) -> Vec<(crate::model::PartitionId, Resource, Resource)> {
        let Some(a) = self.apps.get(&app) else { return Vec::new() };
        let partition_of =
            |node: &NodeKey| self.nodes.get(node).map_or(crate::model::DEFAULT_PARTITION, |n| n.partition);
        let mut out = vec![(crate::model::DEFAULT_PARTITION, Resource::ZERO, Resource::ZERO)];
        let mut add =
            |partition, used: Resource, reserved: Resource| match out.iter_mut().find(|(p, _, _)| *p == partition) {
                Some(entry) => {
                    entry.1 = entry.1.plus(used);
                    entry.2 = entry.2.plus(reserved);
                }
                None => out.push((partition, used, reserved)),
            };
        for id in &a.containers {
            if let Some(c) = self.containers.get(&(app, *id)) {
                add(partition_of(&c.node), c.resource, Resource::ZERO);
            }
        }
        for r in a.reservations.values() {
            add(partition_of(&r.node), Resource::ZERO, r.resource);
        }
        out
    }

    /// Everything the books disagree on, worded for a failing test: each container held by
    /// its node and its application, each reservation by its node and its application,
    /// every node's and application's totals, and every queue's and user's usage (a leaf's
    /// containers and reservations, a parent's children). Empty when consistent.
    pub fn invariant_violations(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut node_sum: HashMap<NodeKey, Resource> = HashMap::default();
        for (&(app, id), c) in &self.containers {
            let on_node = node_sum.entry(c.node).or_default();
            *on_node = on_node.plus(c.resource);
            if !self.apps.get(&app).is_some_and(|a| a.containers.contains(&id)) {
                out.push(format!("container {id} of application {app} is not held by its application"));
            }
            if !self.nodes.get(&c.node).is_some_and(|n| n.containers.contains(&(app, id))) {
                out.push(format!("container {id} of application {app} is not held by node {}", c.node));
            }
        }
        let mut by_partition: HashMap<usize, Resource> = HashMap::default();
        for n in self.nodes.values() {
            let sum = by_partition.entry(n.partition).or_default();
            *sum = sum.plus(n.total);
            if !self.partitions.get(n.partition).live {
                out.push(format!(
                    "node {} is in partition '{}', which the cluster no longer has",
                    n.node_id,
                    self.partitions.get(n.partition).name
                ));
            }
        }
        if self.partitions.default_resource() != by_partition.get(&0).copied().unwrap_or_default() {
            out.push(format!(
                "the default partition books {}; its nodes offer {:?}",
                self.partitions.default_resource(),
                by_partition.get(&0)
            ));
        }
        for (&key, n) in &self.nodes {
            let leaving = n.leaving.values().fold(Resource::ZERO, |s, l| s.plus(l.container.resource));
            let held = node_sum.get(&key).copied().unwrap_or_default().plus(leaving);
            if n.allocated != held || n.containers.len() != self.containers.values().filter(|c| c.node == key).count() {
                out.push(format!(
                    "node {key} books {} allocated in {} containers; its containers hold {held}",
                    n.allocated,
                    n.containers.len()
                ));
            }
            if let Some(r) = n.reservation {
                if r.node != key || self.apps.get(&r.app).and_then(|a| a.reservations.get(&r.container)) != Some(&r) {
                    out.push(format!("node {key}'s reservation {r:?} is not its application's"));
                }
            }
        }
        for c in &self.killable {
            let on = self.containers.get(c).map(|x| x.node);
            if !on.and_then(|n| self.nodes.get(&n)).is_some_and(|n| n.killable.contains(c)) {
                out.push(format!(
                    "killable container {} of application {} is not live on a node that lists it",
                    c.1, c.0
                ));
            }
        }
        let listed: usize = self.nodes.values().map(|n| n.killable.len()).sum();
        if listed != self.killable.len() {
            out.push(format!("nodes list {listed} killable containers; the scheduler knows {}", self.killable.len()));
        }
        let mut leaf_held: HashMap<usize, Resource> = HashMap::default();
        let mut user_held: HashMap<(usize, &str), Resource> = HashMap::default();
        for (&key, a) in &self.apps {
            let used = a
                .containers
                .iter()
                .filter_map(|&id| self.containers.get(&(key, id)))
                .fold(Resource::ZERO, |s, c| s.plus(c.resource));
            if a.used != used
                || a.containers.len()
                    != a.containers.iter().filter(|&&id| self.containers.contains_key(&(key, id))).count()
            {
                out.push(format!("application {key} books {} used; its containers hold {used}", a.used));
            }
            for (id, r) in &a.reservations {
                if r.container != *id || r.app != key || self.nodes.get(&r.node).and_then(|n| n.reservation) != Some(*r)
                {
                    out.push(format!("application {key}'s reservation {r:?} is not its node's"));
                }
            }
            let held = a.used.plus(a.reserved());
            let leaf = leaf_held.entry(a.queue).or_default();
            *leaf = leaf.plus(held);
            let user = user_held.entry((a.queue, a.user.as_str())).or_default();
            *user = user.plus(held);
        }
        for (index, q) in self.queues.queues.iter().enumerate() {
            let expected = if q.is_leaf() {
                leaf_held.get(&index).copied().unwrap_or_default()
            } else {
                q.config.children.iter().fold(Resource::ZERO, |s, &c| s.plus(self.queues.get(c).used_everywhere()))
            };
            if q.used_everywhere() != expected {
                out.push(format!(
                    "queue {} books {} used in all partitions; what it holds comes to {expected}",
                    q.path(),
                    q.used_everywhere()
                ));
            }
            for (name, u) in &q.users {
                let held = user_held.get(&(index, name.as_str())).copied().unwrap_or_default();
                let booked = u.labelled.values().fold(u.used, |s, x| s.plus(x.used));
                if booked != held {
                    out.push(format!(
                        "user {name} in {} books {} used; its applications hold {held}",
                        q.path(),
                        u.used
                    ));
                }
            }
        }
        out
    }

    /// Panics with every violation in debug builds (tests and scenario runs); free in release.
    pub fn debug_assert_consistent(&self) {
        if cfg!(debug_assertions) {
            let violations = self.invariant_violations();
            assert!(violations.is_empty(), "the scheduler's books disagree:\n{}", violations.join("\n"));
        }
    }
}
