//! `queue-mappings`: where an application goes when its submitter names no queue (or when
//! `queue-mappings-override.enable` says the mapping wins). Apache's legacy rule syntax:
//! `u:<user>:<queue>` and `g:<group>:<queue>`, comma-separated, first match wins, with
//! `%user`, `%primary_group` and `%secondary_group` as placeholders.

use serde::Serialize;
use std::fmt;

/// What a rule matches on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum MappingKind {
    /// `u:`: the submitting user (`%user` matches anyone).
    User,
    /// `g:`: one of the submitting user's groups.
    Group,
}

/// One rule of `queue-mappings`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QueueMapping {
    /// User or group rule.
    pub kind: MappingKind,
    /// The user or group name, or `%user`.
    pub source: String,
    /// The target queue (a leaf name or path, possibly with placeholders).
    pub queue: String,
}

impl fmt::Display for QueueMapping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = match self.kind {
            MappingKind::User => "u",
            MappingKind::Group => "g",
        };
        write!(f, "{prefix}:{}:{}", self.source, self.queue)
    }
}

/// Parses the whole `queue-mappings` value. Like Apache, blank entries and blank parts are
/// dropped before counting, so each rule must have exactly three non-empty parts.
pub fn parse_mappings(value: &str) -> Result<Vec<QueueMapping>, String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(|rule| {
            let parts: Vec<&str> = rule.split(':').map(str::trim).filter(|p| !p.is_empty()).collect();
            let [kind, source, queue] = parts[..] else {
                return Err(format!("'{rule}' is not a queue mapping: expected u:<user>:<queue> or g:<group>:<queue>"));
            };
            let kind = match kind {
                "u" => MappingKind::User,
                "g" => MappingKind::Group,
                other => {
                    return Err(format!(
                        "'{rule}' has an unknown mapping prefix '{other}': use u: for users or g: for groups"
                    ))
                }
            };
            Ok(QueueMapping { kind, source: source.to_string(), queue: queue.to_string() })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_user_and_group_rules() {
        let m = parse_mappings("u:alice:a, g:eng:root.b ,, u:%user:%primary_group.%user").unwrap();
        assert_eq!(m.len(), 3);
        assert_eq!(m[0], QueueMapping { kind: MappingKind::User, source: "alice".into(), queue: "a".into() });
        assert_eq!(m[1].kind, MappingKind::Group);
        assert_eq!(m[2].to_string(), "u:%user:%primary_group.%user");
        assert!(parse_mappings("").unwrap().is_empty());
    }

    #[test]
    fn rejects_malformed_rules_naming_them() {
        for (rule, why) in [
            ("u:alice", "is not a queue mapping"),
            ("x:alice:a", "unknown mapping prefix 'x'"),
            ("u::a", "is not a queue mapping"),
        ] {
            let err = parse_mappings(rule).unwrap_err();
            assert!(err.contains(rule) && err.contains(why), "{rule}: {err}");
        }
    }
}
