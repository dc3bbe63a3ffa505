//! Pending applications becoming active (Apache's `activateApplications`) under the
//! queue's and the user's ApplicationMaster limits, and the "active user" accounting the
//! user-limit formula shares a leaf by. Which applications may be pending at all
//! (`max-parallel-apps`) is `runnable`.

use super::Scheduler;
use crate::ids::{application_name, AppKey, QueueIndex};
use crate::model::{AmDiagnosis, PartitionId};
use crate::policy::limits;
use crate::resource::Resource;

impl Scheduler {
    /// Activates pending applications in every leaf, as far as the limits allow.
    pub(super) fn activate_all(&mut self) {
        let leaves: Vec<QueueIndex> =
            (0..self.state.queues.queues.len()).filter(|&i| self.state.queues.get(i).is_leaf()).collect();
        for leaf in leaves {
            self.activate_pending(leaf);
        }
    }

    /// Apache's `activateApplications`: pending applications (runnable, with an attempt),
    /// in submission order, become active while the queue's and the user's
    /// ApplicationMaster limits in the partition of each one's AM allow. A queue with no
    /// active ApplicationMaster there always lets one in, however small its AM limit.
    pub(super) fn activate_pending(&mut self, queue: QueueIndex) {
        let calc = self.state.calculator();
        let pending: Vec<AppKey> = {
            let q = self.state.queues.get(queue);
            // The users count their runnable applications that wait: none waits when all
            // the counts are 0, and the leaf's applications need not be looked at (a
            // refresh or a cluster change asks every leaf, most often with none waiting).
            if q.users.values().all(|u| u.pending_apps == 0) {
                debug_assert!(
                    !q.apps.iter().any(|k| self.state.apps.get(k).is_some_and(|a| a.runnable && !a.active)),
                    "a runnable application waits for activation in {} uncounted",
                    q.path()
                );
                return;
            }
            let mut p: Vec<AppKey> = q
                .apps
                .iter()
                .copied()
                .filter(|k| self.state.apps.get(k).is_some_and(|a| a.runnable && !a.active && a.attempt.is_some()))
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
        // Apache works each partition's AM limits out once per pass: the user's for the
        // first pending application's user there, every user of the pass held to it.
        let mut limits: Vec<(PartitionId, Resource, Resource)> = Vec::new();
        for key in pending {
            let (user, partition, am) = {
                let a = &self.state.apps[&key];
                (a.user.clone(), a.am_partition, a.am_resource)
            };
            let (queue_am_limit, user_am_limit) = match limits.iter().find(|(p, ..)| *p == partition) {
                Some(&(_, q, u)) => (q, u),
                None => {
                    let q = limits::queue_am_limit_in(&self.state, queue, partition);
                    let u = limits::user_am_limit_in(&self.state, queue, &user, partition, q);
                    limits.push((partition, q, u));
                    (q, u)
                }
            };
            let q = self.state.queues.get(queue);
            let active_in_queue = q.users.values().map(|u| u.active_apps).sum::<usize>();
            let queue_am_used = q.am_used_in(partition);
            // The one AM let in whatever the limit: none is active in the queue, or none
            // holds anything in this partition.
            let first = active_in_queue == 0 || queue_am_used.is_none();
            if !calc.fits(queue_am_used.plus(am), queue_am_limit) && !first {
                self.diagnose_am(key, AmDiagnosis::QueueAmLimit);
                continue;
            }
            let user_am_used = q.users.get(&user).map_or(Resource::ZERO, |u| u.am_used_in(partition));
            if !calc.fits(user_am_used.plus(am), user_am_limit) && !first {
                self.diagnose_am(key, AmDiagnosis::UserAmLimit);
                continue;
            }
            let q = &mut self.state.queues.queues[queue];
            q.charge_am(&user, partition, am);
            q.headroom_settled = false;
            let u = q.users.get_mut(&user).expect("charge_am keeps the user");
            u.active_apps += 1;
            u.pending_apps = u.pending_apps.saturating_sub(1);
            if let Some(a) = self.state.apps.get_mut(&key) {
                a.active = true;
                log::info!(
                    "application {} of user {} activated in {}",
                    application_name(a.app_id),
                    a.user,
                    self.state.queues.get(queue).path()
                );
            }
            self.diagnose_am(key, AmDiagnosis::Activated);
        }
    }

    /// An active application stops holding its leaf's and its user's AM limits (its AM's
    /// partition and size).
    pub(super) fn deactivate(&mut self, queue: QueueIndex, user: &str, (partition, am): (PartitionId, Resource)) {
        let q = &mut self.state.queues.queues[queue];
        q.refund_am(user, partition, am);
        if let Some(u) = q.users.get_mut(user) {
            u.active_apps = u.active_apps.saturating_sub(1);
        }
    }

    /// Counts `app` towards (or no longer towards) making its user "active" in its leaf,
    /// the users the user-limit formula shares the queue among. Apache's rule
    /// (`UsersManager.activateApplication`): an application counts from when it asks for
    /// a new request while its user already has an activated application in the queue,
    /// until it has nothing left to ask for — activation alone does not make it count.
    pub(super) fn count_user_active(&mut self, app: AppKey, counts: bool) {
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
    pub(super) fn review_user_active(&mut self, app: AppKey, newly_asking: bool) {
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
}
