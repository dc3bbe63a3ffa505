//! Per-queue configuration: the tree declared by `<q>.queues` and every per-queue key.

use super::acl::AccessControlList;
use super::capacity::{parse_capacity, parse_maximum_capacity, CapacitySpec, MaxCapacitySpec};
use super::{ClusterSettings, ConfigError, GlobalSettings, KeyReader, PREFIX};
use serde::Serialize;
use std::collections::BTreeMap;

/// The root queue's name; every path starts with it.
pub const ROOT: &str = "root";

/// `<q>.state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum QueueState {
    /// Accepts new applications.
    Running,
    /// Accepts none; running applications drain.
    Stopped,
}

impl QueueState {
    /// The name YARN's `QueueState` enum uses.
    pub fn as_str(self) -> &'static str {
        match self {
            QueueState::Running => "RUNNING",
            QueueState::Stopped => "STOPPED",
        }
    }
}

/// `<q>.ordering-policy` for a leaf queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum OrderingPolicy {
    /// Application priority, then submission order.
    Fifo,
    /// The application using least goes first.
    Fair,
}

/// One queue's configuration, as written in the file (plus inherited defaults).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueueConfig {
    /// Full path, such as `root.engineering.qa`.
    pub path: String,
    /// Last path component, such as `qa`.
    pub name: String,
    /// Index of the parent in the tree (None for root).
    pub parent: Option<usize>,
    /// Indices of the children, in the order `<q>.queues` lists them.
    pub children: Vec<usize>,
    /// `<q>.capacity`.
    pub capacity: CapacitySpec,
    /// `<q>.maximum-capacity`.
    pub maximum_capacity: MaxCapacitySpec,
    /// `<q>.state`.
    pub state: QueueState,
    /// `<q>.user-limit-factor`.
    pub user_limit_factor: f64,
    /// `<q>.minimum-user-limit-percent` (1..=100).
    pub minimum_user_limit_percent: f64,
    /// `<q>.maximum-applications`, if set; otherwise derived from the queue's share.
    pub maximum_applications: Option<i64>,
    /// `<q>.maximum-am-resource-percent` (0..=1), defaulting to the global value.
    pub maximum_am_resource_percent: f64,
    /// `<q>.max-parallel-apps` (None: unlimited).
    pub max_parallel_apps: Option<i64>,
    /// `<q>.acl_submit_applications`.
    pub acl_submit_applications: AccessControlList,
    /// `<q>.acl_administer_queue`.
    pub acl_administer_queue: AccessControlList,
    /// `<q>.ordering-policy`.
    pub ordering_policy: OrderingPolicy,
    /// `<q>.default-application-priority`.
    pub default_application_priority: i64,
    /// `<q>.priority`: the queue's own priority among its siblings.
    pub priority: i64,
    /// `<q>.maximum-allocation-mb` / `-vcores`, defaulting to the cluster's.
    pub maximum_allocation: crate::resource::Resource,
    /// `<q>.user-settings.<user>.weight`.
    pub user_weights: BTreeMap<String, f64>,
    /// `<q>.allow-zero-capacity-sum`: children of a non-zero parent may sum to 0%.
    pub allow_zero_capacity_sum: bool,
}

impl QueueConfig {
    /// True for a queue with no children.
    pub fn is_leaf(&self) -> bool {
        self.children.is_empty()
    }

    /// The full name of one of this queue's keys.
    pub fn key(&self, suffix: &str) -> String {
        queue_key(&self.path, suffix)
    }
}

/// `yarn.scheduler.capacity.<path>.<suffix>`.
pub fn queue_key(path: &str, suffix: &str) -> String {
    format!("{PREFIX}{path}.{suffix}")
}

/// Walks the tree from root along `<q>.queues`, reading every queue's keys.
pub(crate) fn read_queue_tree(
    r: &mut KeyReader<'_>,
    global: &GlobalSettings,
    cluster: &ClusterSettings,
) -> Vec<QueueConfig> {
    let mut queues: Vec<QueueConfig> = Vec::new();
    let mut stack: Vec<(String, Option<usize>)> = vec![(ROOT.to_string(), None)];
    // Depth-first, children in file order; a parent is always pushed before its children.
    while let Some((path, parent)) = stack.pop() {
        let index = queues.len();
        let q = read_queue(r, &path, parent, global, cluster);
        if let Some(p) = parent {
            queues[p].children.push(index);
        }
        queues.push(q);
        for child in child_names(r, &path).into_iter().rev() {
            stack.push((format!("{path}.{child}"), Some(index)));
        }
    }
    queues
}

fn child_names(r: &mut KeyReader<'_>, path: &str) -> Vec<String> {
    let key = queue_key(path, "queues");
    let Some(list) = r.string(&key) else { return Vec::new() };
    let mut names: Vec<String> = Vec::new();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if name.contains('.') {
            r.error(Some(path), &key, format!("child queue name '{name}' contains '.'; list names, not paths"));
            continue;
        }
        if names.iter().any(|n| n == name) {
            r.error(Some(path), &key, format!("child queue '{name}' is listed twice"));
            continue;
        }
        names.push(name.to_string());
    }
    names
}

fn read_queue(
    r: &mut KeyReader<'_>,
    path: &str,
    parent: Option<usize>,
    global: &GlobalSettings,
    cluster: &ClusterSettings,
) -> QueueConfig {
    let is_root = parent.is_none();
    let key = |suffix: &str| queue_key(path, suffix);
    let q = Some(path);

    let capacity = if is_root {
        CapacitySpec::Percent(100.0)
    } else {
        match r.string(&key("capacity")).filter(|v| !v.is_empty()) {
            None => CapacitySpec::Percent(0.0),
            Some(v) => parse_capacity(&v).unwrap_or_else(|m| {
                r.error(q, &key("capacity"), m);
                CapacitySpec::Percent(0.0)
            }),
        }
    };
    let maximum_capacity = match r.string(&key("maximum-capacity")).filter(|v| !v.is_empty()) {
        None => MaxCapacitySpec::Percent(100.0),
        Some(v) => parse_maximum_capacity(&v).unwrap_or_else(|m| {
            r.error(q, &key("maximum-capacity"), m);
            MaxCapacitySpec::Percent(100.0)
        }),
    };
    let state = match r.string(&key("state")) {
        None => QueueState::Running,
        Some(v) => match v.to_ascii_uppercase().as_str() {
            "RUNNING" => QueueState::Running,
            "STOPPED" => QueueState::Stopped,
            _ => {
                r.error(q, &key("state"), format!("'{v}' is not a queue state: use RUNNING or STOPPED"));
                QueueState::Running
            }
        },
    };
    let default_acl = if is_root { AccessControlList::everyone() } else { AccessControlList::nobody() };
    let acl = |r: &mut KeyReader<'_>, suffix: &str| {
        r.string(&key(suffix)).map(|v| AccessControlList::parse(&v)).unwrap_or_else(|| default_acl.clone())
    };
    // ACL values keep their leading space, which matters (" admins" is a group list), so
    // they are read raw rather than trimmed.
    let raw_acl = |suffix: &str| {
        r.props.get_raw(&key(suffix)).map(|v| AccessControlList::parse(&r.props.expand(v)))
    };
    let acl_submit_applications = raw_acl("acl_submit_applications")
        .unwrap_or_else(|| acl(r, "acl_submit_applications"));
    let acl_administer_queue =
        raw_acl("acl_administer_queue").unwrap_or_else(|| acl(r, "acl_administer_queue"));

    let ordering_policy = match r.string(&key("ordering-policy")) {
        None => OrderingPolicy::Fifo,
        Some(v) => match v.to_ascii_lowercase().as_str() {
            "fifo" | "fifo-with-partitions" | "fifo-for-pending-apps" => OrderingPolicy::Fifo,
            "fair" => OrderingPolicy::Fair,
            other if other.ends_with("fifoorderingpolicy") => OrderingPolicy::Fifo,
            other if other.ends_with("fairorderingpolicy") => OrderingPolicy::Fair,
            _ => {
                r.error(q, &key("ordering-policy"), format!("'{v}' is not an ordering policy: use fifo or fair"));
                OrderingPolicy::Fifo
            }
        },
    };

    let user_limit_factor = r.float(q, &key("user-limit-factor"), 1.0);
    let mulp_default = r.float(None, &super::global_key("minimum-user-limit-percent"), 100.0);
    let minimum_user_limit_percent = r.float(q, &key("minimum-user-limit-percent"), mulp_default);
    if !(minimum_user_limit_percent > 0.0 && minimum_user_limit_percent <= 100.0) {
        r.error(q, &key("minimum-user-limit-percent"), format!(
            "{minimum_user_limit_percent} is outside (0, 100]"
        ));
    }
    let maximum_am_resource_percent =
        r.float(q, &key("maximum-am-resource-percent"), global.maximum_am_resource_percent);
    if !(0.0..=1.0).contains(&maximum_am_resource_percent) {
        r.error(q, &key("maximum-am-resource-percent"), format!(
            "{maximum_am_resource_percent} is outside [0, 1]: this key is a fraction (0.1 = 10%)"
        ));
    }
    let maximum_applications = r.opt_int(q, &key("maximum-applications")).filter(|&n| n >= 0);
    let max_parallel_apps = r.opt_int(q, &key("max-parallel-apps")).or(global.max_parallel_apps);

    let max_mb = r.int(q, &key("maximum-allocation-mb"), cluster.maximum_allocation.memory_mb);
    let max_vcores = r.int(q, &key("maximum-allocation-vcores"), cluster.maximum_allocation.vcores);

    let mut user_weights = BTreeMap::new();
    let prefix = queue_key(path, "user-settings.");
    let weight_keys: Vec<String> = r
        .props
        .names_with_prefix(&prefix)
        .filter(|k| k.ends_with(".weight"))
        .map(str::to_string)
        .collect();
    for k in weight_keys {
        let user = &k[prefix.len()..k.len() - ".weight".len()];
        if user.is_empty() || user.contains('.') {
            continue;
        }
        let w = r.float(q, &k, 1.0);
        if w < 0.0 {
            r.errors.push(ConfigError::at_queue(path, &k, format!("user weight {w} is negative")));
        }
        user_weights.insert(user.to_string(), w);
    }

    QueueConfig {
        name: path.rsplit('.').next().unwrap_or(path).to_string(),
        path: path.to_string(),
        parent,
        children: Vec::new(),
        capacity,
        maximum_capacity,
        state,
        user_limit_factor,
        minimum_user_limit_percent,
        maximum_applications,
        maximum_am_resource_percent,
        max_parallel_apps,
        acl_submit_applications,
        acl_administer_queue,
        ordering_policy,
        default_application_priority: r.int(q, &key("default-application-priority"), 0),
        priority: r.int(q, &key("priority"), 0),
        maximum_allocation: crate::resource::Resource::new(max_mb, max_vcores),
        user_weights,
        allow_zero_capacity_sum: r.boolean(q, &key("allow-zero-capacity-sum"), false),
    }
}
