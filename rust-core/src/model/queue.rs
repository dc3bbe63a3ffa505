//! The live queue tree: each queue's configuration, its effective (absolute) capacities for
//! the current cluster size, and its usage. Parent usage is the sum of its descendants'.

use crate::config::{CapacitySpec, LabelCapacity, QueueConfig, SchedulerConfig};
use crate::ids::{AppKey, QueueIndex};
use crate::java_order;
use crate::model::capacities::over_weight_sum;
use crate::model::queue_states::RuntimeState;
use crate::model::users::{LimitCache, PendingUsersCount, UserState, Users};
use crate::model::{PartitionId, DEFAULT_PARTITION};
use crate::resource::{Resource, ResourceCalculator};
use rustc_hash::FxHashMap;

/// One queue, live.
#[derive(Debug, Clone)]
pub struct Queue {
    /// What the configuration says about this queue.
    pub config: QueueConfig,
    /// RUNNING, STOPPED or DRAINING now (see `queue_states`).
    pub state: RuntimeState,
    /// Guaranteed share of the whole cluster (0..1).
    pub absolute_capacity: f64,
    /// Maximum share of the whole cluster (0..1).
    pub absolute_maximum_capacity: f64,
    /// Resources held by containers in this queue and its descendants.
    pub used: Resource,
    /// Applications submitted to this queue (leaves only), in submission order.
    pub apps: Vec<AppKey>,
    /// Users with applications in this queue (leaves only).
    pub users: Users,
    /// Resources reserved for activated applications' ApplicationMasters (leaves only),
    /// in the default partition.
    pub am_used: Resource,
    /// The same for ApplicationMasters in each labelled partition.
    pub labelled_am_used: FxHashMap<PartitionId, Resource>,
    /// Runnable applications (leaves: this queue's; parents: all descendants'), for
    /// `max-parallel-apps` (see `App::runnable`).
    pub runnable_apps: usize,
    /// The part of `used` held by reservations (this queue and its descendants).
    pub reserved: Resource,
    /// The guarantee for the cluster the capacities were last worked out for (Apache's
    /// effective minimum resource).
    pub effective_min: Resource,
    /// The most this queue may use in that cluster (Apache's effective maximum resource).
    pub effective_max: Resource,
    /// The maximum configured as a vector (or inherited from an absolute parent), for an
    /// absolute-resource queue and its children.
    pub configured_max: Option<Resource>,
    /// An absolute-resource queue's guarantee and maximum as shares of its parent's, as
    /// Apache keeps them (single-precision floats, reported as they are).
    pub relative_shares: Option<(f32, f32)>,
    /// The limit this leaf last worked its users' limits out against (Apache's
    /// `queueResourceLimitsInfo`): what its parent passed it, within its maximum. Set when
    /// the cluster or the configuration changes and when an allocation pass looks at the
    /// leaf's applications; its ApplicationMaster limit and its applications' headroom
    /// are worked out from it.
    pub published_limit: Resource,
    /// Users whose applications all wait for activation, as last counted (leaves only).
    pub pending_users: PendingUsersCount,
    /// The sum of its users' usage ratios (leaves only): Apache's `UsersManager` keeps it
    /// in a float, adding each change to a user's ratio, and sums it afresh only when the
    /// cluster or the configuration changes — so it carries Java's rounding, which the
    /// user-limit formula then sees.
    pub users_usage_ratio: f32,
    /// A managed parent's leaf: its template's guarantee as a share of the cluster, which
    /// its used capacity is measured against while it holds none.
    pub template_share: f64,
    /// Its shares of the labelled partitions, and what it holds there, by partition: all
    /// the fields above are the default partition's (as Apache's queue usage without a
    /// partition named is the default partition's).
    pub labelled: FxHashMap<PartitionId, PartitionShare>,
    /// The labelled partitions Apache's view of the queue lists (see [`ShownPartitions`]).
    pub shown: ShownPartitions,
    /// Every activated application of this leaf has its headroom set in it (as a cluster
    /// change leaves them, see `App::headroom_queue`): a cache, false when not known. Set
    /// when the cluster or the configuration changes; cleared when an application is
    /// activated here, starts an attempt here or moves in, or its user is forgotten.
    pub headroom_settled: bool,
}

/// The labelled partitions a queue's scheduler view lists: Apache's `QueueCapacities` and
/// `ResourceUsage` keep an entry for every label they were ever given, until the RM
/// restarts. A queue's capacities list the labels it has keys for (the root every label
/// any queue has) and those its usage lists as of the last cluster update, or where it
/// was last allocated or released; its usage lists where it had pending, used or
/// reserved resources, and for a leaf every partition its ApplicationMaster limits were
/// worked out for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ShownPartitions {
    /// Labels with an entry in the queue's capacities.
    pub capacities: Vec<PartitionId>,
    /// Labels with an entry in the queue's resource usage.
    pub usage: Vec<PartitionId>,
}

impl ShownPartitions {
    fn add(list: &mut Vec<PartitionId>, partition: PartitionId) {
        if partition != DEFAULT_PARTITION && !list.contains(&partition) {
            list.push(partition);
        }
    }
}

/// A queue's share of one labelled partition, and what it holds there.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PartitionShare {
    /// Guaranteed share of the partition (0..1).
    pub absolute_capacity: f64,
    /// Maximum share of the partition (0..1).
    pub absolute_maximum_capacity: f64,
    /// What it is guaranteed there (the partition scaled by its share, or, given as an
    /// absolute resource, that vector scaled down to what the parent has).
    pub effective_min: Resource,
    /// The most it may hold there.
    pub effective_max: Resource,
    /// An absolute-resource queue's maximum there as configured or inherited from its
    /// parent (Apache's `getConfiguredMaxResource`): what its children inherit.
    pub configured_max: Option<Resource>,
    /// An absolute-resource queue's guarantee and maximum there over its parent's, the
    /// capacity and maximum capacity Apache derives and reports.
    pub relative_shares: Option<(f32, f32)>,
    /// Its weight there over its siblings' as the capacities were last worked out (see
    /// [`QueueTree::label_normalized_weight`]): what Apache's view reports.
    pub normalized_weight: f64,
    /// Resources held there by containers in this queue and its descendants.
    pub used: Resource,
    /// The part of `used` held by reservations.
    pub reserved: Resource,
}

impl Queue {
    /// `user`'s record in this leaf, made if it has none. (Every container booked and
    /// ended comes here: the name is copied only for a user the leaf has no record of.)
    pub fn user_mut(&mut self, user: &str) -> &mut UserState {
        self.users.get_or_default(user)
    }

    fn new(config: QueueConfig) -> Self {
        Queue {
            config,
            state: RuntimeState::Running,
            absolute_capacity: 0.0,
            absolute_maximum_capacity: 0.0,
            used: Resource::ZERO,
            apps: Vec::new(),
            users: Users::default(),
            am_used: Resource::ZERO,
            labelled_am_used: FxHashMap::default(),
            runnable_apps: 0,
            reserved: Resource::ZERO,
            effective_min: Resource::ZERO,
            effective_max: Resource::ZERO,
            configured_max: None,
            relative_shares: None,
            published_limit: Resource::ZERO,
            pending_users: Default::default(),
            users_usage_ratio: 0.0,
            template_share: 0.0,
            labelled: FxHashMap::default(),
            shown: ShownPartitions::default(),
            headroom_settled: false,
        }
    }

    /// What it holds in every partition together.
    pub fn used_everywhere(&self) -> Resource {
        self.labelled.values().fold(self.used, |s, x| s.plus(x.used))
    }

    /// What it holds in `partition`.
    pub fn used_in(&self, partition: PartitionId) -> Resource {
        if partition == DEFAULT_PARTITION {
            return self.used;
        }
        self.labelled.get(&partition).map_or(Resource::ZERO, |s| s.used)
    }

    /// What its active ApplicationMasters hold in `partition` (leaves).
    pub fn am_used_in(&self, partition: PartitionId) -> Resource {
        if partition == DEFAULT_PARTITION {
            return self.am_used;
        }
        self.labelled_am_used.get(&partition).copied().unwrap_or(Resource::ZERO)
    }

    /// [`Queue::am_used_in`], to change.
    pub fn am_used_in_mut(&mut self, partition: PartitionId) -> &mut Resource {
        if partition == DEFAULT_PARTITION {
            return &mut self.am_used;
        }
        self.labelled_am_used.entry(partition).or_default()
    }

    /// An activated application's AM of `r` in `partition` counts against the leaf's and
    /// `user`'s AM limits there.
    pub fn charge_am(&mut self, user: &str, partition: PartitionId, r: Resource) {
        let used = self.am_used_in_mut(partition);
        *used = used.plus(r);
        let used = self.user_mut(user).am_used_in_mut(partition);
        *used = used.plus(r);
    }

    /// An AM of `r` counted in `from` counts in `to` instead, as Apache's leaf moves it
    /// when its container's node is relabelled: taken off `from` even below nothing.
    pub fn move_am(&mut self, user: &str, from: PartitionId, to: PartitionId, r: Resource) {
        let used = self.am_used_in_mut(from);
        *used = used.difference(r);
        if let Some(u) = self.users.get_mut(user) {
            let used = u.am_used_in_mut(from);
            *used = used.difference(r);
        }
        self.charge_am(user, to, r);
    }

    /// The reverse of [`Queue::charge_am`].
    pub fn refund_am(&mut self, user: &str, partition: PartitionId, r: Resource) {
        let used = self.am_used_in_mut(partition);
        *used = used.minus(r);
        if let Some(u) = self.users.get_mut(user) {
            let used = u.am_used_in_mut(partition);
            *used = used.minus(r);
        }
    }

    /// What reservations hold of it in `partition`.
    pub fn reserved_in(&self, partition: PartitionId) -> Resource {
        if partition == DEFAULT_PARTITION {
            return self.reserved;
        }
        self.labelled.get(&partition).map_or(Resource::ZERO, |s| s.reserved)
    }

    /// Its guaranteed and maximum shares of a labelled `partition` (none: 0 and 0, as
    /// Apache's capacities of a label a queue has no keys for).
    pub fn shares_in(&self, partition: PartitionId) -> (f64, f64) {
        if partition == DEFAULT_PARTITION {
            return (self.absolute_capacity, self.absolute_maximum_capacity);
        }
        self.labelled.get(&partition).map_or((0.0, 0.0), |s| (s.absolute_capacity, s.absolute_maximum_capacity))
    }

    /// What the user-limit formula takes this leaf's usage to be (Apache's `consumed` in
    /// `computeUserLimit`): the cluster times the users' summed usage ratio, rounded up
    /// to `step` (under the Default calculator, memory and Apache's one vcore).
    pub fn users_consumed(&self, calc: ResourceCalculator, cluster: Resource, step: Resource) -> Resource {
        calc.multiply_and_normalize_up(cluster, f64::from(self.users_usage_ratio), step)
    }

    /// Sums the users' usage ratios afresh against `cluster` (Apache's `updateUsageRatio`,
    /// in the order its users map iterates).
    pub(super) fn recompute_usage_ratio(&mut self, calc: ResourceCalculator, cluster: Resource) {
        // Each user's ratio alone, then summed in the order Apache's map holds the users.
        self.users_usage_ratio = self.users.fold_in_java_order(0.0, |sum, u| {
            u.usage_ratio = 0.0;
            sum + u.update_usage_ratio(calc, cluster)
        });
    }

    /// Something Apache's user-limit cache depends on changed (see `PendingUsersCount`).
    pub fn users_changed(&mut self) {
        self.pending_users.invalidate();
    }

    /// Drops `user` once it has nothing left here (see `UserState::is_idle`); true if it
    /// was dropped.
    pub fn forget_user_if_idle(&mut self, user: &str) -> bool {
        let idle = self.users.get(user).is_some_and(|u| u.is_idle());
        if idle {
            self.users.remove(user);
        }
        idle
    }

    /// A user limit of this leaf was looked up in `cache` (see `PendingUsersCount`).
    pub fn user_limit_looked_up(&mut self, cache: LimitCache) {
        self.pending_users.look_up(cache, self.users.values());
    }

    /// The limit of this leaf counting all its users was looked up in `cache`, `limit` as
    /// worked out now (see `PendingUsersCount`).
    pub fn user_limit_among_all_looked_up(&mut self, cache: LimitCache, limit: Resource) {
        self.pending_users.look_up_among_all(cache, self.users.values(), limit);
    }

    /// Full path.
    pub fn path(&self) -> &str {
        &self.config.path
    }

    /// True for a queue with no children.
    pub fn is_leaf(&self) -> bool {
        self.config.is_leaf()
    }

    /// Guaranteed resources (see `effective_min`).
    pub fn guaranteed(&self) -> Resource {
        self.effective_min
    }

    /// The most this queue may use (see `effective_max`).
    pub fn maximum(&self) -> Resource {
        self.effective_max
    }

    /// Used as a share of the guarantee (Apache's "used capacity": the guarantee counts as
    /// at least one minimum allocation).
    pub fn used_capacity(&self, calc: ResourceCalculator, cluster: Resource, minimum_allocation: Resource) -> f64 {
        if cluster.is_none() {
            return 0.0;
        }
        // Apache measures a managed leaf without a guarantee against its template's.
        let guarantee = if self.config.managed_leaf && self.absolute_capacity as f32 == 0.0 {
            cluster.scaled(self.template_share)
        } else {
            self.guaranteed()
        };
        let guaranteed = calc.max(cluster, guarantee, minimum_allocation);
        calc.divide(cluster, self.used, guaranteed)
    }

    /// Used as a share of the cluster (Apache's "absolute used capacity").
    pub fn absolute_used_capacity(&self, calc: ResourceCalculator, cluster: Resource) -> f64 {
        calc.divide(cluster, self.used, cluster)
    }
}

/// Why a submitted queue name does not lead to a leaf.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResolveError {
    /// No queue has that name or path.
    Unknown,
    /// Several queues have that short name; the full path is needed.
    Ambiguous(Vec<String>),
}

/// Where the queues of a running tree are in a new one built for a refresh, and back,
/// matched by path: what every step of swapping the new tree in asks, worked out once.
#[derive(Debug, Clone)]
pub struct Correspondence {
    /// Each running queue's index in the new tree (none: the new tree drops it).
    pub new_of_old: Vec<Option<QueueIndex>>,
    /// Each new queue's index in the running tree (none: it is new).
    pub old_of_new: Vec<Option<QueueIndex>>,
}

impl Correspondence {
    /// Matches `new`'s queues with `old`'s by path.
    pub fn between(old: &QueueTree, new: &QueueTree) -> Self {
        let mut new_of_old = vec![None; old.queues.len()];
        let mut old_of_new = vec![None; new.queues.len()];
        for (i, q) in new.queues.iter().enumerate() {
            // A refresh mostly keeps the file's order, and with it each queue's index: the
            // queue at the same index is compared before the path index is asked.
            let at = match old.queues.get(i) {
                Some(o) if o.path() == q.path() => Some(i),
                _ => old.index_of_path(q.path()),
            };
            if let Some(j) = at {
                new_of_old[j] = Some(i);
                old_of_new[i] = Some(j);
            }
        }
        Correspondence { new_of_old, old_of_new }
    }

    /// Whether every queue is where it was: same paths, same indices.
    pub fn in_place(&self) -> bool {
        self.new_of_old.len() == self.old_of_new.len()
            && self.new_of_old.iter().enumerate().all(|(i, &at)| at == Some(i))
    }
}

/// The live queue tree.
#[derive(Debug, Clone)]
pub struct QueueTree {
    /// Queues, root first, parents before children.
    pub queues: Vec<Queue>,
    /// The cluster the capacities were last worked out for, and the calculator: users'
    /// usage ratios are shares of it.
    pub(super) cluster: Resource,
    pub(super) calculator: ResourceCalculator,
    by_path: FxHashMap<String, QueueIndex>,
    by_name: FxHashMap<String, Vec<QueueIndex>>,
}

impl QueueTree {
    /// Builds the tree for a configuration, with no usage.
    pub fn build(config: &SchedulerConfig) -> Self {
        let queues: Vec<Queue> = config.queues.iter().cloned().map(Queue::new).collect();
        let mut by_path = FxHashMap::default();
        let mut by_name: FxHashMap<String, Vec<QueueIndex>> = FxHashMap::default();
        for (i, q) in queues.iter().enumerate() {
            by_path.insert(q.config.path.clone(), i);
            by_name.entry(q.config.name.clone()).or_default().push(i);
        }
        let calculator = config.global.resource_calculator;
        let mut tree = QueueTree { queues, cluster: Resource::ZERO, calculator, by_path, by_name };
        // A state the rules refuse (a queue set RUNNING under a stopped parent) never gets
        // here: validation refuses the file first.
        let _ = tree.set_states(None);
        tree
    }

    /// Puts every parent's children in the order Apache's refreshed parents hold them:
    /// a parent that existed before rebuilds its child list through a `HashMap` keyed by
    /// path (the current children first, then the new ones), so its children come back in
    /// that map's iteration order (see [`crate::java_order`]). A queue that is new, or
    /// was a leaf, keeps the configuration's order. `matched` is where each queue of `old`
    /// is in this tree.
    pub fn order_children_as_refreshed_from(&mut self, old: &QueueTree, matched: &Correspondence) {
        let mut ordered: Vec<(QueueIndex, Vec<QueueIndex>)> = Vec::new();
        for (p, parent) in self.queues.iter().enumerate() {
            if parent.is_leaf() {
                continue;
            }
            let Some(before) = matched.old_of_new[p].filter(|&i| !old.queues[i].is_leaf()) else {
                continue;
            };
            let current = &old.queues[before].config.children;
            if parent.config.auto_create_child_queue {
                // A managed parent keeps its leaves in the order it created them (Apache's
                // refresh re-reads its settings, not its list of children).
                let kept: Vec<QueueIndex> = current.iter().filter_map(|&c| matched.new_of_old[c]).collect();
                if kept.len() == parent.config.children.len() {
                    ordered.push((p, kept));
                }
                continue;
            }
            // The map's keys as they go in: each current child's path and where it is now
            // (none: it is gone, and only the map's order remembers it), then the new ones.
            let mut inserted: Vec<(&str, Option<QueueIndex>)> =
                current.iter().map(|&c| (old.queues[c].path(), matched.new_of_old[c])).collect();
            let parsed: Vec<&str> = parent.config.children.iter().map(|&c| self.queues[c].path()).collect();
            // A parsed child was a child before when its path was: the same queue, under the
            // same parent.
            let was_child =
                |c: QueueIndex| matched.old_of_new[c].is_some_and(|o| old.queues[o].config.parent == Some(before));
            for i in java_order::hash_map_order(&parsed, parsed.len()) {
                let c = parent.config.children[i];
                if !was_child(c) {
                    inserted.push((parsed[i], Some(c)));
                }
            }
            let keys: Vec<&str> = inserted.iter().map(|&(path, _)| path).collect();
            // The parsed children, each of which is in the new tree under this parent.
            let children: Vec<QueueIndex> =
                java_order::hash_map_order(&keys, keys.len()).into_iter().filter_map(|i| inserted[i].1).collect();
            ordered.push((p, children));
        }
        for (p, children) in ordered {
            self.queues[p].config.children = children;
        }
    }

    /// Keeps every parent's children in the order `old` holds them, a queue created since
    /// joining the end of its parent's list (Apache appends a created queue).
    pub fn keep_children_order_of(&mut self, old: &QueueTree) {
        for p in 0..self.queues.len() {
            let Some(before) = old.index_of_path(self.queues[p].path()) else { continue };
            let mut children: Vec<QueueIndex> = old.queues[before]
                .config
                .children
                .iter()
                .filter_map(|&c| self.index_of_path(old.queues[c].path()))
                .collect();
            for &c in &self.queues[p].config.children {
                if !children.contains(&c) {
                    children.push(c);
                }
            }
            self.queues[p].config.children = children;
        }
    }

    /// Records the limits leaves now publish (see `Queue::published_limit`).
    pub fn publish(&mut self, limits: impl IntoIterator<Item = (QueueIndex, Resource)>) {
        for (leaf, limit) in limits {
            self.queues[leaf].published_limit = limit;
        }
    }

    /// The queue at `index`.
    pub fn get(&self, index: QueueIndex) -> &Queue {
        &self.queues[index]
    }

    /// The index of the queue with this full path.
    pub fn index_of_path(&self, path: &str) -> Option<QueueIndex> {
        self.by_path.get(path).copied()
    }

    /// Finds a queue by full path (`root.a.b`) or by short name when that is unique, as
    /// Apache's queue manager does.
    pub fn resolve(&self, name: &str) -> Result<QueueIndex, ResolveError> {
        if let Some(&i) = self.by_path.get(name) {
            return Ok(i);
        }
        match self.by_name.get(name).map(Vec::as_slice) {
            None | Some([]) => Err(ResolveError::Unknown),
            Some([one]) => Ok(*one),
            Some(many) => {
                Err(ResolveError::Ambiguous(many.iter().map(|&i| self.queues[i].config.path.clone()).collect()))
            }
        }
    }

    /// `index` and each of its ancestors up to root.
    pub fn ancestors_inclusive(&self, index: QueueIndex) -> impl Iterator<Item = QueueIndex> + '_ {
        std::iter::successors(Some(index), move |&i| self.queues[i].config.parent)
    }

    /// The first queue from `index` up that is not RUNNING (STOPPED or DRAINING), if any.
    pub fn stopped_on_path(&self, index: QueueIndex) -> Option<QueueIndex> {
        self.ancestors_inclusive(index).find(|&i| self.queues[i].state != RuntimeState::Running)
    }

    /// True when this queue or an ancestor is not RUNNING.
    pub fn is_stopped(&self, index: QueueIndex) -> bool {
        self.stopped_on_path(index).is_some()
    }

    /// Adds `r` to the usage of `leaf` and all its ancestors.
    pub fn charge(&mut self, leaf: QueueIndex, r: Resource) {
        let path: Vec<QueueIndex> = self.ancestors_inclusive(leaf).collect();
        for i in path {
            self.queues[i].used = self.queues[i].used.plus(r);
        }
    }

    /// `user`'s container or reservation of `r` is now held in `leaf`: charged to the leaf,
    /// its ancestors and the user. As Apache's `allocateResource`, this invalidates the
    /// leaf's cached user limits and looks them up again (for the user's headroom).
    pub fn charge_user(&mut self, leaf: QueueIndex, user: &str, r: Resource) {
        self.charge(leaf, r);
        let q = &mut self.queues[leaf];
        let u = q.user_mut(user);
        u.used = u.used.plus(r);
        q.users_usage_ratio += u.update_usage_ratio(self.calculator, self.cluster);
        q.users_changed();
        q.user_limit_looked_up(LimitCache::of(DEFAULT_PARTITION));
    }

    /// [`QueueTree::charge_user`] in `partition`: a labelled partition's usage is kept
    /// apart, in the leaf, its ancestors and the user.
    pub fn charge_user_in(&mut self, partition: PartitionId, leaf: QueueIndex, user: &str, r: Resource) {
        if partition == DEFAULT_PARTITION {
            return self.charge_user(leaf, user, r);
        }
        self.move_labelled(partition, leaf, r, false, false);
        let q = &mut self.queues[leaf];
        let used = &mut q.user_mut(user).labelled.entry(partition).or_default().used;
        *used = used.plus(r);
        q.users_changed();
        q.user_limit_looked_up(LimitCache::of(partition));
    }

    /// The reverse of [`QueueTree::charge_user_in`].
    pub fn refund_user_in(&mut self, partition: PartitionId, leaf: QueueIndex, user: &str, r: Resource) {
        if partition == DEFAULT_PARTITION {
            return self.refund_user(leaf, user, r);
        }
        self.move_labelled(partition, leaf, r, true, false);
        let q = &mut self.queues[leaf];
        if let Some(used) = q.users.get_mut(user).and_then(|u| u.labelled.get_mut(&partition)).map(|u| &mut u.used) {
            *used = used.minus(r);
        }
        q.users_changed();
        q.user_limit_looked_up(LimitCache::of(partition));
    }

    /// [`QueueTree::track_reserved`] in `partition`.
    pub fn track_reserved_in(&mut self, partition: PartitionId, leaf: QueueIndex, r: Resource, negative: bool) {
        if partition == DEFAULT_PARTITION {
            return self.track_reserved(leaf, r, negative);
        }
        self.move_labelled(partition, leaf, r, negative, true);
    }

    /// Adds `r` to (or with `negative` takes it from) what `leaf` and its ancestors hold
    /// in a labelled partition, or, with `reserved`, hold there by reservations. Their
    /// views list the partition from then on (Apache's allocateResource and
    /// releaseResource update its usage and used capacities).
    fn move_labelled(&mut self, partition: PartitionId, leaf: QueueIndex, r: Resource, negative: bool, reserved: bool) {
        let path: Vec<QueueIndex> = self.ancestors_inclusive(leaf).collect();
        for i in path {
            let q = &mut self.queues[i];
            let share = q.labelled.entry(partition).or_default();
            let field = if reserved { &mut share.reserved } else { &mut share.used };
            *field = if negative { field.minus(r) } else { field.plus(r) };
            ShownPartitions::add(&mut q.shown.usage, partition);
            ShownPartitions::add(&mut q.shown.capacities, partition);
        }
    }

    /// `leaf` and its ancestors had resources pending in `partition`: their usage lists
    /// it from then on (see [`ShownPartitions`]).
    pub fn show_pending_in(&mut self, leaf: QueueIndex, partition: PartitionId) {
        if partition == DEFAULT_PARTITION {
            return;
        }
        let path: Vec<QueueIndex> = self.ancestors_inclusive(leaf).collect();
        for i in path {
            ShownPartitions::add(&mut self.queues[i].shown.usage, partition);
        }
    }

    /// What a cluster update does to the partitions the views list (Apache's
    /// `updateClusterResource`): each queue's capacities take the labels it has keys for
    /// (`configured`: each queue's, by partition) and every label its usage lists; then
    /// each leaf works out its ApplicationMaster limits — in the partitions it may access
    /// by name, or, accessing every label, in those its view already lists — which its
    /// usage lists from then on (its capacities only at the next update).
    /// Only the queues `chosen` take part (a queue created under a parent updates the
    /// queues below that parent only).
    pub fn update_shown_partitions(
        &mut self,
        configured: &[Vec<PartitionId>],
        named: &[Vec<PartitionId>],
        chosen: impl Fn(QueueIndex) -> bool,
    ) {
        for (i, q) in self.queues.iter_mut().enumerate().filter(|(i, _)| chosen(*i)) {
            let leaf = q.is_leaf();
            let shown = &mut q.shown;
            for &p in configured.get(i).into_iter().flatten().chain(shown.usage.clone().iter()) {
                ShownPartitions::add(&mut shown.capacities, p);
            }
            if !leaf {
                continue;
            }
            match q.config.accessible_node_labels {
                crate::config::queue::LabelAccess::Labels(_) => {
                    for &p in named.get(i).into_iter().flatten() {
                        ShownPartitions::add(&mut shown.usage, p);
                    }
                }
                _ => {
                    for p in shown.capacities.clone() {
                        ShownPartitions::add(&mut shown.usage, p);
                    }
                }
            }
        }
    }

    /// `queue`'s guaranteed share of the partition labelled `label` as configured (see
    /// [`QueueTree::configured_label_shares`]).
    pub fn configured_label_share(&self, queue: QueueIndex, label: &str, live: Option<PartitionId>) -> f64 {
        self.configured_label_shares(queue, label, live).0
    }

    /// `queue`'s guaranteed and maximum shares of the partition labelled `label` as
    /// configured (its and its ancestors' `accessible-node-labels.<label>.capacity` and
    /// `.maximum-capacity`, percentages multiplied down and weights shared among the
    /// siblings configured for the label; the root's are 1), whether or not the cluster
    /// has the label: Apache's absolute capacities there. A queue given an absolute
    /// resource has the shares the live partition gives it (none without one).
    pub fn configured_label_shares(&self, queue: QueueIndex, label: &str, live: Option<PartitionId>) -> (f64, f64) {
        if let Some(LabelCapacity { capacity: CapacitySpec::Absolute(_), .. }) =
            self.queues[queue].config.node_labels.get(label)
        {
            return live.map_or((0.0, 0.0), |p| self.queues[queue].shares_in(p));
        }
        let path: Vec<QueueIndex> = self.ancestors_inclusive(queue).collect();
        path.iter().rev().skip(1).fold((1.0, 1.0), |(abs, max), &i| {
            let sum = self.queues[i].config.parent.map_or(0.0, |p| self.label_weight_sum(p, label));
            self.label_shares_of(i, label, abs, max, sum)
        })
    }

    /// Queue `q`'s shares of partition `label` as a percentage or a weight gives them,
    /// from its parent's (`parent_abs`, `parent_max`) and the weights its siblings give
    /// there (`weight_sum`): Apache's legacy `updateAbsoluteCapacitiesByNodeLabels`, in
    /// floats. A queue without keys for the label has none; an absolute resource gives
    /// nothing here (see [`QueueTree::absolute_label_children`]).
    fn label_shares_of(
        &self,
        q: QueueIndex,
        label: &str,
        parent_abs: f64,
        parent_max: f64,
        weight_sum: f32,
    ) -> (f64, f64) {
        let percent_of = |parent: f64, pct: f64| f64::from(parent as f32 * (pct as f32 / 100.0));
        let Some(keys) = self.queues[q].config.node_labels.get(label) else { return (0.0, 0.0) };
        let capacity = match keys.capacity {
            CapacitySpec::Percent(pct) => percent_of(parent_abs, pct),
            CapacitySpec::Weight(w) => f64::from(over_weight_sum(w as f32, weight_sum) * parent_abs as f32),
            CapacitySpec::Absolute(_) => 0.0,
        };
        (capacity, percent_of(parent_max, keys.maximum_percent()))
    }

    /// `q`'s weight in partition `id` (`label`) over its siblings' there (`weight_sum`), as
    /// Apache's parent normalizes the weights of children using them (`weights_used`): -1
    /// over the sum for a child that has the partition among its capacities without a
    /// weight for it; 0 where the parent's children do not use weights or the weights sum
    /// to nothing.
    fn label_normalized_weight(
        &self,
        q: QueueIndex,
        id: PartitionId,
        label: &str,
        weights_used: bool,
        weight_sum: f32,
    ) -> f64 {
        if !weights_used {
            return 0.0;
        }
        let queue = &self.queues[q];
        let weight = match queue.config.node_labels.get(label).map(|k| k.capacity) {
            Some(CapacitySpec::Weight(w)) => w as f32,
            _ if queue.shown.capacities.contains(&id) => -1.0,
            _ => return 0.0,
        };
        f64::from(over_weight_sum(weight, weight_sum))
    }

    /// Works out every queue's shares of the labelled `partitions` (id, label, what the
    /// partition's nodes offer) as the default partition's, from the queues'
    /// `accessible-node-labels.<label>.*` keys (none: 0 and 0): percentages of the
    /// parent's share, weights shared among the siblings, absolute resources as vectors
    /// (compared as the calculator compares for the whole `cluster`). Shares of
    /// partitions not listed are dropped where nothing is held there, and guarantee
    /// nothing where something is.
    pub fn update_partition_capacities(&mut self, partitions: &[(PartitionId, &str, Resource)], cluster: Resource) {
        for q in self.queues.iter_mut().filter(|q| !q.labelled.is_empty()) {
            q.labelled
                .retain(|p, s| partitions.iter().any(|(id, ..)| id == p) || !s.used.is_none() || !s.reserved.is_none());
            for (_, s) in q.labelled.iter_mut().filter(|(p, _)| !partitions.iter().any(|(id, ..)| id == *p)) {
                s.effective_min = Resource::ZERO;
                s.effective_max = Resource::ZERO;
            }
        }
        // (A cluster without labels, the common case, stops here.)
        if partitions.is_empty() || self.queues.is_empty() {
            return;
        }
        for &(id, _, total) in partitions {
            let root = self.queues[0].labelled.entry(id).or_default();
            root.absolute_capacity = 1.0;
            root.absolute_maximum_capacity = 1.0;
            root.effective_min = total;
            root.effective_max = total;
            root.configured_max = None;
            root.relative_shares = None;
        }
        for p in 0..self.queues.len() {
            let children = self.queues[p].config.children.clone();
            let parent_config = &self.queues[p].config;
            let weights_used = crate::config::validate::children_use_weights(
                parent_config,
                children.iter().map(|&c| &self.queues[c].config),
            );
            for &(id, label, total) in partitions {
                let (parent_abs, parent_max) = self.queues[p].shares_in(id);
                let weight_sum = self.label_weight_sum(p, label);
                for &c in &children {
                    let (capacity, maximum) = self.label_shares_of(c, label, parent_abs, parent_max, weight_sum);
                    let normalized_weight = self.label_normalized_weight(c, id, label, weights_used, weight_sum);
                    let share = self.queues[c].labelled.entry(id).or_default();
                    share.normalized_weight = normalized_weight;
                    share.absolute_capacity = capacity;
                    share.absolute_maximum_capacity = maximum;
                    share.effective_min = total.scaled(capacity);
                    share.effective_max = total.scaled(maximum);
                    share.configured_max = None;
                    share.relative_shares = None;
                }
                self.absolute_label_children(p, &children, id, label, total, cluster);
            }
        }
    }

    /// The reverse of [`QueueTree::charge_user`] (Apache's `releaseResource`).
    pub fn refund_user(&mut self, leaf: QueueIndex, user: &str, r: Resource) {
        self.refund(leaf, r);
        let q = &mut self.queues[leaf];
        if let Some(u) = q.users.get_mut(user) {
            u.used = u.used.minus(r);
            q.users_usage_ratio += u.update_usage_ratio(self.calculator, self.cluster);
        }
        q.users_changed();
        q.user_limit_looked_up(LimitCache::of(DEFAULT_PARTITION));
    }

    /// Removes `r` from the usage of `leaf` and all its ancestors.
    pub fn refund(&mut self, leaf: QueueIndex, r: Resource) {
        let path: Vec<QueueIndex> = self.ancestors_inclusive(leaf).collect();
        for i in path {
            self.queues[i].used = self.queues[i].used.minus(r);
        }
    }

    /// Adds (or with `negative`, removes) `r` as reserved in `leaf` and its ancestors.
    pub fn track_reserved(&mut self, leaf: QueueIndex, r: Resource, negative: bool) {
        let path: Vec<QueueIndex> = self.ancestors_inclusive(leaf).collect();
        for i in path {
            let q = &mut self.queues[i];
            q.reserved = if negative { q.reserved.minus(r) } else { q.reserved.plus(r) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ClusterSettings;

    const SEED_EXAMPLE: &str = r#"<configuration>
      <property><name>yarn.scheduler.capacity.root.queues</name><value>engineering,support,marketing</value></property>
      <property><name>yarn.scheduler.capacity.root.engineering.capacity</name><value>60</value></property>
      <property><name>yarn.scheduler.capacity.root.support.capacity</name><value>10</value></property>
      <property><name>yarn.scheduler.capacity.root.marketing.capacity</name><value>30</value></property>
      <property><name>yarn.scheduler.capacity.root.engineering.maximum-capacity</name><value>60</value></property>
      <property><name>yarn.scheduler.capacity.root.engineering.queues</name><value>development,qa</value></property>
      <property><name>yarn.scheduler.capacity.root.engineering.development.capacity</name><value>20</value></property>
      <property><name>yarn.scheduler.capacity.root.engineering.development.maximum-capacity</name><value>40</value></property>
      <property><name>yarn.scheduler.capacity.root.engineering.qa.capacity</name><value>80</value></property>
    </configuration>"#;

    fn tree(xml: &str) -> QueueTree {
        let cfg = SchedulerConfig::from_xml(xml.as_bytes(), "t.xml", ClusterSettings::default()).unwrap();
        QueueTree::build(&cfg)
    }

    #[test]
    fn seed_example_effective_capacities() {
        // 100 nodes x 10 GB: development is guaranteed 12% (120 GB). Apache computes a
        // maximum as a share of the parent's *maximum*, so the seeds' "40% of engineering =
        // 240 GB" holds when engineering itself is capped at its 60% guarantee.
        let mut t = tree(SEED_EXAMPLE);
        let cluster = Resource::new(100 * 10 * 1024, 100 * 8);
        t.update_effective_capacities(cluster, ResourceCalculator::Memory);
        let dev = t.resolve("development").unwrap();
        // Single precision, as Apache's floats: within 1e-6, not exactly 0.12.
        assert!((t.get(dev).absolute_capacity - 0.12).abs() < 1e-6);
        assert!((t.get(dev).absolute_maximum_capacity - 0.24).abs() < 1e-6);
        assert_eq!(t.get(dev).maximum().memory_mb, 240 * 1024);
        let qa = t.resolve("root.engineering.qa").unwrap();
        assert!((t.get(qa).absolute_capacity - 0.48).abs() < 1e-6);
    }

    #[test]
    fn usage_rolls_up_to_ancestors() {
        let mut t = tree(SEED_EXAMPLE);
        let dev = t.resolve("development").unwrap();
        t.charge(dev, Resource::new(2048, 2));
        let eng = t.resolve("engineering").unwrap();
        assert_eq!(t.get(eng).used, Resource::new(2048, 2));
        assert_eq!(t.get(0).used, Resource::new(2048, 2));
        t.refund(dev, Resource::new(2048, 2));
        assert_eq!(t.get(0).used, Resource::ZERO);
    }

    #[test]
    fn the_user_limit_sees_the_users_dominant_shares_summed() {
        // From Apache's debug log of random seed 430: a cluster of 38 GB / 36 vcores and
        // three users in the leaf holding 7 GB / 6 vcores, 4 GB / 2 vcores and 1 GB /
        // 1 vcore. Under DRF their shares are 7/38, 4/38 and 1/36 (usage ratio
        // 0.31725144), and "consumed" is the cluster times that, normalised up:
        // 13 GB / 12 vcores, where the users hold 12 GB / 9 vcores.
        let mut t = tree(SEED_EXAMPLE);
        let cluster = Resource::new(38 * 1024, 36);
        let step = Resource::new(1024, 1);
        let dev = t.resolve("development").unwrap();
        t.update_effective_capacities(cluster, ResourceCalculator::Dominant);
        t.charge_user(dev, "u2", Resource::new(7 * 1024, 6));
        t.charge_user(dev, "u3", Resource::new(4 * 1024, 2));
        t.charge_user(dev, "u0", Resource::new(1024, 1));
        // (Apache's figure came by other increments; floats added in another order
        // differ in the last place.)
        assert!((t.get(dev).users_usage_ratio - 0.317_251_44).abs() < 1e-6);
        assert_eq!(
            t.get(dev).users_consumed(ResourceCalculator::Dominant, cluster, step),
            Resource::new(13 * 1024, 12)
        );
        // Under the Default calculator only memory comes from the shares, and the
        // calculator's one vcore.
        t.update_effective_capacities(cluster, ResourceCalculator::Memory);
        assert_eq!(t.get(dev).users_consumed(ResourceCalculator::Memory, cluster, step), Resource::new(12 * 1024, 1));
        // Released usage leaves the sum.
        t.refund_user(dev, "u3", Resource::new(4 * 1024, 2));
        assert_eq!(t.get(dev).users_consumed(ResourceCalculator::Memory, cluster, step), Resource::new(8 * 1024, 1));
    }

    #[test]
    fn resolves_short_names_and_reports_ambiguity() {
        let t = tree(
            r#"<configuration>
              <property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>
              <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>50</value></property>
              <property><name>yarn.scheduler.capacity.root.b.capacity</name><value>50</value></property>
              <property><name>yarn.scheduler.capacity.root.a.queues</name><value>x</value></property>
              <property><name>yarn.scheduler.capacity.root.b.queues</name><value>x</value></property>
              <property><name>yarn.scheduler.capacity.root.a.x.capacity</name><value>100</value></property>
              <property><name>yarn.scheduler.capacity.root.b.x.capacity</name><value>100</value></property>
            </configuration>"#,
        );
        assert_eq!(t.resolve("nope"), Err(ResolveError::Unknown));
        assert!(matches!(t.resolve("x"), Err(ResolveError::Ambiguous(p)) if p.len() == 2));
        assert!(t.resolve("root.b.x").is_ok());
        assert!(t.resolve("a").is_ok());
    }
}
