//! `max-parallel-apps`, as Apache's `CSMaxRunningAppsEnforcer` keeps it: an attempt is
//! runnable when it starts while its user, its leaf and every ancestor are under their
//! limits, and it counts against them until it ends — while it still waits on the
//! ApplicationMaster limits too. The others wait, in the order their attempts started,
//! until an ending attempt or a refresh makes room.

use super::Scheduler;
use crate::ids::{application_name, AppKey, QueueIndex};

impl Scheduler {
    /// Whether an attempt of `user` starting in `leaf` may run now.
    fn may_run(&self, leaf: QueueIndex, user: &str) -> bool {
        let s = &self.state;
        let user_runnable = s.user_runnable.get(user).copied().unwrap_or(0) as i64;
        s.config.global.max_parallel_apps_for(user).is_none_or(|m| user_runnable < m)
            && s.queues.ancestors_inclusive(leaf).all(|i| {
                let q = s.queues.get(i);
                q.config.max_parallel_apps.is_none_or(|m| (q.runnable_apps as i64) < m)
            })
    }

    /// A new attempt of `app`: runnable if the limits allow (then pending in its leaf,
    /// for the AM limits to activate), otherwise it waits.
    pub(super) fn admit_attempt(&mut self, app: AppKey) {
        let Some(a) = self.state.apps.get_mut(&app) else { return };
        a.attempt_seq = self.state.next_attempt_seq;
        self.state.next_attempt_seq += 1;
        if a.runnable {
            return;
        }
        let (leaf, user) = (a.queue, a.user.clone());
        if self.may_run(leaf, &user) {
            self.make_runnable(app);
        } else {
            log::info!(
                "application {} of user {} waits in {}: max-parallel-apps reached",
                application_name(self.state.apps[&app].app_id),
                user,
                self.state.queues.get(leaf).path()
            );
        }
    }

    /// Counts `app` against its user's, its leaf's and its ancestors' limits, and makes
    /// it pending in its leaf.
    fn make_runnable(&mut self, app: AppKey) {
        let a = self.state.apps.get_mut(&app).expect("a known application");
        a.runnable = true;
        let (leaf, user) = (a.queue, a.user.clone());
        self.count_runnable(leaf, 1);
        *self.state.user_runnable.entry(user.clone()).or_default() += 1;
        self.state.queues.queues[leaf].user_mut(&user).pending_apps += 1;
    }

    /// Adds `delta` runnable applications to `leaf` and its ancestors.
    pub(super) fn count_runnable(&mut self, leaf: QueueIndex, delta: isize) {
        let path: Vec<QueueIndex> = self.state.queues.ancestors_inclusive(leaf).collect();
        for i in path {
            let q = &mut self.state.queues.queues[i];
            q.runnable_apps = q.runnable_apps.saturating_add_signed(delta);
        }
    }

    /// `app`'s attempt ended: it no longer counts against its user's, leaf's and
    /// ancestors' limits. Returns whether it did.
    pub(super) fn release_runnable(&mut self, app: AppKey) -> bool {
        let Some(a) = self.state.apps.get_mut(&app) else { return false };
        if !a.runnable {
            return false;
        }
        a.runnable = false;
        let (leaf, user) = (a.queue, a.user.clone());
        self.count_runnable(leaf, -1);
        if let Some(n) = self.state.user_runnable.get_mut(&user) {
            *n -= 1;
            if *n == 0 {
                self.state.user_runnable.remove(&user);
            }
        }
        true
    }

    /// After a runnable attempt of `user` in `leaf` ended, applications that waited on a
    /// limit it filled may run — Apache's `updateRunnabilityOnAppRemoval`: the highest
    /// queue on its path that was exactly at its limit, and the user if at its limit,
    /// offer their waiting applications in attempt start order, as many becoming runnable
    /// as lists were offered.
    pub(super) fn run_waiting_after(&mut self, leaf: QueueIndex, user: &str) {
        let s = &self.state;
        let just_under = |i: QueueIndex| {
            let q = s.queues.get(i);
            q.config.max_parallel_apps.is_some_and(|m| q.runnable_apps as i64 == m - 1)
        };
        let highest = s.queues.ancestors_inclusive(leaf).filter(|&i| just_under(i)).last();
        let mut leaves = Vec::new();
        if let Some(q) = highest {
            self.leaves_with_room(q, &mut leaves);
        }
        let user_runnable = s.user_runnable.get(user).copied().unwrap_or(0) as i64;
        let user_at_limit = s.config.global.max_parallel_apps_for(user).is_some_and(|m| user_runnable == m - 1);
        // One list per leaf offered, and the user's.
        let most = leaves.len() + usize::from(user_at_limit);
        if most == 0 {
            return;
        }
        let waiting = self.waiting_in(&leaves, user_at_limit.then_some(user));
        self.run_waiting(waiting, most);
    }

    /// After a refresh: every waiting application the new limits leave room for runs
    /// (Apache's `updateRunnabilityOnReload`).
    pub(super) fn rerun_waiting_after_refresh(&mut self) {
        let mut leaves = Vec::new();
        self.leaves_with_room(0, &mut leaves);
        let waiting = self.waiting_in(&leaves, None);
        self.run_waiting(waiting, usize::MAX);
    }

    /// The leaves under `queue` whose waiting applications are offered, in tree order: a
    /// queue without room offers none of its subtree's.
    fn leaves_with_room(&self, queue: QueueIndex, leaves: &mut Vec<QueueIndex>) {
        let q = self.state.queues.get(queue);
        if q.config.max_parallel_apps.is_some_and(|m| q.runnable_apps as i64 >= m) {
            return;
        }
        if q.is_leaf() {
            leaves.push(queue);
        } else {
            for &child in &q.config.children {
                self.leaves_with_room(child, leaves);
            }
        }
    }

    /// The waiting applications in `leaves` and those of `user`, in attempt start order:
    /// one pass over the applications, however many leaves are offered.
    fn waiting_in(&self, leaves: &[QueueIndex], user: Option<&str>) -> Vec<AppKey> {
        // A leaf whose applications all run offers none: when no leaf offered has one that
        // waits, and no user's are asked for, the applications need not be looked at.
        let queues = &self.state.queues;
        if user.is_none() && leaves.iter().all(|&l| queues.get(l).apps.len() == queues.get(l).runnable_apps) {
            debug_assert!(
                !self.state.apps.values().any(|a| !a.runnable && leaves.contains(&a.queue)),
                "an application waits uncounted"
            );
            return Vec::new();
        }
        let mut offered = vec![false; self.state.queues.queues.len()];
        for &leaf in leaves {
            offered[leaf] = true;
        }
        let mut out: Vec<(u64, AppKey)> = self
            .state
            .apps
            .iter()
            .filter(|(_, a)| a.attempt.is_some() && !a.runnable)
            .filter(|(_, a)| offered[a.queue] || user.is_some_and(|u| a.user == u))
            .map(|(&k, a)| (a.attempt_seq, k))
            .collect();
        out.sort_unstable();
        out.into_iter().map(|(_, k)| k).collect()
    }

    /// Goes through `waiting` (in attempt start order), making runnable each application
    /// the limits now allow, at most `most` of them; each one made runnable is offered to
    /// its leaf's activation at once.
    fn run_waiting(&mut self, waiting: Vec<AppKey>, most: usize) {
        let mut made = 0;
        for app in waiting {
            if made >= most {
                break;
            }
            let Some(a) = self.state.apps.get(&app) else { continue };
            if a.runnable {
                continue;
            }
            let (leaf, user) = (a.queue, a.user.clone());
            if self.may_run(leaf, &user) {
                log::info!(
                    "application {} is now runnable in {}",
                    application_name(a.app_id),
                    self.state.queues.get(leaf).path()
                );
                self.make_runnable(app);
                self.activate_pending(leaf);
                made += 1;
            }
        }
    }
}
