//! Applications: who submitted them where, what they ask for, and what they hold.
//!
//! Outstanding requests follow Apache's locality model (`LocalityAppPlacementAllocator`):
//! per scheduler key (request priority and allocation-request id) one request per
//! resource name (`*`, a rack, a host); an update replaces the count for that name, and an
//! allocation decrements the host, rack and `*` counts it satisfied.

use crate::ids::{ContainerId, Locality, QueueIndex, SchedulerKey, ANY};
use crate::model::Reservation;
use crate::resource::Resource;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::BTreeMap;

/// One `ResourceRequest` line as the AM sent it.
#[derive(Debug, Clone, PartialEq)]
pub struct Ask {
    /// Which group of requests this belongs to.
    pub key: SchedulerKey,
    /// `*`, a rack or a host.
    pub resource_name: String,
    /// Size of each container.
    pub capability: Resource,
    /// Containers wanted at this resource name (replaces the previous count).
    pub count: u32,
    /// Whether the scheduler may look beyond this resource name.
    pub relax_locality: bool,
}

/// Outstanding count at one resource name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outstanding {
    /// Containers still wanted.
    pub count: u32,
    /// Whether allocation may go beyond this locality level.
    pub relax_locality: bool,
    /// Size of each container placed at this resource name. An AM that changes the size
    /// of a request at `*` leaves its earlier host and rack requests at the old size, and
    /// Apache places a node- or rack-local container at the size asked there.
    pub capability: Resource,
}

/// Every request under one scheduler key.
#[derive(Debug, Clone, Default)]
pub struct RequestGroup {
    /// The `*` request, kept apart: it is read on every visit.
    pub any: Option<Outstanding>,
    /// Requests by rack or host name.
    pub by_name: HashMap<String, Outstanding>,
    /// The partition the group's containers are for: the node label its `*` request names
    /// (Apache's primary requested partition), `""` for the default partition.
    pub partition: String,
}

impl RequestGroup {
    /// How many resource names (`*`, racks, hosts) this group has asked about; 1 means
    /// `*` alone, which is never delayed.
    pub fn unique_locations(&self) -> usize {
        self.by_name.len() + usize::from(self.any.is_some())
    }

    fn get(&self, name: &str) -> Option<&Outstanding> {
        if name == ANY {
            self.any.as_ref()
        } else {
            self.by_name.get(name)
        }
    }

    /// Size of each container, as the `*` request asks (zero before it has).
    pub fn capability(&self) -> Resource {
        self.any.map_or(Resource::ZERO, |o| o.capability)
    }

    /// The size of a container placed against `name` (see `Outstanding::capability`).
    pub fn capability_at(&self, name: &str) -> Resource {
        self.get(name).map_or(self.capability(), |o| o.capability)
    }

    /// Outstanding count at `name` (0 if never asked).
    pub fn count(&self, name: &str) -> u32 {
        self.get(name).map_or(0, |o| o.count)
    }

    /// Outstanding count at `*`: the containers still wanted.
    pub fn wanted(&self) -> u32 {
        self.any.map_or(0, |o| o.count)
    }

    /// Whether allocation may go beyond `name` (true when nothing was said about it).
    pub fn relaxes(&self, name: &str) -> bool {
        self.get(name).is_none_or(|o| o.relax_locality)
    }

    fn set(&mut self, name: &str, o: Outstanding) {
        if name == ANY {
            self.any = Some(o);
        } else {
            self.by_name.insert(name.to_string(), o);
        }
    }

    /// One container placed against `name`. A host or rack whose count reaches zero is
    /// forgotten, as Apache's placement allocator drops it, so it no longer counts as a
    /// location the group waits for.
    fn decrement(&mut self, name: &str) {
        if name == ANY {
            if let Some(o) = self.any.as_mut() {
                o.count = o.count.saturating_sub(1);
            }
        } else if let Some(o) = self.by_name.get_mut(name) {
            o.count = o.count.saturating_sub(1);
            if o.count == 0 {
                self.by_name.remove(name);
            }
        }
    }
}

/// Hosts and racks an application must get no containers on (YARN's blacklists).
#[derive(Debug, Clone, Default)]
pub struct Blacklist {
    /// Places the ApplicationMaster excluded, for its containers.
    pub by_app: HashSet<String>,
    /// Places the RM excluded for the AM container (where earlier AMs failed to launch).
    pub by_system: HashSet<String>,
    /// The attempt still waits for its AM container: the system's list applies, not the
    /// application's (Apache's `isWaitingForAMContainer`).
    pub waiting_for_am: bool,
}

impl Blacklist {
    /// Applies one `allocate()` call's additions and removals to the list in force.
    pub fn update(&mut self, waiting_for_am: bool, additions: &[String], removals: &[String]) {
        self.waiting_for_am = waiting_for_am;
        let list = if waiting_for_am { &mut self.by_system } else { &mut self.by_app };
        list.extend(additions.iter().cloned());
        for r in removals {
            list.remove(r);
        }
    }

    /// True when the host or its rack is excluded.
    pub fn excludes(&self, host: &str, rack: &str) -> bool {
        let list = if self.waiting_for_am { &self.by_system } else { &self.by_app };
        !list.is_empty() && (list.contains(host) || list.contains(rack))
    }
}

/// What an application waiting for its ApplicationMaster's container is told about its
/// activation (Apache's AM launch diagnostics, `AMState`): the RM shows it as the
/// application's diagnostics until the AM container is assigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AmDiagnosis {
    /// Activated: it may be given its ApplicationMaster's container.
    Activated,
    /// Not activated: the leaf's ApplicationMaster limit holds it back.
    QueueAmLimit,
    /// Not activated: its user's ApplicationMaster limit in the leaf holds it back.
    UserAmLimit,
    /// Not activated: the cluster has no resources (no NodeManager has registered).
    ClusterEmpty,
}

/// One application.
///
/// Laid out as written (`repr(C)`), starting a cache line: the fields an allocation pass
/// reads of every application it walks, most of which it passes over (their user at its
/// limit, say), come first — its first two lines — so the walk touches no more of it.
/// `benches/heartbeat.rs`'s no-op case times it; `examples/noop_walk.rs` counts it.
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub struct App {
    /// Nodes reserved for this application, by the reserved container's number.
    pub reservations: HashMap<ContainerId, Reservation>,
    /// The leaf Apache's headroom provider for this attempt was set in (an allocation pass
    /// reached it there, or the cluster changed while it was active): `allocate()` tells
    /// the AM the headroom worked out in that leaf — still the old one after a move,
    /// until a pass reaches it in the new one — and zero before any provider is set.
    pub headroom_queue: Option<QueueIndex>,
    /// Where its leaf keeps its user's record, as last found.
    pub user_slot: crate::model::UserSlot,
    /// The current attempt's id, once one exists.
    pub attempt: Option<i32>,
    /// Activated: runnable and within the queue's and user's AM limits, so it may get
    /// containers. Until then a runnable application is pending.
    pub active: bool,
    /// Some request group still wants containers (kept in step with `requests`).
    asking: bool,
    /// Some request group is for a labelled partition (kept in step with `requests`).
    labelled: bool,
    /// YARN's cluster timestamp and sequence number (`application_<ts>_<id>`); orders
    /// applications by submission.
    pub app_id: (i64, i32),
    /// The leaf queue it runs in.
    pub queue: QueueIndex,
    /// The submitting user.
    pub user: String,
    /// Application priority (higher runs first).
    pub priority: i64,
    /// Outstanding requests by scheduler key (in service order).
    pub requests: BTreeMap<SchedulerKey, RequestGroup>,
    /// Containers it holds.
    pub containers: HashSet<ContainerId>,
    /// Resources it holds.
    pub used: Resource,
    /// Last container number handed out in the current attempt.
    pub last_container_number: u64,
    /// Runnable: its attempt was let in under the `max-parallel-apps` limits of its user,
    /// its leaf and every ancestor, and counts against them until the attempt ends. Only
    /// a runnable application is activated; until then it waits, neither pending nor
    /// active, as Apache's max-running-apps enforcer holds it.
    pub runnable: bool,
    /// When its current attempt started, in the order attempts started.
    pub attempt_seq: u64,
    /// The ApplicationMaster's size (zero for an unmanaged AM), counted against the
    /// queue's and user's AM limits while the application is active.
    pub am_resource: Resource,
    /// The partition the ApplicationMaster is for, whose AM limits it counts against.
    pub am_partition: crate::model::PartitionId,
    /// The partition the application's AM request names: each attempt's AM starts out
    /// there (a relabelled node moves only the running attempt's AM elsewhere).
    pub am_asked_partition: crate::model::PartitionId,
    /// Scheduling opportunities missed per request group, for delay scheduling.
    pub missed_opportunities: HashMap<SchedulerKey, u64>,
    /// Passes in which a request group for the default partition got past its queue's
    /// headroom, since it was last placed in the default partition (Apache's
    /// `missedNonPartitionedReqSchedulingOpportunity`): a non-exclusive node lends it room
    /// once this reaches the cluster's node count. Few groups, mostly none: a list.
    missed_non_partitioned: Vec<(SchedulerKey, u64)>,
    /// Where it must get no containers.
    pub blacklist: Blacklist,
    /// Heartbeats its reserved nodes went through without room, per request group, since
    /// it last reserved or gave up a reservation of that group (Apache's re-reservations).
    pub re_reservations: HashMap<SchedulerKey, u32>,
    /// Every partition a `*` request of the attempt has named, the default one included
    /// (Apache's `requestedPartitions`, which only grows, but for the default partition a
    /// move's check forgets): its headroom is the sum over them.
    pub requested_partitions: Vec<String>,
    /// Makes its user count as active in its leaf (see `Scheduler::count_user_active`).
    pub counts_user_active: bool,
    /// What Apache's fair ordering policy last cached of the application's usage and
    /// demand (see [`App::fair_usage`]).
    pub fair_cached: (Resource, Resource),
    /// The fair policy is to cache the application's usage afresh the next time its leaf
    /// orders its applications (Apache's `entitiesToReorder`).
    pub fair_stale: bool,
    /// The current attempt's ApplicationMaster container, once allocated (or recovered):
    /// preemption takes it last.
    pub am_container: Option<ContainerId>,
    /// The user of `headroom_queue` was forgotten there since (the application had moved
    /// away): Apache's provider keeps the user object it was set with, whose usage no
    /// longer changes, so the headroom counts the user as holding nothing there — even
    /// once the user is back in that leaf with other applications.
    pub headroom_user_forgotten: bool,
}

impl App {
    /// A new application with no attempt yet.
    pub fn new(app_id: (i64, i32), queue: QueueIndex, user: String, priority: i64) -> Self {
        App {
            app_id,
            queue,
            user,
            user_slot: Default::default(),
            priority,
            attempt: None,
            requests: BTreeMap::new(),
            containers: HashSet::default(),
            used: Resource::ZERO,
            last_container_number: 0,
            runnable: false,
            attempt_seq: 0,
            active: false,
            am_resource: Resource::ZERO,
            am_partition: crate::model::DEFAULT_PARTITION,
            am_asked_partition: crate::model::DEFAULT_PARTITION,
            missed_opportunities: HashMap::default(),
            missed_non_partitioned: Vec::new(),
            reservations: HashMap::default(),
            blacklist: Blacklist::default(),
            re_reservations: HashMap::default(),
            asking: false,
            labelled: false,
            requested_partitions: Vec::new(),
            counts_user_active: false,
            fair_cached: (Resource::ZERO, Resource::ZERO),
            fair_stale: false,
            am_container: None,
            headroom_queue: None,
            headroom_user_forgotten: false,
        }
    }

    /// Applies an AM's asks: each replaces the outstanding count at its resource name.
    /// Returns true when some request newly asks for containers (its `*` count rises
    /// from zero).
    pub fn update_requests(&mut self, asks: &[Ask]) -> bool {
        let mut newly_asking = false;
        let mut cancelled = Vec::new();
        for ask in asks {
            if ask.resource_name == ANY && ask.count > 0 && self.requests.get(&ask.key).is_none_or(|g| g.wanted() == 0)
            {
                newly_asking = true;
            }
            let group = self.requests.entry(ask.key).or_default();
            group.set(
                &ask.resource_name,
                Outstanding { count: ask.count, relax_locality: ask.relax_locality, capability: ask.capability },
            );
            if ask.resource_name == ANY {
                cancelled.retain(|k| *k != ask.key);
                if ask.count == 0 {
                    cancelled.push(ask.key);
                }
            }
        }
        // A `*` of zero in a call drops the whole group, host and rack requests too, as
        // Apache drops the key's placement allocator; host or rack requests sent without
        // a `*` are kept, at whatever count, and count as locations the group asks about.
        for key in cancelled {
            self.requests.remove(&key);
        }
        self.asking = self.requests.values().any(|g| g.wanted() > 0);
        newly_asking
    }

    /// Records that a container of `key` was placed on `host` in `rack` at `locality`.
    pub fn record_allocation(&mut self, key: SchedulerKey, host: &str, rack: &str, locality: Locality) {
        if let Some(g) = self.requests.get_mut(&key) {
            match locality {
                Locality::NodeLocal => {
                    g.decrement(host);
                    g.decrement(rack);
                }
                Locality::RackLocal => g.decrement(rack),
                Locality::OffSwitch => {}
            }
            g.decrement(ANY);
            if g.wanted() == 0 {
                // The last container at `*`: Apache's placement allocator forgets the `*`
                // request, and the whole group only once no host or rack request is left
                // (those left keep counting as locations asked about, should the AM ask
                // at `*` again).
                g.any = None;
                if g.by_name.is_empty() {
                    self.requests.remove(&key);
                }
                self.asking = self.requests.values().any(|g| g.wanted() > 0);
            }
        }
    }

    /// A new attempt starts, with no outstanding requests. Its container numbers start
    /// above `epoch << 40`, as the RM's own counter (one per attempt) does.
    ///
    /// As in Apache, where each attempt has scheduling info of its own, the new attempt
    /// starts with no blacklist, waiting for its AM container — unless it takes over its
    /// predecessor's state (`keep-containers`), which carries the AM's own blacklist over
    /// (`transferStateFromPreviousAppSchedulingInfo`).
    pub fn start_attempt(&mut self, attempt: i32, epoch: u64, transfer_state: bool) {
        self.blacklist.by_system.clear();
        if !transfer_state {
            self.blacklist.by_app.clear();
        }
        self.blacklist.waiting_for_am = true;
        self.am_container = None;
        // Apache's attempt reads its AM partition from the application's AM request.
        self.am_partition = self.am_asked_partition;
        // Apache's attempt is a new object, its usage cached as nothing yet.
        self.fair_cached = (Resource::ZERO, Resource::ZERO);
        self.fair_stale = false;
        self.attempt = Some(attempt);
        self.last_container_number = epoch << 40;
        self.headroom_queue = None;
        self.headroom_user_forgotten = false;
        self.clear_requests();
    }

    /// Records `id`, just allocated for request `key`, as the attempt's ApplicationMaster
    /// container if it is one: while the attempt waits for its AM, the RM's ask for it at
    /// priority 0 is the only one it has.
    pub fn note_if_am_container(&mut self, id: ContainerId, key: SchedulerKey) {
        if key.priority == 0 && self.blacklist.waiting_for_am && self.am_container.is_none() {
            self.am_container = Some(id);
        }
    }

    /// The next container of the current attempt.
    pub fn next_container_id(&mut self) -> ContainerId {
        self.last_container_number += 1;
        ContainerId { attempt: self.attempt.unwrap_or_default(), number: self.last_container_number }
    }

    /// True when it has an attempt asking for something.
    pub fn is_asking(&self) -> bool {
        self.asking && self.attempt.is_some()
    }

    /// True when the attempt still wants containers in `partition` (a node label, `""`
    /// for the default partition): Apache's `hasPendingResourceRequest(partition)`.
    pub fn is_asking_in(&self, partition: &str) -> bool {
        if !self.labelled {
            return partition.is_empty() && self.is_asking();
        }
        self.is_asking() && self.requests.values().any(|g| g.wanted() > 0 && g.partition == partition)
    }

    /// The partitions of the `*` requests among `asks`: `labels[i]` for `asks[i]` (all
    /// `""`, the default partition, when `labels` is empty), as the RM hands them over
    /// after filling in the queue's default label expression.
    pub fn label_requests(&mut self, asks: &[Ask], labels: &[String]) {
        for (i, ask) in asks.iter().enumerate().filter(|(_, a)| a.resource_name == ANY) {
            if !is_last_any(asks, i) {
                continue;
            }
            let label = labels.get(i).map_or("", String::as_str);
            if !self.requested_partitions.iter().any(|p| p == label) {
                self.requested_partitions.push(label.to_string());
            }
            if let Some(g) = self.requests.get_mut(&ask.key).filter(|g| g.partition != label) {
                g.partition = label.to_string();
            }
        }
        self.labelled = self.requests.values().any(|g| !g.partition.is_empty());
    }

    /// Forgets that the attempt asked in the default partition, as Apache's check of a
    /// move's target does whenever it runs (`checkQueuePartition` removes the default
    /// label from the attempt's own `requestedPartitions` set): until the attempt asks
    /// there again, its headroom sums only its labelled partitions.
    pub fn forget_default_partition_request(&mut self) {
        if self.attempt.is_some() {
            self.requested_partitions.retain(|p| !p.is_empty());
        }
    }

    /// Drops every outstanding request (a new or ended attempt).
    pub fn clear_requests(&mut self) {
        self.requests.clear();
        self.asking = false;
        self.labelled = false;
        self.requested_partitions.clear();
        self.missed_opportunities.clear();
        self.missed_non_partitioned.clear();
    }

    /// Reservations held for one request group.
    pub fn reservations_for(&self, key: SchedulerKey) -> usize {
        self.reservations.values().filter(|r| r.key == key).count()
    }

    /// Resources held by all of its reservations.
    pub fn reserved(&self) -> Resource {
        self.reservations.values().fold(Resource::ZERO, |acc, r| acc.plus(r.resource))
    }

    /// Re-reservations of one request group (see `re_reservations`).
    pub fn re_reservations(&self, key: SchedulerKey) -> u32 {
        self.re_reservations.get(&key).copied().unwrap_or(0)
    }

    /// One more scheduling opportunity went by for a request group (delay scheduling).
    pub fn count_opportunity(&mut self, key: SchedulerKey) {
        *self.missed_opportunities.entry(key).or_insert(0) += 1;
    }

    /// A container was placed or reserved for a request group at `locality` (not from a
    /// reservation): a node-local one starts the locality wait over, and so does a
    /// rack-local one with `rack-locality-full-reset` (Apache's `doAllocation`). Returns
    /// whether it did.
    pub fn restart_locality_wait(&mut self, key: SchedulerKey, locality: Locality, rack_full_reset: bool) -> bool {
        let restart = locality == Locality::NodeLocal || (locality == Locality::RackLocal && rack_full_reset);
        if restart {
            self.missed_opportunities.remove(&key);
        }
        restart
    }

    /// Missed non-partitioned opportunities of one request group (see
    /// `missed_non_partitioned`).
    pub fn missed_non_partitioned(&self, key: SchedulerKey) -> u64 {
        self.missed_non_partitioned.iter().find(|(k, _)| *k == key).map_or(0, |&(_, n)| n)
    }

    /// One more missed non-partitioned opportunity for `key`.
    pub fn count_non_partitioned_miss(&mut self, key: SchedulerKey) {
        match self.missed_non_partitioned.iter_mut().find(|(k, _)| *k == key) {
            Some((_, n)) => *n += 1,
            None => self.missed_non_partitioned.push((key, 1)),
        }
    }

    /// `key` was placed (or reserved) in the default partition: its count starts over.
    pub fn reset_non_partitioned_misses(&mut self, key: SchedulerKey) {
        if !self.missed_non_partitioned.is_empty() {
            self.missed_non_partitioned.retain(|(k, _)| *k != key);
        }
    }

    /// Missed scheduling opportunities of one request group.
    pub fn missed(&self, key: SchedulerKey) -> u64 {
        self.missed_opportunities.get(&key).copied().unwrap_or(0)
    }

    /// The usage and demand a fair leaf orders this application by: as cached when the
    /// leaf last ordered its applications with this one marked stale — a container
    /// allocated, reserved, released or unreserved since, or (with size-based weight) its
    /// asks changed — and as they are now if it is marked stale now. Apache's fair policy
    /// keeps its applications sorted on those cached figures; the mark is lost when the
    /// application leaves the leaf's ordering (its attempt ends, it moves, its priority
    /// changes) or the leaf's policy is rebuilt (a refresh), so the cache can lag.
    pub fn fair_usage(&self) -> (Resource, Resource) {
        if self.fair_stale {
            (self.used, self.pending())
        } else {
            self.fair_cached
        }
    }

    /// The leaf ordered its applications: a stale cache is taken afresh.
    pub fn fair_reordered(&mut self) {
        if self.fair_stale {
            self.fair_cached = (self.used, self.pending());
            self.fair_stale = false;
        }
    }

    /// Whether request `key` is (or was, once gone) for the default partition: a container
    /// placed for it is then one Apache books with an empty node-label expression.
    pub fn asks_default_partition(&self, key: SchedulerKey) -> bool {
        self.requests.get(&key).is_none_or(|g| g.partition.is_empty())
    }

    /// Total resources still asked for (the `*` counts).
    pub fn pending(&self) -> Resource {
        self.requests.values().fold(Resource::ZERO, |acc, g| acc.plus(g.capability().times(g.wanted() as i64)))
    }

    /// [`App::pending`] for the requests in `partition` (`""`: the default one).
    pub fn pending_in(&self, partition: &str) -> Resource {
        self.requests
            .values()
            .filter(|g| g.partition == partition)
            .fold(Resource::ZERO, |acc, g| acc.plus(g.capability().times(g.wanted() as i64)))
    }
}

/// Whether `asks[i]` is the last `*` ask for its request in the call: of several, the last
/// is the one (Apache's scheduler drops the others before it looks at their labels).
pub fn is_last_any(asks: &[Ask], i: usize) -> bool {
    !asks[i + 1..].iter().any(|later| later.resource_name == ANY && later.key == asks[i].key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(name: &str, count: u32, relax: bool) -> Ask {
        Ask {
            key: SchedulerKey { priority: 1, allocation_request_id: 0 },
            resource_name: name.to_string(),
            capability: Resource::new(1024, 1),
            count,
            relax_locality: relax,
        }
    }

    #[test]
    fn of_two_star_asks_for_one_request_in_a_call_the_last_names_its_partition() {
        let mut app = App::new((1, 1), 0, "u".into(), 0);
        let asks = [ask(ANY, 2, true), ask(ANY, 3, true)];
        app.label_requests(&asks, &["gpu".to_string(), String::new()]);
        assert_eq!(app.requested_partitions, [""], "the labelled ask was replaced in the same call");
        app.label_requests(&asks[..1], &["gpu".to_string()]);
        assert_eq!(app.requested_partitions, ["", "gpu"]);
    }

    #[test]
    fn asks_replace_counts_and_allocations_decrement_each_level() {
        let mut app = App::new((1, 1), 1, "u".into(), 0);
        app.update_requests(&[ask("*", 2, true), ask("/r1", 2, true), ask("h1", 1, true)]);
        let key = SchedulerKey { priority: 1, allocation_request_id: 0 };
        app.record_allocation(key, "h1", "/r1", Locality::NodeLocal);
        let g = &app.requests[&key];
        assert_eq!((g.count("*"), g.count("/r1"), g.count("h1")), (1, 1, 0));
        assert_eq!(app.pending(), Resource::new(1024, 1));
        app.record_allocation(key, "h9", "/r9", Locality::OffSwitch);
        assert!(!app.is_asking() && app.pending().is_none());
        assert_eq!(app.requests[&key].unique_locations(), 1, "the rack request outlives the last * container");
        app.update_requests(&[ask("*", 3, true)]);
        assert_eq!(app.requests[&key].unique_locations(), 2);
        app.update_requests(&[ask("*", 0, true)]);
        assert!(app.requests.is_empty(), "a zero count at * cancels the whole group");
    }

    #[test]
    fn the_blacklist_in_force_depends_on_whether_the_am_is_placed() {
        let mut b = Blacklist::default();
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        b.update(true, &names(&["h1"]), &[]);
        assert!(b.excludes("h1", "/r1"));
        b.update(false, &names(&["/r2"]), &[]);
        assert!(!b.excludes("h1", "/r1"), "the system's list is for the AM container only");
        assert!(b.excludes("h9", "/r2"));
        b.update(false, &[], &names(&["/r2"]));
        assert!(!b.excludes("h9", "/r2"));
    }

    #[test]
    fn a_new_attempt_starts_with_no_blacklist_unless_it_takes_over_its_predecessors_state() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let mut app = App::new((1, 1), 1, "u".into(), 0);
        app.start_attempt(1, 0, false);
        app.blacklist.update(false, &names(&["h1"]), &[]);
        app.start_attempt(2, 0, false);
        assert!(!app.blacklist.excludes("h1", "/r"), "the new AM may go where the old AM kept away from");
        assert!(app.blacklist.waiting_for_am);
        app.blacklist.update(false, &names(&["h1"]), &[]);
        app.start_attempt(3, 0, true);
        app.blacklist.update(false, &[], &[]);
        assert!(app.blacklist.excludes("h1", "/r"), "keep-containers carries the AM's blacklist over");
    }

    #[test]
    fn container_numbers_carry_the_epoch_and_start_over_with_each_attempt() {
        let mut app = App::new((1, 1), 1, "u".into(), 0);
        app.start_attempt(1, 2, false);
        assert_eq!(app.next_container_id(), ContainerId { attempt: 1, number: (2 << 40) + 1 });
        assert_eq!(app.next_container_id(), ContainerId { attempt: 1, number: (2 << 40) + 2 });
        app.start_attempt(2, 2, false);
        assert_eq!(app.next_container_id(), ContainerId { attempt: 2, number: (2 << 40) + 1 });
    }
}
