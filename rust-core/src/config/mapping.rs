//! Placement rules as the configuration writes them: which queue an application goes to
//! when its submitter names none (or, with `queue-mappings-override.enable`, whatever it
//! names). Apache 3.4 reads two formats into one rule model, and so do we:
//!
//! - **legacy** (`mapping-rule-format` unset or `legacy`): `queue-mappings`, comma-separated
//!   `u:<user>:<queue>` and `g:<group>:<queue>`, then
//!   `yarn.scheduler.queue-placement-rules.app-name`, `<application name>:<queue>`. Each
//!   places into its queue (placeholders allowed), may create it, and falls back to the
//!   default queue when the queue is not there;
//! - **json** (`mapping-rule-format=json`): `mapping-rule-json` inline, else the file
//!   `mapping-rule-json-file`, `{"rules": [{type, matches, policy, parentQueue,
//!   customPlacement, value, create, fallbackResult}]}`.
//!
//! Which queues exist is checked later, against the queue tree (see
//! [`crate::policy::mapping`]); here a rule only has to be well formed.

use super::{global_key, ConfigError, KeyReader, QueueConfig};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The key naming the application-name rules (outside `yarn.scheduler.capacity.`).
pub const APP_NAME_RULES_KEY: &str = "yarn.scheduler.queue-placement-rules.app-name";
/// The key listing the RM's placement rule engines.
pub const PLACEMENT_RULES_KEY: &str = "yarn.scheduler.queue-placement-rules";

/// What a rule looks at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Matcher {
    /// Every submission (`u:%user:…`, or `"matches": "*"` for users).
    All,
    /// Submissions by this user.
    User(String),
    /// Submissions by a member of this group.
    Group(String),
    /// Applications of this name.
    Application(String),
}

/// What a matching rule does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Action {
    /// Places into the queue `target` names once its variables (`%user`, `%primary_group`,
    /// `%secondary_group`, `%application`, `%specified`, `%default`) are replaced; `create`:
    /// the queue may be created under a dynamic parent.
    Place { target: String, create: bool },
    /// Refuses the submission.
    Reject,
    /// `setDefaultQueue`: `%default` is this queue for the rules after it.
    SetDefault(String),
}

/// What a rule does when the queue it places into cannot take the application.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Fallback {
    /// On to the next rule.
    #[serde(rename = "skip")]
    Skip,
    /// Into `%default` (`root.default` unless a rule set it).
    #[serde(rename = "placeDefault")]
    PlaceDefault,
    /// Refuse the submission.
    #[serde(rename = "reject")]
    Reject,
}

/// One placement rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MappingRule {
    /// Which submissions it applies to.
    pub matcher: Matcher,
    /// What it does with them.
    pub action: Action,
    /// What it does when its queue cannot be used.
    pub fallback: Fallback,
    /// The rule as the configuration wrote it, for messages.
    pub written: String,
    /// The key it was written in.
    pub key: String,
}

impl fmt::Display for MappingRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.written)
    }
}

/// The placement settings: the rules in evaluation order and when they apply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct PlacementRules {
    /// The rules, first match wins.
    pub rules: Vec<MappingRule>,
    /// `queue-mappings-override.enable`: the rules place applications that name a queue too.
    pub override_specified: bool,
}

/// Reads the placement rules in whichever format the configuration chose, recording every
/// problem against its key.
pub(crate) fn read(r: &mut KeyReader<'_>) -> PlacementRules {
    let override_specified = r.boolean(None, &global_key("queue-mappings-override.enable"), false);
    let mut rules = Vec::new();
    let engines_named = r.string(PLACEMENT_RULES_KEY).map(|v| split_trimmed(&v, ',')).unwrap_or_default();
    for engine in &engines_named {
        if engine != "user-group" && engine != "app-name" {
            r.error(
                None,
                PLACEMENT_RULES_KEY,
                format!(
                    "'{engine}' is not a placement rule this scheduler runs: use user-group or app-name (the capacity scheduler's mapping rules); custom PlacementRule classes are not supported"
                ),
            );
        }
    }
    let format_key = global_key("mapping-rule-format");
    match r.string(&format_key).as_deref() {
        None | Some("legacy") => {
            let key = global_key("queue-mappings");
            if let Some(value) = r.string(&key) {
                match parse_legacy(&value) {
                    Ok(mut parsed) => rules.append(&mut parsed),
                    Err(e) => r.error(None, &key, e),
                }
            }
            if let Some(value) = r.string(APP_NAME_RULES_KEY) {
                match parse_app_name_rules(&value) {
                    Ok(mut parsed) => rules.append(&mut parsed),
                    Err(e) => r.error(None, APP_NAME_RULES_KEY, e),
                }
            }
        }
        Some("json") => {
            let inline_key = global_key("mapping-rule-json");
            let file_key = global_key("mapping-rule-json-file");
            let inline = r.string(&inline_key).filter(|v| !v.is_empty());
            let file = r.string(&file_key).filter(|v| !v.is_empty());
            let parsed = match (inline, file) {
                (Some(json), _) => Some((inline_key, parse_json(&json))),
                (None, Some(path)) => Some((file_key, read_rules_file(&path).and_then(|json| parse_json(&json)))),
                // Apache starts with no rules, saying so in its log.
                (None, None) => None,
            };
            match parsed {
                Some((key, Ok(mut parsed))) => {
                    parsed.iter_mut().for_each(|rule| rule.key.clone_from(&key));
                    rules.append(&mut parsed)
                }
                Some((key, Err(e))) => r.error(None, &key, e),
                None => {}
            }
        }
        Some(other) => {
            r.error(None, &format_key, format!("'{other}' is not a mapping rule format: use legacy or json"))
        }
    }
    PlacementRules { rules, override_specified }
}

/// The largest mapping rules file read (a rules file is a few kilobytes; this keeps a
/// mistyped path such as a device from holding the scheduler).
const RULES_FILE_LIMIT: u64 = 16 << 20;

/// The text of `mapping-rule-json-file`.
fn read_rules_file(path: &str) -> Result<String, String> {
    use std::io::Read;
    let cannot = |e: std::io::Error| format!("cannot read the mapping rules file {path}: {e}");
    let file = std::fs::File::open(path).map_err(cannot)?;
    if !file.metadata().map_err(cannot)?.is_file() {
        return Err(format!("the mapping rules file {path} is not a regular file"));
    }
    let mut text = String::new();
    file.take(RULES_FILE_LIMIT + 1).read_to_string(&mut text).map_err(cannot)?;
    if text.len() as u64 > RULES_FILE_LIMIT {
        return Err(format!("the mapping rules file {path} is larger than {} MiB", RULES_FILE_LIMIT >> 20));
    }
    Ok(text)
}

/// Hadoop's `getTrimmedStringCollection`: split, trim, drop the empty pieces.
fn split_trimmed(value: &str, separator: char) -> Vec<String> {
    value.split(separator).map(str::trim).filter(|p| !p.is_empty()).map(str::to_string).collect()
}

/// Parses `queue-mappings`. Like Apache, blank entries and blank parts are dropped before
/// counting, so each rule must have exactly three non-empty parts.
pub fn parse_legacy(value: &str) -> Result<Vec<MappingRule>, String> {
    split_trimmed(value, ',')
        .into_iter()
        .map(|rule| {
            let parts = split_trimmed(&rule, ':');
            let [kind, source, queue] = &parts[..] else {
                return Err(format!("'{rule}' is not a queue mapping: expected u:<user>:<queue> or g:<group>:<queue>"));
            };
            let matcher = match kind.as_str() {
                "u" if source == "%user" => Matcher::All,
                "u" => Matcher::User(source.clone()),
                "g" => Matcher::Group(source.clone()),
                other => {
                    return Err(format!(
                        "'{rule}' has an unknown mapping prefix '{other}': use u: for users or g: for groups"
                    ))
                }
            };
            Ok(legacy_rule(matcher, queue, rule.clone(), global_key("queue-mappings")))
        })
        .collect()
}

/// Parses `yarn.scheduler.queue-placement-rules.app-name`: `<application name>:<queue>`.
pub fn parse_app_name_rules(value: &str) -> Result<Vec<MappingRule>, String> {
    split_trimmed(value, ',')
        .into_iter()
        .map(|rule| {
            let parts = split_trimmed(&rule, ':');
            let [name, queue] = &parts[..] else {
                return Err(format!(
                    "'{rule}' is not an application name mapping: expected <application name>:<queue>"
                ));
            };
            Ok(legacy_rule(Matcher::Application(name.clone()), queue, rule.clone(), APP_NAME_RULES_KEY.to_string()))
        })
        .collect()
}

/// Every legacy rule places into its queue, may create it, and falls back to the default.
fn legacy_rule(matcher: Matcher, queue: &str, written: String, key: String) -> MappingRule {
    let action = Action::Place { target: queue.to_string(), create: true };
    MappingRule { matcher, action, fallback: Fallback::PlaceDefault, written, key }
}

/// The JSON document's shape (Apache's `MappingRulesDescription`); keys it does not know are
/// ignored, as Jackson's generated classes keep them aside.
#[derive(Deserialize)]
struct RulesDocument {
    rules: Option<Vec<JsonRule>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonRule {
    #[serde(rename = "type")]
    kind: Option<JsonType>,
    matches: Option<String>,
    policy: Option<JsonPolicy>,
    parent_queue: Option<String>,
    fallback_result: Option<Fallback>,
    create: Option<bool>,
    value: Option<String>,
    custom_placement: Option<String>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum JsonType {
    User,
    Group,
    Application,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "camelCase")]
enum JsonPolicy {
    Specified,
    Reject,
    DefaultQueue,
    User,
    PrimaryGroup,
    SecondaryGroup,
    PrimaryGroupUser,
    SecondaryGroupUser,
    ApplicationName,
    SetDefaultQueue,
    Custom,
}

/// Parses the JSON rules (`mapping-rule-json` or the file `mapping-rule-json-file`).
pub fn parse_json(json: &str) -> Result<Vec<MappingRule>, String> {
    let doc: RulesDocument =
        serde_json::from_str(json).map_err(|e| format!("the mapping rules are not valid JSON for this format: {e}"))?;
    doc.rules
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(i, rule)| json_rule(rule).map_err(|e| format!("rule {} (counting from 1): {e}", i + 1)))
        .collect()
}

fn json_rule(rule: JsonRule) -> Result<MappingRule, String> {
    let policy = rule.policy.ok_or("its policy is undefined")?;
    let kind = rule.kind.ok_or("its type is undefined")?;
    let matches = rule.matches.ok_or("its match string is undefined")?;
    if matches.is_empty() {
        return Err("its match string is empty".into());
    }
    let (matcher, kind_name) = match kind {
        JsonType::User if matches == "*" => (Matcher::All, "user"),
        JsonType::User => (Matcher::User(matches.clone()), "user"),
        JsonType::Group if matches == "*" => return Err("'*' cannot match groups, only users".into()),
        JsonType::Group => (Matcher::Group(matches.clone()), "group"),
        JsonType::Application => (Matcher::Application(matches.clone()), "application"),
    };
    let create = rule.create.unwrap_or(true);
    let under = |leaf: &str| match &rule.parent_queue {
        Some(parent) => format!("{parent}.{leaf}"),
        None => leaf.to_string(),
    };
    let place = |target: String| Action::Place { target, create };
    let (action, policy_name) = match policy {
        // placeDefault's own placement may not create (Apache's PlaceToDefault action).
        JsonPolicy::DefaultQueue => (Action::Place { target: "%default".into(), create: false }, "defaultQueue"),
        JsonPolicy::Reject => (Action::Reject, "reject"),
        JsonPolicy::PrimaryGroup => (place(under("%primary_group")), "primaryGroup"),
        JsonPolicy::SecondaryGroup => (place(under("%secondary_group")), "secondaryGroup"),
        JsonPolicy::PrimaryGroupUser => (place(under("%primary_group.%user")), "primaryGroupUser"),
        JsonPolicy::SecondaryGroupUser => (place(under("%secondary_group.%user")), "secondaryGroupUser"),
        JsonPolicy::Specified => (place("%specified".into()), "specified"),
        JsonPolicy::Custom => (
            place(rule.custom_placement.clone().ok_or("its policy is custom but customPlacement is undefined")?),
            "custom",
        ),
        JsonPolicy::User => (place(under("%user")), "user"),
        JsonPolicy::ApplicationName => (place(under("%application")), "applicationName"),
        JsonPolicy::SetDefaultQueue => (
            Action::SetDefault(rule.value.clone().ok_or("its policy is setDefaultQueue but value is undefined")?),
            "setDefaultQueue",
        ),
    };
    let fallback = rule.fallback_result.unwrap_or(Fallback::Skip);
    let target = match &action {
        Action::Place { target, .. } => format!(" -> {target}"),
        Action::Reject => String::new(),
        Action::SetDefault(q) => format!(" %default={q}"),
    };
    let fallback_name = match fallback {
        Fallback::Skip => "skip",
        Fallback::PlaceDefault => "placeDefault",
        Fallback::Reject => "reject",
    };
    let written = format!("{kind_name} {matches}: {policy_name}{target} (fallback {fallback_name})");
    Ok(MappingRule { matcher, action, fallback, written, key: String::new() })
}

/// The variables a rule's target may use; any other path part is a queue name.
pub const VARIABLES: [&str; 6] =
    ["%user", "%primary_group", "%secondary_group", "%application", "%specified", "%default"];

/// A queue found by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundQueue {
    /// Its full path.
    pub path: String,
    /// Applications can run in it.
    pub leaf: bool,
    /// Queues may be created under it (a managed parent, `auto-create-child-queue.enabled`,
    /// or a flexible one).
    pub dynamic_parent: bool,
    /// Queues may be created under it and under the parents it creates
    /// (`auto-queue-creation-v2.enabled`, or a parent created so).
    pub flexible_parent: bool,
}

/// What looking a queue up by name gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// The queue with that full path, or the only queue with that short name.
    Found(FoundQueue),
    /// No queue has that path or short name.
    Unknown,
    /// Several queues have that short name.
    Ambiguous,
}

/// Finding queues by full path or unique short name, as Apache's queue manager does: over the
/// file's tree when a configuration is validated, over the live tree when an application is
/// placed.
pub trait QueueLookup {
    /// The queue `name` designates.
    fn lookup(&self, name: &str) -> Lookup;

    /// The queue `name` designates, if any.
    fn find(&self, name: &str) -> Option<FoundQueue> {
        match self.lookup(name) {
            Lookup::Found(q) => Some(q),
            Lookup::Unknown | Lookup::Ambiguous => None,
        }
    }
}

/// The queues of a configuration's tree, by path and by short name.
pub struct ConfiguredQueues<'a> {
    by_path: std::collections::HashMap<&'a str, &'a QueueConfig>,
    by_name: std::collections::HashMap<&'a str, Vec<&'a QueueConfig>>,
}

impl<'a> ConfiguredQueues<'a> {
    /// Indexes `queues`.
    pub fn new(queues: &'a [QueueConfig]) -> Self {
        let mut by_name: std::collections::HashMap<&str, Vec<&QueueConfig>> = std::collections::HashMap::new();
        for q in queues {
            by_name.entry(q.name.as_str()).or_default().push(q);
        }
        ConfiguredQueues { by_path: queues.iter().map(|q| (q.path.as_str(), q)).collect(), by_name }
    }
}

impl QueueLookup for ConfiguredQueues<'_> {
    fn lookup(&self, name: &str) -> Lookup {
        let found = |q: &QueueConfig| {
            Lookup::Found(FoundQueue {
                path: q.path.clone(),
                leaf: q.is_leaf(),
                dynamic_parent: q.auto_create_child_queue || q.auto_queue_v2,
                flexible_parent: q.auto_queue_v2 && !q.auto_create_child_queue,
            })
        };
        if let Some(q) = self.by_path.get(name) {
            return found(q);
        }
        match self.by_name.get(name).map(Vec::as_slice) {
            None | Some([]) => Lookup::Unknown,
            Some([one]) => found(one),
            Some(_) => Lookup::Ambiguous,
        }
    }
}

/// Java's `String.split("\\.")`: the parts between dots, trailing empty parts dropped (an
/// empty string is one empty part).
pub fn split_path(path: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = path.split('.').collect();
    if parts.len() > 1 {
        while parts.last() == Some(&"") {
            parts.pop();
        }
    }
    parts
}

/// The path with its first part replaced by that queue's full path (a short name may start
/// it), as Apache's `normalizeQueuePathRoot`.
pub fn normalize_root(queues: &impl QueueLookup, path: &str) -> Result<String, String> {
    let mut parts = split_path(path);
    let first = parts.first().copied().unwrap_or("");
    match queues.lookup(first) {
        Lookup::Found(q) => {
            let normalized = q.path;
            parts[0] = &normalized;
            Ok(parts.join("."))
        }
        Lookup::Ambiguous => Err(format!("Path root '{first}' is ambiguous. Path '{path}' is invalid")),
        Lookup::Unknown => Err(format!("Path root '{first}' does not exist. Path '{path}' is invalid")),
    }
}

/// Whether a normalized path names a queue or one that could be created (Apache's
/// `MappingRuleValidationHelper.ValidationResult`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathValidity {
    /// The queue exists.
    Exists,
    /// It does not, but its parent is a dynamic parent (or its grandparent may create both).
    Creatable,
    /// It does not, and no parent is named.
    NoParentProvided,
    /// It does not, and its parent cannot create it.
    NoDynamicParent,
    /// Its parent's short name is ambiguous.
    AmbiguousParent,
    /// Its own short name is ambiguous.
    AmbiguousQueue,
    /// The path is empty.
    EmptyPath,
}

/// Apache's `validateQueuePathAutoCreation`.
pub fn path_validity(queues: &impl QueueLookup, path: &str) -> PathValidity {
    if path.is_empty() {
        return PathValidity::EmptyPath;
    }
    match queues.lookup(path) {
        Lookup::Found(_) => return PathValidity::Exists,
        Lookup::Ambiguous => return PathValidity::AmbiguousQueue,
        Lookup::Unknown => {}
    }
    let mut parts = split_path(path);
    parts.pop();
    let parent = parts.join(".");
    parts.pop();
    let grandparent = parts.join(".");
    if parent.is_empty() {
        return PathValidity::NoParentProvided;
    }
    match queues.lookup(&parent) {
        Lookup::Ambiguous => PathValidity::AmbiguousParent,
        Lookup::Found(p) if p.dynamic_parent => PathValidity::Creatable,
        Lookup::Found(_) => PathValidity::NoDynamicParent,
        Lookup::Unknown if grandparent.is_empty() => PathValidity::NoParentProvided,
        Lookup::Unknown => match queues.lookup(&grandparent) {
            Lookup::Ambiguous => PathValidity::AmbiguousParent,
            // Apache lets a flexible auto-creation parent create a parent and its leaf;
            // a managed (legacy) parent creates leaves only.
            Lookup::Found(g) if g.flexible_parent => PathValidity::Creatable,
            Lookup::Found(_) | Lookup::Unknown => PathValidity::NoDynamicParent,
        },
    }
}

/// Checks each rule's target against the queue tree, as Apache does when it loads the rules
/// (a rule that can never place is refused with the file, not found out at submission).
pub fn validate(rules: &[MappingRule], queues: &impl QueueLookup) -> Vec<ConfigError> {
    rules
        .iter()
        .filter_map(|rule| match &rule.action {
            Action::Place { target, .. } => validate_target(queues, target).err().map(|e| {
                ConfigError::at_key(rule.key.clone(), format!("the placement rule '{rule}' cannot place: {e}"))
            }),
            Action::Reject | Action::SetDefault(_) => None,
        })
        .collect()
}

fn is_static(part: &str) -> bool {
    !VARIABLES.contains(&part)
}

/// Apache's `MappingRuleValidationContextImpl.validateQueuePath`.
fn validate_target(queues: &impl QueueLookup, target: &str) -> Result<(), String> {
    if target.is_empty() {
        return Err("Queue path is empty.".into());
    }
    let parts = split_path(target);
    if parts.iter().any(|p| p.is_empty()) {
        return Err(format!("Path segment cannot be empty '{target}'."));
    }
    if parts.iter().all(|p| is_static(p)) {
        let normalized = normalize_root(queues, target)?;
        let (parent, leaf) = target.rsplit_once('.').map_or((None, target), |(p, l)| (Some(p), l));
        return match path_validity(queues, &normalized) {
            PathValidity::Exists if queues.find(&normalized).is_some_and(|q| q.leaf) => Ok(()),
            PathValidity::Exists => Err(format!("Target queue '{target}' but it's not a leaf queue.")),
            PathValidity::Creatable => Ok(()),
            PathValidity::AmbiguousParent => Err(format!(
                "Target queue path '{target}' contains an ambiguous parent queue '{}' reference.",
                parent.unwrap_or("")
            )),
            PathValidity::AmbiguousQueue => Err(format!("Target queue is an ambiguous leaf queue '{target}'.")),
            PathValidity::EmptyPath => Err("Mapping rule did not specify a target queue.".into()),
            PathValidity::NoParentProvided => {
                Err(format!("Target queue does not exist and has no parent defined '{target}'."))
            }
            PathValidity::NoDynamicParent => Err(format!(
                "Mapping rule specified a parent queue '{}', but it is not a dynamic parent queue, and no queue exists with name '{leaf}' under it.",
                parent.unwrap_or("null")
            )),
        };
    }
    // A path with variables: only its static beginning can be checked.
    if !is_static(parts[0]) {
        return Ok(());
    }
    let statics: Vec<&str> = parts.iter().copied().take_while(|p| is_static(p)).collect();
    let static_part = statics.join(".");
    let normalized = normalize_root(queues, &static_part)?;
    if let Some(q) = queues.find(&normalized) {
        return if q.leaf {
            Err(format!(
                "Queue path '{target}' is invalid because '{normalized}' is a leaf queue, which can have no other queues under it."
            ))
        } else {
            Ok(())
        };
    }
    if statics.len() > 1 {
        let parent = normalize_root(queues, &statics[..statics.len() - 1].join("."))?;
        if queues.find(&parent).is_some_and(|q| q.dynamic_parent) {
            return Ok(());
        }
    }
    Err(format!("No eligible parent found on path '{target}'."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_user_and_group_rules() {
        let m = parse_legacy("u:alice:a, g:eng:root.b ,, u:%user:%primary_group.%user").unwrap();
        assert_eq!(m.len(), 3);
        assert_eq!(m[0].matcher, Matcher::User("alice".into()));
        assert_eq!(m[0].action, Action::Place { target: "a".into(), create: true });
        assert_eq!(m[0].fallback, Fallback::PlaceDefault);
        assert_eq!(m[1].matcher, Matcher::Group("eng".into()));
        assert_eq!(m[2].matcher, Matcher::All);
        assert_eq!(m[2].to_string(), "u:%user:%primary_group.%user");
        assert!(parse_legacy("").unwrap().is_empty());
        let a = parse_app_name_rules("spark-etl:etl, %application:%application").unwrap();
        assert_eq!(a[0].matcher, Matcher::Application("spark-etl".into()));
        assert_eq!(a[1].action, Action::Place { target: "%application".into(), create: true });
    }

    #[test]
    fn rejects_malformed_rules_naming_them() {
        for (rule, why) in [
            ("u:alice", "is not a queue mapping"),
            ("x:alice:a", "unknown mapping prefix 'x'"),
            ("u::a", "is not a queue mapping"),
        ] {
            let err = parse_legacy(rule).unwrap_err();
            assert!(err.contains(rule) && err.contains(why), "{rule}: {err}");
        }
        assert!(parse_app_name_rules("a:b:c").unwrap_err().contains("'a:b:c'"));
    }

    #[test]
    fn json_rules_become_the_same_model() {
        let rules = parse_json(
            r#"{"rules":[
                {"type":"user","matches":"*","policy":"user","parentQueue":"root.users","fallbackResult":"placeDefault"},
                {"type":"group","matches":"eng","policy":"primaryGroupUser","create":false,"extra":1},
                {"type":"application","matches":"etl","policy":"setDefaultQueue","value":"root.batch"},
                {"type":"user","matches":"bob","policy":"custom","customPlacement":"root.%user_x"},
                {"type":"user","matches":"eve","policy":"reject","fallbackResult":"reject"},
                {"type":"user","matches":"dan","policy":"defaultQueue"}
            ]}"#,
        )
        .unwrap();
        assert_eq!(rules[0].matcher, Matcher::All);
        assert_eq!(rules[0].action, Action::Place { target: "root.users.%user".into(), create: true });
        assert_eq!(rules[0].fallback, Fallback::PlaceDefault);
        assert_eq!(rules[1].action, Action::Place { target: "%primary_group.%user".into(), create: false });
        assert_eq!(rules[1].fallback, Fallback::Skip);
        assert_eq!(rules[2].action, Action::SetDefault("root.batch".into()));
        assert_eq!(rules[3].action, Action::Place { target: "root.%user_x".into(), create: true });
        assert_eq!(rules[4].action, Action::Reject);
        assert_eq!(rules[5].action, Action::Place { target: "%default".into(), create: false });
    }

    #[test]
    fn json_rules_come_from_the_file_unless_given_inline() {
        use crate::config::{ClusterSettings, SchedulerConfig};
        let dir = std::env::temp_dir().join(format!("capsched-rules-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("rules.json");
        std::fs::write(&file, r#"{"rules":[{"type":"user","matches":"*","policy":"user","fallbackResult":"skip"}]}"#)
            .unwrap();
        let xml = |extra: &str| {
            format!(
                "<configuration><property><name>yarn.scheduler.capacity.root.queues</name><value>default</value></property>\
                 <property><name>yarn.scheduler.capacity.root.default.capacity</name><value>100</value></property>\
                 <property><name>yarn.scheduler.capacity.mapping-rule-format</name><value>json</value></property>{extra}</configuration>"
            )
        };
        let load = |extra: &str| SchedulerConfig::from_xml(xml(extra).as_bytes(), "t.xml", ClusterSettings::default());
        let from_file = format!(
            "<property><name>yarn.scheduler.capacity.mapping-rule-json-file</name><value>{}</value></property>",
            file.display()
        );
        let rules = load(&from_file).unwrap().global.placement.rules;
        assert_eq!(rules.len(), 1);
        assert_eq!(rules[0].key, "yarn.scheduler.capacity.mapping-rule-json-file");
        let inline =
            r#"<property><name>yarn.scheduler.capacity.mapping-rule-json</name><value>{"rules":[]}</value></property>"#;
        assert!(load(&format!("{from_file}{inline}")).unwrap().global.placement.rules.is_empty(), "inline wins");
        let missing = "<property><name>yarn.scheduler.capacity.mapping-rule-json-file</name><value>/nonexistent/rules.json</value></property>";
        assert!(load(missing)
            .unwrap_err()
            .to_string()
            .contains("cannot read the mapping rules file /nonexistent/rules.json"));
        let device = format!(
            "<property><name>yarn.scheduler.capacity.mapping-rule-json-file</name><value>{}</value></property>",
            dir.display()
        );
        assert!(load(&device).unwrap_err().to_string().contains("is not a regular file"));
        assert!(load("").unwrap().global.placement.rules.is_empty(), "json with no rules given: none");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn json_rules_with_missing_or_unknown_fields_are_refused_naming_the_rule() {
        for (json, why) in [
            (
                r#"{"rules":[{"type":"user","policy":"user"}]}"#,
                "rule 1 (counting from 1): its match string is undefined",
            ),
            (r#"{"rules":[{"type":"group","matches":"*","policy":"user"}]}"#, "'*' cannot match groups"),
            (r#"{"rules":[{"type":"user","matches":"a","policy":"custom"}]}"#, "customPlacement is undefined"),
            (r#"{"rules":[{"type":"user","matches":"a","policy":"nowhere"}]}"#, "not valid JSON for this format"),
            (r#"{"rules":[{"type":"user","matches":"","policy":"user"}]}"#, "match string is empty"),
            ("{rules", "not valid JSON"),
        ] {
            let err = parse_json(json).unwrap_err();
            assert!(err.contains(why), "{json}: {err}");
        }
    }
}
