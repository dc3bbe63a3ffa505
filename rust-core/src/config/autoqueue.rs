//! Flexible auto-created queues (`<q>.auto-queue-creation-v2.*`): the queues a submission
//! creates under an eligible parent, the templates that configure them, and the checks
//! Apache's queue manager makes before it creates one.
//!
//! A created ("dynamic") queue is not in the file. The scheduler keeps the list of queues it
//! created and reads the file again with them: each dynamic queue's keys are its parent's
//! templates written under its own path — as Apache's `AutoCreatedQueueTemplate` writes them
//! into its configuration — so every per-queue key means what it means for a configured
//! queue, and a refresh re-applies the templates it finds.

use super::queue::{queue_key, QueueConfig, ROOT};
use super::{global_key, Properties, PREFIX};
use serde::Serialize;
use std::collections::HashMap;

/// `<q>.auto-queue-creation-v2.max-queues`' default: children a parent may have.
pub const DEFAULT_MAX_QUEUES: i64 = 1000;
/// `auto-queue-creation-v2.maximum-queue-depth`'s default.
pub const DEFAULT_MAX_DEPTH: i64 = 2;
/// `auto-queue-creation-v2.queue-expiration-time`'s default, in seconds.
pub const DEFAULT_EXPIRATION_SECS: i64 = 300;

/// A queue the scheduler created at run time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DynamicQueue {
    /// Its full path.
    pub path: String,
    /// What it was created as.
    pub kind: DynamicKind,
}

/// What a run-time queue was created as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum DynamicKind {
    /// A leaf created by flexible auto-creation.
    Leaf,
    /// A parent created by flexible auto-creation on the way to a deeper leaf.
    Parent,
    /// A leaf of a managed parent (legacy auto-creation, `auto-create-child-queue.enabled`),
    /// configured by the parent's `leaf-queue-template.*`; `active` when it holds the
    /// template's guaranteed capacity rather than none (Apache's
    /// `GuaranteedOrZeroCapacityOverTimePolicy`).
    Managed { active: bool },
}

impl DynamicQueue {
    /// A parent (created on the way to a deeper leaf) rather than a leaf.
    pub fn is_parent(&self) -> bool {
        self.kind == DynamicKind::Parent
    }

    /// Created by flexible auto-creation (Apache's "dynamic" queues, which expire).
    pub fn is_flexible(&self) -> bool {
        !matches!(self.kind, DynamicKind::Managed { .. })
    }

    /// Its parent's full path.
    pub fn parent_path(&self) -> &str {
        self.path.rsplit_once('.').map_or("", |(p, _)| p)
    }
}

/// A managed parent's template for its leaves: `<parent>.leaf-queue-template.<key>`.
const LEGACY_TEMPLATE: &str = "leaf-queue-template";

/// The three template kinds, as their key infixes.
const TEMPLATE: &str = "auto-queue-creation-v2.template.";
const LEAF_TEMPLATE: &str = "auto-queue-creation-v2.leaf-template.";
const PARENT_TEMPLATE: &str = "auto-queue-creation-v2.parent-template.";

/// `<path>.auto-queue-creation-v2.maximum-queue-depth`, else the global key, else 2.
pub fn maximum_depth(props: &Properties, path: &str) -> i64 {
    let parse = |v: Option<String>| v.and_then(|v| v.parse::<i64>().ok());
    parse(props.get(&queue_key(path, "auto-queue-creation-v2.maximum-queue-depth")))
        .or_else(|| parse(props.get(&global_key("auto-queue-creation-v2.maximum-queue-depth"))))
        .unwrap_or(DEFAULT_MAX_DEPTH)
}

/// The template entries of parent `path` of one kind (`infix`), by key: the parent's own
/// entries first, then those of its path with the last part, then the last two parts,
/// replaced by `*` (as deep as its maximum depth, never the root part), the first found
/// winning — Apache's `AutoCreatedQueueTemplate`.
fn template_entries(props: &Properties, path: &str, infix: &str) -> Vec<(String, String)> {
    let mut parts: Vec<String> = path.split('.').map(str::to_string).collect();
    let max_index = parts.len() - 1;
    let levels = if path == ROOT { 0 } else { (max_index as i64).min(maximum_depth(props, path)).max(0) as usize };
    let mut out: Vec<(String, String)> = Vec::new();
    for level in 0..=levels {
        let prefix = format!("{PREFIX}{}.{infix}", parts.join("."));
        let mut found: Vec<(String, String)> = props
            .names_with_prefix(&prefix)
            .filter_map(|name| Some((name[prefix.len()..].to_string(), props.get_raw(name)?.to_string())))
            .collect();
        found.sort();
        for (key, value) in found {
            if !out.iter().any(|(k, _)| *k == key) {
                out.push((key, value));
            }
        }
        if level < max_index {
            parts[max_index - level] = "*".to_string();
        }
    }
    out
}

/// The keys a dynamic queue at `child` takes from its parent's templates, before any
/// explicit key: the leaf- or parent-only template first, then the common one.
pub fn template_for(props: &Properties, parent: &str, leaf: bool) -> Vec<(String, String)> {
    let specific = template_entries(props, parent, if leaf { LEAF_TEMPLATE } else { PARENT_TEMPLATE });
    let common = template_entries(props, parent, TEMPLATE);
    let mut out = specific.clone();
    out.extend(common.into_iter().filter(|(k, _)| !specific.iter().any(|(s, _)| s == k)));
    out
}

/// The file's properties with every dynamic queue's keys written in, as Apache's queues
/// read them:
/// - a flexible leaf's `user-limit-factor` is -1 and its `maximum-am-resource-percent`
///   1.0, whatever the file says for its path, unless a template sets them;
/// - its ACLs are the template's (nobody when the template has none), never the file's;
/// - any other template key is written unless the file sets it for that path;
/// - a managed parent's leaf takes every `leaf-queue-template.*` key over the file's, as
///   Apache's `ManagedParentQueue` writes them, and the template's capacity only while
///   active (none otherwise).
pub fn with_dynamic_queues(props: &Properties, dynamic: &[DynamicQueue]) -> Properties {
    let mut out = props.clone();
    // Siblings share their parent's templates: work each out once.
    let mut templates: HashMap<(&str, bool), Vec<(String, String)>> = HashMap::new();
    for d in dynamic {
        let parent = d.parent_path();
        if let DynamicKind::Managed { active } = d.kind {
            write_managed_leaf(&mut out, props, parent, &d.path, active);
            continue;
        }
        let leaf = !d.is_parent();
        let template = templates.entry((parent, leaf)).or_insert_with(|| template_for(props, parent, leaf));
        let own_prefix = format!("{PREFIX}{}.", d.path);
        let explicit = |key: &str| props.get_raw(&format!("{own_prefix}{key}")).is_some();
        if leaf {
            out.overlay(&queue_key(&d.path, "user-limit-factor"), "-1");
            out.overlay(&queue_key(&d.path, "maximum-am-resource-percent"), "1.0");
        }
        for acl in ["acl_submit_applications", "acl_administer_queue"] {
            let value = template.iter().find(|(k, _)| k == acl).map_or(" ", |(_, v)| v.as_str());
            out.overlay(&queue_key(&d.path, acl), value);
        }
        for (key, value) in template.iter() {
            if key.starts_with("acl_submit_applications") || key.starts_with("acl_administer_queue") || explicit(key) {
                continue;
            }
            out.overlay(&queue_key(&d.path, key), value);
        }
    }
    out
}

/// `<parent>.leaf-queue-template.*` by key.
pub fn legacy_template(props: &Properties, parent: &str) -> Vec<(String, String)> {
    let prefix = format!("{PREFIX}{parent}.{LEGACY_TEMPLATE}.");
    let mut out: Vec<(String, String)> = props
        .names_with_prefix(&prefix)
        .filter_map(|name| Some((name[prefix.len()..].to_string(), props.get_raw(name)?.to_string())))
        .collect();
    out.sort();
    out
}

/// Writes a managed parent's leaf: every template key, and the template's capacity while
/// `active` (0 otherwise; the maximum stays the template's either way). ACLs the template
/// does not give are nobody's.
fn write_managed_leaf(out: &mut Properties, props: &Properties, parent: &str, leaf: &str, active: bool) {
    let template = legacy_template(props, parent);
    for acl in ["acl_submit_applications", "acl_administer_queue"] {
        if !template.iter().any(|(k, _)| k == acl) {
            out.overlay(&queue_key(leaf, acl), " ");
        }
    }
    for (key, value) in &template {
        out.overlay(&queue_key(leaf, key), value);
    }
    let configured = template.iter().find(|(k, _)| k == "capacity").map(|(_, v)| v.trim());
    let capacity = match configured {
        Some(v) if active && !v.ends_with('w') => v,
        Some(v) if v.starts_with('[') => "[memory=0,vcores=0]",
        _ => "0",
    };
    out.overlay(&queue_key(leaf, "capacity"), capacity);
}

/// The keys [`with_dynamic_queues`] writes for the queues in `dynamic`, each queue's
/// `capacity` included (a weight of 1 when neither file nor template gives one; a managed
/// leaf's template capacity, whether or not it holds it now, but 0 for those `reads_zero`
/// names), as
/// `(name, value)`: what a view of the configuration needs to describe those queues as
/// Apache's queues describe themselves.
pub fn written_keys(
    props: &Properties,
    dynamic: &[DynamicQueue],
    reads_zero: impl Fn(&str) -> bool,
) -> Vec<(String, String)> {
    if dynamic.is_empty() {
        // Nothing to write, and no copy of every key to write it into.
        return Vec::new();
    }
    let written = with_dynamic_queues(props, dynamic);
    let mut out = Vec::new();
    for d in dynamic {
        let prefix = format!("{PREFIX}{}.", d.path);
        let mut names: Vec<&str> = written.names_with_prefix(&prefix).collect();
        names.sort_unstable();
        for name in names {
            if let Some(value) = written.get_raw(name) {
                out.push((name.to_string(), value.to_string()));
            }
        }
        let capacity = queue_key(&d.path, "capacity");
        if let DynamicKind::Managed { .. } = d.kind {
            // Apache's configuration holds the template's capacity for every managed leaf;
            // the share the leaf holds now is the scheduler's to report.
            let template = props.get_raw(&format!("{PREFIX}{}.{LEGACY_TEMPLATE}.capacity", d.parent_path()));
            let value = if reads_zero(&d.path) { "0" } else { template.unwrap_or("0") }.to_string();
            out.retain(|(name, _)| *name != capacity);
            out.push((capacity, value));
        } else if written.get_raw(&capacity).is_none() {
            out.push((capacity, "1w".to_string()));
        }
    }
    out
}

/// `path` with a short first part replaced by the full path of the one queue with that
/// name, as Apache's queue manager finds it (unchanged when none or several have it).
pub fn normalize(queues: &[QueueConfig], path: &str) -> String {
    super::mapping::normalize_root(&super::mapping::ConfiguredQueues::new(queues), path)
        .unwrap_or_else(|_| path.to_string())
}

/// The queues to create for an application sent to `path`, top down (none when `path`
/// starts with a short name and the queue it means exists), or why none may be created — Apache's `determineMissingParents` and `addDynamicChildQueue` checks, in their
/// order and with their messages. `path` is a full path (or starts with an unambiguous short
/// name) that names no queue yet.
pub fn plan(queues: &[QueueConfig], props: &Properties, path: &str) -> Result<Vec<DynamicQueue>, String> {
    let find = |p: &str| queues.iter().position(|q| q.path == p);
    let by_name = |n: &str| queues.iter().filter(|q| q.name == n).count();
    let Some((parent_name, _)) = path.rsplit_once('.') else {
        return Err(format!("Can not auto create queue {path} due to missing ParentQueue path."));
    };
    let normalized = normalize(queues, path);
    if find(&normalized).is_some() {
        // Named with a short first part, it exists already.
        return Ok(Vec::new());
    }
    if !parent_name.contains('.') && find(parent_name).is_none() && by_name(parent_name) > 1 {
        return Err(format!("Could not auto-create queue {path} due to ParentQueue {parent_name} being ambiguous."));
    }
    // Up from the leaf to the first queue that exists and was configured.
    let mut missing: Vec<String> = vec![normalized.clone()];
    let mut distance = 1i64;
    let mut current = normalized.rsplit_once('.').map(|(p, _)| p.to_string());
    let mut first_existing: Option<usize> = None;
    let static_ancestor = loop {
        let Some(c) = current.clone() else { break None };
        match find(&c) {
            Some(i) if !queues[i].dynamic => {
                first_existing.get_or_insert(i);
                break Some(i);
            }
            Some(i) => {
                first_existing.get_or_insert(i);
            }
            None => missing.push(c.clone()),
        }
        distance += 1;
        current = c.rsplit_once('.').map(|(p, _)| p.to_string());
    };
    let (Some(static_ancestor), Some(first_existing)) = (static_ancestor, first_existing) else {
        return Err(format!("Could not auto-create queue {path} parent queue does not exist."));
    };
    let depth = maximum_depth(props, &queues[static_ancestor].path);
    if distance > depth {
        return Err(format!(
            "Could not auto create queue {path}. The distance of the LeafQueue from the first static ParentQueue is {distance}, which is above the limit."
        ));
    }
    let existing = &queues[first_existing];
    if existing.is_leaf() {
        return Err(format!("Could not auto create hierarchy of {path}. Queue {parent_name} is not a ParentQueue."));
    }
    if !existing.auto_queue_v2 {
        return Err(format!("Auto creation of queue {path} is not enabled under parent {}", existing.path));
    }
    missing.reverse();
    // The first level joins an existing parent: its limit and its children's modes apply.
    let children: Vec<&QueueConfig> = existing.children.iter().map(|&c| &queues[c]).collect();
    let child = &missing[0];
    if children.len() as i64 >= existing.auto_queue_max_queues {
        return Err(format!(
            "Cannot auto create queue {child}. Max Child Queue limit exceeded which is configured as: {} and number of child queues is: {}",
            existing.auto_queue_max_queues,
            children.len()
        ));
    }
    if !super::validate::children_use_weights(existing, children.iter().copied()) {
        return Err(format!(
            "Trying to create new queue={child} but not all the queues under parent={} are using weight-based capacity. Failed to created queue",
            existing.path
        ));
    }
    // Deeper levels join parents created a moment before: empty, so always within limits
    // (unless a template caps them at none).
    for pair in missing.windows(2) {
        let max = props
            .get(&queue_key(&pair[0], "auto-queue-creation-v2.max-queues"))
            .or_else(|| {
                let (grand, _) = pair[0].rsplit_once('.')?;
                template_for(props, grand, false)
                    .into_iter()
                    .find(|(k, _)| k == "auto-queue-creation-v2.max-queues")
                    .map(|(_, v)| v)
            })
            .and_then(|v| v.trim().parse::<i64>().ok())
            .unwrap_or(DEFAULT_MAX_QUEUES);
        if max <= 0 {
            return Err(format!(
                "Cannot auto create queue {}. Max Child Queue limit exceeded which is configured as: {max} and number of child queues is: 0",
                pair[1]
            ));
        }
    }
    let last = missing.len() - 1;
    Ok(missing
        .into_iter()
        .enumerate()
        .map(|(i, path)| DynamicQueue { path, kind: if i == last { DynamicKind::Leaf } else { DynamicKind::Parent } })
        .collect())
}

/// The managed parent (`auto-create-child-queue.enabled`) that would create the leaf an
/// application sent to missing `path` names: the queue `path` names without its last part,
/// by full path or unambiguous short name, when the file enables legacy auto-creation for
/// it — Apache's queue manager then takes the legacy path whatever else the parent enables.
pub fn managed_parent(queues: &[QueueConfig], path: &str) -> Option<usize> {
    let (parent, _) = path.rsplit_once('.')?;
    let found = queues.iter().position(|q| q.path == parent).or_else(|| {
        let mut named = queues.iter().enumerate().filter(|(_, q)| !parent.contains('.') && q.name == parent);
        match (named.next(), named.next()) {
            (Some((i, _)), None) => Some(i),
            _ => None,
        }
    })?;
    queues[found].auto_create_child_queue.then_some(found)
}

/// The leaf a submission to missing `path` creates under managed parent `parent`, or why
/// none may be created (Apache's `ManagedParentQueue.addChildQueue` limit, with its text).
/// It starts without a guarantee; the scheduler decides whether it gets the template's.
pub fn plan_managed(queues: &[QueueConfig], parent: usize, path: &str) -> Result<DynamicQueue, String> {
    let p = &queues[parent];
    let leaf_name = path.rsplit_once('.').map_or(path, |(_, leaf)| leaf);
    let leaf = format!("{}.{leaf_name}", p.path);
    if p.children.len() as i64 >= p.managed_max_queues {
        return Err(format!(
            "Cannot auto create leaf queue {leaf}.Max Child Queue limit exceeded which is configured as : {} and number of child queues is : {}",
            p.managed_max_queues,
            p.children.len()
        ));
    }
    Ok(DynamicQueue { path: leaf, kind: DynamicKind::Managed { active: false } })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> Properties {
        let mut p = Properties::new();
        for (k, v) in pairs {
            p.set(&format!("{PREFIX}{k}"), v);
        }
        p
    }

    #[test]
    fn explicit_templates_win_over_wildcards_and_specific_over_common() {
        let p = props(&[
            ("root.a.b.auto-queue-creation-v2.template.capacity", "6w"),
            ("root.a.*.auto-queue-creation-v2.template.capacity", "4w"),
            ("root.*.*.auto-queue-creation-v2.template.capacity", "2w"),
            ("root.*.*.auto-queue-creation-v2.template.user-limit-factor", "3"),
            ("root.a.*.auto-queue-creation-v2.leaf-template.user-limit-factor", "5"),
        ]);
        let t = template_for(&p, "root.a.b", true);
        assert!(t.contains(&("capacity".into(), "6w".into())));
        assert!(t.contains(&("user-limit-factor".into(), "5".into())));
        let t = template_for(&p, "root.a.c", false);
        assert!(t.contains(&("capacity".into(), "4w".into())));
        assert!(t.contains(&("user-limit-factor".into(), "3".into())));
    }

    #[test]
    fn the_root_part_is_never_a_wildcard() {
        let p = props(&[("*.auto-queue-creation-v2.template.capacity", "5w")]);
        assert!(template_for(&p, "root", true).is_empty());
        assert!(template_for(&p, "root.a", true).is_empty());
    }

    #[test]
    fn a_dynamic_leaf_ignores_its_explicit_user_limit_factor_and_acls() {
        let p = props(&[
            ("root.a.auto-queue-creation-v2.template.maximum-capacity", "50"),
            ("root.a.x.maximum-capacity", "70"),
            ("root.a.x.user-limit-factor", "4"),
            ("root.a.x.acl_submit_applications", "bob"),
        ]);
        let out = with_dynamic_queues(&p, &[DynamicQueue { path: "root.a.x".into(), kind: DynamicKind::Leaf }]);
        let get = |k: &str| out.get_raw(&format!("{PREFIX}root.a.x.{k}")).map(str::to_string);
        assert_eq!(get("maximum-capacity").as_deref(), Some("70"));
        assert_eq!(get("user-limit-factor").as_deref(), Some("-1"));
        assert_eq!(get("maximum-am-resource-percent").as_deref(), Some("1.0"));
        assert_eq!(get("acl_submit_applications").as_deref(), Some(" "));
    }

    #[test]
    fn a_managed_parents_template_is_checked_as_apache_builds_the_parent() {
        let load = |extra: &str| {
            let xml = format!(
                "<configuration>
                <property><name>yarn.scheduler.capacity.root.queues</name><value>m</value></property>
                <property><name>yarn.scheduler.capacity.root.m.capacity</name><value>100</value></property>
                <property><name>yarn.scheduler.capacity.root.m.auto-create-child-queue.enabled</name><value>true</value></property>
                {extra}</configuration>"
            );
            crate::config::SchedulerConfig::from_xml(xml.as_bytes(), "t.xml", crate::config::ClusterSettings::default())
        };
        let key = |k: &str, v: &str| format!("<property><name>{PREFIX}root.m.{k}</name><value>{v}</value></property>");
        let m = load(&key("leaf-queue-template.capacity", "25")).expect("a percentage template");
        assert!(m.queues[1].auto_create_child_queue && !m.queues[1].is_leaf());
        let too_big = load(&key("leaf-queue-template.capacity", "150")).unwrap_err().to_string();
        assert!(too_big.contains("Illegal capacity of 150.0 for queue root.m.leaf-queue-template"), "{too_big}");
        let absolute = load(&key("leaf-queue-template.capacity", "[memory=1024,vcores=1]")).unwrap_err().to_string();
        assert!(absolute.contains("config type is different from leaf queue template config type"), "{absolute}");
        let reservable = load(&key("reservable", "true")).unwrap_err().to_string();
        assert!(reservable.contains("cannot be reservable"), "{reservable}");
    }

    #[test]
    fn a_managed_leaf_takes_every_template_key_and_the_share_only_while_active() {
        let p = props(&[
            ("root.m.leaf-queue-template.capacity", "40"),
            ("root.m.leaf-queue-template.user-limit-factor", "3"),
            ("root.m.leaf-queue-template.acl_submit_applications", "ann"),
            ("root.m.x.user-limit-factor", "9"),
        ]);
        let leaf = |active| DynamicQueue { path: "root.m.x".into(), kind: DynamicKind::Managed { active } };
        let get = |out: &Properties, k: &str| out.get_raw(&format!("{PREFIX}root.m.x.{k}")).map(str::to_string);
        let on = with_dynamic_queues(&p, &[leaf(true)]);
        assert_eq!(get(&on, "capacity").as_deref(), Some("40"));
        assert_eq!(get(&on, "user-limit-factor").as_deref(), Some("3"), "the template wins over the file");
        assert_eq!(get(&on, "acl_submit_applications").as_deref(), Some("ann"));
        assert_eq!(get(&on, "acl_administer_queue").as_deref(), Some(" "));
        let off = with_dynamic_queues(&p, &[leaf(false)]);
        assert_eq!(get(&off, "capacity").as_deref(), Some("0"));
        let view = written_keys(&p, &[leaf(false)], |_| false);
        assert!(view.contains(&(format!("{PREFIX}root.m.x.capacity"), "40".to_string())));
        let zeroed = written_keys(&p, &[leaf(false)], |_| true);
        assert!(zeroed.contains(&(format!("{PREFIX}root.m.x.capacity"), "0".to_string())));
    }
}
