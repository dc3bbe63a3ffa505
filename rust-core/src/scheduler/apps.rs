//! Applications and their attempts: admission (APP_ADDED), attempts coming and going,
//! the asks and blacklists `allocate()` carries, moves between queues, priority changes,
//! removal, and containers recovered after an RM restart.

use super::Scheduler;
use crate::ids::{application_name, AppKey, ContainerId, ContainerRef, NodeKey, QueueIndex, SchedulerKey, ANY};
use crate::model::{AmDiagnosis, App, Ask, ResolveError};
use crate::policy::admission::{self, MoveRefusal, Rejection, Submission};
use crate::policy::limits;
use crate::policy::ordering::fifo_key;
use crate::resource::Resource;

impl Scheduler {
    /// APP_ADDED: admits the application into its leaf queue, or says why not.
    pub fn submit(&mut self, sub: &Submission) -> Result<(AppKey, String), Rejection> {
        let created;
        let sub = match self.create_missing_queue(sub)? {
            Some(leaf) => {
                created = Submission { queue: leaf, ..sub.clone() };
                &created
            }
            None => sub,
        };
        let queue = match admission::admit(&self.state, sub) {
            Ok(q) => q,
            Err(rejection) => {
                // Apache's leaf knows the user from the moment its own checks look at the
                // user's applications, even when it then refuses this one.
                if let Some(leaf) = admission::leaf_that_sees_user(&self.state, sub) {
                    self.state.queues.queues[leaf].user_mut(&sub.user);
                }
                return Err(rejection);
            }
        };
        if sub.recovering {
            self.state.queues.recover_draining(queue);
        }
        let path = self.state.queues.get(queue).path().to_string();
        self.note_used(&path);
        let key = self.state.next_app;
        self.state.next_app += 1;
        let mut app = App::new(sub.app_id, queue, sub.user.clone(), sub.priority);
        app.am_resource = sub.am_resource;
        app.am_partition = self.state.partitions.id_of(&sub.am_label);
        app.am_asked_partition = app.am_partition;
        self.state.apps.insert(key, Box::new(app));
        self.enqueue(key);
        Ok((key, self.state.queues.get(queue).path().to_string()))
    }

    /// Creates the queue a submission names when it is missing and its parent may create
    /// it (Apache's `getOrCreateQueueFromPlacementContext`). A queue that cannot be created
    /// refuses a placed application with the reason; an application that named it itself
    /// is then refused as sent to an unknown queue, the reason only logged, as in Apache.
    /// Returns the full path of the leaf it created or found.
    fn create_missing_queue(&mut self, sub: &Submission) -> Result<Option<String>, Rejection> {
        let s = &self.state;
        let system_full = !sub.recovering && s.apps.len() as i64 >= s.config.global.maximum_applications;
        let creatable_name = sub.queue.contains('.') && !sub.queue.split('.').any(str::is_empty);
        if system_full || !creatable_name || !matches!(s.queues.resolve(&sub.queue), Err(ResolveError::Unknown)) {
            return Ok(None);
        }
        let creation = self.plan_creation(&sub.queue);
        if let Ok(c) = &creation {
            if s.config.cluster.acl_enabled && !sub.recovering && !c.admits(&sub.user, &sub.groups) {
                // As Apache's RM checks a queue to be created against its templates' ACLs and
                // its existing parents' before the scheduler creates anything.
                return Err(Rejection(format!(
                    "User {} does not have permission to submit {} to queue {}",
                    sub.user,
                    application_name(sub.app_id),
                    c.leaf
                )));
            }
        }
        match creation {
            Ok(c) => {
                let leaf = c.leaf.clone();
                let created = self.create_queues(c);
                if !created.is_empty() {
                    log::info!(
                        "created queue(s) {} for application {}",
                        created.join(", "),
                        application_name(sub.app_id)
                    );
                }
                Ok(Some(leaf))
            }
            Err(reason) if sub.placed && !sub.recovering => Err(Rejection(format!(
                "Application {} submission by user : {} to  queue : {} failed : {reason}",
                application_name(sub.app_id),
                sub.user,
                sub.queue
            ))),
            Err(reason) => {
                log::info!("Could not auto-create leaf queue {} due to : {reason}", sub.queue);
                Ok(None)
            }
        }
    }

    /// Whether a submission by `user` to the missing `queue` would create queues whose
    /// ACLs (its templates', its parents') refuse the user.
    pub fn creation_denied(&self, queue: &str, user: &str, groups: &[String]) -> bool {
        self.plan_creation(queue).is_ok_and(|c| !c.admits(user, groups))
    }

    /// Puts `app` into its leaf, its user known there (Apache's users manager adds the user
    /// at submission); a runnable application is pending there.
    pub(super) fn enqueue(&mut self, app: AppKey) {
        let a = &self.state.apps[&app];
        let (queue, user, runnable) = (a.queue, a.user.clone(), a.runnable);
        self.insert_in_fifo_order(app);
        let u = self.state.queues.queues[queue].user_mut(&user);
        if runnable {
            u.pending_apps += 1;
        }
    }

    /// Inserts `app` into its leaf's list at its FIFO place: higher priority first, then
    /// earlier submission. The list stays sorted, so FIFO leaves never sort on a heartbeat.
    fn insert_in_fifo_order(&mut self, app: AppKey) {
        let apps = &self.state.apps;
        let a = &apps[&app];
        let new_key = fifo_key(a);
        let q = &mut self.state.queues.queues[a.queue];
        let at = q.apps.partition_point(|k| apps.get(k).is_some_and(|a| fifo_key(a) <= new_key));
        q.apps.insert(at, app);
    }

    /// Drops `user` from `leaf` once it has nothing left there; applications that moved
    /// away after their headroom was set in that leaf keep the forgotten user's usage (see
    /// `App::headroom_user_forgotten`).
    fn forget_user_if_idle(&mut self, leaf: QueueIndex, user: &str) {
        if !self.state.queues.queues[leaf].forget_user_if_idle(user) {
            return;
        }
        for a in self.state.apps.values_mut() {
            if a.headroom_queue == Some(leaf) && a.user == user {
                a.headroom_user_forgotten = true;
                self.state.queues.queues[a.queue].headroom_settled = false;
            }
        }
    }

    /// Takes `app` out of its leaf: deactivated if it was active, its user forgotten if
    /// that was the user's last application and the user no longer counts as active. Its
    /// containers stay charged.
    pub(super) fn dequeue(&mut self, app: AppKey) {
        let Some(a) = self.state.apps.get(&app) else { return };
        let (queue, user) = (a.queue, a.user.clone());
        self.leave_leaf_lists(app);
        self.state.queues.queues[queue].apps.retain(|&k| k != app);
        self.forget_user_if_idle(queue, &user);
        if let Some(a) = self.state.apps.get_mut(&app) {
            a.active = false;
        }
    }

    /// An active application stops being active, a pending one pending (its AM limits
    /// and its user's counts in its leaf); it stays in the leaf's list.
    fn leave_leaf_lists(&mut self, app: AppKey) {
        let Some(a) = self.state.apps.get_mut(&app) else { return };
        let (queue, user, am, active, runnable) =
            (a.queue, a.user.clone(), (a.am_partition, a.am_resource), a.active, a.runnable);
        a.active = false;
        if active {
            self.deactivate(queue, &user, am);
        } else if runnable {
            if let Some(u) = self.state.queues.queues[queue].users.get_mut(&user) {
                u.pending_apps = u.pending_apps.saturating_sub(1);
            }
        }
    }

    /// APP_ATTEMPT_ADDED: a new attempt starts with no outstanding requests, runnable if
    /// `max-parallel-apps` allows (see `runnable`), and its leaf activates what its AM
    /// limits allow (nothing while the cluster is empty). With `transfer_state` (`keep-containers`) the previous attempt's
    /// containers stay with the application, and its AM's blacklist with the new attempt. An
    /// application that counted its user as active still does (Apache keys that by
    /// application, not attempt).
    pub fn add_attempt(&mut self, app: AppKey, attempt_id: i32, transfer_state: bool) {
        if self.state.apps.get(&app).is_some_and(|a| a.attempt.is_some()) {
            // The RM ends an attempt before it starts the next; should it not, end it here.
            self.remove_attempt(app);
        }
        let epoch = self.state.epoch;
        let Some(a) = self.state.apps.get_mut(&app) else { return };
        a.start_attempt(attempt_id, epoch, transfer_state);
        let queue = a.queue;
        self.state.queues.queues[queue].headroom_settled = false;
        self.admit_attempt(app);
        // Apache's addApplicationAttempt activates in the application's own leaf only, and
        // not while the cluster has no resources (the first NodeManager's registration
        // activates it then).
        let cluster = self.state.cluster;
        if self.state.calculator().greater_than(cluster, cluster, Resource::ZERO) {
            self.activate_pending(queue);
        } else if self.state.apps.get(&app).is_some_and(|a| a.runnable) {
            self.diagnose_am(app, AmDiagnosis::ClusterEmpty);
        }
    }

    /// The RM's epoch from now on: it sets it when it becomes active and recovers, after the
    /// scheduler was built. Attempts started later number their containers from
    /// `epoch << 40`, above every number an RM of an earlier epoch gave out (Apache's attempt
    /// reads the epoch when it is made).
    pub fn set_epoch(&mut self, epoch: u64) {
        self.state.epoch = epoch;
    }

    /// Takes the next container number of `app`'s current attempt for a container the RM
    /// makes itself (the RM's `getNewContainerId`), so that no container the scheduler
    /// allocates later gets it. `None` for an unknown application or one without an attempt.
    pub fn take_container_number(&mut self, app: AppKey) -> Option<u64> {
        let a = self.state.apps.get_mut(&app).filter(|a| a.attempt.is_some())?;
        Some(a.next_container_id().number)
    }

    /// APP_ATTEMPT_REMOVED (Apache's `finishApplicationAttempt`, then its max-running-apps
    /// enforcer): the attempt's outstanding requests are dropped, it stops being active or
    /// pending in its leaf, which activates what its AM limits now allow, and it stops
    /// counting against `max-parallel-apps`, which may let waiting applications run. Its
    /// containers are released separately, one by one, as the RM kills them. As in Apache,
    /// dropping its asks does not stop the application counting its user as active.
    pub fn remove_attempt(&mut self, app: AppKey) {
        let Some(a) = self.state.apps.get_mut(&app) else { return };
        a.attempt = None;
        a.clear_requests();
        // It leaves its leaf's ordering: a mark of a stale cache goes with it.
        a.fair_stale = false;
        let (queue, user) = (a.queue, a.user.clone());
        self.leave_leaf_lists(app);
        // Apache's leaf forgets a user whose last application's attempt ends.
        self.forget_user_if_idle(queue, &user);
        let was_runnable = self.release_runnable(app);
        self.activate_pending(queue);
        if was_runnable {
            self.run_waiting_after(queue, &user);
        }
    }

    /// APP_REMOVED: the application is gone; any container the RM did not report killed is
    /// released too. Returns those containers.
    pub fn remove_app(&mut self, app: AppKey) -> Vec<ContainerRef> {
        let Some(a) = self.state.apps.get(&app) else { return Vec::new() };
        let left: Vec<ContainerRef> = a.containers.iter().map(|&id| (app, id)).collect();
        let reserved: Vec<NodeKey> = a.reservations.values().map(|r| r.node).collect();
        let (queue, attempt) = (a.queue, a.attempt);
        for node in reserved {
            self.state.unbook_reservation(node);
        }
        self.release(&left);
        if attempt.is_some() {
            // The RM ends the attempt first; should it not, end it here.
            self.remove_attempt(app);
        }
        // Apache takes the attempt out of its leaf and activates the leaf's pending
        // applications (finishApplicationAttempt, in the application's own leaf only)
        // before the application's end stops its user counting as active
        // (finishApplication).
        self.dequeue(app);
        self.state.queues.settle_draining(queue);
        self.activate_pending(queue);
        self.count_user_active(app, false);
        if let Some(a) = self.state.apps.remove(&app) {
            self.forget_user_if_idle(queue, &a.user);
        }
        left
    }

    /// `allocate()`: records the AM's asks. Returns the application's headroom.
    pub fn update_requests(&mut self, app: AppKey, asks: &[Ask]) -> Resource {
        self.update_labelled_requests(app, asks, &[])
    }

    /// [`Scheduler::update_requests`] with the node label each ask names (`labels[i]` for
    /// `asks[i]`; none when `labels` is empty): a `*` request's label is the partition its
    /// group's containers are for.
    pub fn update_labelled_requests(&mut self, app: AppKey, asks: &[Ask], labels: &[String]) -> Resource {
        let mut newly_asking = false;
        // A request group's missed opportunities outlive its asks, as in Apache (an
        // attempt's count per scheduler key is only ever reset by an allocation).
        if let Some(a) = self.state.apps.get_mut(&app) {
            newly_asking = a.update_requests(asks);
            a.label_requests(asks, labels);
            // Its leaf's (and the leaf's ancestors') views list the labelled partitions it
            // asks in, as Apache's pending resources there do (of several `*` asks for one
            // request in a call, the last is the one, as in `label_requests`).
            if !labels.is_empty() {
                let leaf = a.queue;
                for (i, (ask, label)) in asks.iter().zip(labels).enumerate() {
                    let last = crate::model::application::is_last_any(asks, i);
                    if ask.resource_name == ANY && !label.is_empty() && ask.count > 0 && last {
                        let partition = self.state.partitions.id_of(label);
                        self.state.queues.show_pending_in(leaf, partition);
                    }
                }
            }
            let Some(a) = self.state.apps.get_mut(&app) else { return Resource::ZERO };
            // Apache's allocate() tells the leaf's ordering policy the demand changed (a
            // fair one with size-based weight takes it afresh) once the AM runs.
            let size_based = self.state.queues.get(a.queue).config.fair_size_based_weight;
            if size_based && !a.blacklist.waiting_for_am && asks.iter().any(|x| x.resource_name == ANY) {
                a.fair_stale = true;
            }
        }
        self.review_user_active(app, newly_asking);
        // Apache answers with the headroom its provider works out, which looks the user
        // limit up in its leaf — once the application has one (see `App::headroom_queue`).
        let looked_up =
            self.state.apps.get(&app).and_then(|a| Some((a.headroom_queue?, limits::headroom_caches(&self.state, a))));
        if let Some((leaf, caches)) = looked_up {
            for cache in caches {
                self.state.queues.queues[leaf].user_limit_looked_up(cache);
            }
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

    /// `moveApplication`: moves `app` and everything it holds (containers, reservations)
    /// to the leaf `target` names, if [`admission::admit_move`] allows. In the new queue
    /// the application is activated again under that queue's limits. Returns the new
    /// queue's path.
    pub fn move_app(&mut self, app: AppKey, target: &str) -> Result<String, MoveRefusal> {
        let dest = self.move_destination(app, target)?;
        let a = &self.state.apps[&app];
        let source = a.queue;
        if dest != source {
            let user = a.user.clone();
            let held = self.state.held_by_partition(app);
            // Its asks leave the users manager of the leaf (Apache's AppSchedulingInfo.move).
            self.count_user_active(app, false);
            // Usage leaves first, so that dequeuing forgets a user with nothing left here.
            let queues = &mut self.state.queues;
            for &(partition, used, reserved) in &held {
                queues.refund_user_in(partition, source, &user, used.plus(reserved));
                queues.track_reserved_in(partition, source, reserved, true);
            }
            self.dequeue(app);
            let queues = &mut self.state.queues;
            for &(partition, used, reserved) in &held {
                queues.charge_user_in(partition, dest, &user, used.plus(reserved));
                queues.track_reserved_in(partition, dest, reserved, false);
            }
            // Its containers leave one leaf's list of those lent by a non-exclusive
            // partition for the other's (Apache's detachContainer and attachContainer).
            self.state.relist_lent(app);
            let a = self.state.apps.get_mut(&app).expect("checked above");
            a.queue = dest;
            self.state.queues.queues[dest].headroom_settled = false;
            // It left one leaf's ordering for another's: a mark of a stale fair cache is lost.
            a.fair_stale = false;
            let runnable = a.runnable;
            // Its pending asks go with it (Apache's AppSchedulingInfo.move).
            let asked: Vec<String> = a
                .requests
                .values()
                .filter(|g| g.wanted() > 0 && !g.partition.is_empty())
                .map(|g| g.partition.clone())
                .collect();
            for label in asked {
                let partition = self.state.partitions.id_of(&label);
                self.state.queues.show_pending_in(dest, partition);
            }
            // A parent its containers push over its maximum kills its own killable ones (as
            // Apache's does when the containers are attached to it).
            let mut killed = Vec::new();
            for partition in self.partitions_held_by(app) {
                self.enforce_parent_maximums(app, partition, &mut killed);
            }
            self.killed.extend(killed.iter().map(|k| (k.app, k.container)));
            if runnable {
                // It counts against max-parallel-apps on its new path instead.
                self.count_runnable(source, -1);
                self.count_runnable(dest, 1);
            }
            self.enqueue(app);
            self.state.queues.settle_draining(source);
            // As in Apache, the leaf the application left and the one it joined each
            // look at their pending applications again; other leaves do not.
            self.activate_pending(source);
            self.activate_pending(dest);
            // Its asks join the new leaf's users manager, which counts it only if its
            // user has an activated application there.
            self.review_user_active(app, true);
            log::info!(
                "moved application {} from {} to {}",
                application_name(self.state.apps[&app].app_id),
                self.state.queues.get(source).path(),
                self.state.queues.get(dest).path()
            );
        }
        Ok(self.state.queues.get(dest).path().to_string())
    }

    /// The partitions `app`'s live and reserved containers are in, the default partition
    /// first.
    fn partitions_held_by(&self, app: AppKey) -> Vec<crate::model::PartitionId> {
        let s = &self.state;
        let mut out: Vec<crate::model::PartitionId> = s.apps.get(&app).map_or_else(Vec::new, |a| {
            let live = a.containers.iter().filter_map(|&id| s.containers.get(&(app, id)).map(|c| c.node));
            let reserved = a.reservations.values().map(|r| r.node);
            live.chain(reserved).filter_map(|node| s.nodes.get(&node).map(|n| n.partition)).collect()
        });
        out.sort_unstable();
        out.dedup();
        out
    }

    /// `updateApplicationPriority`: `app` now runs at `priority`, and takes its new place
    /// in its leaf's FIFO order (among the active or the pending applications alike).
    pub fn update_priority(&mut self, app: AppKey, priority: i64) {
        let Some(a) = self.state.apps.get_mut(&app) else { return };
        if a.priority == priority {
            return;
        }
        a.priority = priority;
        // Apache takes it out of its leaf's ordering and puts it back: a mark of a stale
        // fair cache is lost.
        a.fair_stale = false;
        let (queue, active) = (a.queue, a.active);
        self.state.queues.queues[queue].apps.retain(|&k| k != app);
        self.insert_in_fifo_order(app);
        if !active {
            self.activate_pending(queue);
        }
    }

    /// Work-preserving recovery: a NodeManager re-registering after an RM restart reports
    /// a container this application holds (`am`: its ApplicationMaster's, as the NodeManager
    /// says). It is booked like an allocation, without a decision. Returns false (nothing recorded) for an unknown application or node, or
    /// a container already known.
    pub fn recover_container(
        &mut self,
        app: AppKey,
        id: ContainerId,
        node: NodeKey,
        resource: Resource,
        key: SchedulerKey,
        am: bool,
    ) -> bool {
        let s = &mut self.state;
        if s.containers.contains_key(&(app, id)) || !s.nodes.contains_key(&node) {
            return false;
        }
        let Some(a) = s.apps.get_mut(&app) else { return false };
        // New containers of the same attempt must not reuse a recovered number (same
        // epoch: the RM restarted without bumping it, as with a non-persistent state store).
        if a.attempt == Some(id.attempt) {
            a.last_container_number = a.last_container_number.max(id.number);
            if am {
                a.am_container = Some(id);
            }
        }
        // (The NodeManager's report carries the expression the container was asked with;
        // the core is not told it, and counts a recovered container as asked for where it
        // runs, so never as lent.)
        let asked_default = s.nodes[&node].partition == crate::model::DEFAULT_PARTITION;
        s.book_container(app, id, node, resource, key, asked_default);
        s.mark_launched((app, id));
        true
    }
}
