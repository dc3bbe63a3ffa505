//! `<leaf>.acl_application_max_priority`: which users may run applications at which
//! priorities in a leaf, read as Apache's `AppPriorityACLConfigurationParser` reads it.
//!
//! The value is a list of groups in brackets, each of space-separated `key=value` pairs:
//! `[user=alice,bob group=eng max_priority=5 default_priority=2] [user=* max_priority=1]`.
//! The first `user` or `group` value given is the ACL's user part and the second its group
//! part, as Apache takes them (in the order written).

use super::acl::AccessControlList;
use serde::Serialize;

/// One bracketed group.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PriorityAcl {
    /// The highest priority the group's users may ask for (before the cluster's cap).
    pub max_priority: i64,
    /// The priority the group's users get when they ask for none (negative values read as 0).
    pub default_priority: Option<i64>,
    /// Who belongs to the group.
    pub acl: AccessControlList,
}

/// Reads `value`; groups come back from the highest `max_priority` to the lowest (Apache
/// sorts them so, keeping the written order among equals). An error names what is wrong.
pub fn parse(value: &str) -> Result<Vec<PriorityAcl>, String> {
    let mut out = Vec::new();
    let mut rest = value;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let end = after.find(']').unwrap_or(after.len());
        let group = &after[..end];
        rest = &after[end..];
        if group.is_empty() || group.trim().is_empty() {
            continue;
        }
        out.push(parse_group(group.trim())?);
    }
    out.sort_by_key(|acl| std::cmp::Reverse(acl.max_priority));
    Ok(out)
}

fn parse_group(group: &str) -> Result<PriorityAcl, String> {
    let mut max_priority = None;
    let mut default_priority = None;
    let mut names: Vec<String> = Vec::new();
    for pair in group.split(' ').filter(|p| !p.is_empty()) {
        let mut parts = pair.split('=');
        let (Some(key), Some(value)) = (parts.next(), parts.next()) else { continue };
        let int =
            |v: &str| v.parse::<i32>().map(i64::from).map_err(|_| format!("'{v}' in [{group}] is not a whole number"));
        match key.trim().to_ascii_uppercase().as_str() {
            "MAX_PRIORITY" => max_priority = Some(int(value)?),
            "DEFAULT_PRIORITY" => default_priority = Some(int(value)?.max(0)),
            "USER" | "GROUP" => names.push(value.trim().to_string()),
            other => {
                return Err(format!(
                    "unknown key '{other}' in [{group}] (user, group, max_priority and default_priority are known)"
                ))
            }
        }
    }
    let max_priority = max_priority.ok_or_else(|| format!("[{group}] gives no max_priority"))?;
    let first = names.first().ok_or_else(|| format!("[{group}] names no user or group"))?;
    let acl = if first == "*" {
        AccessControlList::everyone()
    } else {
        let mut text = first.clone();
        if let Some(second) = names.get(1).filter(|s| !s.is_empty()) {
            text = format!("{text} {second}");
        }
        AccessControlList::parse(text.trim())
    };
    Ok(PriorityAcl { max_priority, default_priority, acl })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_read_and_sorted_from_the_highest_priority() {
        let acls = parse(
            "[user=alice,bob group=eng max_priority=2 default_priority=1] [user=* max_priority=7 default_priority=-3]",
        )
        .expect("valid");
        assert_eq!(acls.len(), 2);
        assert_eq!(acls[0].max_priority, 7);
        assert_eq!(acls[0].default_priority, Some(0), "a negative default reads as 0");
        assert!(acls[0].acl.all);
        assert_eq!(acls[1].acl.users, vec!["alice", "bob"]);
        assert_eq!(acls[1].acl.groups, vec!["eng"]);
        assert!(parse("*").expect("the default").is_empty(), "no bracket: no group");
    }

    #[test]
    fn what_apache_refuses_is_refused_with_the_reason() {
        assert!(parse("[user=a colour=blue max_priority=1]").unwrap_err().contains("unknown key 'COLOUR'"));
        assert!(parse("[user=a max_priority=high]").unwrap_err().contains("'high'"));
        assert!(parse("[user=a]").unwrap_err().contains("no max_priority"));
        assert!(parse("[max_priority=3]").unwrap_err().contains("no user or group"));
    }
}
