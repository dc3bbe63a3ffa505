//! Managed parents (legacy auto-creation, `auto-create-child-queue.enabled`): which of
//! their created leaves hold the template's guaranteed capacity and which hold none —
//! Apache's `GuaranteedOrZeroCapacityOverTimePolicy`, run when a leaf is created, at every
//! `refreshQueues`, and each round of the queue-management monitor
//! (`QueueManagementDynamicEditPolicy`, when the operator lists it).
//!
//! A leaf gets exactly the template's share of its parent or nothing, never a part of it:
//! leaves are activated while what the parent guarantees minus what its active leaves hold
//! (plus Apache's 0.001) still covers one more share — at creation in creation order, later
//! by the submission time of each leaf's oldest application. A round takes the share back
//! from leaves without applications and hands what is free to leaves that have some.
//! Everything is in Java floats, as Apache sums it.

use super::Scheduler;
use crate::config::autoqueue::{self, DynamicKind, DynamicQueue};
use crate::config::CapacitySpec;
use crate::ids::QueueIndex;
use crate::resource::{Resource, ResourceCalculator};
use std::collections::{HashMap, HashSet};

/// Apache's `CSQueueUtils.EPSILON`, added to the capacity a parent has free.
const EPSILON: f32 = 0.001;

/// The policy's memory: per managed parent, by path, the share its active leaves hold
/// (each leaf's template share, added when activated and taken away when deactivated).
#[derive(Debug, Clone, Default)]
pub(super) struct ManagedParents {
    activated: HashMap<String, f32>,
    /// Leaves a refresh left without a guarantee and that have not held one since: Apache's
    /// configuration reads their capacity as 0 then (the template's otherwise).
    zeroed_by_refresh: HashSet<String>,
    /// The template's guarantee as a share of the cluster, per managed parent, as the policy
    /// last worked it out (at a leaf's creation and each time it hands shares out): what a
    /// leaf without a share has its used capacity measured against.
    template_absolute: HashMap<String, f32>,
    /// While a refresh hands the shares out: each managed parent's absolute capacity as
    /// Apache's refreshed parent sees it at that moment (see `Scheduler::reinit_absolute`).
    reinit_absolute: HashMap<String, f32>,
}

/// What one round decides for one managed parent.
struct Changes {
    deactivate: Vec<String>,
    activate: Vec<String>,
}

impl Scheduler {
    /// The template's guarantee as a share of the whole cluster: its share of the parent
    /// times the parent's absolute capacity.
    fn template_absolute(&self, parent: QueueIndex) -> f32 {
        self.template_fraction(parent) * self.parent_absolute(parent)
    }

    /// The template's guarantee as a share of the parent (see [`template_fraction`]).
    fn template_fraction(&self, parent: QueueIndex) -> f32 {
        let q = self.state.queues.get(parent);
        template_fraction(
            q.config.leaf_template_capacity,
            q.config.capacity,
            self.state.calculator(),
            self.state.default_partition(),
        )
    }

    /// The policy works the template's guarantee out again (Apache's
    /// `updateTemplateAbsoluteCapacities`), keeping the one before when the template gives
    /// the parent no share.
    fn note_template_absolute(&mut self, parent: QueueIndex) {
        if self.template_fraction(parent) > 0.0 {
            let share = self.template_absolute(parent);
            let path = self.state.queues.get(parent).path().to_string();
            self.managed.template_absolute.insert(path, share);
        }
    }

    /// Each managed leaf's `template_share` (what its used capacity is measured against
    /// while it holds no share) is the template guarantee the policy last worked out.
    pub(super) fn sync_template_shares(&mut self) {
        if self.managed.template_absolute.is_empty() {
            return;
        }
        for i in 0..self.state.queues.queues.len() {
            let q = &self.state.queues.queues[i];
            if !q.config.managed_leaf {
                continue;
            }
            let parent = q.config.parent.map(|p| self.state.queues.queues[p].path().to_string());
            let share = parent.and_then(|p| self.managed.template_absolute.get(&p).copied()).unwrap_or(0.0);
            self.state.queues.queues[i].template_share = f64::from(share);
        }
    }

    /// The managed parent's absolute capacity as the policy sees it: the parent's own, but
    /// while a refresh hands the shares out, what Apache's parent holds half-way through
    /// its refresh.
    fn parent_absolute(&self, parent: QueueIndex) -> f32 {
        let q = self.state.queues.get(parent);
        self.managed.reinit_absolute.get(q.path()).copied().unwrap_or(q.absolute_capacity as f32)
    }

    fn activated(&self, parent: &str) -> f32 {
        self.managed.activated.get(parent).copied().unwrap_or(0.0)
    }

    /// Whether managed leaf `path` reads a capacity of 0 in Apache's configuration rather
    /// than its template's: a refresh left it without a guarantee, and it has held none since.
    pub fn managed_capacity_reads_zero(&self, path: &str) -> bool {
        self.managed.zeroed_by_refresh.contains(path)
    }

    /// The leaf a submission to missing `path` creates under managed parent `parent`, with
    /// the template's guarantee if the parent has one free (Apache's
    /// `getInitialLeafQueueConfiguration`), or why it may not be created.
    pub(super) fn plan_managed_leaf(&self, parent: QueueIndex, path: &str) -> Result<DynamicQueue, String> {
        let configs = &self.state.config.queues;
        let mut leaf = autoqueue::plan_managed(configs, parent, path)?;
        let p = self.state.queues.get(parent);
        let template = self.template_absolute(parent);
        let parent_abs = p.absolute_capacity as f32;
        if p.config.managed_fail_on_exceeding {
            let children: f32 =
                p.config.children.iter().map(|&c| self.state.queues.get(c).absolute_capacity as f32).sum();
            if template + children > parent_abs {
                return Err(format!(
                    "Cannot auto create leaf queue {}. Child queues capacities have reached parent queue : {}'s guaranteed capacity",
                    leaf.path,
                    p.path()
                ));
            }
        }
        let free = parent_abs - self.activated(p.path()) + EPSILON;
        leaf.kind = DynamicKind::Managed { active: free >= template };
        Ok(leaf)
    }

    /// Books the guarantee of the managed leaves in `created` that start with one.
    pub(super) fn note_managed_created(&mut self, created: &[DynamicQueue]) {
        for d in created {
            let DynamicKind::Managed { active } = d.kind else { continue };
            let Some(parent) = self.state.queues.index_of_path(d.parent_path()) else { continue };
            self.note_template_absolute(parent);
            if active {
                let share = self.template_absolute(parent);
                *self.managed.activated.entry(d.parent_path().to_string()).or_default() += share;
            }
        }
    }

    /// One round of the queue-management monitor: every managed parent but those that
    /// refuse leaves past their capacity (`fail-on-exceeding-parent-capacity`, which Apache's
    /// monitor skips) takes the guarantee back from its idle leaves and hands what is free
    /// to leaves with applications. True when some leaf changed.
    pub fn manage_queues(&mut self) -> bool {
        let parents: Vec<QueueIndex> = (0..self.state.queues.queues.len())
            .filter(|&i| {
                let c = &self.state.queues.get(i).config;
                c.auto_create_child_queue && !c.managed_fail_on_exceeding
            })
            .collect();
        self.apply_managed_changes(&parents, false)
    }

    /// After a refresh: as Apache's refreshed managed parents, every leaf starts without a
    /// guarantee and those with applications get one again, oldest application first.
    pub(super) fn reactivate_managed_after_refresh(&mut self, reinit_absolute: HashMap<String, f32>) {
        self.managed.activated.clear();
        self.managed.reinit_absolute = reinit_absolute;
        self.managed.zeroed_by_refresh =
            self.state.config.dynamic.iter().filter(|d| !d.is_flexible()).map(|d| d.path.clone()).collect();
        let parents: Vec<QueueIndex> = (0..self.state.queues.queues.len())
            .filter(|&i| self.state.queues.get(i).config.auto_create_child_queue)
            .collect();
        self.apply_managed_changes(&parents, true);
        self.managed.reinit_absolute.clear();
    }

    /// What each managed parent of `new` (a refreshed configuration) holds as its absolute
    /// capacity while Apache's refresh hands its leaves' shares out, before the whole tree
    /// is updated: every queue on its path, top down, reloads its capacity from the new file
    /// and keeps the normalized weight it had (0 for a queue that had a percentage, or was
    /// not there), and takes the larger of the two times its parent's — or nothing, when
    /// both are 0 (a queue that now has a weight but had a percentage). So after a refresh
    /// that turns percentages into weights above a managed parent, its leaves get no share
    /// until the queue-management monitor next runs.
    pub(super) fn reinit_absolute(&self, new: &crate::config::SchedulerConfig) -> HashMap<String, f32> {
        if !new.queues.iter().any(|q| q.auto_create_child_queue) {
            return HashMap::new();
        }
        let old = &self.state.queues;
        let old_weight = |path: &str| old.index_of_path(path).map_or(0.0, |i| old.normalized_weight(i));
        let mut absolute: Vec<f32> = vec![0.0; new.queues.len()];
        let mut out = HashMap::new();
        for (i, q) in new.queues.iter().enumerate() {
            absolute[i] = match q.parent {
                None => 1.0,
                Some(p) => {
                    let configured = match q.capacity {
                        CapacitySpec::Percent(pct) => pct as f32 / 100.0,
                        _ => 0.0,
                    };
                    let share = configured.max(old_weight(&q.path));
                    if share > 0.0 {
                        share * absolute[p]
                    } else {
                        0.0
                    }
                }
            };
            if q.auto_create_child_queue {
                out.insert(q.path.clone(), absolute[i]);
            }
        }
        out
    }

    /// Works out and swaps in each of `parents`' changes; true when some leaf changed. At a
    /// refresh (`refreshing`) the whole tree is updated after, as Apache's refresh updates it
    /// once the shares are handed out; otherwise only below the parents that changed.
    fn apply_managed_changes(&mut self, parents: &[QueueIndex], refreshing: bool) -> bool {
        let mut flips: HashMap<String, bool> = HashMap::new();
        let mut changed_under: Vec<String> = Vec::new();
        for &parent in parents {
            self.note_template_absolute(parent);
            let changes = self.managed_changes(parent);
            if changes.deactivate.is_empty() && changes.activate.is_empty() {
                continue;
            }
            let path = self.state.queues.get(parent).path().to_string();
            let mut held = self.activated(&path);
            for leaf in &changes.deactivate {
                held -= self.template_absolute(parent);
                flips.insert(leaf.clone(), false);
            }
            for leaf in &changes.activate {
                held += self.template_absolute(parent);
                flips.insert(leaf.clone(), true);
                self.managed.zeroed_by_refresh.remove(leaf);
            }
            log::info!(
                "managed parent {path}: guarantee taken from [{}], given to [{}]",
                changes.deactivate.join(", "),
                changes.activate.join(", ")
            );
            self.managed.activated.insert(path.clone(), held);
            changed_under.push(path);
        }
        self.sync_template_shares();
        if flips.is_empty() {
            return false;
        }
        let dynamic: Vec<DynamicQueue> = self
            .state
            .config
            .dynamic
            .iter()
            .map(|d| match flips.get(&d.path) {
                Some(&active) => DynamicQueue { path: d.path.clone(), kind: DynamicKind::Managed { active } },
                None => d.clone(),
            })
            .collect();
        match self.state.config.rebuilt_with(dynamic) {
            Ok(new) if refreshing => {
                self.install(new, Some(&[]));
                self.resize_cluster();
            }
            Ok(new) => self.install(new, Some(&changed_under)),
            // The same file with the same queues read before: a leaf's capacity alone moved.
            Err(e) => log::error!("could not change the managed leaves' guarantees: {e}"),
        }
        true
    }

    /// What one round changes under managed parent `parent` (Apache's
    /// `computeQueueManagementChanges`).
    fn managed_changes(&self, parent: QueueIndex) -> Changes {
        let queues = &self.state.queues;
        let p = queues.get(parent);
        let template = self.template_absolute(parent);
        let active: HashSet<&str> = self
            .state
            .config
            .dynamic
            .iter()
            .filter(|d| d.kind == (DynamicKind::Managed { active: true }))
            .map(|d| d.path.as_str())
            .collect();
        let is_active = |path: &str| active.contains(path);
        let leaves: &[QueueIndex] = &p.config.children;
        // Applications Apache's leaf counts: every one with an attempt, runnable or not.
        let in_leaf = |leaf: QueueIndex| {
            queues.get(leaf).apps.iter().filter(|k| self.state.apps.get(k).is_some_and(|a| a.attempt.is_some())).count()
        };
        let deactivate: Vec<String> = leaves
            .iter()
            .filter(|&&l| is_active(queues.get(l).path()) && in_leaf(l) == 0)
            .map(|&l| queues.get(l).path().to_string())
            .collect();
        let freed: f32 = leaves
            .iter()
            .filter(|&&l| deactivate.iter().any(|d| d == queues.get(l).path()))
            .map(|&l| queues.get(l).absolute_capacity as f32)
            .sum();
        let free = self.parent_absolute(parent) - self.activated(p.path()) + freed + EPSILON;
        let mut activate: Vec<String> = Vec::new();
        if free >= template {
            // The leaves' schedulable applications (pending or active), oldest submission
            // first.
            let mut apps: Vec<(&(i64, i32), QueueIndex)> = leaves
                .iter()
                .flat_map(|&l| {
                    queues.get(l).apps.iter().filter_map(move |k| {
                        let a = self.state.apps.get(k)?;
                        (a.attempt.is_some() && a.runnable).then_some((&a.app_id, l))
                    })
                })
                .collect();
            apps.sort_by_key(|(id, _)| **id);
            let wanted = if template > 0.0 { ((free / template).floor() as usize).min(apps.len()) } else { 0 };
            for (_, leaf) in apps {
                if activate.len() >= wanted {
                    break;
                }
                let path = queues.get(leaf).path();
                if !is_active(path) && !deactivate.iter().any(|d| d == path) && !activate.iter().any(|a| a == path) {
                    activate.push(path.to_string());
                }
            }
        }
        Changes { deactivate, activate }
    }
}

/// A managed parent's leaf template guarantee as a share of the parent: a percentage over
/// 100, or absolute resources over the parent's own (Apache's `ManagedParentQueue` divides
/// them with the running calculator); none otherwise.
pub fn template_fraction(
    template: Option<CapacitySpec>,
    parent: CapacitySpec,
    calc: ResourceCalculator,
    cluster: Resource,
) -> f32 {
    match (template, parent) {
        (Some(CapacitySpec::Percent(pct)), _) => pct as f32 / 100.0,
        (Some(CapacitySpec::Absolute(t)), CapacitySpec::Absolute(p)) => calc.divide(cluster, t, p) as f32,
        _ => 0.0,
    }
}
