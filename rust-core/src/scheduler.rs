//! The one owner of scheduling state. Every event the ResourceManager delivers becomes a
//! method call here; decisions come from the pure functions in `allocation` and
//! `admission`, and this type applies them.

use crate::allocation::{next_assignment, Assignment};
use crate::application::{App, AppKey, Ask, ContainerRef, Locality, SchedulerKey};
use crate::config::{ConfigError, ConfigErrors, QueueState, SchedulerConfig};
use crate::node::{Node, NodeKey};
use crate::queue::{QueueIndex, QueueTree, ResolveError};
use crate::resource::{Resource, ResourceCalculator};
use std::collections::HashMap;
use std::sync::Arc;

/// A container as the scheduler tracks it.
#[derive(Debug, Clone, PartialEq)]
pub struct Container {
    /// The node it runs on.
    pub node: NodeKey,
    /// Its size.
    pub resource: Resource,
    /// The request it satisfied.
    pub key: SchedulerKey,
}

/// A container the scheduler decided to allocate, for the RM to materialise.
#[derive(Debug, Clone, PartialEq)]
pub struct Allocation {
    /// The application that gets it.
    pub app: AppKey,
    /// Its number (`ContainerId.getContainerId()`).
    pub number: u64,
    /// The node it goes on.
    pub node: NodeKey,
    /// Its size.
    pub resource: Resource,
    /// The request it satisfies.
    pub key: SchedulerKey,
    /// How local it is.
    pub locality: Locality,
}

/// An application submission, as APP_ADDED carries it.
#[derive(Debug, Clone)]
pub struct Submission {
    /// `(cluster timestamp, sequence number)` of the ApplicationId.
    pub app_id: (i64, i32),
    /// The queue named at submission (full path or short leaf name).
    pub queue: String,
    /// The submitting user.
    pub user: String,
    /// The user's groups, for ACL checks.
    pub groups: Vec<String>,
    /// Application priority.
    pub priority: i64,
    /// True when the RM is recovering this application after a restart: it was admitted
    /// once already, so only the queue's existence is checked.
    pub recovering: bool,
}

/// The two queue ACLs (YARN's `QueueACL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueAcl {
    /// `acl_submit_applications`.
    SubmitApplications,
    /// `acl_administer_queue`.
    AdministerQueue,
}

/// Why an application was not accepted. The text is what the user sees in
/// `yarn application -status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection(pub String);

/// Everything the scheduler knows. Public so the pure decision functions can read it.
#[derive(Debug, Clone)]
pub struct State {
    /// The configuration in force.
    pub config: Arc<SchedulerConfig>,
    /// The queue tree with usage.
    pub queues: QueueTree,
    /// Live nodes.
    pub nodes: HashMap<NodeKey, Node>,
    /// Live applications.
    pub apps: HashMap<AppKey, App>,
    /// Live containers.
    pub containers: HashMap<ContainerRef, Container>,
    /// Total resources of all live nodes.
    pub cluster: Resource,
    /// The RM's epoch (bumped at each restart), carried in container numbers.
    pub epoch: u64,
    next_node: NodeKey,
    next_app: AppKey,
}

impl State {
    /// The configured resource calculator.
    pub fn calculator(&self) -> ResourceCalculator {
        self.config.global.resource_calculator
    }

    /// Resources not held by any container, cluster-wide.
    pub fn cluster_available(&self) -> Resource {
        let used = self.queues.get(0).used;
        self.cluster.minus(used)
    }
}

/// The scheduler: state plus the rules for changing it.
#[derive(Debug, Clone)]
pub struct Scheduler {
    state: State,
}

impl Scheduler {
    /// A scheduler with no nodes and no applications.
    pub fn new(config: SchedulerConfig, epoch: u64) -> Self {
        let queues = QueueTree::build(&config);
        Scheduler {
            state: State {
                config: Arc::new(config),
                queues,
                nodes: HashMap::new(),
                apps: HashMap::new(),
                containers: HashMap::new(),
                cluster: Resource::ZERO,
                epoch,
                next_node: 0,
                next_app: 0,
            },
        }
    }

    /// Read access to everything, for reports and tests.
    pub fn state(&self) -> &State {
        &self.state
    }

    // ----- nodes -------------------------------------------------------------------------

    /// NODE_ADDED: returns the node's compact key.
    pub fn add_node(&mut self, node_id: &str, host: &str, rack: &str, total: Resource) -> NodeKey {
        let key = self.state.next_node;
        self.state.next_node += 1;
        self.state.nodes.insert(key, Node::new(node_id.into(), host.into(), rack.into(), total));
        self.resize_cluster();
        log::info!("added node {node_id} ({rack}) with {total}; cluster is now {}", self.state.cluster);
        key
    }

    /// NODE_REMOVED: the node's containers are gone; their resources return to their
    /// queues. Returns the containers that were still live on it.
    pub fn remove_node(&mut self, node: NodeKey) -> Vec<ContainerRef> {
        let Some(n) = self.state.nodes.get(&node) else { return Vec::new() };
        let lost: Vec<ContainerRef> = n.containers.iter().copied().collect();
        self.release(&lost);
        if let Some(n) = self.state.nodes.remove(&node) {
            log::info!("removed node {} ({} containers lost)", n.node_id, lost.len());
        }
        self.resize_cluster();
        lost
    }

    /// NODE_RESOURCE_UPDATE: the node now offers `total`.
    pub fn update_node_resource(&mut self, node: NodeKey, total: Resource) {
        if let Some(n) = self.state.nodes.get_mut(&node) {
            n.total = total;
        }
        self.resize_cluster();
    }

    fn resize_cluster(&mut self) {
        let total = self.state.nodes.values().fold(Resource::ZERO, |acc, n| acc.plus(n.total));
        self.state.cluster = total;
        let calc = self.state.calculator();
        self.state.queues.update_effective_capacities(total, calc);
    }

    /// NODE_UPDATE: reclaims the containers that finished, then places as many containers
    /// on the node as the per-heartbeat limits allow.
    pub fn node_heartbeat(&mut self, node: NodeKey, finished: &[ContainerRef]) -> Vec<Allocation> {
        self.release(finished);
        let mut out = Vec::new();
        if !self.state.nodes.contains_key(&node) {
            return out;
        }
        let g = &self.state.config.global;
        let max_total = if !g.multiple_assignments_enabled {
            1
        } else if g.max_container_assignments <= 0 {
            usize::MAX
        } else {
            g.max_container_assignments as usize
        };
        let max_off_switch = g.max_offswitch_assignments.max(1) as usize;
        let mut off_switch = 0;
        while out.len() < max_total {
            let n = &self.state.nodes[&node];
            let Some(a) = next_assignment(&self.state, n, off_switch < max_off_switch) else { break };
            if a.locality == Locality::OffSwitch {
                off_switch += 1;
            }
            out.push(self.apply(node, a));
        }
        out
    }

    fn apply(&mut self, node: NodeKey, a: Assignment) -> Allocation {
        let s = &mut self.state;
        let n = s.nodes.get_mut(&node).expect("assignment for a live node");
        let app = s.apps.get_mut(&a.app).expect("assignment for a live application");
        let number = app.next_container_number();
        app.record_allocation(a.key, &n.host, &n.rack, a.locality);
        app.containers.insert(number);
        app.used = app.used.plus(a.resource);
        n.allocated = n.allocated.plus(a.resource);
        n.containers.insert((a.app, number));
        let queue = app.queue;
        s.queues.charge(queue, a.resource);
        s.containers.insert((a.app, number), Container { node, resource: a.resource, key: a.key });
        Allocation { app: a.app, number, node, resource: a.resource, key: a.key, locality: a.locality }
    }

    /// Containers that completed, were released, expired or were killed: their resources
    /// return to node, application and queues. Unknown containers are ignored (the RM may
    /// report a container twice).
    pub fn release(&mut self, containers: &[ContainerRef]) {
        for c in containers {
            let Some(container) = self.state.containers.remove(c) else { continue };
            if let Some(n) = self.state.nodes.get_mut(&container.node) {
                n.allocated = n.allocated.minus(container.resource);
                n.containers.remove(c);
            }
            if let Some(app) = self.state.apps.get_mut(&c.0) {
                app.used = app.used.minus(container.resource);
                app.containers.remove(&c.1);
                let queue = app.queue;
                self.state.queues.refund(queue, container.resource);
            }
        }
    }

    // ----- applications ----------------------------------------------------------------

    /// APP_ADDED: admits the application into its leaf queue, or says why not.
    pub fn submit(&mut self, sub: &Submission) -> Result<(AppKey, String), Rejection> {
        let queue = self.admit(sub)?;
        let key = self.state.next_app;
        self.state.next_app += 1;
        let epoch = self.state.epoch;
        self.state.apps.insert(key, App::new(sub.app_id, queue, sub.user.clone(), sub.priority, epoch));
        self.state.queues.queues[queue].apps.push(key);
        Ok((key, self.state.queues.get(queue).path().to_string()))
    }

    fn admit(&self, sub: &Submission) -> Result<QueueIndex, Rejection> {
        let s = &self.state;
        let app = format!("application_{}_{:04}", sub.app_id.0, sub.app_id.1);
        let queue = match s.queues.resolve(&sub.queue) {
            Ok(q) => q,
            Err(ResolveError::Unknown) => {
                return Err(Rejection(format!(
                    "Application {app} submitted by user {} to unknown queue: {}", sub.user, sub.queue
                )))
            }
            Err(ResolveError::Ambiguous(paths)) => {
                return Err(Rejection(format!(
                    "Application {app} submitted by user {} to ambiguous queue: {}; use the full path, one of {}",
                    sub.user, sub.queue, paths.join(", ")
                )))
            }
        };
        // A plan (reservable) queue runs applications without a reservation in its
        // `<q>-default` child, as Apache does.
        let queue = match s.queues.get(queue).config.reservable {
            true => s.queues.get(queue).config.children[0],
            false => queue,
        };
        let q = s.queues.get(queue);
        if !q.is_leaf() {
            return Err(Rejection(format!(
                "Application {app} submitted by user {} to non-leaf queue: {}", sub.user, q.path()
            )));
        }
        if sub.recovering {
            return Ok(queue);
        }
        let allowed = !s.config.cluster.acl_enabled
            || self.check_access(queue, QueueAcl::SubmitApplications, &sub.user, &sub.groups);
        if !allowed {
            return Err(Rejection(format!(
                "User {} does not have permission to submit {app} to queue {}", sub.user, q.path()
            )));
        }
        if s.queues.is_stopped(queue) {
            return Err(Rejection(format!(
                "Queue {} is STOPPED. Cannot accept submission of application: {app}", q.path()
            )));
        }
        let global_max = s.config.global.maximum_applications;
        if s.apps.len() as i64 >= global_max {
            return Err(Rejection(format!(
                "Maximum system application limit reached, cannot accept submission of application: {app}"
            )));
        }
        let queue_max = q
            .config
            .maximum_applications
            .unwrap_or((global_max as f64 * q.absolute_capacity) as i64);
        if q.apps.len() as i64 >= queue_max {
            return Err(Rejection(format!(
                "Queue {} already has {} applications, cannot accept submission of application: {app}",
                q.path(),
                q.apps.len()
            )));
        }
        Ok(queue)
    }

    /// Whether `user` holds `acl` on `queue`: granted when the queue or any ancestor grants
    /// it, and administering a queue implies submitting to it.
    pub fn check_access(&self, queue: QueueIndex, acl: QueueAcl, user: &str, groups: &[String]) -> bool {
        let s = &self.state;
        s.queues.ancestors_inclusive(queue).any(|i| {
            let c = &s.queues.get(i).config;
            c.acl_administer_queue.allows(user, groups)
                || (acl == QueueAcl::SubmitApplications && c.acl_submit_applications.allows(user, groups))
        })
    }

    /// APP_ATTEMPT_ADDED: a new attempt starts with no outstanding requests. With
    /// `keep_containers` the previous attempt's containers stay with the application.
    pub fn add_attempt(&mut self, app: AppKey, attempt_id: i32) {
        if let Some(a) = self.state.apps.get_mut(&app) {
            a.attempt = Some(attempt_id);
            a.requests.clear();
        }
    }

    /// APP_ATTEMPT_REMOVED: the attempt's outstanding requests are dropped. Its containers
    /// are released separately, one by one, as the RM kills them.
    pub fn remove_attempt(&mut self, app: AppKey) {
        if let Some(a) = self.state.apps.get_mut(&app) {
            a.attempt = None;
            a.requests.clear();
        }
    }

    /// APP_REMOVED: the application is gone; any container the RM did not report killed is
    /// released too. Returns those containers.
    pub fn remove_app(&mut self, app: AppKey) -> Vec<ContainerRef> {
        let Some(a) = self.state.apps.get(&app) else { return Vec::new() };
        let left: Vec<ContainerRef> = a.containers.iter().map(|&n| (app, n)).collect();
        self.release(&left);
        if let Some(a) = self.state.apps.remove(&app) {
            self.state.queues.queues[a.queue].apps.retain(|&k| k != app);
        }
        left
    }

    /// `allocate()`: records the AM's asks. Returns the application's headroom.
    pub fn update_requests(&mut self, app: AppKey, asks: &[Ask]) -> Resource {
        if let Some(a) = self.state.apps.get_mut(&app) {
            a.update_requests(asks);
        }
        self.headroom(app)
    }

    /// What the application could still get: its queue's room under maximum capacity,
    /// bounded by what the cluster has free.
    pub fn headroom(&self, app: AppKey) -> Resource {
        let s = &self.state;
        let Some(a) = s.apps.get(&app) else { return Resource::ZERO };
        let queue_room = s
            .queues
            .ancestors_inclusive(a.queue)
            .map(|i| {
                let q = s.queues.get(i);
                q.maximum(s.cluster).minus(q.used)
            })
            .fold(s.cluster, Resource::component_min);
        queue_room.component_min(s.cluster_available())
    }

    // ----- configuration -----------------------------------------------------------------

    /// `refreshQueues`: checks the refresh rules against the live state, then swaps the new
    /// configuration in. On any error nothing changes.
    pub fn refresh(&mut self, new: SchedulerConfig) -> Result<(), ConfigErrors> {
        check_refresh(&self.state, &new)?;
        let mut tree = QueueTree::build(&new);
        for old in &self.state.queues.queues {
            if let Some(i) = tree.index_of_path(old.path()) {
                tree.queues[i].used = old.used;
                tree.queues[i].apps = old.apps.clone();
            }
        }
        for app in self.state.apps.values_mut() {
            let path = self.state.queues.get(app.queue).path();
            app.queue = tree.index_of_path(path).expect("refresh rules keep every queue that has applications");
        }
        self.state.config = Arc::new(new);
        self.state.queues = tree;
        self.resize_cluster();
        Ok(())
    }
}

/// The rules a new configuration must follow relative to the running one (Apache's
/// `validateQueueHierarchy`): a queue may only disappear once STOPPED and empty, a queue
/// keeps its path, and a leaf becomes a parent only while STOPPED and empty.
pub fn check_refresh(state: &State, new: &SchedulerConfig) -> Result<(), ConfigErrors> {
    let mut errors = Vec::new();
    for old in &state.queues.queues {
        let path = old.path();
        match new.queue_index(path) {
            None => {
                if let Some(moved) = new.queues.iter().find(|q| q.name == old.config.name && old.is_leaf() && q.is_leaf()) {
                    errors.push(ConfigError::queue(path, format!(
                        "cannot move to {}: a queue's path cannot change on refresh", moved.path
                    )));
                } else if old.config.state != QueueState::Stopped {
                    errors.push(ConfigError::queue(path, format!(
                        "cannot be removed from the configuration: it is {}; set its state to STOPPED first and refresh, then remove it",
                        old.config.state.as_str()
                    )));
                } else if !old.apps.is_empty() {
                    errors.push(ConfigError::queue(path, format!(
                        "cannot be removed: {} applications are still in it", old.apps.len()
                    )));
                }
            }
            Some(i) => {
                let newq = &new.queues[i];
                if old.is_leaf() && !newq.is_leaf() {
                    if old.config.state != QueueState::Stopped {
                        errors.push(ConfigError::queue(path, format!(
                            "cannot become a parent queue while it is {}; stop it first",
                            old.config.state.as_str()
                        )));
                    } else if !old.apps.is_empty() {
                        errors.push(ConfigError::queue(path, format!(
                            "cannot become a parent queue: {} applications are still in it", old.apps.len()
                        )));
                    }
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ConfigErrors(errors))
    }
}
