//! Where a submitted application goes: the placement rules (see [`crate::config::mapping`])
//! evaluated against the queue tree as Apache 3.4's `CSMappingPlacementRule` evaluates them.
//!
//! The rules only have a say over submissions that name no queue (the RM passes `default`
//! then), unless `queue-mappings-override.enable` is set. Each rule that matches either
//! places into a queue, rejects, or (`setDefaultQueue`) changes `%default` for the rules
//! after it; a queue that cannot take the application (missing, ambiguous, not a leaf) sends
//! the rule to its fallback: the next rule, `%default`, or a rejection. When no rule
//! decides, the submitted queue stands.

use crate::config::mapping::{
    normalize_root, path_validity, split_path, Action, Fallback, FoundQueue, Lookup, Matcher, PathValidity,
    PlacementRules, QueueLookup,
};
use crate::model::queue::{QueueTree, ResolveError};

/// The queue name the RM fills in when a submission names none.
pub const DEFAULT_QUEUE_NAME: &str = "default";

/// What Apache tells a rejected submitter: the details stay in the RM's log, so nothing of
/// the configuration leaks to clients.
pub const REJECTED_MESSAGE: &str =
    "Application submission have been rejected by a mapping rule. Please see the logs for details";

/// What the rules are told about a submission.
#[derive(Debug, Clone, Copy)]
pub struct Submission<'a> {
    /// The submitting user.
    pub user: &'a str,
    /// The user's groups, primary first, as the RM's group mapping lists them.
    pub groups: &'a [String],
    /// The queue named at submission (`default` when none was).
    pub queue: &'a str,
    /// The application's name.
    pub application_name: &'a str,
    /// The RM is recovering the application after a restart.
    pub recovery: bool,
}

/// What the rules decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// No rule decided (or the rules have no say): the submitted queue stands.
    Unplaced,
    /// Into this queue (a full path), by rule `rule` (counting from 0).
    Placed {
        /// The queue's full path; it may not exist yet when the rule allows creating it.
        queue: String,
        /// The deciding rule.
        rule: usize,
    },
    /// Refused by rule `rule`.
    Rejected {
        /// The deciding rule.
        rule: usize,
    },
}

/// A placement and how it was reached, rule by rule (for `capsched place` and the log).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// The outcome.
    pub placement: Placement,
    /// One line per rule looked at, and why the rules had no say if they had none.
    pub trace: Vec<String>,
}

impl QueueLookup for QueueTree {
    fn lookup(&self, name: &str) -> Lookup {
        match self.resolve(name) {
            Ok(i) => {
                let q = &self.get(i).config;
                Lookup::Found(FoundQueue {
                    path: q.path.clone(),
                    leaf: q.is_leaf(),
                    dynamic_parent: q.auto_create_child_queue || q.auto_queue_v2,
                    flexible_parent: q.auto_queue_v2 && !q.auto_create_child_queue,
                })
            }
            Err(ResolveError::Unknown) => Lookup::Unknown,
            Err(ResolveError::Ambiguous(_)) => Lookup::Ambiguous,
        }
    }
}

/// The variables of one evaluation (Apache's `VariableContext`).
struct Variables<'a> {
    /// Name and value; `%default` may change as rules run.
    values: Vec<(&'static str, String)>,
    /// The user's name as submitted, when cleaning changed it (the user matcher compares it).
    original_user: Option<&'a str>,
    /// Groups after the first, each a candidate for `%secondary_group` (the first with a
    /// queue of its name where it appears).
    secondary_candidates: Vec<String>,
    /// The user's groups as the RM gave them (for group matchers); None when it gave none.
    groups: Option<&'a [String]>,
}

/// A user or group name as a queue name: dots become `_dot_`.
fn clean_name(name: &str) -> String {
    name.replace('.', "_dot_")
}

impl<'a> Variables<'a> {
    fn new(s: &Submission<'a>) -> Self {
        let user = clean_name(s.user);
        let specified = if s.queue == DEFAULT_QUEUE_NAME { String::new() } else { s.queue.to_string() };
        let mut values = vec![
            ("%user", user.clone()),
            ("%specified", specified),
            ("%application", s.application_name.to_string()),
            ("%default", "root.default".to_string()),
        ];
        let mut secondary_candidates = Vec::new();
        if let Some((primary, rest)) = s.groups.split_first() {
            values.push(("%primary_group", clean_name(primary)));
            if rest.is_empty() {
                values.push(("%secondary_group", String::new()));
            } else {
                secondary_candidates = rest.iter().map(|g| clean_name(g)).collect();
            }
        }
        // With no groups at all, %primary_group and %secondary_group stay undefined: a path
        // keeps them literally and finds no queue.
        Variables {
            values,
            original_user: (user != s.user).then_some(s.user),
            secondary_candidates,
            groups: (!s.groups.is_empty()).then_some(s.groups),
        }
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.values.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    /// Every variable replaced wherever it occurs, longest names first (Apache's
    /// `replaceVariables`, for matchers and `setDefaultQueue`).
    fn replace(&self, input: &str) -> String {
        let mut names: Vec<&(&str, String)> = self.values.iter().collect();
        names.sort_by_key(|(n, _)| std::cmp::Reverse(n.len()));
        names.iter().fold(input.to_string(), |acc, (n, v)| acc.replace(n, v))
    }

    /// Each path part that is a variable replaced by its value (Apache's
    /// `replacePathVariables`); `%secondary_group` becomes the first secondary group with a
    /// queue of that name under the parts before it.
    fn replace_in_path(&self, input: &str, queues: &impl QueueLookup) -> String {
        let mut parts: Vec<String> = split_path(input).into_iter().map(str::to_string).collect();
        for i in 0..parts.len() {
            if let Some(v) = self.get(&parts[i]) {
                parts[i] = v.to_string();
            } else if parts[i] == "%secondary_group" && !self.secondary_candidates.is_empty() {
                let prefix: String = parts[..i].iter().map(|p| format!("{p}.")).collect();
                parts[i] = self
                    .secondary_candidates
                    .iter()
                    .find(|g| queues.find(&format!("{prefix}{g}")).is_some())
                    .cloned()
                    .unwrap_or_default();
            }
        }
        parts.join(".")
    }

    fn matches(&self, matcher: &Matcher) -> bool {
        match matcher {
            Matcher::All => true,
            Matcher::User(name) => {
                let wanted = self.replace(name);
                match self.original_user {
                    Some(original) => wanted == original,
                    None => self.get("%user") == Some(wanted.as_str()),
                }
            }
            Matcher::Group(group) => {
                let wanted = self.replace(group);
                self.groups.is_some_and(|gs| gs.contains(&wanted))
            }
            Matcher::Application(name) => self.get("%application") == Some(self.replace(name).as_str()),
        }
    }

    fn set_default(&mut self, value: &str) {
        let replaced = self.replace(value);
        if let Some(slot) = self.values.iter_mut().find(|(n, _)| *n == "%default") {
            slot.1 = replaced;
        }
    }
}

/// Apache's `validateAndNormalizeQueue`: the full path of the leaf `name` designates (or of
/// one `create` lets a dynamic parent create), or why it cannot take an application.
fn normalize_target(queues: &impl QueueLookup, name: &str, create: bool) -> Result<String, String> {
    let (parent, leaf) = match name.rfind('.') {
        Some(dot) => (Some(name[..dot].trim()), name[dot + 1..].trim()),
        None => (None, name),
    };
    let full = parent.map_or_else(|| leaf.to_string(), |p| format!("{p}.{leaf}"));
    if leaf.is_empty() || split_path(&full).iter().any(|p| p.is_empty()) {
        return Err(format!("Invalid path returned by rule: '{name}'"));
    }
    let normalized = match parent {
        Some(parent) => {
            let path = normalize_root(queues, &full)?;
            match path_validity(queues, &path) {
                PathValidity::Exists => path,
                PathValidity::Creatable if create => path,
                PathValidity::Creatable => {
                    return Err(format!("Mapping rule doesn't allow auto-creation of the queue '{path}'."))
                }
                PathValidity::AmbiguousParent => {
                    return Err(format!("Mapping rule specified a parent queue '{parent}', but it is ambiguous."))
                }
                PathValidity::AmbiguousQueue => {
                    return Err(format!("Mapping rule specified a target queue '{path}', but it is ambiguous."))
                }
                PathValidity::EmptyPath => return Err("Mapping rule did not specify a target queue.".into()),
                PathValidity::NoParentProvided => {
                    return Err("Mapping rule did not specify an existing queue nor a dynamic parent queue.".into())
                }
                PathValidity::NoDynamicParent => {
                    return Err(format!(
                        "Mapping rule specified a parent queue '{parent}', but it is not a dynamic parent queue, and no queue exists with name '{leaf}' under it."
                    ))
                }
            }
        }
        None => match queues.lookup(leaf) {
            Lookup::Found(q) => q.path,
            Lookup::Ambiguous => return Err(format!("Queue '{leaf}' specified in mapping rule is ambiguous")),
            Lookup::Unknown => return Err(format!("Queue '{leaf}' specified in mapping rule does not exist.")),
        },
    };
    match queues.find(&normalized) {
        Some(q) if !q.leaf => {
            Err(format!("Mapping rule returned a non-leaf queue '{normalized}', cannot place application in it."))
        }
        _ => Ok(normalized),
    }
}

/// What one rule gives before `%default` placements are resolved.
enum Outcome {
    Skip,
    Place(String),
    PlaceDefault,
    Reject,
}

fn fallback_outcome(fallback: Fallback) -> Outcome {
    match fallback {
        Fallback::Skip => Outcome::Skip,
        Fallback::PlaceDefault => Outcome::PlaceDefault,
        Fallback::Reject => Outcome::Reject,
    }
}

/// Places `submission` by `rules` over `queues`.
pub fn place(rules: &PlacementRules, queues: &impl QueueLookup, submission: &Submission<'_>) -> Decision {
    let mut trace = Vec::new();
    if rules.rules.is_empty() {
        trace.push("no placement rules are configured".to_string());
        return Decision { placement: Placement::Unplaced, trace };
    }
    if submission.queue != DEFAULT_QUEUE_NAME && !rules.override_specified && !submission.recovery {
        trace.push(format!(
            "the submission names queue '{}' and queue-mappings-override.enable is false: the rules have no say",
            submission.queue
        ));
        return Decision { placement: Placement::Unplaced, trace };
    }
    let mut vars = Variables::new(submission);
    let mut placement = Placement::Unplaced;
    for (i, rule) in rules.rules.iter().enumerate() {
        let label = format!("rule {} '{rule}'", i + 1);
        if !vars.matches(&rule.matcher) {
            trace.push(format!("{label}: does not match"));
            continue;
        }
        let outcome = match &rule.action {
            Action::Reject => Outcome::Reject,
            Action::SetDefault(value) => {
                vars.set_default(value);
                trace.push(format!("{label}: %default is now '{}'", vars.get("%default").unwrap_or("")));
                Outcome::Skip
            }
            Action::Place { target, create } => {
                let queue = vars.replace_in_path(target, queues);
                match normalize_target(queues, &queue, *create) {
                    Ok(path) => Outcome::Place(path),
                    Err(why) => {
                        let then = match rule.fallback {
                            Fallback::Skip => "on to the next rule",
                            Fallback::PlaceDefault => "falling back to the default queue",
                            Fallback::Reject => "falling back to rejecting",
                        };
                        trace.push(format!("{label}: cannot place in '{queue}' ({why}); {then}"));
                        fallback_outcome(rule.fallback)
                    }
                }
            }
        };
        placement = match outcome {
            Outcome::Skip => continue,
            Outcome::Place(queue) => {
                trace.push(format!("{label}: places in {queue}"));
                Placement::Placed { queue, rule: i }
            }
            Outcome::PlaceDefault => {
                let default = vars.replace_in_path("%default", queues);
                match normalize_target(queues, &default, false) {
                    Ok(queue) => {
                        trace.push(format!("{label}: places in the default queue, {queue}"));
                        Placement::Placed { queue, rule: i }
                    }
                    Err(why) => {
                        trace.push(format!("{label}: the default queue '{default}' cannot take it ({why}): rejected"));
                        Placement::Rejected { rule: i }
                    }
                }
            }
            Outcome::Reject => {
                trace.push(format!("{label}: rejects the submission"));
                Placement::Rejected { rule: i }
            }
        };
        break;
    }
    if placement == Placement::Unplaced {
        trace.push("no rule placed the application: the submitted queue stands".to_string());
    }
    if submission.recovery {
        // As Apache: a recovered application keeps its queue; the rules' answer counts only
        // when it names that same leaf.
        let same = matches!(&placement, Placement::Placed { queue, .. }
            if queue.rsplit('.').next() == Some(submission.queue));
        if !same {
            placement = Placement::Unplaced;
        }
    }
    Decision { placement, trace }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::mapping::{parse_app_name_rules, parse_json, parse_legacy, ConfiguredQueues};
    use crate::config::{ClusterSettings, SchedulerConfig};

    const TREE: &str = r#"<configuration>
      <property><name>yarn.scheduler.capacity.root.queues</name><value>default,eng,users,ops</value></property>
      <property><name>yarn.scheduler.capacity.root.default.capacity</name><value>40</value></property>
      <property><name>yarn.scheduler.capacity.root.eng.capacity</name><value>30</value></property>
      <property><name>yarn.scheduler.capacity.root.users.capacity</name><value>20</value></property>
      <property><name>yarn.scheduler.capacity.root.ops.capacity</name><value>10</value></property>
      <property><name>yarn.scheduler.capacity.root.users.queues</name><value>alice,bob,analysts</value></property>
      <property><name>yarn.scheduler.capacity.root.users.alice.capacity</name><value>40</value></property>
      <property><name>yarn.scheduler.capacity.root.users.bob.capacity</name><value>30</value></property>
      <property><name>yarn.scheduler.capacity.root.users.analysts.capacity</name><value>30</value></property>
      <property><name>yarn.scheduler.capacity.root.ops.queues</name><value>alice,etl</value></property>
      <property><name>yarn.scheduler.capacity.root.ops.alice.capacity</name><value>50</value></property>
      <property><name>yarn.scheduler.capacity.root.ops.etl.capacity</name><value>50</value></property>
    </configuration>"#;

    fn tree() -> SchedulerConfig {
        SchedulerConfig::from_xml(TREE.as_bytes(), "t.xml", ClusterSettings::default()).unwrap()
    }

    fn place_with(rules: PlacementRules, user: &str, groups: &[&str], queue: &str, app: &str) -> Placement {
        let config = tree();
        let groups: Vec<String> = groups.iter().map(|g| g.to_string()).collect();
        let s = Submission { user, groups: &groups, queue, application_name: app, recovery: false };
        place(&rules, &ConfiguredQueues::new(&config.queues), &s).placement
    }

    fn legacy(value: &str) -> PlacementRules {
        PlacementRules { rules: parse_legacy(value).unwrap(), override_specified: false }
    }

    fn placed(queue: &str, rule: usize) -> Placement {
        Placement::Placed { queue: queue.into(), rule }
    }

    #[test]
    fn user_rules_place_by_name_and_skip_when_a_queue_was_named() {
        let rules = legacy("u:carol:eng,u:%user:%user");
        assert_eq!(place_with(rules.clone(), "carol", &[], "default", "x"), placed("root.eng", 0));
        assert_eq!(place_with(rules.clone(), "bob", &[], "default", "x"), placed("root.users.bob", 1));
        // alice is ambiguous (users.alice and ops.alice): the rule falls back to the default.
        assert_eq!(place_with(rules.clone(), "alice", &[], "default", "x"), placed("root.default", 1));
        // A user with no queue of their name: the default queue too.
        assert_eq!(place_with(rules.clone(), "zed", &[], "default", "x"), placed("root.default", 1));
        assert_eq!(place_with(rules.clone(), "bob", &[], "eng", "x"), Placement::Unplaced);
        let mut forced = rules;
        forced.override_specified = true;
        assert_eq!(place_with(forced, "bob", &[], "eng", "x"), placed("root.users.bob", 1));
    }

    #[test]
    fn group_rules_and_group_placeholders() {
        let rules = legacy("g:analysts:users.analysts,u:%user:%primary_group,u:%user:root.users.%secondary_group");
        assert_eq!(
            place_with(rules.clone(), "dan", &["staff", "analysts"], "default", "x"),
            placed("root.users.analysts", 0)
        );
        assert_eq!(place_with(rules.clone(), "dan", &["eng", "x"], "default", "x"), placed("root.eng", 1));
        // %primary_group with no queue of that name falls back to the default (legacy rules).
        assert_eq!(place_with(rules, "dan", &["staff"], "default", "x"), placed("root.default", 1));
        let secondary = legacy("u:%user:root.users.%secondary_group");
        assert_eq!(
            place_with(secondary.clone(), "dan", &["staff", "nope", "bob"], "default", "x"),
            placed("root.users.bob", 0)
        );
        let nested = legacy("u:%user:users.%user");
        assert_eq!(place_with(nested, "alice", &[], "default", "x"), placed("root.users.alice", 0));
    }

    #[test]
    fn dotted_user_names_are_cleaned_for_queues_and_kept_for_matching() {
        let rules = legacy("u:j.doe:eng,u:%user:%user");
        assert_eq!(place_with(rules.clone(), "j.doe", &[], "default", "x"), placed("root.eng", 0));
        assert_eq!(place_with(rules, "b.ob", &[], "default", "x"), placed("root.default", 1));
    }

    #[test]
    fn application_name_rules() {
        let rules = PlacementRules {
            rules: parse_app_name_rules("nightly:etl,%application:%application").unwrap(),
            override_specified: false,
        };
        assert_eq!(place_with(rules.clone(), "u", &[], "default", "nightly"), placed("root.ops.etl", 0));
        assert_eq!(place_with(rules.clone(), "u", &[], "default", "eng"), placed("root.eng", 1));
        assert_eq!(place_with(rules, "u", &[], "default", "nowhere"), placed("root.default", 1));
    }

    #[test]
    fn json_rules_fall_back_as_each_rule_says() {
        let rules = |json: &str| PlacementRules { rules: parse_json(json).unwrap(), override_specified: false };
        let skip_then_reject = rules(
            r#"{"rules":[
              {"type":"user","matches":"*","policy":"user","parentQueue":"root.users"},
              {"type":"user","matches":"*","policy":"reject"}]}"#,
        );
        assert_eq!(place_with(skip_then_reject.clone(), "bob", &[], "default", "x"), placed("root.users.bob", 0));
        assert_eq!(place_with(skip_then_reject, "zed", &[], "default", "x"), Placement::Rejected { rule: 1 });
        let set_default = rules(
            r#"{"rules":[
              {"type":"group","matches":"eng","policy":"setDefaultQueue","value":"root.eng"},
              {"type":"user","matches":"*","policy":"user","fallbackResult":"placeDefault"}]}"#,
        );
        assert_eq!(place_with(set_default.clone(), "zed", &["eng"], "default", "x"), placed("root.eng", 1));
        assert_eq!(place_with(set_default, "zed", &["qa"], "default", "x"), placed("root.default", 1));
        let specified =
            rules(r#"{"rules":[{"type":"user","matches":"*","policy":"specified","fallbackResult":"reject"}]}"#);
        let mut forced = specified;
        forced.override_specified = true;
        assert_eq!(place_with(forced.clone(), "u", &[], "eng", "x"), placed("root.eng", 0));
        // Nothing specified: %specified is empty, no queue, the rule's fallback rejects.
        assert_eq!(place_with(forced, "u", &[], "default", "x"), Placement::Rejected { rule: 0 });
        let parent =
            rules(r#"{"rules":[{"type":"user","matches":"*","policy":"custom","customPlacement":"root.users"}]}"#);
        assert_eq!(
            place_with(parent, "u", &[], "default", "x"),
            Placement::Unplaced,
            "a parent cannot take applications"
        );
    }

    #[test]
    fn rules_that_can_never_place_are_refused_with_the_file() {
        let config = tree();
        let queues = ConfiguredQueues::new(&config.queues);
        for (value, why) in [
            ("u:a:nowhere", "Path root 'nowhere' does not exist"),
            ("u:a:alice", "Path root 'alice' is ambiguous"),
            ("u:a:root.users", "but it's not a leaf queue"),
            ("u:a:root.eng.%user", "'root.eng' is a leaf queue"),
            ("u:a:root.nowhere.%user", "No eligible parent found"),
            ("u:a:root.eng.x", "is not a dynamic parent queue"),
        ] {
            let errors = crate::config::mapping::validate(&parse_legacy(value).unwrap(), &queues);
            assert!(errors.len() == 1 && errors[0].message.contains(why), "{value}: {errors:?}");
        }
        for fine in
            ["u:a:eng", "u:%user:%user", "u:%user:users.%user", "g:g:%primary_group.%user", "u:a:root.users.bob"]
        {
            assert!(crate::config::mapping::validate(&parse_legacy(fine).unwrap(), &queues).is_empty(), "{fine}");
        }
    }
}
