//! The wire protocol with `org.capsched.yarn.NativeScheduler`: every record layout, field
//! index and code that crosses the boundary, defined once. `Wire.java` mirrors it, and a
//! test reads that file and fails when the two disagree.

use crate::ids::Locality;
use crate::policy::admission::QueueAcl;
use crate::report::QueueRow;
use crate::scheduler::{Allocation, AllocationKind};

/// Fields of one allocation in `nodeUpdate`'s result, in order.
pub mod allocation {
    /// The application's key.
    pub const APP: usize = 0;
    /// The container number (`ContainerId.getContainerId()`).
    pub const NUMBER: usize = 1;
    /// Memory, MiB.
    pub const MEMORY: usize = 2;
    /// Virtual cores.
    pub const VCORES: usize = 3;
    /// The request's priority.
    pub const PRIORITY: usize = 4;
    /// The request's `allocationRequestId`.
    pub const ALLOCATION_REQUEST_ID: usize = 5;
    /// A locality code ([`super::locality_code`]).
    pub const LOCALITY: usize = 6;
    /// What to do: an allocation kind code ([`super::kind_code`]).
    pub const KIND: usize = 7;
    /// The node: the heartbeating one, except when a reservation elsewhere is dropped.
    pub const NODE: usize = 8;
    /// Longs per allocation.
    pub const STRIDE: usize = 9;
}

/// Fields of one queue in `queueReport`'s result, in order (doubles; counts and indices
/// are whole numbers).
pub mod queue_report {
    /// Configured capacity, a fraction of the parent.
    pub const CAPACITY: usize = 0;
    /// Configured maximum capacity, a fraction of the parent.
    pub const MAXIMUM_CAPACITY: usize = 1;
    /// The guarantee, a fraction of the cluster.
    pub const ABSOLUTE_CAPACITY: usize = 2;
    /// The maximum, a fraction of the cluster.
    pub const ABSOLUTE_MAXIMUM_CAPACITY: usize = 3;
    /// Used, a fraction of the guarantee.
    pub const USED_CAPACITY: usize = 4;
    /// Used, a fraction of the cluster.
    pub const ABSOLUTE_USED_CAPACITY: usize = 5;
    /// Used memory, MiB.
    pub const USED_MEMORY: usize = 6;
    /// Used virtual cores.
    pub const USED_VCORES: usize = 7;
    /// Applications in the queue and its descendants.
    pub const APPLICATIONS: usize = 8;
    /// 1 when STOPPED, else 0.
    pub const STOPPED: usize = 9;
    /// The parent's index, -1 for root.
    pub const PARENT: usize = 10;
    /// The weight, -1 unless the capacity is a weight.
    pub const WEIGHT: usize = 11;
    /// Maximum applications.
    pub const MAXIMUM_APPLICATIONS: usize = 12;
    /// `user-limit-factor`.
    pub const USER_LIMIT_FACTOR: usize = 13;
    /// `minimum-user-limit-percent`.
    pub const MINIMUM_USER_LIMIT_PERCENT: usize = 14;
    /// `maximum-am-resource-percent`.
    pub const MAXIMUM_AM_RESOURCE_PERCENT: usize = 15;
    /// `max-parallel-apps`, -1 when unlimited.
    pub const MAX_PARALLEL_APPS: usize = 16;
    /// Doubles per queue.
    pub const STRIDE: usize = 17;
}

/// Fields of one container in `containerReport`'s result (a diagnostics native).
pub mod container_report {
    /// The application's key.
    pub const APP: usize = 0;
    /// The container number.
    pub const NUMBER: usize = 1;
    /// The node's key.
    pub const NODE: usize = 2;
    /// Memory, MiB.
    pub const MEMORY: usize = 3;
    /// Virtual cores.
    pub const VCORES: usize = 4;
    /// 0 for a live container, 1 for a reservation.
    pub const RESERVED: usize = 5;
    /// Longs per container.
    pub const STRIDE: usize = 6;
}

/// Allocation kind codes.
pub const KIND_ALLOCATE: i64 = 0;
/// Hold the node for a container that does not fit yet.
pub const KIND_RESERVE: i64 = 1;
/// Drop the node's reservation.
pub const KIND_UNRESERVE: i64 = 2;
/// The reserved container becomes a real container.
pub const KIND_ALLOCATE_RESERVED: i64 = 3;

/// Locality codes (YARN's `NodeType`, mapped by name on the Java side).
pub const LOCALITY_NODE_LOCAL: i64 = 0;
/// Rack-local.
pub const LOCALITY_RACK_LOCAL: i64 = 1;
/// Off-switch.
pub const LOCALITY_OFF_SWITCH: i64 = 2;

/// Queue ACL codes (YARN's `QueueACL`, mapped by name on the Java side).
pub const ACL_SUBMIT_APPLICATIONS: i32 = 0;
/// `acl_administer_queue`.
pub const ACL_ADMINISTER_QUEUE: i32 = 1;

/// The code of an allocation kind.
pub fn kind_code(kind: AllocationKind) -> i64 {
    match kind {
        AllocationKind::Allocate => KIND_ALLOCATE,
        AllocationKind::Reserve => KIND_RESERVE,
        AllocationKind::Unreserve => KIND_UNRESERVE,
        AllocationKind::AllocateReserved => KIND_ALLOCATE_RESERVED,
    }
}

/// The code of a locality.
pub fn locality_code(locality: Locality) -> i64 {
    match locality {
        Locality::NodeLocal => LOCALITY_NODE_LOCAL,
        Locality::RackLocal => LOCALITY_RACK_LOCAL,
        Locality::OffSwitch => LOCALITY_OFF_SWITCH,
    }
}

/// The queue ACL a code names, if any.
pub fn acl_from_code(code: i32) -> Option<QueueAcl> {
    match code {
        ACL_SUBMIT_APPLICATIONS => Some(QueueAcl::SubmitApplications),
        ACL_ADMINISTER_QUEUE => Some(QueueAcl::AdministerQueue),
        _ => None,
    }
}

/// Encodes allocations, [`allocation::STRIDE`] longs each.
pub fn encode_allocations(allocations: &[Allocation]) -> Vec<i64> {
    let mut out = vec![0; allocations.len() * allocation::STRIDE];
    for (a, record) in allocations.iter().zip(out.chunks_exact_mut(allocation::STRIDE)) {
        record[allocation::APP] = i64::from(a.app);
        record[allocation::NUMBER] = a.number as i64;
        record[allocation::MEMORY] = a.resource.memory_mb;
        record[allocation::VCORES] = a.resource.vcores;
        record[allocation::PRIORITY] = i64::from(a.key.priority);
        record[allocation::ALLOCATION_REQUEST_ID] = a.key.allocation_request_id;
        record[allocation::LOCALITY] = locality_code(a.locality);
        record[allocation::KIND] = kind_code(a.kind);
        record[allocation::NODE] = i64::from(a.node);
    }
    out
}

/// Encodes queue rows, [`queue_report::STRIDE`] doubles each.
pub fn encode_queue_rows(rows: &[QueueRow]) -> Vec<f64> {
    use queue_report as f;
    let mut out = vec![0.0; rows.len() * f::STRIDE];
    for (q, record) in rows.iter().zip(out.chunks_exact_mut(f::STRIDE)) {
        record[f::CAPACITY] = q.capacity;
        record[f::MAXIMUM_CAPACITY] = q.maximum_capacity;
        record[f::ABSOLUTE_CAPACITY] = q.absolute_capacity;
        record[f::ABSOLUTE_MAXIMUM_CAPACITY] = q.absolute_maximum_capacity;
        record[f::USED_CAPACITY] = q.used_capacity;
        record[f::ABSOLUTE_USED_CAPACITY] = q.absolute_used_capacity;
        record[f::USED_MEMORY] = q.used.memory_mb as f64;
        record[f::USED_VCORES] = q.used.vcores as f64;
        record[f::APPLICATIONS] = q.applications as f64;
        record[f::STOPPED] = if q.stopped { 1.0 } else { 0.0 };
        record[f::PARENT] = q.parent.map_or(-1.0, |p| p as f64);
        record[f::WEIGHT] = q.weight.unwrap_or(-1.0);
        record[f::MAXIMUM_APPLICATIONS] = q.maximum_applications as f64;
        record[f::USER_LIMIT_FACTOR] = q.user_limit_factor;
        record[f::MINIMUM_USER_LIMIT_PERCENT] = q.minimum_user_limit_percent;
        record[f::MAXIMUM_AM_RESOURCE_PERCENT] = q.maximum_am_resource_percent;
        record[f::MAX_PARALLEL_APPS] = q.max_parallel_apps.map_or(-1.0, |m| m as f64);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::SchedulerKey;
    use crate::resource::Resource;

    #[test]
    fn an_allocation_encodes_each_field_at_its_index() {
        let a = Allocation {
            kind: AllocationKind::AllocateReserved,
            app: 7,
            number: (3 << 40) + 5,
            node: 11,
            resource: Resource::new(2048, 3),
            key: SchedulerKey { priority: 2, allocation_request_id: 9 },
            locality: Locality::RackLocal,
        };
        let out = encode_allocations(&[a.clone(), a]);
        assert_eq!(out.len(), 2 * allocation::STRIDE);
        assert_eq!(&out[..allocation::STRIDE], &[7, (3 << 40) + 5, 2048, 3, 2, 9, 1, 3, 11]);
    }

    #[test]
    fn acl_codes_round_trip_and_unknown_codes_name_nothing() {
        assert_eq!(acl_from_code(ACL_SUBMIT_APPLICATIONS), Some(QueueAcl::SubmitApplications));
        assert_eq!(acl_from_code(ACL_ADMINISTER_QUEUE), Some(QueueAcl::AdministerQueue));
        assert_eq!(acl_from_code(2), None);
    }
}
