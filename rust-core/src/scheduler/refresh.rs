//! `refreshQueues`: the new configuration is checked against the live state by Apache's
//! rules, then swapped in with every surviving queue's usage carried over by path.

use super::{Retired, Scheduler};
use crate::config::validate::absolute_sums_exceeding;
use crate::config::{autoqueue, ConfigError, ConfigErrors, DynamicKind, DynamicQueue, OrderingPolicy, SchedulerConfig};
use crate::ids::QueueIndex;
use crate::model::{Correspondence, Queue, QueueTree, RuntimeState, State};
use std::sync::Arc;

impl Scheduler {
    /// `refreshQueues`: checks the refresh rules against the live state, then swaps the new
    /// configuration in. On any error the configuration stays as it was, reloaded as after
    /// [`Scheduler::refused_refresh`]. Returns notices for the admin: as in Apache, the
    /// resource calculator is chosen when the scheduler starts, so a changed
    /// `resource-calculator` waits for the next restart.
    pub fn refresh(&mut self, new: SchedulerConfig) -> Result<Vec<String>, ConfigErrors> {
        self.refresh_prepared(PreparedRefresh::new(new))
    }

    /// [`Scheduler::refresh`] with a configuration prepared (its tree built) beforehand,
    /// without the scheduler.
    pub fn refresh_prepared(&mut self, prepared: PreparedRefresh) -> Result<Vec<String>, ConfigErrors> {
        let PreparedRefresh { config: new, tree } = prepared;
        // The queues created at run time stay, as in Apache, unless the file now
        // configures them or their parent went; the tree is then built again.
        let (new, built) = if self.state.config.keeps_dynamic_queues_in(&new) {
            match self.state.config.refreshed_keeping_dynamic(new) {
                Ok(new) => (new, None),
                Err(e) => {
                    self.refused_refresh();
                    return Err(e);
                }
            }
        } else {
            (new, Some(tree))
        };
        match check_refresh(&self.state, &new, built) {
            Ok(checked) => Ok(self.apply_refresh(new, Some(checked))),
            Err(e) => {
                self.refused_refresh();
                Err(e)
            }
        }
    }

    /// Works out the queues an application sent to a missing `path` would create (flexible
    /// auto-creation) and the configuration with them, or says why none may be created:
    /// Apache's checks and messages. Nothing changes until [`Scheduler::create_queues`].
    pub fn plan_creation(&self, path: &str) -> Result<Creation, String> {
        let config = &self.state.config;
        let (created, leaf) = match autoqueue::managed_parent(&config.queues, path) {
            Some(parent) => {
                let leaf = self.plan_managed_leaf(parent, path)?;
                let path = leaf.path.clone();
                (vec![leaf], path)
            }
            None => {
                (autoqueue::plan(&config.queues, &config.properties, path)?, autoqueue::normalize(&config.queues, path))
            }
        };
        let config =
            if created.is_empty() { None } else { Some(config.with_created(&created).map_err(|e| e.to_string())?) };
        Ok(Creation { leaf, created, config })
    }

    /// Swaps a planned creation in. Every other queue keeps its place among its siblings;
    /// the new ones join the end. Returns the paths created.
    pub fn create_queues(&mut self, creation: Creation) -> Vec<String> {
        let Creation { created, config, .. } = creation;
        if let Some(new) = config {
            // Apache adds the levels one by one, each parent updating below itself.
            let parents: Vec<String> =
                created.iter().map(|d| d.path.rsplit_once('.').map_or("", |(p, _)| p).to_string()).collect();
            self.note_managed_created(&created);
            self.install(new, Some(&parents));
            for parent in &parents {
                self.note_used(parent);
            }
        }
        created.into_iter().map(|d| d.path).collect()
    }

    /// Deletes the created queue at `path` (idle, without children), its siblings' shares
    /// worked out again.
    pub fn delete_dynamic_queue(&mut self, path: &str) -> Result<(), String> {
        let queues = &self.state.queues;
        let Some(q) = queues.index_of_path(path).map(|i| queues.get(i)) else {
            return Err(format!("no queue {path}"));
        };
        if !q.config.dynamic {
            return Err(format!("The queue that we are asked to remove ({path}) is not a DynamicQueue"));
        }
        if !q.apps.is_empty() || !q.config.children.is_empty() {
            return Err(format!("Queue {path} is marked for deletion, but not eligible for deletion"));
        }
        let new = self.state.config.without_dynamic(path).map_err(|e| e.to_string())?;
        let parent = path.rsplit_once('.').map_or("", |(p, _)| p).to_string();
        self.install(new, Some(&[parent]));
        Ok(())
    }

    /// A refresh was refused (here, or because its file did not load): the configuration
    /// in force is loaded again, as Apache's scheduler reloads it when it refuses a new one
    /// — capacities, limits and activations worked out again, user-limit caches refreshed,
    /// and each refreshed parent's children in the order a reload gives them.
    pub fn refused_refresh(&mut self) {
        let current = (*self.state.config).clone();
        self.apply_refresh(current, None);
    }

    /// Swaps `new` in as a refresh, with the tree [`check_refresh`] built for it (and
    /// matched with the running one) if it was checked.
    fn apply_refresh(
        &mut self,
        mut new: SchedulerConfig,
        mut checked: Option<(QueueTree, Correspondence)>,
    ) -> Vec<String> {
        let mut notices = Vec::new();
        // Apache's leaves build their ordering policies afresh, and the new fair ones know
        // of no application whose fair cache is stale (see `App::fair_usage`). Nothing
        // reads the mark in a leaf that is not fair: one that turns fair later is cleared
        // by that refresh, so the applications of the others are not visited.
        let state = &mut self.state;
        // The checked tree is built from `new`: its queues are in the same order.
        let was = |i: usize, path: &str| match &checked {
            Some((_, matched)) => matched.old_of_new[i],
            None => state.queues.index_of_path(path),
        };
        let fair =
            new.queues.iter().enumerate().filter(|(_, q)| q.is_leaf() && q.ordering_policy == OrderingPolicy::Fair);
        let fair: Vec<QueueIndex> = fair.filter_map(|(i, q)| was(i, &q.path)).collect();
        for leaf in fair {
            for key in &state.queues.queues[leaf].apps {
                if let Some(a) = state.apps.get_mut(key) {
                    a.fair_stale = false;
                }
            }
        }
        let running = self.state.calculator();
        if new.global.resource_calculator != running {
            notices.push(format!(
                "yarn.scheduler.capacity.resource-calculator: {} takes effect at the next ResourceManager restart; {} stays in use (as Apache's scheduler does)",
                new.global.resource_calculator.class_name(),
                running.class_name()
            ));
            new.global.resource_calculator = running;
        }
        if new.dynamic.iter().any(|d| matches!(d.kind, DynamicKind::Managed { active: true })) {
            // A configuration loaded again (a refused refresh): its managed leaves start
            // without a guarantee, as those of a refreshed file do.
            let inactive = new
                .dynamic
                .iter()
                .map(|d| match d.kind {
                    DynamicKind::Managed { .. } => {
                        DynamicQueue { path: d.path.clone(), kind: DynamicKind::Managed { active: false } }
                    }
                    _ => d.clone(),
                })
                .collect();
            match new.rebuilt_with(inactive) {
                Ok(rebuilt) => {
                    new = rebuilt;
                    checked = None;
                }
                Err(e) => log::error!("could not reload the managed leaves without their guarantees: {e}"),
            }
        }
        let reinit_absolute = self.reinit_absolute(&new);
        match checked {
            Some((tree, matched)) => self.install_tree(new, tree, &matched, None),
            None => self.install(new, None),
        }
        self.reactivate_managed_after_refresh(reinit_absolute);
        for n in &notices {
            log::warn!("{n}");
        }
        notices
    }

    /// Swaps `new` in with every surviving queue's usage carried over by path. A refresh
    /// (`changed_under` None) orders each parent's children as Apache's refreshed parents
    /// do and updates every queue; queues created or deleted under parents keep every
    /// other queue's place and update those parents' subtrees alone, in turn, as Apache
    /// does.
    pub(super) fn install(&mut self, new: SchedulerConfig, changed_under: Option<&[String]>) {
        let mut tree = QueueTree::build(&new);
        let matched = Correspondence::between(&self.state.queues, &tree);
        // Where the refresh rules allow no state, check_refresh has refused the file.
        let _ = tree.set_states_from(Some((&self.state.queues, &matched)));
        self.install_tree(new, tree, &matched, changed_under);
    }

    /// [`Scheduler::install`] with the tree for `new` already built, each queue in the
    /// state it takes from the running one, and `matched` with it (as [`check_refresh`]
    /// returns them).
    fn install_tree(
        &mut self,
        new: SchedulerConfig,
        mut tree: QueueTree,
        matched: &Correspondence,
        changed_under: Option<&[String]>,
    ) {
        let refreshed = changed_under.is_none();
        if refreshed {
            tree.order_children_as_refreshed_from(&self.state.queues, matched);
        } else {
            tree.keep_children_order_of(&self.state.queues);
        }
        // Where each running queue is in the new tree.
        let moved = &matched.new_of_old;
        // Every queue where it was (a refresh that changed no queue's path): the
        // applications and runnable counts stay as they are.
        let in_place = matched.in_place();
        if !in_place {
            self.state.queue_layout += 1;
        }
        let same_labels = |(old, new): (&Queue, &Queue)| {
            old.config.accessible_node_labels == new.config.accessible_node_labels
                && old.config.default_node_label_expression == new.config.default_node_label_expression
        };
        if !in_place || !self.state.queues.queues.iter().zip(&tree.queues).all(same_labels) {
            self.state.queue_labels_version += 1;
        }
        let fresh: Vec<bool> = if refreshed {
            Vec::new()
        } else {
            let mut fresh = vec![true; tree.queues.len()];
            moved.iter().flatten().for_each(|&i| fresh[i] = false);
            fresh
        };
        // What each running queue keeps moves into its place in the new tree; what is left
        // of it (its configuration, its caches) stays in the old tree, to be freed with it
        // after the lock.
        for (old, &at) in self.state.queues.queues.iter_mut().zip(moved) {
            let Some(i) = at else { continue };
            let q = &mut tree.queues[i];
            if !refreshed {
                // Nothing but the parent's list of children changed: the queue keeps all
                // it worked out and cached (its published limit among them).
                std::mem::swap(q, old);
                std::mem::swap(&mut q.config, &mut old.config);
                // Its users' weights are summed again all the same, with the configuration
                // the queue now has.
                q.users.weights_changed();
                q.state = old.state;
                continue;
            }
            q.used = old.used;
            std::mem::swap(&mut q.labelled, &mut old.labelled);
            std::mem::swap(&mut q.apps, &mut old.apps);
            std::mem::swap(&mut q.users, &mut old.users);
            // Into a leaf configured afresh: its users' weights may be new.
            q.users.weights_changed();
            std::mem::swap(&mut q.pending_users, &mut old.pending_users);
            q.am_used = old.am_used;
            std::mem::swap(&mut q.labelled_am_used, &mut old.labelled_am_used);
            q.reserved = old.reserved;
            std::mem::swap(&mut q.shown, &mut old.shown);
            // The applications' leaves and their headroom leaves are renumbered alike.
            q.headroom_settled = old.headroom_settled;
            if in_place {
                q.runnable_apps = old.runnable_apps;
            }
        }
        if !refreshed {
            // A created queue without a state of its own takes its parent's as it runs
            // (Apache's QueueStateHelper: a draining parent's child is stopped).
            for i in fresh.iter().enumerate().filter_map(|(i, &f)| f.then_some(i)) {
                if let (false, Some(p)) = (tree.queues[i].config.state_set, tree.queues[i].config.parent) {
                    tree.queues[i].state = match tree.queues[p].state {
                        RuntimeState::Draining => RuntimeState::Stopped,
                        s => s,
                    };
                }
            }
        }
        let mut runnable = vec![0usize; tree.queues.len()];
        if !in_place {
            for app in self.state.apps.values_mut() {
                app.queue = moved[app.queue].expect("refresh rules keep every queue that has applications");
                app.headroom_queue = app.headroom_queue.and_then(|q| moved[q]);
                runnable[app.queue] += usize::from(app.runnable);
            }
        }
        // Freed after the lock (see `Scheduler::take_retired`).
        let config = std::mem::replace(&mut self.state.config, Arc::new(new));
        let queues = std::mem::replace(&mut self.state.queues, tree);
        self.retired = Retired(Some((config, queues)));
        if refreshed && !in_place {
            for (leaf, n) in runnable.into_iter().enumerate().filter(|&(_, n)| n > 0) {
                self.count_runnable(leaf, n as isize);
            }
        }
        match changed_under {
            Some(parents) => {
                for parent in parents {
                    if let Some(p) = self.state.queues.index_of_path(parent) {
                        self.resize_under(p);
                    }
                }
            }
            None => {
                self.rework_for_cluster();
                self.rerun_waiting_after_refresh();
            }
        }
    }
}

/// A configuration read for a refresh with its queue tree built: the part of a refresh
/// that needs nothing of the running scheduler, and so none of its lock.
pub struct PreparedRefresh {
    config: SchedulerConfig,
    tree: QueueTree,
}

impl PreparedRefresh {
    /// Builds the tree for `config`.
    pub fn new(config: SchedulerConfig) -> Self {
        let tree = QueueTree::build(&config);
        PreparedRefresh { config, tree }
    }

    /// The configuration prepared.
    pub fn config(&self) -> &SchedulerConfig {
        &self.config
    }
}

/// Queues an application would create, worked out by [`Scheduler::plan_creation`].
pub struct Creation {
    /// The leaf's full path (it exists already when `created` is empty).
    pub leaf: String,
    /// The queues to create, top down.
    created: Vec<crate::config::DynamicQueue>,
    /// The configuration with them (None when there are none).
    config: Option<SchedulerConfig>,
}

impl Creation {
    /// Whether `user` may submit to the leaf: the ACLs its templates give it or those of
    /// the queues above it allow the user.
    pub fn admits(&self, user: &str, groups: &[String]) -> bool {
        let Some(config) = &self.config else { return true };
        let mut at = config.queue_index(&self.leaf);
        while let Some(i) = at {
            let q = &config.queues[i];
            if q.acl_submit_applications.allows(user, groups) || q.acl_administer_queue.allows(user, groups) {
                return true;
            }
            at = q.parent;
        }
        false
    }
}

/// The rules a new configuration must follow relative to the running one (Apache's
/// `validateQueueHierarchy`): a queue may only disappear once STOPPED and empty, a queue
/// keeps its path, and a leaf becomes a parent only while STOPPED and empty. Returns the
/// tree for `new` (`built` if it was built already), each queue in the state it takes from
/// the running one.
pub fn check_refresh(
    state: &State,
    new: &SchedulerConfig,
    built: Option<QueueTree>,
) -> Result<(QueueTree, Correspondence), ConfigErrors> {
    let mut errors = Vec::new();
    let mut tree = built.unwrap_or_else(|| QueueTree::build(new));
    let matched = Correspondence::between(&state.queues, &tree);
    // The states the new tree's queues would take, and whether the new file may ask them.
    if let Err(e) = tree.set_states_from(Some((&state.queues, &matched))) {
        errors.extend(e);
    }
    for (old, &at) in state.queues.queues.iter().zip(&matched.new_of_old) {
        let path = old.path();
        match at {
            None if old.config.dynamic || old.config.managed_leaf => {
                // A created queue goes with its parent, unless it still has applications
                // (a managed leaf whose parent stays but stops being managed: that parent's
                // own error says why).
                let parent_stays = old.config.managed_leaf
                    && tree.index_of_path(path.rsplit_once('.').map_or("", |(p, _)| p)).is_some();
                if !old.apps.is_empty() && !parent_stays {
                    errors.push(ConfigError::queue(
                        path,
                        format!("cannot be removed with its parent: {} applications are still in it", old.apps.len()),
                    ));
                }
            }
            None => {
                // Apache's rule: a queue leaves the configuration when it is STOPPED, or
                // the new file says STOPPED for it.
                if old.state != RuntimeState::Stopped && !new.stopped_in_file.contains(path) {
                    errors.push(ConfigError::queue(path, format!(
                        "cannot be removed from the configuration: it is {}; set its state to STOPPED first (in this file or a refresh before)",
                        old.state.as_str()
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
                errors.extend(managed_parent_conversion(old, newq));
                if old.is_leaf() && !newq.is_leaf() {
                    let becomes = tree.queues[i].state;
                    if old.state != RuntimeState::Stopped && becomes != RuntimeState::Stopped {
                        errors.push(ConfigError::queue(
                            path,
                            format!("cannot become a parent queue while it is {}; stop it first", old.state.as_str()),
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
    errors.extend(managed_leaves_exceeding(state, &tree));
    // Apache checks absolute parents against their children's sum again as it reloads,
    // with the running calculator and the live cluster.
    if !state.cluster.is_none() {
        errors.extend(absolute_sums_exceeding(&new.queues, state.calculator(), state.default_partition(), |label| {
            state.partitions.find(label).map_or(crate::resource::Resource::ZERO, |p| state.partitions.get(p).resource)
        }));
    }
    if errors.is_empty() {
        Ok((tree, matched))
    } else {
        Err(ConfigErrors(errors))
    }
}

/// Apache's rules for managed parents (`auto-create-child-queue.enabled`) across a
/// refresh: one stays managed, and a configured parent cannot become one (its configured
/// children could not be managed). A leaf may, as it may become any parent.
fn managed_parent_conversion(old: &Queue, new: &crate::config::QueueConfig) -> Option<ConfigError> {
    let path = old.path();
    if old.config.auto_create_child_queue && !new.auto_create_child_queue {
        return Some(ConfigError::queue(path, format!(
            "Cannot convert auto create enabled parent queue: {path} to leaf queue. Please check  parent queue's configuration auto-create-child-queue.enabled is set to true"
        )));
    }
    if !old.config.auto_create_child_queue && new.auto_create_child_queue && !old.is_leaf() {
        return Some(ConfigError::queue(path, format!(
            "Can not convert parent queue: {path} to auto create enabled parent queue since it could have other pre-configured queues which is not supported"
        )));
    }
    None
}

/// A managed parent the new file has refuse leaves past its capacity
/// (`fail-on-exceeding-parent-capacity`) is checked as Apache's `ManagedParentQueue`
/// checks it on reload: its leaves' capacities (shares of it) summed against its own
/// capacity (a share of its parent), both as they stand before the refresh.
fn managed_leaves_exceeding(state: &State, new: &QueueTree) -> Vec<ConfigError> {
    let mut errors = Vec::new();
    for old in state.queues.queues.iter().filter(|q| q.config.auto_create_child_queue) {
        let path = old.path();
        if !new.index_of_path(path).is_some_and(|i| new.get(i).config.managed_fail_on_exceeding) {
            continue;
        }
        let relative = |q: &Queue| match q.config.capacity {
            crate::config::CapacitySpec::Percent(p) => p as f32 / 100.0,
            _ => 0.0,
        };
        let children: f32 = old.config.children.iter().map(|&c| relative(state.queues.get(c))).sum();
        let own = relative(old);
        if own < children {
            errors.push(ConfigError::queue(path, format!(
                "Total of Auto Created leaf queues guaranteed capacity : {} exceeds Parent queue's {path} guaranteed capacity {}.Cannot enforce policy to auto create queues beyond parent queue's capacity",
                crate::java_order::float_to_string(children),
                crate::java_order::float_to_string(own)
            )));
        }
    }
    errors
}
