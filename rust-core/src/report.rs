//! Human-readable views of a configuration, for the `capsched check` command.

use crate::config::SchedulerConfig;
use crate::model::QueueTree;
use crate::resource::Resource;
use std::fmt::Write;

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
    let max_apps =
        c.maximum_applications.unwrap_or((config.global.maximum_applications as f64 * q.absolute_capacity) as i64);
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
