//! The wire protocol with `org.capsched.yarn.NativeScheduler`: every record layout, field
//! index and code that crosses the boundary, defined once. `Wire.java` mirrors it, and a
//! test reads that file and fails when the two disagree.

use crate::ids::Locality;
use crate::policy::admission::QueueAcl;
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
