//! Helpers shared by the integration tests.

use capsched::config::{ClusterSettings, ConfigErrors, SchedulerConfig};

/// A capacity-scheduler.xml holding `props`; keys without a dot-prefix get
/// `yarn.scheduler.capacity.` prepended.
pub fn xml(props: &[(&str, &str)]) -> String {
    let mut out = String::from("<?xml version=\"1.0\"?>\n<configuration>\n");
    for (k, v) in props {
        let key = if k.starts_with("yarn.") { k.to_string() } else { format!("yarn.scheduler.capacity.{k}") };
        out.push_str(&format!("  <property><name>{key}</name><value>{v}</value></property>\n"));
    }
    out.push_str("</configuration>\n");
    out
}

/// Loads `props` with default cluster settings.
pub fn load(props: &[(&str, &str)]) -> Result<SchedulerConfig, ConfigErrors> {
    SchedulerConfig::from_xml(xml(props).as_bytes(), "test.xml", ClusterSettings::default())
}

/// The two-queue tree most tests start from: root.a 50, root.b 50.
pub const AB: &[(&str, &str)] = &[("root.queues", "a,b"), ("root.a.capacity", "50"), ("root.b.capacity", "50")];

/// `base` with `extra` appended (later definitions win).
pub fn with(
    base: &[(&'static str, &'static str)],
    extra: &[(&'static str, &'static str)],
) -> Vec<(&'static str, &'static str)> {
    base.iter().chain(extra.iter()).copied().collect()
}
