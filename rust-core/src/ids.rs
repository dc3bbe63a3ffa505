//! The vocabulary every other module speaks: compact ids of applications, nodes, queues
//! and containers, the key of a group of requests, and locality. Depends on nothing, so
//! the model, the policy and the scheduler can all name each other's objects without
//! importing each other.

/// Compact id of an application, handed to Java when it is added.
pub type AppKey = u32;

/// Compact id of a node, handed to Java when the node is added.
pub type NodeKey = u32;

/// Index of a queue in the tree (root is 0).
pub type QueueIndex = usize;

/// A container within its application: the attempt it was allocated to and its number in
/// that attempt, the `long` YARN's `ContainerId.getContainerId()` returns (epoch in the
/// high bits). As the RM's own do, numbers start over with each attempt, so a container
/// a later attempt inherits (keep-containers) and one allocated to that attempt may share
/// a number and differ only by attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ContainerId {
    /// The application attempt's id (1 for the first).
    pub attempt: i32,
    /// The number within the attempt.
    pub number: u64,
}

impl std::fmt::Display for ContainerId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} of attempt {}", self.number, self.attempt)
    }
}

/// A container, as (application, container within it).
pub type ContainerRef = (AppKey, ContainerId);

/// One container the RM is done with, and how far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Release {
    /// Completed, released, expired, killed or lost: its application, queues and node are
    /// all done with it.
    Done(ContainerRef),
    /// Its application is done with it (released or killed), but it still runs on its node
    /// until the NodeManager reports it gone: the node's share stays taken, as Apache's
    /// scheduler node keeps it.
    NodeHolds(ContainerRef),
    /// The NodeManager reports gone a container its node held after its application let
    /// go of it: the node's share is free.
    NodeFreed(ContainerRef),
    /// The NodeManager reports the container running: from now its node keeps its share
    /// after its application lets go of it, until the NodeManager reports it gone.
    Launched(ContainerRef),
}

/// The resource name YARN uses for "anywhere".
pub const ANY: &str = "*";

/// Identifies one group of requests: YARN's `SchedulerRequestKey`. Lower priority numbers
/// are served first, then lower allocation-request ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SchedulerKey {
    /// Request priority (0 is the most important).
    pub priority: i32,
    /// `allocationRequestId` from the ask.
    pub allocation_request_id: i64,
}

/// How close to its data a container was placed (YARN's `NodeType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Locality {
    /// On a host the application asked for.
    NodeLocal,
    /// On a rack the application asked for.
    RackLocal,
    /// Anywhere else.
    OffSwitch,
}

/// YARN's textual application id.
pub fn application_name(app_id: (i64, i32)) -> String {
    format!("application_{}_{:04}", app_id.0, app_id.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_groups_are_served_by_priority_then_request_id() {
        let k = |priority, allocation_request_id| SchedulerKey { priority, allocation_request_id };
        let mut keys = vec![k(2, 0), k(1, 7), k(1, 3)];
        keys.sort();
        assert_eq!(keys, [k(1, 3), k(1, 7), k(2, 0)]);
    }

    #[test]
    fn application_names_pad_the_sequence_number_as_yarn_does() {
        assert_eq!(application_name((1_700_000_000_000, 7)), "application_1700000000000_0007");
        assert_eq!(application_name((1, 12345)), "application_1_12345");
    }
}
