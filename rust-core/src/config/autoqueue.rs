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
    /// A parent (created on the way to a deeper leaf) rather than a leaf.
    pub parent: bool,
}

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
/// - a dynamic leaf's `user-limit-factor` is -1 and its `maximum-am-resource-percent` 1.0,
///   whatever the file says for its path, unless a template sets them;
/// - its ACLs are the template's (nobody when the template has none), never the file's;
/// - any other template key is written unless the file sets it for that path.
pub fn with_dynamic_queues(props: &Properties, dynamic: &[DynamicQueue]) -> Properties {
    let mut out = props.clone();
    // Siblings share their parent's templates: work each out once.
    let mut templates: HashMap<(&str, bool), Vec<(String, String)>> = HashMap::new();
    for d in dynamic {
        let Some((parent, _)) = d.path.rsplit_once('.') else { continue };
        let template = templates.entry((parent, !d.parent)).or_insert_with(|| template_for(props, parent, !d.parent));
        let own_prefix = format!("{PREFIX}{}.", d.path);
        let explicit = |key: &str| props.get_raw(&format!("{own_prefix}{key}")).is_some();
        if !d.parent {
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

/// The keys [`with_dynamic_queues`] writes for the queues in `dynamic`, each queue's
/// `capacity` included (a weight of 1 when neither file nor template gives one), as
/// `(name, value)`: what a view of the configuration needs to describe those queues as
/// Apache's queues describe themselves.
pub fn written_keys(props: &Properties, dynamic: &[DynamicQueue]) -> Vec<(String, String)> {
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
        if written.get_raw(&capacity).is_none() {
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
    if !super::validate::children_use_weights(children.iter().copied()) {
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
    Ok(missing.into_iter().enumerate().map(|(i, path)| DynamicQueue { path, parent: i != last }).collect())
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
        let out = with_dynamic_queues(&p, &[DynamicQueue { path: "root.a.x".into(), parent: false }]);
        let get = |k: &str| out.get_raw(&format!("{PREFIX}root.a.x.{k}")).map(str::to_string);
        assert_eq!(get("maximum-capacity").as_deref(), Some("70"));
        assert_eq!(get("user-limit-factor").as_deref(), Some("-1"));
        assert_eq!(get("maximum-am-resource-percent").as_deref(), Some("1.0"));
        assert_eq!(get("acl_submit_applications").as_deref(), Some(" "));
    }
}
