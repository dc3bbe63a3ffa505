//! Hadoop `AccessControlList` values: `"user1,user2 group1,group2"`, `*` for everyone, and
//! a blank (or a single space) for nobody.

use serde::Serialize;

/// Who a queue ACL lets in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AccessControlList {
    /// True for `*`: everyone.
    pub all: bool,
    /// Users named in the list.
    pub users: Vec<String>,
    /// Groups named in the list.
    pub groups: Vec<String>,
}

impl AccessControlList {
    /// The ACL that admits everyone (`*`).
    pub fn everyone() -> Self {
        AccessControlList { all: true, users: Vec::new(), groups: Vec::new() }
    }

    /// The ACL that admits nobody (`" "`).
    pub fn nobody() -> Self {
        AccessControlList { all: false, users: Vec::new(), groups: Vec::new() }
    }

    /// Parses Hadoop's ACL syntax. Like Hadoop, a value containing `*` as its user part
    /// means everyone; the part after the first space lists groups.
    pub fn parse(value: &str) -> Self {
        if value.trim() == "*" {
            return Self::everyone();
        }
        let (users, groups) = match value.split_once(' ') {
            Some((u, g)) => (u, g),
            None => (value, ""),
        };
        let list = |s: &str| -> Vec<String> {
            s.split(',').map(str::trim).filter(|x| !x.is_empty()).map(str::to_string).collect()
        };
        let users = list(users);
        if users.iter().any(|u| u == "*") {
            return Self::everyone();
        }
        AccessControlList { all: false, users, groups: list(groups) }
    }

    /// True when `user` (a member of `groups`) is admitted.
    pub fn allows(&self, user: &str, groups: &[String]) -> bool {
        self.all || self.users.iter().any(|u| u == user) || self.groups.iter().any(|g| groups.contains(g))
    }

    /// The ACL written back in Hadoop's syntax.
    pub fn to_hadoop_string(&self) -> String {
        if self.all {
            "*".to_string()
        } else if self.users.is_empty() && self.groups.is_empty() {
            " ".to_string()
        } else {
            format!("{} {}", self.users.join(","), self.groups.join(","))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_hadoop_acl_syntax() {
        let cases: &[(&str, bool, &[&str], &[&str])] = &[
            ("*", true, &[], &[]),
            (" ", false, &[], &[]),
            ("", false, &[], &[]),
            ("alice,bob", false, &["alice", "bob"], &[]),
            ("alice admins,ops", false, &["alice"], &["admins", "ops"]),
            (" admins", false, &[], &["admins"]),
        ];
        for (text, all, users, groups) in cases {
            let acl = AccessControlList::parse(text);
            assert_eq!(acl.all, *all, "{text:?}");
            assert_eq!(acl.users, *users, "{text:?}");
            assert_eq!(acl.groups, *groups, "{text:?}");
        }
    }

    #[test]
    fn allows_users_and_groups() {
        let acl = AccessControlList::parse("alice admins");
        assert!(acl.allows("alice", &[]));
        assert!(acl.allows("carol", &["admins".to_string()]));
        assert!(!acl.allows("carol", &["users".to_string()]));
        assert!(AccessControlList::everyone().allows("anyone", &[]));
        assert!(!AccessControlList::nobody().allows("anyone", &[]));
    }
}
