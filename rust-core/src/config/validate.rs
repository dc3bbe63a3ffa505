//! Validation of a whole queue tree, as a pure pass that runs before anything is used.
//! The rules are Apache CapacityScheduler's (3.4, legacy queue mode); the messages name
//! the queue, the key and the values.

use super::capacity::{CapacitySpec, MaxCapacitySpec};
use super::{ClusterSettings, ConfigError, QueueConfig};
use crate::resource::{Resource, ResourceCalculator};

/// Apache's `PRECISION`: capacities are compared as fractions with this tolerance.
pub const PRECISION: f64 = 0.0005;

/// Checks every rule over the tree; returns every violation found.
pub fn validate(queues: &[QueueConfig], cluster: &ClusterSettings, calc: ResourceCalculator) -> Vec<ConfigError> {
    let mut errors = Vec::new();
    check_cluster_allocation(cluster, &mut errors);
    if let Some(root) = queues.first() {
        if root.is_leaf() {
            errors.push(ConfigError::at_queue(&root.path, root.key("queues"), "is not set: the root queue needs at least one child queue (for example, yarn.scheduler.capacity.root.queues = default)"));
        }
    }
    for q in queues {
        check_running_under_stopped(q, queues, &mut errors);
        check_queue(q, queues, cluster, &mut errors);
        if !q.is_leaf() {
            check_children(q, queues, calc, &mut errors);
        }
    }
    errors
}

/// Apache's rule that an absolute parent's capacity is not less than its children's sum,
/// compared as its calculator compares for `cluster` (memory alone under the Default
/// calculator; every resource, or dominant shares once the cluster has resources, under
/// the Dominant one): each parent that breaks it, with the message saying why.
pub fn absolute_sums_exceeding(
    queues: &[QueueConfig],
    calc: ResourceCalculator,
    cluster: Resource,
    partition_resource: impl Fn(&str) -> Resource,
) -> Vec<ConfigError> {
    queues
        .iter()
        .filter(|parent| !parent.auto_create_child_queue)
        .flat_map(|parent| {
            let children: Vec<&QueueConfig> = parent.children.iter().map(|&c| &queues[c]).collect();
            let labelled: Vec<Option<ConfigError>> = parent
                .node_labels
                .keys()
                .map(|label| absolute_sum_exceeding(parent, &children, Some(label), calc, partition_resource(label)))
                .collect();
            std::iter::once(absolute_sum_exceeding(parent, &children, None, calc, cluster)).chain(labelled).flatten()
        })
        .collect()
}

/// A queue's capacity in partition `label` (None: the default partition) as Apache's
/// `getConfiguredMinResource` reads it for the absolute checks.
fn capacity_in(q: &QueueConfig, label: Option<&str>) -> Option<CapacitySpec> {
    match label {
        None => Some(q.capacity),
        Some(l) => q.node_labels.get(l).map(|c| c.capacity),
    }
}

fn absolute_sum_exceeding(
    parent: &QueueConfig,
    children: &[&QueueConfig],
    label: Option<&str>,
    calc: ResourceCalculator,
    cluster: Resource,
) -> Option<ConfigError> {
    let Some(CapacitySpec::Absolute(parent_min)) = capacity_in(parent, label) else { return None };
    let sum = children.iter().fold(Resource::ZERO, |acc, c| match capacity_in(c, label) {
        Some(CapacitySpec::Absolute(r)) => acc.plus(r),
        _ => acc,
    });
    if children.is_empty() || parent_min.is_none() || !calc.compare(cluster, parent_min, sum).is_lt() {
        return None;
    }
    let listing = children
        .iter()
        .map(|c| format!("{}={}", c.name, capacity_in(c, label).unwrap_or(CapacitySpec::Percent(0.0))))
        .collect::<Vec<_>>()
        .join(", ");
    let how = match calc {
        ResourceCalculator::Memory => "in memory, as the Default resource calculator compares",
        ResourceCalculator::Dominant => "as the Dominant resource calculator compares",
    };
    let partition = match label {
        Some(l) => format!(" in partition '{l}' (accessible-node-labels.{l}.capacity)"),
        None => String::new(),
    };
    Some(ConfigError::queue(
        &parent.path,
        format!(
            "capacity{partition} {} is less than the sum of its children's {} ({listing}) {how}",
            CapacitySpec::Absolute(parent_min),
            CapacitySpec::Absolute(sum)
        ),
    ))
}

/// Apache's `updateCapacityConfigType`: a queue below the root gives its capacity as an
/// absolute resource in every partition it is configured for, or in none (a label whose
/// keys leave the capacity unset counts as a percentage).
fn check_absolute_in_every_partition(q: &QueueConfig, errors: &mut Vec<ConfigError>) {
    if q.parent.is_none() || q.node_labels.is_empty() {
        return;
    }
    let absolute = |c: &CapacitySpec| matches!(c, CapacitySpec::Absolute(_));
    let own = absolute(&q.capacity);
    if let Some((label, other)) = q.node_labels.iter().find(|(_, l)| absolute(&l.capacity) != own) {
        errors.push(ConfigError::at_queue(
            &q.path,
            q.key(&format!("accessible-node-labels.{label}.capacity")),
            format!(
                "is {} but the queue's capacity is {}: a queue uses absolute resources in every partition it is configured for or in none (Apache: \"should use either percentage based capacity configuration or absolute resource\")",
                other.capacity, q.capacity
            ),
        ));
    }
}

/// Apache refuses a queue set RUNNING whose parent starts stopped (set STOPPED, or
/// inheriting it from the nearest ancestor that sets a state).
fn check_running_under_stopped(q: &QueueConfig, all: &[QueueConfig], errors: &mut Vec<ConfigError>) {
    if !q.state_set || q.state != super::QueueState::Running {
        return;
    }
    let mut at = q.parent;
    while let Some(p) = at {
        if all[p].state_set {
            if all[p].state == super::QueueState::Stopped {
                errors.push(ConfigError::queue(
                    &q.path,
                    format!(
                        "is set RUNNING but its parent {} starts STOPPED (set on {}): a queue cannot run under a parent that does not",
                        all[q.parent.unwrap_or(p)].path,
                        all[p].path
                    ),
                ));
            }
            return;
        }
        at = all[p].parent;
    }
}

fn check_cluster_allocation(cluster: &ClusterSettings, errors: &mut Vec<ConfigError>) {
    let (min, max) = (cluster.minimum_allocation, cluster.maximum_allocation);
    if min.memory_mb <= 0 || min.memory_mb > max.memory_mb {
        errors.push(ConfigError::general(format!(
            "invalid resource scheduler memory allocation: yarn.scheduler.minimum-allocation-mb={} and yarn.scheduler.maximum-allocation-mb={}; both must be > 0 and min <= max",
            min.memory_mb, max.memory_mb
        )));
    }
    if min.vcores <= 0 || min.vcores > max.vcores {
        errors.push(ConfigError::general(format!(
            "invalid resource scheduler vcores allocation: yarn.scheduler.minimum-allocation-vcores={} and yarn.scheduler.maximum-allocation-vcores={}; both must be > 0 and min <= max",
            min.vcores, max.vcores
        )));
    }
}

fn check_queue(q: &QueueConfig, all: &[QueueConfig], cluster: &ClusterSettings, errors: &mut Vec<ConfigError>) {
    check_absolute_in_every_partition(q, errors);
    if let CapacitySpec::Percent(p) = q.capacity {
        if !(0.0..=100.0).contains(&p) {
            errors.push(ConfigError::at_queue(&q.path, q.key("capacity"), format!("{p} is outside [0, 100]")));
        }
    }
    if let MaxCapacitySpec::Percent(m) = q.maximum_capacity {
        if !(0.0..=100.0).contains(&m) {
            errors.push(ConfigError::at_queue(
                &q.path,
                q.key("maximum-capacity"),
                format!("{m} is outside [0, 100] (use -1 or 100 for no limit)"),
            ));
        }
    }
    match (q.capacity, q.maximum_capacity) {
        (CapacitySpec::Absolute(min), MaxCapacitySpec::Absolute(max)) if !max.is_none() && !min.fits_in(max) => {
            errors.push(ConfigError::at_queue(
                &q.path,
                q.key("capacity"),
                format!("minimum resource {} is greater than maximum-capacity {}", q.capacity, q.maximum_capacity),
            ));
        }
        _ => {}
    }
    if let (Some(p), MaxCapacitySpec::Absolute(max)) = (q.parent, q.maximum_capacity) {
        if let MaxCapacitySpec::Absolute(parent_max) = all[p].maximum_capacity {
            if !max.fits_in(parent_max) {
                errors.push(ConfigError::at_queue(
                    &q.path,
                    q.key("maximum-capacity"),
                    format!(
                        "{} is greater than the parent {}'s maximum-capacity {}",
                        q.maximum_capacity, all[p].path, all[p].maximum_capacity
                    ),
                ));
            }
        }
    }
    let max_alloc = q.maximum_allocation;
    let ceiling = match q.parent {
        Some(p) => all[p].maximum_allocation,
        None => cluster.maximum_allocation,
    };
    let ceiling_name = match q.parent {
        Some(p) => format!("parent {}'s", all[p].path),
        None => "cluster's (yarn.scheduler.maximum-allocation-*)".to_string(),
    };
    if max_alloc.memory_mb <= 0 || max_alloc.memory_mb > ceiling.memory_mb {
        errors.push(ConfigError::at_queue(
            &q.path,
            q.key("maximum-allocation-mb"),
            format!("{} must be > 0 and no larger than the {ceiling_name} {}", max_alloc.memory_mb, ceiling.memory_mb),
        ));
    }
    if max_alloc.vcores <= 0 || max_alloc.vcores > ceiling.vcores {
        errors.push(ConfigError::at_queue(
            &q.path,
            q.key("maximum-allocation-vcores"),
            format!("{} must be > 0 and no larger than the {ceiling_name} {}", max_alloc.vcores, ceiling.vcores),
        ));
    }
}

/// How a group of queues states its capacity, as Apache's
/// `getCapacityConfigurationTypeForQueues` sees it: a percentage counts only when above 0,
/// an absolute resource only when not empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Percent,
    Weight,
    Absolute,
}

/// The modes `queues` use, as Apache's `getCapacityConfigurationTypeForQueues` finds
/// them over the default partition and every partition in `labels`: (percent above 0,
/// weight, non-empty absolute resource).
fn modes_of<'a>(queues: impl Iterator<Item = &'a QueueConfig>, labels: &[&str]) -> (bool, bool, bool) {
    let (mut pct, mut weight, mut abs) = (false, false, false);
    for q in queues {
        let labelled = labels.iter().filter_map(|l| q.node_labels.get(*l).map(|c| c.capacity));
        for capacity in std::iter::once(q.capacity).chain(labelled) {
            match capacity {
                CapacitySpec::Percent(p) if p > 0.0 => pct = true,
                CapacitySpec::Percent(_) => {}
                CapacitySpec::Weight(_) => weight = true,
                CapacitySpec::Absolute(r) if !r.is_none() => abs = true,
                CapacitySpec::Absolute(_) => {}
            }
        }
    }
    (pct, weight, abs)
}

/// Whether queues `children` count as using weights, by Apache's rule for a parent's
/// children (`getCapacityConfigurationTypeForQueues`): none at all, or weights and no other
/// mode among them.
pub(crate) fn children_use_weights<'a>(
    parent: &QueueConfig,
    children: impl ExactSizeIterator<Item = &'a QueueConfig>,
) -> bool {
    let empty = children.len() == 0;
    let labels: Vec<&str> = parent.node_labels.keys().map(String::as_str).collect();
    let flags = modes_of(children, &labels);
    let mixed = [flags.0, flags.1, flags.2].iter().filter(|&&f| f).count() > 1;
    !mixed && mode_of(flags, empty) == Mode::Weight
}

fn mode_of(flags: (bool, bool, bool), empty: bool) -> Mode {
    match flags {
        (_, true, _) => Mode::Weight,
        _ if empty => Mode::Weight,
        (_, _, true) => Mode::Absolute,
        _ => Mode::Percent,
    }
}

fn check_children(parent: &QueueConfig, all: &[QueueConfig], calc: ResourceCalculator, errors: &mut Vec<ConfigError>) {
    let children: Vec<&QueueConfig> = parent.children.iter().map(|&c| &all[c]).collect();
    // The partitions Apache's parent has capacities for: its own labels (the root's are
    // every label any queue is configured for).
    let labels: Vec<&str> = parent.node_labels.keys().map(String::as_str).collect();
    let describe = |c: &QueueConfig| {
        let labelled =
            labels.iter().filter_map(|l| c.node_labels.get(*l).map(|k| format!(", {}[{l}]={}", c.name, k.capacity)));
        format!("{}={}{}", c.name, c.capacity, labelled.collect::<String>())
    };
    let listing = children.iter().map(|c| describe(c)).collect::<Vec<_>>().join(", ");
    let flags = modes_of(children.iter().copied(), &labels);
    if [flags.0, flags.1, flags.2].iter().filter(|&&f| f).count() > 1 {
        errors.push(ConfigError::queue(&parent.path, format!(
            "children mix capacity modes ({listing}); siblings must all use percentages, all weights, or all absolute resources"
        )));
        return;
    }
    if parent.auto_create_child_queue {
        // A managed parent's leaves hold its template's share or none, whatever they sum
        // to (Apache adds them past its parent's checks).
        return;
    }
    let children_mode = mode_of(flags, children.is_empty());
    let parent_mode = mode_of(modes_of(std::iter::once(parent), &labels), false);
    let is_root = parent.parent.is_none();
    if (children_mode == Mode::Absolute || parent_mode == Mode::Absolute) && children_mode != parent_mode && !is_root {
        errors.push(ConfigError::queue(&parent.path, format!(
            "uses {} capacity ({}) but its children do not ({listing}); when absolute resources are used, the parent and all its children must use them",
            parent.capacity.mode(), parent.capacity
        )));
        return;
    }
    // As Apache checks it when the scheduler starts: before any node, so against an empty
    // cluster (a refresh checks again against the live one).
    errors.extend(absolute_sum_exceeding(parent, &children, None, calc, Resource::ZERO));
    for label in &labels {
        errors.extend(absolute_sum_exceeding(parent, &children, Some(label), calc, Resource::ZERO));
    }
    if children_mode != Mode::Percent {
        return;
    }
    // The default partition, then every partition the parent has capacities for.
    let percent = |q: &QueueConfig| match q.capacity {
        CapacitySpec::Percent(p) => p,
        _ => 0.0,
    };
    let parent_default = if is_root { 100.0 } else { percent(parent) };
    check_percent_sum(
        parent,
        None,
        parent_default,
        children.iter().map(|c| (c.name.as_str(), percent(c))),
        parent_mode,
        errors,
    );
    for (label, parent_label) in &parent.node_labels {
        let parent_pct = if is_root { 100.0 } else { parent_label.percent() };
        let child_pcts =
            children.iter().map(|c| (c.name.as_str(), c.node_labels.get(label).map_or(0.0, |l| l.percent())));
        check_percent_sum(parent, Some(label), parent_pct, child_pcts, parent_mode, errors);
    }
}

/// Children given in percent must sum to 100%, or to 0% when the parent itself has 0% (or
/// allows it, or is in weight mode); a parent with 0% cannot have children summing to 100%.
fn check_percent_sum<'a>(
    parent: &QueueConfig,
    label: Option<&str>,
    parent_pct: f64,
    children: impl Iterator<Item = (&'a str, f64)>,
    parent_mode: Mode,
    errors: &mut Vec<ConfigError>,
) {
    let children: Vec<(&str, f64)> = children.collect();
    let sum: f64 = children.iter().map(|(_, p)| p / 100.0).sum();
    let listing = children.iter().map(|(n, p)| format!("{n}={p}%")).collect::<Vec<_>>().join(", ");
    let partition = match label {
        Some(l) => format!(" in partition '{l}' (accessible-node-labels.{l}.capacity)"),
        None => String::new(),
    };
    let parent_fraction = parent_pct / 100.0;
    if (1.0 - sum).abs() > PRECISION {
        if sum.abs() > PRECISION {
            errors.push(ConfigError::queue(
                &parent.path,
                format!("children's capacities{partition} sum to {}%, not 100% ({listing})", round(sum * 100.0)),
            ));
        } else if parent_mode == Mode::Percent && parent_fraction.abs() > PRECISION && !parent.allow_zero_capacity_sum {
            errors.push(ConfigError::queue(&parent.path, format!(
                "children's capacities{partition} sum to 0% but the queue's own capacity is {}%; set {} to true to allow this ({listing})",
                round(parent_pct), parent.key("allow-zero-capacity-sum")
            )));
        }
    } else if parent_mode == Mode::Percent && parent_fraction.abs() <= 0.0 && !parent.allow_zero_capacity_sum {
        errors.push(ConfigError::queue(
            &parent.path,
            format!("has zero capacity{partition} but its children's capacities sum to 100% ({listing})"),
        ));
    }
}

fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}
