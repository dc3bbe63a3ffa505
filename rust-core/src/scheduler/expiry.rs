//! Deleting idle auto-created queues: Apache's `AutoCreatedQueueDeletionPolicy`, which an
//! operator turns on by listing it among the scheduling monitor's policies. Each round marks
//! the created queues that could go (a leaf without applications, a parent without
//! children, `queue-auto-removal.enable` not false); a queue marked in two rounds running
//! is deleted if no application was submitted to it for longer than
//! `auto-queue-creation-v2.queue-expiration-time`. A parent goes in a later round than its
//! last child.

use super::Scheduler;
use std::collections::{BTreeSet, HashMap};

/// The policy's memory across rounds, and when each created queue was last used.
#[derive(Debug, Clone, Default)]
pub struct QueueExpiry {
    /// The scheduler's clock, in milliseconds (set by whoever drives the scheduler).
    now_ms: i64,
    /// When an application was last submitted to each leaf, or a queue last created under
    /// each parent, by path (Apache's `lastSubmittedTimestamp`; 0 if never).
    last_used: HashMap<String, i64>,
    /// Queues the last round found eligible.
    marked: BTreeSet<String>,
}

impl Scheduler {
    /// Moves the scheduler's clock (milliseconds, any origin) to `now_ms`.
    pub fn set_clock(&mut self, now_ms: i64) {
        self.expiry.now_ms = now_ms;
    }

    /// Records that `path` was used now: an application submitted to a leaf, a queue
    /// created under a parent.
    pub(super) fn note_used(&mut self, path: &str) {
        let now = self.expiry.now_ms;
        self.expiry.last_used.insert(path.to_string(), now);
    }

    /// One round of the deletion policy at the scheduler's clock; returns the paths
    /// deleted, in order.
    pub fn delete_expired_queues(&mut self) -> Vec<String> {
        let expiration_ms = self.state.config.global.auto_queue_expiration_secs.saturating_mul(1000);
        let eligible: BTreeSet<String> = self
            .state
            .queues
            .queues
            .iter()
            .filter(|q| {
                q.config.dynamic
                    && q.config.auto_removal
                    && if q.is_leaf() { q.apps.is_empty() } else { q.config.children.is_empty() }
            })
            .map(|q| q.path().to_string())
            .collect();
        let sent: Vec<String> = eligible.iter().filter(|p| self.expiry.marked.contains(*p)).cloned().collect();
        self.expiry.marked = eligible.into_iter().filter(|p| !sent.contains(p)).collect();
        let mut deleted = Vec::new();
        for path in sent {
            let last = self.expiry.last_used.get(&path).copied().unwrap_or(0);
            // Apache compares whole seconds, strictly.
            let idle_secs = (self.expiry.now_ms - last) / 1000;
            if idle_secs <= expiration_ms / 1000 {
                continue;
            }
            match self.delete_dynamic_queue(&path) {
                Ok(()) => {
                    log::info!("deleted auto-created queue {path}: idle for {idle_secs} s");
                    self.expiry.last_used.remove(&path);
                    deleted.push(path);
                }
                Err(e) => log::warn!("Dynamic queue deletion cannot be applied for queue {path}: {e}"),
            }
        }
        deleted
    }
}
