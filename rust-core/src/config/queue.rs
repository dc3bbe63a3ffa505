//! Per-queue configuration: the tree declared by `<q>.queues` and every per-queue key.

use super::acl::AccessControlList;
use super::autoqueue::DynamicQueue;
use super::capacity::{parse_capacity, parse_maximum_capacity, CapacitySpec, MaxCapacitySpec};
use super::{ClusterSettings, ConfigError, GlobalSettings, KeyReader, PREFIX};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The root queue's name; every path starts with it.
pub const ROOT: &str = "root";

/// Suffix of the default reservation queue under a plan (reservable) queue.
pub const RESERVATION_DEFAULT_SUFFIX: &str = "-default";

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

/// `<q>.ordering-policy` for a parent queue: how it orders its children.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum QueueOrdering {
    /// `utilization` (the default): least used relative to its guarantee first.
    Utilization,
    /// `priority-utilization`: higher `<q>.priority` first, then utilization.
    PriorityUtilization,
}

impl QueueOrdering {
    /// The value written in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            QueueOrdering::Utilization => "utilization",
            QueueOrdering::PriorityUtilization => "priority-utilization",
        }
    }
}

/// A queue's share of one node partition (`<q>.accessible-node-labels.<label>.*`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LabelCapacity {
    /// Its guarantee there: a percent of the parent's share (root: 100), a weight among
    /// the siblings configured for the label, or an absolute resource.
    pub capacity: CapacitySpec,
    /// Its maximum there: a percent of the parent's maximum share, or an absolute resource.
    pub maximum_capacity: MaxCapacitySpec,
    /// `<q>.accessible-node-labels.<label>.maximum-am-resource-percent`: the share of the
    /// queue's part of the partition its ApplicationMasters may hold (the queue's
    /// `maximum-am-resource-percent` when unset).
    pub maximum_am_resource_percent: f64,
}

impl LabelCapacity {
    /// The guarantee as Apache's `getLabeledQueueCapacity` reads it: a percentage, an
    /// absolute resource or a weight counting as 0 (they are worked out from the cluster).
    pub fn percent(&self) -> f64 {
        match self.capacity {
            CapacitySpec::Percent(p) => p,
            CapacitySpec::Absolute(_) | CapacitySpec::Weight(_) => 0.0,
        }
    }

    /// The maximum as Apache's `getLabeledQueueMaximumCapacity` reads it: an absolute
    /// resource counts as 100.
    pub fn maximum_percent(&self) -> f64 {
        match self.maximum_capacity {
            MaxCapacitySpec::Percent(p) => p,
            MaxCapacitySpec::Absolute(_) => 100.0,
        }
    }
}

/// The node partitions a queue may run containers in, besides the default partition,
/// which every queue may use (Apache's accessible node labels).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum LabelAccess {
    /// `*`: every partition (always the root's).
    Any,
    /// These labels only.
    Labels(BTreeSet<String>),
}

impl LabelAccess {
    /// Whether the queue may run containers on a node in `partition` (`""`: the default
    /// partition). Apache's `isAccessibleToPartition`.
    pub fn allows(&self, partition: &str) -> bool {
        match self {
            LabelAccess::Any => true,
            LabelAccess::Labels(labels) => partition.is_empty() || labels.contains(partition),
        }
    }

    /// Whether every label of `other` is one of these (Apache's `containsAll` on the sets,
    /// `*` counting as a label of its own).
    fn contains_all(&self, other: &LabelAccess) -> bool {
        match (self, other) {
            (LabelAccess::Any, LabelAccess::Any) => true,
            (LabelAccess::Labels(_), LabelAccess::Any) => false,
            (LabelAccess::Any, LabelAccess::Labels(o)) => o.is_empty(),
            (LabelAccess::Labels(s), LabelAccess::Labels(o)) => o.is_subset(s),
        }
    }

    /// The labels as Apache's `QueueInfo` lists them: `*` alone, or each label.
    pub fn names(&self) -> Vec<&str> {
        match self {
            LabelAccess::Any => vec![ANY_LABEL],
            LabelAccess::Labels(labels) => labels.iter().map(String::as_str).collect(),
        }
    }
}

/// The label that stands for every partition in `accessible-node-labels`.
pub const ANY_LABEL: &str = "*";

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
    /// `<q>.state` (RUNNING when not given).
    pub state: QueueState,
    /// Whether `<q>.state` is given: a queue without one takes its parent's state when it
    /// is created and keeps its own after that, as Apache's queues do.
    pub state_set: bool,
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
    /// `<q>.ordering-policy` of a leaf: how its applications are ordered.
    pub ordering_policy: OrderingPolicy,
    /// `<q>.ordering-policy.fair.enable-size-based-weight`: the fair policy weighs each
    /// application's usage by the logarithm of its demand.
    pub fair_size_based_weight: bool,
    /// `<q>.ordering-policy` of a parent (inherited from its parent when unset): how its
    /// children are ordered. Meaningless for a leaf.
    pub queue_ordering: QueueOrdering,
    /// Partitions this queue has capacities for, by label (from any
    /// `<q>.accessible-node-labels.<label>.*` key; the root has every label configured
    /// anywhere, at 100%).
    pub node_labels: BTreeMap<String, LabelCapacity>,
    /// `<q>.accessible-node-labels` as in effect: the queue's own list, its parent's when
    /// unset; the root's is always `*`.
    pub accessible_node_labels: LabelAccess,
    /// `<q>.default-node-label-expression` as in effect (trimmed): the partition an
    /// application's requests without a label go to. Unset, a queue takes its parent's
    /// when it may access every label its parent may (Apache's rule).
    pub default_node_label_expression: Option<String>,
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
    /// `<q>.auto-create-child-queue.enabled` (legacy auto-creation): a managed parent, even
    /// with no children. Applications placed in a missing child of it create that leaf,
    /// configured by `<q>.leaf-queue-template.*`.
    pub auto_create_child_queue: bool,
    /// `<q>.auto-create-child-queue.max-queues` of a managed parent: the leaves past which
    /// it creates no more.
    pub managed_max_queues: i64,
    /// `<q>.auto-create-child-queue.fail-on-exceeding-parent-capacity` of a managed parent:
    /// refuse a new leaf whose template guarantee would take its leaves past the parent's.
    pub managed_fail_on_exceeding: bool,
    /// A leaf a managed parent created (Apache's `AutoCreatedLeafQueue`): not "dynamic" in
    /// Apache's sense (it never expires), and not limited by `maximum-applications`.
    pub managed_leaf: bool,
    /// A managed parent's `leaf-queue-template.capacity`: the guarantee each of its leaves
    /// holds while active.
    pub leaf_template_capacity: Option<CapacitySpec>,
    /// Applications sent to a missing queue under this one create it (flexible
    /// auto-creation: `<q>.auto-queue-creation-v2.enabled`, or a parent created so). Such a
    /// queue is a parent even with no children.
    pub auto_queue_v2: bool,
    /// `<q>.auto-queue-creation-v2.max-queues`: the children (configured and created)
    /// past which this queue creates no more.
    pub auto_queue_max_queues: i64,
    /// `<q>.auto-queue-creation-v2.queue-auto-removal.enable`: a created queue may be
    /// deleted once idle (read for created queues only).
    pub auto_removal: bool,
    /// Created at run time (see [`super::autoqueue`]), not configured in the file.
    pub dynamic: bool,
    /// `<q>.reservable`: a plan queue for the reservation system. Like Apache, it gets one
    /// child, `<q>-default`, where applications submitted without a reservation run.
    pub reservable: bool,
    /// `<q>.maximum-application-lifetime` and `<q>.default-application-lifetime`, as in
    /// effect after Apache's inheritance.
    pub lifetime: Lifetimes,
    /// `<q>.disable_preemption`, if set (unset: the parent's setting, false at root).
    pub disable_preemption: Option<bool>,
    /// `<q>.intra-queue-preemption.disable_preemption`, if set (inherited likewise).
    pub intra_queue_disable_preemption: Option<bool>,
    /// `<leaf>.acl_application_max_priority`, highest `max_priority` first (none: anyone
    /// may ask for any priority up to the cluster's maximum).
    pub priority_acls: Vec<super::priority_acl::PriorityAcl>,
}

/// A queue's application lifetimes in seconds, as Apache works them out
/// (`QueueAppLifetimeAndLimitSettings`); 0 or less means none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Lifetimes {
    /// The longest an application may live: the queue's own value, or its parent's when
    /// unset (negative); 0 overrides a parent's and means none.
    pub maximum: i64,
    /// The lifetime of an application that asks for none: the queue's own value; unset,
    /// the smaller of its parent's and its maximum if any queue above set one, else its
    /// maximum.
    pub default: i64,
    /// Whether a default was set on this queue or above it.
    pub default_set: bool,
}

impl Lifetimes {
    /// Reads `path`'s keys over `parent`'s lifetimes (none for root).
    fn read(r: &mut KeyReader<'_>, path: &str, parent: Option<Lifetimes>) -> Lifetimes {
        let max_key = queue_key(path, "maximum-application-lifetime");
        let default_key = queue_key(path, "default-application-lifetime");
        let own_max = r.int(Some(path), &max_key, -1);
        let own_default = r.int(Some(path), &default_key, -1);
        let Some(parent) = parent else {
            return Lifetimes { maximum: own_max, default: own_default, default_set: own_default >= 0 };
        };
        let maximum = if own_max >= 0 { own_max } else { parent.maximum };
        let default_set = own_default >= 0 || parent.default_set;
        let mut default = match (own_default >= 0, default_set) {
            (true, _) => own_default,
            (false, true) => parent.default.min(maximum),
            (false, false) => maximum,
        };
        if maximum > 0 && default > maximum {
            r.error(
                Some(path),
                &default_key,
                format!(
                    "default lifetime {default} can't exceed maximum lifetime {maximum} (maximum-application-lifetime)"
                ),
            );
        }
        if default <= 0 {
            default = maximum;
        }
        Lifetimes { maximum, default, default_set }
    }

    /// Apache's `checkAndGetApplicationLifetime` for a leaf with these lifetimes: the
    /// lifetime asked for, the default when none (0 or less) was asked, never above the
    /// maximum.
    pub fn for_request(&self, requested: i64) -> i64 {
        if requested <= 0 {
            self.default
        } else if self.maximum > 0 && requested > self.maximum {
            self.maximum
        } else {
            requested
        }
    }
}

impl QueueConfig {
    /// `user`'s weight here (`<q>.user-settings.<user>.weight`; 1 when not given).
    pub fn user_weight(&self, user: &str) -> f64 {
        self.user_weights.get(user).copied().unwrap_or(1.0)
    }

    /// True for a queue applications run in: no children, and not a managed parent.
    pub fn is_leaf(&self) -> bool {
        self.children.is_empty() && !self.auto_create_child_queue && !self.auto_queue_v2
    }

    /// The full name of one of this queue's keys.
    pub fn key(&self, suffix: &str) -> String {
        queue_key(&self.path, suffix)
    }
}

/// `yarn.scheduler.capacity.<path>.<suffix>`.
pub fn queue_key(path: &str, suffix: &str) -> String {
    // Built by hand: a configuration's reading makes tens of thousands of these.
    let mut key = String::with_capacity(PREFIX.len() + path.len() + 1 + suffix.len());
    key.push_str(PREFIX);
    key.push_str(path);
    key.push('.');
    key.push_str(suffix);
    key
}

/// Walks the tree from root along `<q>.queues`, reading every queue's keys; each queue
/// created at run time (`dynamic`, whose keys `r` already holds) follows its parent's
/// configured children.
pub(crate) fn read_queue_tree(
    r: &mut KeyReader<'_>,
    global: &GlobalSettings,
    cluster: &ClusterSettings,
    dynamic: &[DynamicQueue],
) -> Vec<QueueConfig> {
    let mut queues: Vec<QueueConfig> = Vec::new();
    let mut stack: Vec<(String, Option<usize>)> = vec![(ROOT.to_string(), None)];
    // The created queues by path, and each parent's created children in creation order.
    let created_by_path: std::collections::HashMap<&str, &DynamicQueue> =
        dynamic.iter().map(|d| (d.path.as_str(), d)).collect();
    let mut created_under: std::collections::HashMap<&str, Vec<&str>> = std::collections::HashMap::new();
    for d in dynamic {
        if let Some((p, name)) = d.path.rsplit_once('.') {
            created_under.entry(p).or_default().push(name);
        }
    }
    // Depth-first, children in file order; a parent is always pushed before its children.
    while let Some((path, parent)) = stack.pop() {
        let index = queues.len();
        let created = created_by_path.get(path.as_str()).copied();
        // A created queue is what it was created as, whatever keys its templates write:
        // its children are the queues created under it.
        let mut children = if created.is_some() { Vec::new() } else { child_names(r, &path) };
        for &name in created_under.get(path.as_str()).map(Vec::as_slice).unwrap_or(&[]) {
            if !children.iter().any(|c| c == name) {
                children.push(name.to_string());
            }
        }
        let auto_create =
            created.is_none() && r.boolean(Some(&path), &queue_key(&path, "auto-create-child-queue.enabled"), false);
        let auto_v2 = match created {
            Some(d) => d.is_parent(),
            None => r.boolean(Some(&path), &queue_key(&path, "auto-queue-creation-v2.enabled"), false),
        };
        let reservable =
            created.is_none() && children.is_empty() && r.boolean(Some(&path), &queue_key(&path, "reservable"), false);
        if reservable {
            children.push(format!("{}{RESERVATION_DEFAULT_SUFFIX}", path.rsplit('.').next().unwrap_or(&path)));
        }
        let is_leaf = children.is_empty() && !auto_create && !auto_v2;
        let inherited = parent.map_or(QueueOrdering::Utilization, |p| queues[p].queue_ordering);
        let synthetic = parent.is_some_and(|p: usize| queues[p].reservable);
        let mut q = read_queue(r, &path, parent, is_leaf, inherited, global, cluster);
        q.lifetime = Lifetimes::read(r, &path, parent.map(|p| queues[p].lifetime));
        q.auto_create_child_queue = auto_create;
        q.auto_queue_v2 = auto_v2;
        q.auto_queue_max_queues = r.int(
            Some(&path),
            &queue_key(&path, "auto-queue-creation-v2.max-queues"),
            super::autoqueue::DEFAULT_MAX_QUEUES,
        );
        if auto_create {
            q.managed_max_queues = r.int(
                Some(&path),
                &queue_key(&path, "auto-create-child-queue.max-queues"),
                super::autoqueue::DEFAULT_MAX_QUEUES,
            );
            q.managed_fail_on_exceeding = r.boolean(
                Some(&path),
                &queue_key(&path, "auto-create-child-queue.fail-on-exceeding-parent-capacity"),
                false,
            );
            q.leaf_template_capacity = check_leaf_template(r, &path, &q);
            if r.string(&queue_key(&path, "reservable")).is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
                r.error(
                    Some(&path),
                    &queue_key(&path, "reservable"),
                    "a managed parent (auto-create-child-queue.enabled) cannot be reservable: only leaf queues can"
                        .to_string(),
                );
            }
        }
        if created.is_some_and(|d| !d.is_flexible()) {
            q.managed_leaf = true;
        } else if created.is_some() {
            q.dynamic = true;
            q.auto_removal =
                r.boolean(Some(&path), &queue_key(&path, "auto-queue-creation-v2.queue-auto-removal.enable"), true);
            if r.string(&queue_key(&path, "capacity")).filter(|v| !v.is_empty()).is_none() {
                // Apache gives a created queue without a capacity a weight of 1.
                q.capacity = CapacitySpec::Weight(1.0);
            }
        }
        q.reservable = reservable;
        resolve_node_labels(r, &mut q, parent.map(|p| &queues[p]));
        if is_leaf {
            check_default_label_expression(r, &q);
        }
        if synthetic {
            // The plan queue's default reservation queue owns all of its parent.
            q.capacity = CapacitySpec::Percent(100.0);
            q.maximum_capacity = MaxCapacitySpec::Percent(100.0);
        }
        if let Some(p) = parent {
            queues[p].children.push(index);
        }
        queues.push(q);
        for child in children.into_iter().rev() {
            stack.push((format!("{path}.{child}"), Some(index)));
        }
    }
    // The root has every partition any queue is configured for, all of it (Apache's root
    // takes every configured label), so its children's shares of each must add up.
    let configured: BTreeSet<String> = queues.iter().skip(1).flat_map(|q| q.node_labels.keys().cloned()).collect();
    if let Some(root) = queues.first_mut() {
        for label in configured {
            let am = root.maximum_am_resource_percent;
            root.node_labels.entry(label).or_insert(LabelCapacity {
                capacity: CapacitySpec::Percent(100.0),
                maximum_capacity: MaxCapacitySpec::Percent(100.0),
                maximum_am_resource_percent: am,
            });
        }
    }
    queues
}

/// A managed parent's leaf template capacity, checked as Apache checks it when it builds
/// the parent: a percentage within [0, 100], or absolute resources only under a parent that
/// uses them (a weight reads as none).
fn check_leaf_template(r: &mut KeyReader<'_>, path: &str, parent: &QueueConfig) -> Option<CapacitySpec> {
    let key = queue_key(path, "leaf-queue-template.capacity");
    let value = r.string(&key).map(|v| v.trim().to_string()).filter(|v| !v.is_empty())?;
    let spec = match super::capacity::parse_capacity(&value) {
        Ok(spec) => spec,
        Err(e) => {
            r.error(Some(path), &key, e);
            return None;
        }
    };
    match spec {
        CapacitySpec::Absolute(_) if !matches!(parent.capacity, CapacitySpec::Absolute(_)) => r.error(
            Some(path),
            &key,
            format!("is absolute resources ({value}) but the managed parent's capacity is not: Managed Parent Queue {path} config type is different from leaf queue template config type"),
        ),
        CapacitySpec::Percent(pct) if !(0.0..=100.0).contains(&pct) => r.error(
            Some(path),
            &key,
            format!(
                "Illegal capacity of {} for queue {path}.leaf-queue-template: a percentage must be within [0, 100]",
                crate::java_order::float_to_string(pct as f32)
            ),
        ),
        CapacitySpec::Weight(_) => return Some(CapacitySpec::Percent(0.0)),
        _ => {}
    }
    Some(spec)
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
    is_leaf: bool,
    inherited_ordering: QueueOrdering,
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
    let state_set = r.string(&key("state")).is_some();
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
    let raw_acl = |suffix: &str| r.props.get_raw(&key(suffix)).map(|v| AccessControlList::parse(&r.props.expand(v)));
    let acl_submit_applications =
        raw_acl("acl_submit_applications").unwrap_or_else(|| acl(r, "acl_submit_applications"));
    let acl_administer_queue = raw_acl("acl_administer_queue").unwrap_or_else(|| acl(r, "acl_administer_queue"));

    let (ordering_policy, queue_ordering) = read_ordering(r, path, is_leaf, inherited_ordering);

    let user_limit_factor = r.float(q, &key("user-limit-factor"), 1.0);
    let mulp_default = r.float(None, &super::global_key("minimum-user-limit-percent"), 100.0);
    let minimum_user_limit_percent = r.float(q, &key("minimum-user-limit-percent"), mulp_default);
    if !(minimum_user_limit_percent > 0.0 && minimum_user_limit_percent <= 100.0) {
        r.error(q, &key("minimum-user-limit-percent"), format!("{minimum_user_limit_percent} is outside (0, 100]"));
    }
    let maximum_am_resource_percent =
        r.float(q, &key("maximum-am-resource-percent"), global.maximum_am_resource_percent);
    if !(0.0..=1.0).contains(&maximum_am_resource_percent) {
        // Apache accepts any value here; say what it means.
        r.warnings.push(ConfigError::at_queue(
            path,
            key("maximum-am-resource-percent"),
            format!("{maximum_am_resource_percent} is outside [0, 1]: this key is a fraction (0.1 = 10%)"),
        ));
    }
    let node_labels = read_node_labels(r, path, is_root, maximum_am_resource_percent);
    let maximum_applications = r.opt_int(q, &key("maximum-applications")).filter(|&n| n >= 0);
    let max_parallel_apps = r.opt_int(q, &key("max-parallel-apps")).or(global.max_parallel_apps);

    let max_mb = r.int(q, &key("maximum-allocation-mb"), cluster.maximum_allocation.memory_mb);
    let max_vcores = r.int(q, &key("maximum-allocation-vcores"), cluster.maximum_allocation.vcores);

    let mut user_weights = BTreeMap::new();
    let prefix = queue_key(path, "user-settings.");
    let weight_keys: Vec<String> =
        r.props.names_with_prefix(&prefix).filter(|k| k.ends_with(".weight")).map(str::to_string).collect();
    for k in weight_keys {
        let user = &k[prefix.len()..k.len() - ".weight".len()];
        if user.is_empty() || user.contains('.') {
            continue;
        }
        let w = r.float(q, &k, 1.0);
        // Apache's rule (UserWeights.validateForLeafQueue), in its floats: a user may weigh
        // at most as many users as minimum-user-limit-percent lets share the leaf.
        let most = 100.0 / minimum_user_limit_percent as f32;
        if w < 0.0 {
            r.errors.push(ConfigError::at_queue(path, &k, format!("user weight {w} is negative")));
        } else if is_leaf && w as f32 > most {
            r.errors.push(ConfigError::at_queue(
                path,
                &k,
                format!(
                    "user weight {w} is more than {most}, the number of users minimum-user-limit-percent \
                     ({minimum_user_limit_percent}) lets share the queue at once"
                ),
            ));
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
        state_set,
        user_limit_factor,
        minimum_user_limit_percent,
        maximum_applications,
        maximum_am_resource_percent,
        max_parallel_apps,
        acl_submit_applications,
        acl_administer_queue,
        ordering_policy,
        fair_size_based_weight: r.boolean(q, &key("ordering-policy.fair.enable-size-based-weight"), false),
        queue_ordering,
        node_labels,
        // Both worked out with the parent's (see `resolve_node_labels`).
        accessible_node_labels: LabelAccess::Any,
        default_node_label_expression: None,
        default_application_priority: r.int(q, &key("default-application-priority"), 0),
        priority: r.int(q, &key("priority"), 0),
        maximum_allocation: crate::resource::Resource::new(max_mb, max_vcores),
        user_weights,
        allow_zero_capacity_sum: r.boolean(q, &key("allow-zero-capacity-sum"), false),
        auto_create_child_queue: false,
        managed_max_queues: super::autoqueue::DEFAULT_MAX_QUEUES,
        managed_fail_on_exceeding: false,
        managed_leaf: false,
        leaf_template_capacity: None,
        auto_queue_v2: false,
        auto_queue_max_queues: super::autoqueue::DEFAULT_MAX_QUEUES,
        auto_removal: false,
        dynamic: false,
        reservable: false,
        lifetime: Lifetimes { maximum: -1, default: -1, default_set: false },
        disable_preemption: r.opt_boolean(q, &key("disable_preemption")),
        intra_queue_disable_preemption: r.opt_boolean(q, &key("intra-queue-preemption.disable_preemption")),
        priority_acls: if is_leaf { read_priority_acls(r, path) } else { Vec::new() },
    }
}

/// A leaf's `acl_application_max_priority` (Apache reads it for leaves only).
fn read_priority_acls(r: &mut KeyReader<'_>, path: &str) -> Vec<super::priority_acl::PriorityAcl> {
    let key = queue_key(path, "acl_application_max_priority");
    let Some(value) = r.string(&key) else { return Vec::new() };
    super::priority_acl::parse(&value).unwrap_or_else(|m| {
        r.error(Some(path), &key, m);
        Vec::new()
    })
}

/// The application ordering policy names Apache knows, short and as class names.
const APP_ORDERING_POLICIES: &[(&str, OrderingPolicy)] = &[
    ("fifo", OrderingPolicy::Fifo),
    ("fair", OrderingPolicy::Fair),
    ("fifo-with-partitions", OrderingPolicy::Fifo),
    ("fifo-for-pending-apps", OrderingPolicy::Fifo),
    ("org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.FifoOrderingPolicy", OrderingPolicy::Fifo),
    ("org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.FairOrderingPolicy", OrderingPolicy::Fair),
    (
        "org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.FifoOrderingPolicyWithExclusivePartitions",
        OrderingPolicy::Fifo,
    ),
    (
        "org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.FifoOrderingPolicyForPendingApps",
        OrderingPolicy::Fifo,
    ),
];

/// `<q>.ordering-policy` means different things on a leaf (application ordering: fifo,
/// fair, ...) and on a parent (queue ordering: utilization, priority-utilization), and a
/// parent's default is its own parent's policy. Apache treats any other value as a class
/// name and refuses the file when no such class exists; so do we.
fn read_ordering(
    r: &mut KeyReader<'_>,
    path: &str,
    is_leaf: bool,
    inherited: QueueOrdering,
) -> (OrderingPolicy, QueueOrdering) {
    let key = queue_key(path, "ordering-policy");
    let value = r.props.get_raw(&key).map(|v| r.props.expand(v).trim().to_string());
    if is_leaf {
        let policy = match value {
            None => OrderingPolicy::Fifo,
            Some(v) => match APP_ORDERING_POLICIES.iter().find(|(name, _)| *name == v) {
                Some((_, p)) => *p,
                None => {
                    r.error(Some(path), &key, format!(
                        "'{v}' is not an application ordering policy: a leaf queue takes fifo, fair, fifo-with-partitions or fifo-for-pending-apps"
                    ));
                    OrderingPolicy::Fifo
                }
            },
        };
        return (policy, inherited);
    }
    let ordering = match value.as_deref() {
        None => inherited,
        Some("utilization") => QueueOrdering::Utilization,
        Some("priority-utilization") => QueueOrdering::PriorityUtilization,
        Some(v) => {
            let hint = if APP_ORDERING_POLICIES.iter().any(|(name, _)| *name == v) {
                format!(" ('{v}' orders applications, which only a leaf queue has)")
            } else {
                String::new()
            };
            r.error(Some(path), &key, format!(
                "'{v}' is not a queue ordering policy: a parent queue takes utilization (the default) or priority-utilization{hint}"
            ));
            inherited
        }
    };
    (OrderingPolicy::Fifo, ordering)
}

/// Reads `<q>.accessible-node-labels.<label>.capacity` / `.maximum-capacity` for every
/// label that any `<q>.accessible-node-labels.<label>.*` key names, as Apache's
/// `getConfiguredNodeLabelsByQueue` finds them. The root always has 100% of a partition.
fn read_node_labels(
    r: &mut KeyReader<'_>,
    path: &str,
    is_root: bool,
    maximum_am_resource_percent: f64,
) -> BTreeMap<String, LabelCapacity> {
    let prefix = queue_key(path, "accessible-node-labels.");
    let labels: std::collections::BTreeSet<String> = r
        .props
        .names_with_prefix(&prefix)
        .filter_map(|k| k[prefix.len()..].split_once('.').map(|(label, _)| label.to_string()))
        .collect();
    let mut out = BTreeMap::new();
    for label in labels {
        let capacity_key = format!("{prefix}{label}.capacity");
        let maximum_key = format!("{prefix}{label}.maximum-capacity");
        let (capacity, maximum_capacity) = if is_root {
            (CapacitySpec::Percent(100.0), MaxCapacitySpec::Percent(100.0))
        } else {
            (
                read_label_capacity(r, path, &capacity_key).unwrap_or(CapacitySpec::Percent(0.0)),
                read_label_maximum(r, path, &maximum_key).unwrap_or(MaxCapacitySpec::Percent(100.0)),
            )
        };
        let am_key = format!("{prefix}{label}.maximum-am-resource-percent");
        let maximum_am_resource_percent = r.float(Some(path), &am_key, maximum_am_resource_percent);
        out.insert(label, LabelCapacity { capacity, maximum_capacity, maximum_am_resource_percent });
    }
    out
}

/// `<q>.accessible-node-labels.<label>.capacity`: a percentage within [0, 100], a weight
/// (`2w`) or an absolute resource (`[memory=4096,vcores=4]`); None when unset or wrong
/// (the error recorded).
fn read_label_capacity(r: &mut KeyReader<'_>, path: &str, key: &str) -> Option<CapacitySpec> {
    let raw = r.string(key).filter(|v| !v.trim().is_empty())?;
    match super::capacity::parse_capacity(&raw) {
        Ok(CapacitySpec::Percent(v)) if !(0.0..=100.0).contains(&v) => {
            r.error(Some(path), key, format!("{v} is outside [0, 100]"));
            None
        }
        Ok(spec) => Some(spec),
        Err(e) => {
            r.error(Some(path), key, e);
            None
        }
    }
}

/// `<q>.accessible-node-labels.<label>.maximum-capacity`: a percentage within [0, 100]
/// (unlike the queue's own maximum, not -1) or an absolute resource; a weight is ignored,
/// as Apache ignores it. None when unset or wrong (the error recorded).
fn read_label_maximum(r: &mut KeyReader<'_>, path: &str, key: &str) -> Option<MaxCapacitySpec> {
    let raw = r.string(key).filter(|v| !v.trim().is_empty())?;
    if raw.trim().ends_with('w') {
        return None;
    }
    if !raw.trim().starts_with('[') {
        return match super::capacity::parse_java_float(&raw) {
            Some(v) if (0.0..=100.0).contains(&v) => Some(MaxCapacitySpec::Percent(v)),
            Some(v) => {
                r.error(Some(path), key, format!("{v} is outside [0, 100]"));
                None
            }
            None => {
                r.error(Some(path), key, format!("'{raw}' is not a number"));
                None
            }
        };
    }
    match super::capacity::parse_maximum_capacity(&raw) {
        Ok(spec) => Some(spec),
        Err(e) => {
            r.error(Some(path), key, e);
            None
        }
    }
}

/// `<q>.accessible-node-labels` as written, None when unset (Apache's
/// `getAccessibleNodeLabels`): a comma-separated list, where `*` means every partition.
/// The root may always access every partition, whatever it says.
fn read_accessible_labels(r: &mut KeyReader<'_>, path: &str, is_root: bool) -> Option<LabelAccess> {
    let key = queue_key(path, "accessible-node-labels");
    let value = r.props.get_raw(&key).map(|v| r.props.expand(v));
    if is_root {
        if value.is_some() {
            r.warnings.push(ConfigError::at_queue(
                path,
                &key,
                "ignored: the root may always access every node label (*)".to_string(),
            ));
        }
        return Some(LabelAccess::Any);
    }
    let labels: BTreeSet<String> =
        value?.split(',').map(str::trim).filter(|l| !l.is_empty()).map(str::to_string).collect();
    Some(if labels.contains(ANY_LABEL) { LabelAccess::Any } else { LabelAccess::Labels(labels) })
}

/// Works out `q`'s accessible labels and default label expression from its own keys and
/// its parent's (already worked out), and checks them as Apache's
/// `QueueNodeLabelsSettings` and leaf queues do: a child may access only labels its
/// parent may, and a leaf's default expression only labels it may access.
fn resolve_node_labels(r: &mut KeyReader<'_>, q: &mut QueueConfig, parent: Option<&QueueConfig>) {
    let path = q.path.clone();
    let own = read_accessible_labels(r, &path, parent.is_none());
    q.accessible_node_labels = match (own, parent) {
        (Some(own), _) => own,
        (None, Some(p)) => p.accessible_node_labels.clone(),
        (None, None) => LabelAccess::Any,
    };
    let default_key = queue_key(&path, "default-node-label-expression");
    q.default_node_label_expression = r.string(&default_key);
    let Some(p) = parent else { return };
    if q.default_node_label_expression.is_none() && q.accessible_node_labels.contains_all(&p.accessible_node_labels) {
        q.default_node_label_expression = p.default_node_label_expression.clone();
    }
    let access_key = queue_key(&path, "accessible-node-labels");
    if let LabelAccess::Labels(parents) = &p.accessible_node_labels {
        match &q.accessible_node_labels {
            LabelAccess::Any => r.error(
                Some(&path),
                &access_key,
                format!("'*' is not allowed here: the parent, {}, may access only [{}]", p.path, join(parents)),
            ),
            LabelAccess::Labels(own) => {
                let extra: BTreeSet<String> = own.difference(parents).cloned().collect();
                if !extra.is_empty() {
                    r.error(
                        Some(&path),
                        &access_key,
                        format!(
                            "labels [{}] are not accessible to the parent, {}, which may access only [{}]",
                            join(&extra),
                            p.path,
                            join(parents)
                        ),
                    );
                }
            }
        }
    }
}

/// A leaf's default label expression may name only labels the leaf may access (Apache's
/// `checkQueueLabelExpression`, each `&&` part alone).
fn check_default_label_expression(r: &mut KeyReader<'_>, q: &QueueConfig) {
    let Some(expression) = q.default_node_label_expression.as_deref() else { return };
    let denied: Vec<&str> = expression
        .split("&&")
        .map(str::trim)
        .filter(|l| !l.is_empty() && !q.accessible_node_labels.allows(l))
        .collect();
    if !denied.is_empty() {
        r.error(
            Some(&q.path),
            &queue_key(&q.path, "default-node-label-expression"),
            format!(
                "'{expression}' names {} the queue may not access (its accessible-node-labels: [{}])",
                denied.iter().map(|l| format!("'{l}'")).collect::<Vec<_>>().join(", "),
                q.accessible_node_labels.names().join(",")
            ),
        );
    }
}

fn join(labels: &BTreeSet<String>) -> String {
    labels.iter().map(String::as_str).collect::<Vec<_>>().join(",")
}
