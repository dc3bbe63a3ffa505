//! Views of the queues for the people and tools that read them: each live queue as a row
//! of figures (for the RM's queue views over JNI), and a configuration's tree as text (for
//! the `capsched check` command).

use crate::config::{CapacitySpec, MaxCapacitySpec, SchedulerConfig};
use crate::ids::QueueIndex;
pub use crate::model::RuntimeState;
use crate::model::{QueueTree, State};
use crate::policy::{admission, limits};
use crate::resource::Resource;
use std::fmt::Write;

/// One live queue as the RM's queue views show it (`yarn queue -status`, QueueInfo,
/// QueueMetrics). Capacities are fractions: "absolute" ones of the cluster, the others of
/// the parent.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueRow {
    /// The configured capacity (0 for a weight-mode queue, as Apache reports it).
    pub capacity: f64,
    /// The configured maximum capacity.
    pub maximum_capacity: f64,
    /// The guarantee as a share of the cluster.
    pub absolute_capacity: f64,
    /// The maximum as a share of the cluster.
    pub absolute_maximum_capacity: f64,
    /// Used as a share of the guarantee.
    pub used_capacity: f64,
    /// Used as a share of the cluster.
    pub absolute_used_capacity: f64,
    /// What the queue and its descendants hold.
    pub used: Resource,
    /// Applications in the queue and its descendants.
    pub applications: usize,
    /// RUNNING, STOPPED or DRAINING now (a queue is stopped when it or an ancestor is).
    pub state: RuntimeState,
    /// The parent's index (`None` for root).
    pub parent: Option<QueueIndex>,
    /// The weight, for a weight-mode queue.
    pub weight: Option<f64>,
    /// The weight over the sum of its weight-mode siblings' (Apache's normalized weight,
    /// the share of the parent it stands for); 0 unless the capacity is a weight.
    pub normalized_weight: f64,
    /// Applications the queue admits at once.
    pub maximum_applications: i64,
    /// `user-limit-factor`.
    pub user_limit_factor: f64,
    /// `minimum-user-limit-percent`.
    pub minimum_user_limit_percent: f64,
    /// `maximum-am-resource-percent`.
    pub maximum_am_resource_percent: f64,
    /// `max-parallel-apps`, when limited.
    pub max_parallel_apps: Option<i64>,
    /// The largest container the queue's applications may ask for
    /// (`maximum-allocation-mb` / `-vcores`, the cluster's by default).
    pub maximum_allocation: Resource,
    /// The guarantee in every resource (Apache's effective minimum resource).
    pub effective_min: Resource,
    /// The most the queue may hold in every resource (Apache's effective maximum).
    pub effective_max: Resource,
    /// What its ApplicationMasters may hold (leaves; zero for parents).
    pub am_limit: Resource,
    /// What its activated applications' ApplicationMasters hold (leaves).
    pub am_used: Resource,
    /// What one user's ApplicationMasters may hold, for a user of weight 1 (leaves).
    pub user_am_limit: Resource,
    /// Applications activated (leaves).
    pub active_applications: usize,
    /// Applications waiting for activation (leaves).
    pub pending_applications: usize,
    /// Containers and reservations its applications hold, in every partition (leaves;
    /// Apache's `numContainers`).
    pub containers: usize,
    /// The part of `used` held by reservations.
    pub reserved: Resource,
    /// Applications one user may have in the queue at once (leaves).
    pub maximum_applications_per_user: i64,
    /// Applications counted against `max-parallel-apps` in the queue and below.
    pub runnable_applications: usize,
    /// The queue's application lifetimes (seconds) in effect.
    pub lifetime: crate::config::queue::Lifetimes,
    /// Whether capacity preemption may take its containers (see [`crate::preemption::switches`]).
    pub preemption: crate::preemption::Switches,
    /// How it orders its children (a parent's own `ordering-policy`, else its parent's).
    pub queue_ordering: crate::config::QueueOrdering,
    /// Applications run in it (a parent that may create children is no leaf, even
    /// childless).
    pub leaf: bool,
    /// How it came to be (Apache's `creationMethod`).
    pub creation: CreationMethod,
    /// Queues may be created under it (`autoCreationEligibility`).
    pub auto_creation: AutoCreation,
}

/// How a queue came to be (Apache's `creationMethod`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreationMethod {
    /// Configured in the file.
    Static,
    /// Created by flexible auto-creation.
    Flexible,
    /// A managed parent's leaf (legacy auto-creation).
    Legacy,
}

/// Whether queues may be created under a queue (Apache's `autoCreationEligibility`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutoCreation {
    /// Not at all.
    Off,
    /// Flexible auto-creation (`auto-queue-creation-v2`).
    Flexible,
    /// A managed parent (`auto-create-child-queue.enabled`).
    Legacy,
}

/// One user of one leaf queue, as the RM's scheduler views show it (Apache's `UserInfo`).
#[derive(Debug, Clone, PartialEq)]
pub struct UserRow {
    /// The leaf's index.
    pub queue: QueueIndex,
    /// The user's name.
    pub user: String,
    /// What the user's containers hold in the leaf, in every partition.
    pub used: Resource,
    /// The part of it in the default partition.
    pub used_default: Resource,
    /// What the user's ApplicationMasters hold.
    pub am_used: Resource,
    /// The user's limit now, weight applied.
    pub limit: Resource,
    /// The user's activated applications.
    pub active_applications: usize,
    /// The user's applications waiting for activation.
    pub pending_applications: usize,
    /// The user's weight in the leaf.
    pub weight: f64,
    /// The user's applications that make it one of Apache's active users, who share the
    /// leaf now (see [`crate::model::users::UserState::is_active`]); the user is active
    /// when there is one or more.
    pub apps_counted_active: usize,
    /// What any of the user's applications could still get (its headroom).
    pub headroom: Resource,
    /// What the user's ApplicationMasters may hold, its weight applied.
    pub am_limit: Resource,
}

/// One labelled partition of one queue, as the scheduler views list it (Apache's
/// `PartitionQueueCapacitiesInfo` and `PartitionResourcesInfo`); the default partition's
/// figures are the queue's own row. Capacities are fractions: "absolute" ones of the
/// partition, the others of the parent's share of it.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionRow {
    /// The queue's index.
    pub queue: QueueIndex,
    /// The partition's label.
    pub label: String,
    /// Listed among the queue's capacities.
    pub in_capacities: bool,
    /// Listed among the queue's resources (usage).
    pub in_usage: bool,
    /// The queue has `accessible-node-labels.<label>.*` keys (the root: some queue has).
    pub configured: bool,
    /// `accessible-node-labels.<label>.capacity` (the root: 1).
    pub capacity: f64,
    /// `accessible-node-labels.<label>.maximum-capacity` (0 where the queue has no keys).
    pub maximum_capacity: f64,
    /// The guarantee, a share of the partition.
    pub absolute_capacity: f64,
    /// The maximum, a share of the partition.
    pub absolute_maximum_capacity: f64,
    /// Used, a share of the guarantee there (at least the minimum allocation).
    pub used_capacity: f64,
    /// Used, a share of the partition.
    pub absolute_used_capacity: f64,
    /// The label's `maximum-am-resource-percent` (leaves with keys; else 0).
    pub maximum_am_resource_percent: f64,
    /// The label's capacity given as a weight; -1 otherwise.
    pub weight: f64,
    /// That weight over the siblings' there (0 without one).
    pub normalized_weight: f64,
    /// The guarantee there (Apache's effective minimum resource).
    pub effective_min: Resource,
    /// The maximum there.
    pub effective_max: Resource,
    /// The maximum there as an absolute resource, configured or (for a queue given an
    /// absolute guarantee) inherited from the parent; None without one.
    pub configured_max: Option<Resource>,
    /// What the queue and its descendants hold there.
    pub used: Resource,
    /// The part of `used` held by reservations.
    pub reserved: Resource,
    /// What its ApplicationMasters there hold (leaves).
    pub am_used: Resource,
    /// What they may hold (leaves).
    pub am_limit: Resource,
    /// What one user's may hold, for a user of weight 1 (leaves).
    pub user_am_limit: Resource,
}

/// One labelled partition of one user of a leaf (the default partition's figures are the
/// user's own row).
#[derive(Debug, Clone, PartialEq)]
pub struct UserPartitionRow {
    /// The user's index among [`user_rows`].
    pub user: usize,
    /// The partition's label.
    pub label: String,
    /// What the user's containers hold there.
    pub used: Resource,
    /// What the user's ApplicationMasters there hold.
    pub am_used: Resource,
    /// What they may hold, the user's weight applied.
    pub am_limit: Resource,
}

/// Every queue's labelled partitions as its views list them (see
/// [`crate::model::queue::ShownPartitions`]), queues in tree order.
pub fn partition_rows(state: &State) -> Vec<PartitionRow> {
    let calc = state.calculator();
    let mut out = Vec::new();
    for (index, q) in state.queues.queues.iter().enumerate() {
        let shown = &q.shown;
        let mut partitions: Vec<crate::model::PartitionId> = shown.capacities.clone();
        partitions.extend(shown.usage.iter().filter(|p| !shown.capacities.contains(p)));
        for p in partitions {
            let label = state.partitions.get(p).name.clone();
            let total = state.partitions.get(p).resource;
            let root = q.config.parent.is_none();
            let keys = q.config.node_labels.get(&label);
            let configured = keys.is_some();
            // As configured, whether or not the cluster has the label now.
            let (absolute_capacity, absolute_maximum_capacity) = match (root, configured) {
                (true, _) => (1.0, 1.0),
                (false, true) => state.queues.configured_label_shares(index, &label, Some(p)),
                (false, false) => (0.0, 0.0),
            };
            let absolute = keys.is_some_and(|k| matches!(k.capacity, CapacitySpec::Absolute(_)));
            let live_share = q.labelled.get(&p);
            let (effective_min, effective_max) = match (root, configured, live_share) {
                (true, ..) => (total, total),
                (false, true, Some(s)) if absolute => (s.effective_min, s.effective_max),
                (false, true, _) => (total.scaled(absolute_capacity), total.scaled(absolute_maximum_capacity)),
                (false, false, _) => (Resource::ZERO, Resource::ZERO),
            };
            // Apache derives an absolute resource's capacity and maximum from its vectors
            // (over the parent's); it reads a weight's capacity as 0.
            let relative = live_share.and_then(|s| s.relative_shares).filter(|_| absolute);
            let capacity = match (root, relative, keys) {
                (true, ..) => 1.0,
                (false, Some((min, _)), _) => f64::from(min),
                (false, None, k) => k.map_or(0.0, |k| k.percent() / 100.0),
            };
            let maximum_capacity = match (relative, keys) {
                (Some((_, max)), _) => f64::from(max),
                (None, k) => k.map_or(0.0, |k| k.maximum_percent() / 100.0),
            };
            let normalized_weight = live_share.map_or(0.0, |s| s.normalized_weight);
            let weight = match keys.map(|k| k.capacity) {
                Some(CapacitySpec::Weight(w)) if !root => w,
                _ => -1.0,
            };
            let configured_max = live_share.and_then(|s| s.configured_max).or(match keys.map(|k| k.maximum_capacity) {
                Some(MaxCapacitySpec::Absolute(r)) if r.memory_mb > 0 => Some(r),
                _ => None,
            });
            let used = q.used_in(p);
            let (used_capacity, absolute_used_capacity) = if calc.greater_than(total, total, Resource::ZERO) {
                let guarantee = calc.max(total, effective_min, state.minimum_allocation());
                (calc.divide(total, used, guarantee), calc.divide(total, used, total))
            } else {
                (0.0, 0.0)
            };
            let leaf = q.is_leaf();
            let am_limit = if leaf { limits::queue_am_limit_in(state, index, p) } else { Resource::ZERO };
            out.push(PartitionRow {
                queue: index,
                label,
                in_capacities: shown.capacities.contains(&p),
                in_usage: shown.usage.contains(&p),
                configured,
                capacity,
                maximum_capacity,
                absolute_capacity,
                absolute_maximum_capacity,
                used_capacity,
                absolute_used_capacity,
                maximum_am_resource_percent: match (leaf, keys) {
                    (true, Some(k)) => k.maximum_am_resource_percent,
                    _ => 0.0,
                },
                weight,
                normalized_weight,
                configured_max,
                effective_min,
                effective_max,
                used,
                reserved: q.reserved_in(p),
                am_used: q.am_used_in(p),
                am_limit,
                user_am_limit: if leaf {
                    limits::user_am_limit_in(state, index, "", p, am_limit)
                } else {
                    Resource::ZERO
                },
            });
        }
    }
    out
}

/// Every user's labelled partitions (where it was ever allocated or had an
/// ApplicationMaster activated, as Apache's user usage keeps them), users as
/// [`user_rows`] orders them.
pub fn user_partition_rows(state: &State) -> Vec<UserPartitionRow> {
    let mut out = Vec::new();
    let mut user = 0;
    for (index, q) in state.queues.queues.iter().enumerate() {
        if !q.is_leaf() {
            continue;
        }
        let mut names: Vec<&String> = q.users.keys().collect();
        names.sort();
        for name in names {
            let u = &q.users[name];
            let mut partitions: Vec<_> = u.labelled.iter().collect();
            partitions.sort_by_key(|(p, _)| **p);
            for (&p, use_) in partitions {
                let queue_am_limit = limits::queue_am_limit_in(state, index, p);
                out.push(UserPartitionRow {
                    user,
                    label: state.partitions.get(p).name.clone(),
                    used: use_.used,
                    am_used: use_.am_used,
                    am_limit: limits::user_am_limit_in(state, index, name, p, queue_am_limit),
                });
            }
            user += 1;
        }
    }
    out
}

/// Every user with applications or usage in a leaf, leaves in tree order and users by name.
pub fn user_rows(state: &State) -> Vec<UserRow> {
    let mut out = Vec::new();
    for (index, q) in state.queues.queues.iter().enumerate() {
        if !q.is_leaf() {
            continue;
        }
        let mut names: Vec<&String> = q.users.keys().collect();
        names.sort();
        let queue_am_limit = limits::queue_am_limit(state, index);
        for name in names {
            let u = &q.users[name];
            out.push(UserRow {
                queue: index,
                user: name.clone(),
                // In every partition, as Apache's user records list it (`getAllUsed`).
                used: u.labelled.values().fold(u.used, |s, x| s.plus(x.used)),
                used_default: u.used,
                am_used: u.am_used,
                limit: limits::limit_for_user(state, index, name),
                active_applications: u.active_apps,
                pending_applications: u.pending_apps,
                weight: q.config.user_weight(name),
                apps_counted_active: u.apps_counted_active,
                headroom: limits::user_headroom(state, index, name),
                am_limit: limits::user_am_limit(state, index, name, queue_am_limit),
            });
        }
    }
    out
}

/// Every queue's row, in tree order (root first, parents before children).
pub fn queue_rows(state: &State) -> Vec<QueueRow> {
    // Each parent's children's weights, summed, and every queue's preemption switches.
    let mut weight_sums = vec![0.0; state.queues.queues.len()];
    for q in &state.queues.queues {
        if let (Some(parent), Some(w)) = (q.config.parent, weight(q)) {
            weight_sums[parent] += w;
        }
    }
    let switches = crate::preemption::switches(state);
    (0..state.queues.queues.len()).map(|index| queue_row(state, index, &weight_sums, &switches)).collect()
}

/// What YARN's QueueInfo of one queue shows (without its children), and an application's
/// usage report reads of its queue: the queue's capacities, use, weight, state, parallel
/// application limit and preemption switches. Worked out for that queue alone, from its
/// own and its ancestors' records: every AM heartbeat reads it (the RM's request
/// validation asks for the queue's QueueInfo twice), so it costs the same with 10 queues
/// of 10 applications as with 1,000 queues of thousands.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueInfoRow {
    /// As [`QueueRow::capacity`].
    pub capacity: f64,
    /// As [`QueueRow::maximum_capacity`].
    pub maximum_capacity: f64,
    /// As [`QueueRow::absolute_capacity`].
    pub absolute_capacity: f64,
    /// As [`QueueRow::used_capacity`].
    pub used_capacity: f64,
    /// As [`QueueRow::weight`].
    pub weight: Option<f64>,
    /// As [`QueueRow::state`].
    pub state: RuntimeState,
    /// As [`QueueRow::max_parallel_apps`].
    pub max_parallel_apps: Option<i64>,
    /// As [`QueueRow::preemption`].
    pub preemption: crate::preemption::Switches,
}

/// The QueueInfo figures of the queue at `index` ([`QueueInfoRow`]).
pub fn queue_info_row(state: &State, index: QueueIndex) -> QueueInfoRow {
    let q = state.queues.get(index);
    let (capacity, maximum_capacity) = configured_shares(state, index);
    QueueInfoRow {
        capacity,
        maximum_capacity,
        absolute_capacity: cluster_share(state, index, q.absolute_capacity),
        used_capacity: q.used_capacity(state.calculator(), state.default_partition(), state.minimum_allocation()),
        weight: weight(q),
        state: q.state,
        max_parallel_apps: q.config.max_parallel_apps,
        preemption: crate::preemption::switches_of(state, index),
    }
}

/// A queue's configured capacity and maximum capacity, as shares of its parent's (NaN
/// while an absolute-resource queue has no cluster to be a share of).
fn configured_shares(state: &State, index: QueueIndex) -> (f64, f64) {
    let queues = &state.queues;
    let q = queues.get(index);
    let parent = q.config.parent.map(|p| queues.get(p));
    let relative = |abs: f64, parent_abs: f64| if parent_abs > 0.0 { abs / parent_abs } else { 0.0 };
    // Apache reports 0 as the configured capacity of a weight-mode queue (its share is in
    // the absolute capacity and the weight); we report the same.
    let capacity = match (q.config.capacity, parent, q.relative_shares) {
        (CapacitySpec::Percent(p), _, _) => p / 100.0,
        (CapacitySpec::Weight(_), Some(_), _) => 0.0,
        (_, Some(_), Some((min, _))) => f64::from(min),
        (_, Some(p), None) => relative(q.absolute_capacity, p.absolute_capacity),
        (_, None, _) => 1.0,
    };
    let maximum_capacity = match (q.config.maximum_capacity, parent, q.relative_shares) {
        (MaxCapacitySpec::Percent(p), _, _) => p / 100.0,
        (_, Some(_), Some((_, max))) => f64::from(max),
        (_, Some(p), None) => relative(q.absolute_maximum_capacity, p.absolute_maximum_capacity),
        (_, None, _) => 1.0,
    };
    (cluster_share(state, index, capacity), cluster_share(state, index, maximum_capacity))
}

/// `f`, a share worked out from the queue's resources: undefined (0 over 0) for an
/// absolute-resource queue until a NodeManager registers, as Apache reports it.
fn cluster_share(state: &State, index: QueueIndex, f: f64) -> f64 {
    if matches!(state.queues.get(index).config.capacity, CapacitySpec::Absolute(_)) && state.cluster.is_none() {
        f64::NAN
    } else {
        f
    }
}

fn weight(q: &crate::model::Queue) -> Option<f64> {
    match q.config.capacity {
        CapacitySpec::Weight(w) => Some(w),
        _ => None,
    }
}

/// The row of the queue at `index`, given its siblings' weights summed (`weight_sums`, by
/// parent) and every queue's preemption switches.
fn queue_row(
    state: &State,
    index: QueueIndex,
    weight_sums: &[f64],
    switches: &[crate::preemption::Switches],
) -> QueueRow {
    let calc = state.calculator();
    let queues = &state.queues;
    let q = queues.get(index);
    let (capacity, maximum_capacity) = configured_shares(state, index);
    let leaf = q.is_leaf();
    let am_limit = if leaf { limits::queue_am_limit(state, index) } else { Resource::ZERO };
    let (active_applications, pending_applications) = if leaf {
        let count = |f: fn(&crate::model::App) -> bool| q.apps.iter().filter(|&&k| state.app(k).is_some_and(f)).count();
        (count(|a| a.active), count(|a| a.runnable && !a.active))
    } else {
        (0, 0)
    };
    let containers = if leaf {
        q.apps.iter().filter_map(|k| state.apps.get(k)).map(|a| a.containers.len() + a.reservations.len()).sum()
    } else {
        0
    };
    let applications = queues.apps_under(index);
    QueueRow {
        capacity,
        maximum_capacity,
        absolute_capacity: cluster_share(state, index, q.absolute_capacity),
        absolute_maximum_capacity: cluster_share(state, index, q.absolute_maximum_capacity),
        used_capacity: q.used_capacity(calc, state.default_partition(), state.minimum_allocation()),
        absolute_used_capacity: calc.ratio(q.used, state.default_partition()),
        used: q.used,
        applications,
        state: q.state,
        parent: q.config.parent,
        weight: weight(q),
        normalized_weight: match (weight(q), q.config.parent) {
            (Some(w), Some(parent)) if weight_sums[parent] > 0.0 => w / weight_sums[parent],
            _ => 0.0,
        },
        maximum_applications: admission::maximum_applications(state, index),
        user_limit_factor: q.config.user_limit_factor,
        minimum_user_limit_percent: q.config.minimum_user_limit_percent,
        maximum_am_resource_percent: q.config.maximum_am_resource_percent,
        max_parallel_apps: q.config.max_parallel_apps,
        maximum_allocation: q.config.maximum_allocation,
        effective_min: q.effective_min,
        effective_max: q.effective_max,
        am_limit,
        am_used: q.am_used,
        user_am_limit: if leaf { limits::user_am_limit(state, index, "", am_limit) } else { Resource::ZERO },
        active_applications,
        pending_applications,
        containers,
        reserved: q.reserved,
        runnable_applications: q.runnable_apps,
        lifetime: q.config.lifetime,
        preemption: switches[index],
        queue_ordering: q.config.queue_ordering,
        leaf,
        creation: if q.config.managed_leaf {
            CreationMethod::Legacy
        } else if q.config.dynamic {
            CreationMethod::Flexible
        } else {
            CreationMethod::Static
        },
        auto_creation: if q.config.auto_create_child_queue {
            AutoCreation::Legacy
        } else if q.config.auto_queue_v2 {
            AutoCreation::Flexible
        } else {
            AutoCreation::Off
        },
        maximum_applications_per_user: if leaf { admission::maximum_applications_per_user(state, index) } else { 0 },
    }
}

/// The queue tree with each queue's configured and effective capacities and limits, as an
/// operator checks it before `yarn rmadmin -refreshQueues`. Absolute capacities are
/// resolved against `cluster`.
pub fn describe_tree(config: &SchedulerConfig, cluster: Resource) -> String {
    let mut tree = QueueTree::build(config);
    tree.update_effective_capacities(cluster, config.global.resource_calculator);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<40} {:>12} {:>12} {:>8} {:>8} {:>8}  {:<8} limits",
        "queue", "capacity", "max-capacity", "abs%", "absmax%", "max-apps", "state"
    );
    write_queue(&mut out, config, &tree, 0, 0);
    let g = &config.global;
    let _ = writeln!(
        out,
        "\nresource-calculator={} maximum-applications={} maximum-am-resource-percent={} node-locality-delay={}",
        g.resource_calculator.class_name(),
        g.maximum_applications,
        g.maximum_am_resource_percent,
        g.node_locality_delay
    );
    for w in &config.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    out
}

fn write_queue(out: &mut String, config: &SchedulerConfig, tree: &QueueTree, index: usize, depth: usize) {
    let q = tree.get(index);
    let c = &q.config;
    let name = format!("{}{}", "  ".repeat(depth), if depth == 0 { c.path.as_str() } else { c.name.as_str() });
    let max_apps = admission::maximum_applications_of(&config.global, c, q.absolute_capacity);
    let limits = if q.is_leaf() {
        format!(
            "user-limit-factor={} minimum-user-limit-percent={} am-percent={}",
            c.user_limit_factor, c.minimum_user_limit_percent, c.maximum_am_resource_percent
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "{:<40} {:>12} {:>12} {:>8.3} {:>8.3} {:>8}  {:<8} {}",
        name,
        c.capacity.to_string(),
        c.maximum_capacity.to_string(),
        q.absolute_capacity * 100.0,
        q.absolute_maximum_capacity * 100.0,
        if q.is_leaf() { max_apps.to_string() } else { "-".to_string() },
        c.state.as_str(),
        limits
    );
    for &child in &c.children {
        write_queue(out, config, tree, child, depth + 1);
    }
}
