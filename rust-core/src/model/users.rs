//! Users inside a leaf queue, as Apache's `UsersManager` keeps them: what each holds, its
//! usage ratio, its applications, whether it counts as active, and the cached count of
//! users whose applications all wait for activation. The limit each user may hold is
//! policy (`policy::limits`).

use crate::resource::{Resource, ResourceCalculator};

/// What a user holds in one labelled partition of a leaf.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LabelledUse {
    /// Its containers.
    pub used: Resource,
    /// Its activated applications' ApplicationMasters.
    pub am_used: Resource,
}

/// One user's standing in one leaf queue.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UserState {
    /// Resources the user's containers hold in this queue, in the default partition.
    pub used: Resource,
    /// What they and their ApplicationMasters hold in each labelled partition.
    pub labelled: rustc_hash::FxHashMap<crate::model::PartitionId, LabelledUse>,
    /// `used` as a share of the cluster (the dominant share under DRF), as last worked out
    /// (Apache's per-user usage ratio, a Java float).
    pub usage_ratio: f32,
    /// Resources held by the user's ApplicationMasters in this queue, in the default
    /// partition.
    pub am_used: Resource,
    /// The user's applications that are activated (may get containers).
    pub active_apps: usize,
    /// The user's runnable applications waiting for activation (AM limits; see
    /// `App::runnable`).
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
        self.active_apps == 0
            && self.pending_apps == 0
            && self.used.is_none()
            && self.apps_counted_active == 0
            && self.labelled.values().all(|u| u.used.is_none())
    }

    /// What the user holds in `partition`.
    pub fn used_in(&self, partition: crate::model::PartitionId) -> Resource {
        if partition == crate::model::DEFAULT_PARTITION {
            return self.used;
        }
        self.labelled.get(&partition).map_or(Resource::ZERO, |u| u.used)
    }

    /// What the user's active ApplicationMasters hold in `partition`.
    pub fn am_used_in(&self, partition: crate::model::PartitionId) -> Resource {
        if partition == crate::model::DEFAULT_PARTITION {
            return self.am_used;
        }
        self.labelled.get(&partition).map_or(Resource::ZERO, |u| u.am_used)
    }

    /// [`UserState::am_used_in`], to change.
    pub fn am_used_in_mut(&mut self, partition: crate::model::PartitionId) -> &mut Resource {
        if partition == crate::model::DEFAULT_PARTITION {
            return &mut self.am_used;
        }
        &mut self.labelled.entry(partition).or_default().am_used
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

/// A leaf's users by name. Each user's record keeps its slot while the user stays, so an
/// application can remember where its user's record is ([`UserSlot`]) and find it during
/// a pass without hashing and comparing the name (whose bytes, like the map's, are cold
/// in a cluster of thousands of applications). Iteration is in slot order; the sums whose
/// order Apache fixes put the users in that order themselves (see
/// `Queue::recompute_usage_ratio`).
#[derive(Debug, Clone)]
pub struct Users {
    slots: Vec<Option<Slot>>,
    by_name: rustc_hash::FxHashMap<String, u32>,
    /// Slots given up, to be taken again first.
    free: Vec<u32>,
    /// The taken slots in the order Apache's map of the users iterates them (see
    /// [`Users::fold_in_java_order`]): kept as users join and leave while the map's table
    /// keeps its size; dropped when that changes, and worked out again at the next fold.
    java_order: Option<Vec<u32>>,
    /// What the active users hold in the default partition and their weights' sum, as
    /// last summed (see [`Users::active_sums`]): a cache, emptied by every way to change a
    /// record or the set of users (each `&mut` access, whether it changes anything or not)
    /// and by [`Users::weights_changed`].
    active_sums: std::cell::Cell<Option<ActiveSums>>,
}

/// What a leaf's active users hold in the default partition, and the sum of their weights:
/// the user-limit formula's share of the leaf among them. Kept exact, emptied at every
/// change, unlike Apache's user-limit cache ([`PendingUsersCount`]), whose lag is part of
/// what Apache decides: these sums are what Apache's `UsersManager` keeps as running totals.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ActiveSums {
    /// What the active users' containers hold.
    pub used: Resource,
    /// Their weights, summed.
    pub weight: f64,
}

impl Default for Users {
    fn default() -> Self {
        // No user: the order is known, and kept from the first user on.
        Users {
            slots: Vec::new(),
            by_name: Default::default(),
            free: Vec::new(),
            java_order: Some(Vec::new()),
            active_sums: std::cell::Cell::new(None),
        }
    }
}

impl Slot {
    /// Where the user comes in the iteration of Apache's map of users with a table of
    /// `capacity` buckets, the names put in in name order: by bucket, then by name.
    fn java_key(&self, capacity: usize) -> (usize, &str) {
        (crate::java_order::bucket_of(self.java_hash, capacity), self.name.as_str())
    }
}

#[derive(Debug, Clone)]
struct Slot {
    /// Unique to the user's stay in this slot (never handed out twice in the process), so
    /// a remembered slot is the same user's or no longer valid.
    id: u64,
    name: String,
    /// Java's `hashCode` of the name: where Apache's map keeps the user.
    java_hash: i32,
    state: UserState,
}

/// Where an application last found its user's record in its leaf (see [`Users`]): a
/// cache, which is why it compares equal to any other.
#[derive(Debug, Clone, Default)]
pub struct UserSlot(std::cell::Cell<(u32, u64)>);

impl PartialEq for UserSlot {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// Slot ids: 0 is no slot.
static NEXT_SLOT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl Users {
    /// The record of `user`, if the leaf has one.
    pub fn get(&self, user: &str) -> Option<&UserState> {
        let slot = *self.by_name.get(user)?;
        self.slots[slot as usize].as_ref().map(|s| &s.state)
    }

    /// [`Users::get`], looked for first where `remembered` says (and remembered there when
    /// found elsewhere).
    pub fn get_remembered(&self, user: &str, remembered: &UserSlot) -> Option<&UserState> {
        let (index, id) = remembered.0.get();
        if let Some(Some(slot)) = self.slots.get(index as usize) {
            if slot.id == id {
                debug_assert_eq!(slot.name, user, "a slot id names one user");
                return Some(&slot.state);
            }
        }
        let index = *self.by_name.get(user)?;
        let slot = self.slots[index as usize].as_ref()?;
        remembered.0.set((index, slot.id));
        Some(&slot.state)
    }

    /// [`Users::get`], to change.
    pub fn get_mut(&mut self, user: &str) -> Option<&mut UserState> {
        self.changing();
        let slot = *self.by_name.get(user)?;
        self.slots[slot as usize].as_mut().map(|s| &mut s.state)
    }

    /// The record of `user`, made if the leaf has none (the name is copied only then).
    pub fn get_or_default(&mut self, user: &str) -> &mut UserState {
        self.changing();
        let index = match self.by_name.get(user) {
            Some(&index) => index,
            None => self.insert(user.to_string(), UserState::default()),
        };
        &mut self.slots[index as usize].as_mut().expect("a named slot is taken").state
    }

    /// Sets `user`'s record, returning its slot.
    pub fn insert(&mut self, user: String, state: UserState) -> u32 {
        self.changing();
        if let Some(&index) = self.by_name.get(&user) {
            self.slots[index as usize].as_mut().expect("a named slot is taken").state = state;
            return index;
        }
        let id = NEXT_SLOT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let slot = Some(Slot { id, java_hash: crate::java_order::string_hash(&user), name: user.clone(), state });
        let index = match self.free.pop() {
            Some(index) => {
                self.slots[index as usize] = slot;
                index
            }
            None => {
                self.slots.push(slot);
                u32::try_from(self.slots.len() - 1).expect("fewer than 2^32 users in a leaf")
            }
        };
        self.by_name.insert(user, index);
        self.java_order_changed(index, true);
        index
    }

    /// Drops `user`'s record, returning it.
    pub fn remove(&mut self, user: &str) -> Option<UserState> {
        self.changing();
        let index = self.by_name.remove(user)?;
        self.java_order_changed(index, false);
        self.free.push(index);
        self.slots[index as usize].take().map(|s| s.state)
    }

    /// The user in slot `index` has just `joined` (or is about to leave: its slot is still
    /// taken) and the map counts it accordingly: its place in the Java order is taken or
    /// given up, or the order dropped if the map's table changes size with it.
    fn java_order_changed(&mut self, index: u32, joined: bool) {
        let now = self.by_name.len();
        let capacity = crate::java_order::table_size(now);
        let before = if joined { now - 1 } else { now + 1 };
        if crate::java_order::table_size(before) != capacity {
            self.java_order = None;
            return;
        }
        let Some(order) = &mut self.java_order else { return };
        let slots = &self.slots;
        let key = |i: u32| slots[i as usize].as_ref().expect("the order lists taken slots").java_key(capacity);
        let own = key(index);
        let at = order.partition_point(|&i| key(i) < own);
        if joined {
            order.insert(at, index);
        } else {
            debug_assert_eq!(order.get(at), Some(&index), "the order lists the leaving user");
            order.remove(at);
        }
    }

    /// What the active users hold in the default partition and the sum of their weights
    /// (`weight` gives a user's), summed in slot order at the first call since a record
    /// last changed, and kept until the next change: a pass reads it once a leaf, and
    /// most leaves a heartbeat passes have not changed since the last. The weights are the
    /// leaf's configuration's, which a refresh replaces: it calls
    /// [`Users::weights_changed`].
    pub fn active_sums(&self, weight: impl Fn(&str) -> f64) -> ActiveSums {
        let summed = || {
            self.iter().filter(|(_, u)| u.is_active()).fold(
                ActiveSums { used: Resource::ZERO, weight: 0.0 },
                |s, (name, u)| ActiveSums { used: s.used.plus(u.used), weight: s.weight + weight(name) },
            )
        };
        if let Some(sums) = self.active_sums.get() {
            debug_assert_eq!(sums, summed(), "the active users' sums are emptied at every change");
            return sums;
        }
        let sums = summed();
        self.active_sums.set(Some(sums));
        sums
    }

    /// The users' weights may have changed (a refresh moved these records into a leaf with
    /// a new configuration): what [`Users::active_sums`] kept is summed again.
    pub fn weights_changed(&mut self) {
        self.changing();
    }

    /// A record may change: what is kept of them is dropped.
    fn changing(&mut self) {
        self.active_sums.set(None);
    }

    pub fn contains_key(&self, user: &str) -> bool {
        self.by_name.contains_key(user)
    }

    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// Every user and its record, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &UserState)> {
        self.slots.iter().flatten().map(|s| (&s.name, &s.state))
    }

    /// [`Users::iter`], to change the records.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&String, &mut UserState)> {
        self.changing();
        self.slots.iter_mut().flatten().map(|s| (&s.name, &mut s.state))
    }

    /// Folds `f` over every user's record in the order Apache's leaf iterates its map of
    /// users: the names put into a `HashMap` of their number in name order (see
    /// [`crate::java_order`]), so bucket by bucket and by name within one. That order is
    /// kept as users come and go (worked out whole only after the map's table would have
    /// changed size), so a sum Apache takes over the map is taken here in its order at the
    /// cost of the walk.
    pub fn fold_in_java_order<B>(&mut self, init: B, mut f: impl FnMut(B, &mut UserState) -> B) -> B {
        self.changing();
        let slots = &mut self.slots;
        let order = self.java_order.get_or_insert_with(|| {
            let capacity = crate::java_order::table_size(self.by_name.len());
            let mut placed: Vec<(usize, &str, u32)> = slots
                .iter()
                .enumerate()
                .filter_map(|(i, s)| {
                    s.as_ref().map(|s| {
                        let (bucket, name) = s.java_key(capacity);
                        (bucket, name, i as u32)
                    })
                })
                .collect();
            // Names are unique: no two entries compare equal.
            placed.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
            placed.into_iter().map(|(_, _, slot)| slot).collect()
        });
        #[cfg(debug_assertions)]
        {
            let name = |i: &u32| slots[*i as usize].as_ref().expect("the order lists taken slots").name.as_str();
            assert_eq!(order.len(), self.by_name.len(), "the order lists every user");
            let mut names: Vec<&str> = order.iter().map(name).collect();
            names.sort_unstable();
            let java = crate::java_order::hash_map_order(&names, names.len());
            assert!(
                java.into_iter().map(|i| names[i]).eq(order.iter().map(name)),
                "the users' order is the Java map's"
            );
        }
        order
            .iter()
            .fold(init, |acc, &i| f(acc, &mut slots[i as usize].as_mut().expect("the order lists taken slots").state))
    }

    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.iter().map(|(name, _)| name)
    }

    pub fn values(&self) -> impl Iterator<Item = &UserState> {
        self.iter().map(|(_, u)| u)
    }
}

impl<'a> IntoIterator for &'a Users {
    type Item = (&'a String, &'a UserState);
    type IntoIter = Box<dyn Iterator<Item = Self::Item> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl std::ops::Index<&str> for Users {
    type Output = UserState;

    fn index(&self, user: &str) -> &UserState {
        self.get(user).unwrap_or_else(|| panic!("the leaf has no record of user {user}"))
    }
}

/// Which of a leaf's cached user limits a lookup reads: Apache's `UsersManager` keeps one
/// per partition and scheduling mode, each remembering the version of the users' state it
/// was worked out at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitCache {
    pub partition: crate::model::PartitionId,
    /// `IGNORE_PARTITION_EXCLUSIVITY`: a pass lending a non-exclusive partition.
    pub ignoring_exclusivity: bool,
}

impl LimitCache {
    /// The cache of `partition` respecting its exclusivity (every lookup but a lending pass's).
    pub fn of(partition: crate::model::PartitionId) -> Self {
        LimitCache { partition, ignoring_exclusivity: false }
    }
}

/// How many of a leaf's users have applications that all still wait for activation, as
/// Apache's `UsersManager` knows it. It counts them only when it recomputes a cached user
/// limit, and it recomputes one only at a lookup after something invalidated the caches
/// (`userLimitNeedsRecompute`: a user becoming active or inactive, a container charged or
/// released, the cluster or the configuration changing) — each cache (partition and
/// scheduling mode, see [`LimitCache`]) on its own first lookup since. Submissions and
/// activations do not invalidate them, so the count the per-user ApplicationMaster limit
/// reads can lag, until a lookup in a cache not yet read since the last invalidation
/// counts again; nor does a user joining the leaf, so the limit counting all users
/// (intra-queue preemption's) is handed out again as last worked out.
#[derive(Debug, Clone, Default)]
pub struct PendingUsersCount {
    /// Bumped by every invalidation.
    version: u64,
    /// The version each cache of the active users' limit was last worked out at (the count
    /// taken with it); a cache never read is missing.
    counted_at: Vec<(LimitCache, u64)>,
    /// Likewise for the limit counting all users, which Apache caches apart and which
    /// recounts the same figure when it is worked out; with that limit, before each
    /// user's weight, as last worked out.
    counted_among_all_at: Vec<(LimitCache, u64, Resource)>,
    count: usize,
}

impl PendingUsersCount {
    /// `userLimitNeedsRecompute`.
    pub fn invalidate(&mut self) {
        self.version += 1;
    }

    /// A user-limit lookup in `cache`: counts the users again if that cache was
    /// invalidated since it was last read.
    pub fn look_up<'a>(&mut self, cache: LimitCache, users: impl Iterator<Item = &'a UserState>) {
        let version = self.version;
        match self.counted_at.iter_mut().find(|(c, _)| *c == cache) {
            Some((_, at)) if *at == version => return,
            Some((_, at)) => *at = version,
            None => self.counted_at.push((cache, version)),
        }
        self.recount(users);
    }

    /// A lookup of the limit counting all users in `cache` (intra-queue preemption's),
    /// `limit` as worked out now: if the cached one was invalidated since it was last
    /// worked out, `limit` is cached and the users are counted again.
    pub fn look_up_among_all<'a>(
        &mut self,
        cache: LimitCache,
        users: impl Iterator<Item = &'a UserState>,
        limit: Resource,
    ) {
        let version = self.version;
        match self.counted_among_all_at.iter_mut().find(|(c, ..)| *c == cache) {
            Some((_, at, _)) if *at == version => return,
            Some((_, at, cached)) => (*at, *cached) = (version, limit),
            None => self.counted_among_all_at.push((cache, version, limit)),
        }
        self.recount(users);
    }

    /// The limit counting all users in `cache` as Apache hands it out now: the cached one,
    /// unless something invalidated it since it was worked out (then it is worked out afresh).
    pub fn cached_among_all(&self, cache: LimitCache) -> Option<Resource> {
        self.counted_among_all_at.iter().find(|(c, at, _)| *c == cache && *at == self.version).map(|(.., l)| *l)
    }

    fn recount<'a>(&mut self, users: impl Iterator<Item = &'a UserState>) {
        self.count = users.filter(|u| u.pending_apps > 0 && u.active_apps == 0).count();
    }

    /// The count as of the last lookup that took it.
    pub fn get(&self) -> usize {
        self.count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_usage_ratio_moves_by_the_change_it_reports() {
        let cluster = Resource::new(10 * 1024, 10);
        let mut u = UserState { used: Resource::new(2 * 1024, 8), ..Default::default() };
        let calc = ResourceCalculator::Dominant;
        assert_eq!(u.update_usage_ratio(calc, cluster), 0.8);
        u.used = Resource::new(2 * 1024, 1);
        let delta = u.update_usage_ratio(calc, cluster);
        assert!((delta + 0.6).abs() < 1e-6, "dominant share fell from 0.8 to 0.2: {delta}");
        assert_eq!(u.usage_ratio, 0.2);
    }

    const DEFAULT: LimitCache = LimitCache { partition: crate::model::DEFAULT_PARTITION, ignoring_exclusivity: false };

    #[test]
    fn the_pending_users_count_lags_until_a_lookup_after_an_invalidation() {
        let waiting = UserState { pending_apps: 1, ..Default::default() };
        let running = UserState { active_apps: 1, pending_apps: 1, ..Default::default() };
        let mut count = PendingUsersCount::default();
        count.look_up(DEFAULT, [&waiting, &running].into_iter());
        assert_eq!(count.get(), 1, "a user with an active application is not pending");
        count.look_up(DEFAULT, [&waiting, &waiting.clone()].into_iter());
        assert_eq!(count.get(), 1, "no invalidation since the last count: the cache answers");
        count.invalidate();
        count.look_up(DEFAULT, [&waiting, &waiting.clone()].into_iter());
        assert_eq!(count.get(), 2);
    }

    #[test]
    fn each_partition_and_mode_recounts_at_its_own_first_lookup_after_an_invalidation() {
        let waiting = UserState { pending_apps: 1, ..Default::default() };
        let mut count = PendingUsersCount::default();
        count.invalidate();
        count.look_up(DEFAULT, std::iter::empty());
        assert_eq!(count.get(), 0);
        // A user's application waits since, without an invalidation: the default
        // partition's cache still answers, but the first lookup in another one counts again.
        count.look_up(DEFAULT, [&waiting].into_iter());
        assert_eq!(count.get(), 0);
        let gpu: crate::model::PartitionId = 1;
        count.look_up(LimitCache::of(gpu), [&waiting].into_iter());
        assert_eq!(count.get(), 1, "the gpu cache had not been read since the invalidation");
        count.look_up(LimitCache { partition: gpu, ignoring_exclusivity: true }, std::iter::empty());
        assert_eq!(count.get(), 0, "nor had the gpu cache of passes lending it");
        count.look_up(LimitCache::of(gpu), [&waiting].into_iter());
        assert_eq!(count.get(), 0, "read since: it answers");
    }

    #[test]
    fn the_limit_among_all_is_handed_out_again_until_an_invalidation() {
        let mut cache = PendingUsersCount::default();
        assert_eq!(cache.cached_among_all(DEFAULT), None, "nothing worked out yet");
        let two = Resource::new(9 * 1024, 9);
        cache.look_up_among_all(DEFAULT, std::iter::empty(), two);
        assert_eq!(cache.cached_among_all(DEFAULT), Some(two));
        // A user joining does not invalidate: a lookup now keeps what was cached.
        cache.look_up_among_all(DEFAULT, std::iter::empty(), Resource::new(6 * 1024, 6));
        assert_eq!(cache.cached_among_all(DEFAULT), Some(two));
        cache.invalidate();
        assert_eq!(cache.cached_among_all(DEFAULT), None, "invalidated: worked out afresh");
        let three = Resource::new(6 * 1024, 6);
        cache.look_up_among_all(DEFAULT, std::iter::empty(), three);
        assert_eq!(cache.cached_among_all(DEFAULT), Some(three));
    }

    #[test]
    fn a_remembered_slot_finds_its_user_and_only_its_user() {
        let mut users = Users::default();
        users.get_or_default("alice").active_apps = 1;
        users.get_or_default("bob").active_apps = 2;
        let (alice, bob) = (UserSlot::default(), UserSlot::default());
        assert_eq!(users.get_remembered("alice", &alice).map(|u| u.active_apps), Some(1));
        assert_eq!(users.get_remembered("bob", &bob).map(|u| u.active_apps), Some(2));
        assert_eq!(users.get_remembered("bob", &bob).map(|u| u.active_apps), Some(2), "from the slot");
        // Alice leaves and carol takes her slot: alice's remembered slot no longer holds.
        users.remove("alice");
        users.get_or_default("carol").active_apps = 3;
        assert_eq!(users.len(), 2);
        assert_eq!(users.get_remembered("alice", &alice), None);
        assert_eq!(users.get_remembered("carol", &alice).map(|u| u.active_apps), Some(3));
        // Alice comes back in a slot of her own; a slot remembered in another leaf's users
        // finds nothing there.
        users.get_or_default("alice").active_apps = 4;
        let elsewhere = Users::default();
        let remembered = UserSlot::default();
        assert_eq!(users.get_remembered("alice", &remembered).map(|u| u.active_apps), Some(4));
        assert_eq!(elsewhere.get_remembered("alice", &remembered), None);
        let names: Vec<&String> = users.keys().collect();
        assert_eq!(names, ["carol", "bob", "alice"], "slot order, freed slots taken first");
    }

    #[test]
    fn users_are_folded_in_the_order_a_java_hash_map_of_their_names_iterates() {
        let mut users = Users::default();
        // Enough names to resize the table and to share buckets; some leave again, so
        // slots are reused out of name order.
        let names: Vec<String> = (0..40).map(|i| format!("user{}", (i * 7) % 40)).collect();
        for (i, name) in names.iter().enumerate() {
            users.get_or_default(name).active_apps = i;
        }
        for gone in ["user3", "user17", "user30"] {
            users.remove(gone);
        }
        users.get_or_default("zed").active_apps = 99;
        fn check(users: &mut Users) {
            let mut sorted: Vec<String> = users.keys().cloned().collect();
            sorted.sort_unstable();
            let keys: Vec<&str> = sorted.iter().map(String::as_str).collect();
            let expected: Vec<usize> = crate::java_order::hash_map_order(&keys, keys.len())
                .into_iter()
                .map(|i| users[keys[i]].active_apps)
                .collect();
            let folded = users.fold_in_java_order(Vec::new(), |mut seen, u| {
                seen.push(u.active_apps);
                seen
            });
            assert_eq!(folded, expected);
            assert_ne!(folded, keys.iter().map(|n| users[*n].active_apps).collect::<Vec<_>>(), "not name order");
        }
        check(&mut users);
        // Users come and go without the table changing size (38 users, 64 buckets): the
        // order is kept, not worked out again.
        users.remove("user5");
        users.remove("zed");
        users.get_or_default("amy").active_apps = 100;
        assert!(users.java_order.is_some());
        check(&mut users);
        // Past three quarters of the table: it doubles, and the order with it.
        for i in 0..20 {
            users.get_or_default(&format!("more{i}")).active_apps = 200 + i;
        }
        check(&mut users);
    }

    #[test]
    fn the_active_users_sums_follow_every_change() {
        let mut users = Users::default();
        let weight = |name: &str| if name == "bob" { 2.0 } else { 1.0 };
        let alice = users.get_or_default("alice");
        alice.used = Resource::new(2048, 2);
        alice.apps_counted_active = 1;
        users.get_or_default("bob").used = Resource::new(1024, 1);
        assert_eq!(users.active_sums(weight), ActiveSums { used: Resource::new(2048, 2), weight: 1.0 });
        users.get_mut("bob").expect("bob has a record").apps_counted_active = 1;
        assert_eq!(users.active_sums(weight), ActiveSums { used: Resource::new(3072, 3), weight: 3.0 });
        for (_, u) in users.iter_mut() {
            u.used = u.used.plus(Resource::new(1024, 1));
        }
        assert_eq!(users.active_sums(weight), ActiveSums { used: Resource::new(5120, 5), weight: 3.0 });
        users.remove("alice");
        assert_eq!(users.active_sums(weight), ActiveSums { used: Resource::new(2048, 2), weight: 2.0 });
        // Bob's weight is configured anew: summed again only when told.
        users.weights_changed();
        assert_eq!(users.active_sums(|_| 1.0), ActiveSums { used: Resource::new(2048, 2), weight: 1.0 });
    }

    #[test]
    fn a_user_is_idle_only_with_nothing_left() {
        assert!(UserState::default().is_idle());
        assert!(!UserState { apps_counted_active: 1, ..Default::default() }.is_idle());
        assert!(!UserState { used: Resource::new(1024, 1), ..Default::default() }.is_idle());
    }
}
