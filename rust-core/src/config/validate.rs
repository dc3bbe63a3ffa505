//! Validation of a whole queue tree, as a pure pass that runs before anything is used.
//! The rules are Apache CapacityScheduler's (3.4, legacy queue mode); the messages name
//! the queue, the key and the values.

use super::capacity::{CapacitySpec, MaxCapacitySpec};
use super::{ClusterSettings, ConfigError, QueueConfig};

/// Apache's `PRECISION`: capacities are compared as fractions with this tolerance.
pub const PRECISION: f64 = 0.0005;

/// Checks every rule over the tree; returns every violation found.
pub fn validate(queues: &[QueueConfig], cluster: &ClusterSettings) -> Vec<ConfigError> {
    let mut errors = Vec::new();
    check_cluster_allocation(cluster, &mut errors);
    for q in queues {
        check_queue(q, queues, cluster, &mut errors);
        if !q.is_leaf() {
            check_children(q, queues, &mut errors);
        }
    }
    errors
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
    if let CapacitySpec::Percent(p) = q.capacity {
        if !(0.0..=100.0).contains(&p) {
            errors.push(ConfigError::at_queue(&q.path, q.key("capacity"), format!(
                "{p} is outside [0, 100]"
            )));
        }
    }
    if let MaxCapacitySpec::Percent(m) = q.maximum_capacity {
        if !(0.0..=100.0).contains(&m) {
            errors.push(ConfigError::at_queue(&q.path, q.key("maximum-capacity"), format!(
                "{m} is outside [0, 100] (use -1 or 100 for no limit)"
            )));
        }
        if let CapacitySpec::Percent(p) = q.capacity {
            if p > m + PRECISION * 100.0 {
                errors.push(ConfigError::at_queue(&q.path, q.key("capacity"), format!(
                    "capacity {p} is greater than maximum-capacity {m}"
                )));
            }
        }
    }
    match (q.capacity, q.maximum_capacity) {
        (CapacitySpec::Absolute(min), MaxCapacitySpec::Absolute(max)) if !max.is_none() => {
            if !min.fits_in(max) {
                errors.push(ConfigError::at_queue(&q.path, q.key("capacity"), format!(
                    "minimum resource {} is greater than maximum-capacity {}", q.capacity, q.maximum_capacity
                )));
            }
        }
        _ => {}
    }
    if let (Some(p), MaxCapacitySpec::Absolute(max)) = (q.parent, q.maximum_capacity) {
        if let MaxCapacitySpec::Absolute(parent_max) = all[p].maximum_capacity {
            if !max.fits_in(parent_max) {
                errors.push(ConfigError::at_queue(&q.path, q.key("maximum-capacity"), format!(
                    "{} is greater than the parent {}'s maximum-capacity {}",
                    q.maximum_capacity, all[p].path, all[p].maximum_capacity
                )));
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
        errors.push(ConfigError::at_queue(&q.path, q.key("maximum-allocation-mb"), format!(
            "{} must be > 0 and no larger than the {ceiling_name} {}", max_alloc.memory_mb, ceiling.memory_mb
        )));
    }
    if max_alloc.vcores <= 0 || max_alloc.vcores > ceiling.vcores {
        errors.push(ConfigError::at_queue(&q.path, q.key("maximum-allocation-vcores"), format!(
            "{} must be > 0 and no larger than the {ceiling_name} {}", max_alloc.vcores, ceiling.vcores
        )));
    }
}

fn check_children(parent: &QueueConfig, all: &[QueueConfig], errors: &mut Vec<ConfigError>) {
    let children: Vec<&QueueConfig> = parent.children.iter().map(|&c| &all[c]).collect();
    let describe = |c: &QueueConfig| format!("{}={}", c.name, c.capacity);
    let first_mode = children[0].capacity.mode();
    if children.iter().any(|c| c.capacity.mode() != first_mode) {
        errors.push(ConfigError::queue(&parent.path, format!(
            "children mix capacity modes ({}); siblings must all use percentages, all weights, or all absolute resources",
            children.iter().map(|c| describe(c)).collect::<Vec<_>>().join(", ")
        )));
        return;
    }
    let is_root = parent.parent.is_none();
    let parent_absolute = matches!(parent.capacity, CapacitySpec::Absolute(_));
    let children_absolute = first_mode == "absolute resource";
    if !is_root && parent_absolute != children_absolute {
        errors.push(ConfigError::queue(&parent.path, format!(
            "uses {} capacity but its children use {}; when absolute resources are used, the parent and all its children must use them",
            parent.capacity.mode(), first_mode
        )));
        return;
    }
    if let CapacitySpec::Absolute(parent_min) = parent.capacity {
        let sum = children.iter().fold(crate::resource::Resource::ZERO, |acc, c| match c.capacity {
            CapacitySpec::Absolute(r) => acc.plus(r),
            _ => acc,
        });
        if !sum.fits_in(parent_min) {
            errors.push(ConfigError::queue(&parent.path, format!(
                "capacity {} is less than the sum of its children's {}", parent.capacity,
                CapacitySpec::Absolute(sum)
            )));
        }
    }
    if first_mode != "percentage" {
        return;
    }
    let sum: f64 = children
        .iter()
        .map(|c| match c.capacity {
            CapacitySpec::Percent(p) => p / 100.0,
            _ => 0.0,
        })
        .sum();
    let parent_pct = match parent.capacity {
        CapacitySpec::Percent(p) => Some(p / 100.0),
        _ => None,
    };
    let listing = children.iter().map(|c| describe(c)).collect::<Vec<_>>().join(", ");
    if (1.0 - sum).abs() > PRECISION {
        if sum.abs() > PRECISION {
            errors.push(ConfigError::queue(&parent.path, format!(
                "children's capacities sum to {}%, not 100% ({listing})", round(sum * 100.0)
            )));
        } else if let Some(pp) = parent_pct {
            if pp.abs() > PRECISION && !parent.allow_zero_capacity_sum {
                errors.push(ConfigError::queue(&parent.path, format!(
                    "children's capacities sum to 0% but the queue's own capacity is {}%; set {} to true to allow this ({listing})",
                    round(pp * 100.0), parent.key("allow-zero-capacity-sum")
                )));
            }
        }
    } else if let Some(pp) = parent_pct {
        if pp <= 0.0 && !parent.allow_zero_capacity_sum {
            errors.push(ConfigError::queue(&parent.path, format!(
                "has zero capacity but its children's capacities sum to 100% ({listing})"
            )));
        }
    }
}

fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}
