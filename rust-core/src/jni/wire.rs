//! The wire protocol with `org.capsched.yarn.NativeScheduler`: every record layout, field
//! index and code that crosses the boundary, defined once. `Wire.java` mirrors it, and a
//! test reads that file and fails when the two disagree.

use crate::ids::{AppKey, Locality};
use crate::model::AmDiagnosis;
use crate::policy::admission::QueueAcl;
use crate::report::{
    AutoCreation, CreationMethod, PartitionRow, QueueInfoRow, QueueRow, RuntimeState, UserPartitionRow, UserRow,
};
use crate::scheduler::{Allocation, AllocationKind};

/// Declares a group of wire constants as a module of `i64`/`usize`-compatible constants,
/// plus `JAVA`, the nested class of `Wire.java` that mirrors it, and `ALL`, every
/// constant by name, which the protocol test compares with `Wire.java`.
macro_rules! wire_constants {
    ($(#[$doc:meta])* $module:ident => $java:literal: $ty:ty { $($(#[$field_doc:meta])* $name:ident = $value:expr;)* }) => {
        $(#[$doc])*
        pub mod $module {
            /// The class of `Wire.java` that mirrors this group.
            pub const JAVA: &str = $java;
            $($(#[$field_doc])* pub const $name: $ty = $value;)*
            /// Every constant of the group, by name.
            pub const ALL: &[(&str, i64)] = &[$((stringify!($name), $name as i64)),*];
        }
    };
}

wire_constants! {
    /// Fields of one allocation in `nodeUpdate`'s result (longs), in order.
    allocation => "Allocation": usize {
        /// The application's key.
        APP = 0;
        /// The attempt the container goes to (`ApplicationAttemptId.getAttemptId()`).
        ATTEMPT = 1;
        /// The container number in that attempt (`ContainerId.getContainerId()`).
        NUMBER = 2;
        /// Memory, MiB.
        MEMORY = 3;
        /// Virtual cores.
        VCORES = 4;
        /// The request's priority.
        PRIORITY = 5;
        /// The request's `allocationRequestId`.
        ALLOCATION_REQUEST_ID = 6;
        /// A [`locality`](super::locality) code.
        LOCALITY = 7;
        /// What to do: a [`kind`](super::kind) code.
        KIND = 8;
        /// The node: the heartbeating one, except when a reservation elsewhere is dropped.
        NODE = 9;
        /// Longs per allocation.
        STRIDE = 10;
    }
}

wire_constants! {
    /// Fields of one container in the lists of containers that crossed the boundary:
    /// released or finished ones (to the core), lost or left ones (from it).
    container_ref => "ContainerRef": usize {
        /// The application's key.
        APP = 0;
        /// The attempt it was allocated to (`ApplicationAttemptId.getAttemptId()`).
        ATTEMPT = 1;
        /// Its number in that attempt (`ContainerId.getContainerId()`).
        NUMBER = 2;
        /// How far the RM is done with it: a [`release_kind`](super::release_kind) code.
        KIND = 3;
        /// Longs per container.
        STRIDE = 4;
    }
}

wire_constants! {
    /// How far the RM is done with a container ([`crate::ids::Release`]).
    release_kind => "ReleaseKind": i64 {
        /// Its application, queues and node are all done with it.
        DONE = 0;
        /// Its application is done with it; its node keeps its share until the NodeManager
        /// reports it gone.
        NODE_HOLDS = 1;
        /// The NodeManager reports gone a container its node kept.
        NODE_FREED = 2;
        /// The NodeManager reports the container running on its node.
        LAUNCHED = 3;
    }
}

wire_constants! {
    /// What the RM does with an allocation.
    kind => "Kind": i64 {
        /// A new container.
        ALLOCATE = 0;
        /// Hold the node for a container that does not fit yet.
        RESERVE = 1;
        /// Drop the node's reservation.
        UNRESERVE = 2;
        /// The reserved container becomes a real container, same number.
        ALLOCATE_RESERVED = 3;
        /// End a running container lazy preemption marked killable, as PREEMPTED.
        PREEMPT = 4;
    }
}

wire_constants! {
    /// Localities (YARN's `NodeType`, mapped by name on the Java side, never by ordinal).
    locality => "Locality": i64 {
        /// `NODE_LOCAL`.
        NODE_LOCAL = 0;
        /// `RACK_LOCAL`.
        RACK_LOCAL = 1;
        /// `OFF_SWITCH`.
        OFF_SWITCH = 2;
    }
}

wire_constants! {
    /// Queue ACLs (YARN's `QueueACL`, mapped by name on the Java side, never by ordinal).
    acl => "Acl": i32 {
        /// `SUBMIT_APPLICATIONS`.
        SUBMIT_APPLICATIONS = 0;
        /// `ADMINISTER_QUEUE`.
        ADMINISTER_QUEUE = 1;
    }
}

wire_constants! {
    /// A queue's fractions and factors in `queueReport`'s `figures` (doubles), in order.
    queue_figures => "QueueFigures": usize {
        /// Configured capacity, a fraction of the parent.
        CAPACITY = 0;
        /// Configured maximum capacity, a fraction of the parent.
        MAXIMUM_CAPACITY = 1;
        /// The guarantee, a fraction of the cluster.
        ABSOLUTE_CAPACITY = 2;
        /// The maximum, a fraction of the cluster.
        ABSOLUTE_MAXIMUM_CAPACITY = 3;
        /// Used, a fraction of the guarantee.
        USED_CAPACITY = 4;
        /// Used, a fraction of the cluster.
        ABSOLUTE_USED_CAPACITY = 5;
        /// The weight, -1 unless the capacity is a weight.
        WEIGHT = 6;
        /// `user-limit-factor`.
        USER_LIMIT_FACTOR = 7;
        /// `minimum-user-limit-percent`.
        MINIMUM_USER_LIMIT_PERCENT = 8;
        /// `maximum-am-resource-percent`.
        MAXIMUM_AM_RESOURCE_PERCENT = 9;
        /// The weight over its weight-mode siblings' sum, 0 unless the capacity is a weight.
        NORMALIZED_WEIGHT = 10;
        /// Doubles per queue.
        STRIDE = 11;
    }
}

wire_constants! {
    /// A queue's amounts, counts and links in `queueReport`'s `counts` (longs), in order.
    queue_counts => "QueueCounts": usize {
        /// Used memory, MiB.
        USED_MEMORY = 0;
        /// Used virtual cores.
        USED_VCORES = 1;
        /// Applications in the queue and its descendants.
        APPLICATIONS = 2;
        /// The queue's state now: a [`queue_state`](super::queue_state) code.
        STATE = 3;
        /// The parent's index, -1 for root.
        PARENT = 4;
        /// Maximum applications.
        MAXIMUM_APPLICATIONS = 5;
        /// `max-parallel-apps`, -1 when unlimited.
        MAX_PARALLEL_APPS = 6;
        /// The largest container's memory, MiB (`maximum-allocation-mb`).
        MAXIMUM_ALLOCATION_MEMORY = 7;
        /// The largest container's virtual cores (`maximum-allocation-vcores`).
        MAXIMUM_ALLOCATION_VCORES = 8;
        /// The guarantee's memory, MiB (effective minimum resource).
        EFFECTIVE_MIN_MEMORY = 9;
        /// The guarantee's virtual cores.
        EFFECTIVE_MIN_VCORES = 10;
        /// The maximum's memory, MiB (effective maximum resource).
        EFFECTIVE_MAX_MEMORY = 11;
        /// The maximum's virtual cores.
        EFFECTIVE_MAX_VCORES = 12;
        /// What its ApplicationMasters may hold, memory (leaves).
        AM_LIMIT_MEMORY = 13;
        /// What its ApplicationMasters may hold, virtual cores (leaves).
        AM_LIMIT_VCORES = 14;
        /// What its ApplicationMasters hold, memory (leaves).
        AM_USED_MEMORY = 15;
        /// What its ApplicationMasters hold, virtual cores (leaves).
        AM_USED_VCORES = 16;
        /// One user's ApplicationMaster limit (weight 1), memory (leaves).
        USER_AM_LIMIT_MEMORY = 17;
        /// One user's ApplicationMaster limit (weight 1), virtual cores (leaves).
        USER_AM_LIMIT_VCORES = 18;
        /// Activated applications (leaves).
        ACTIVE_APPLICATIONS = 19;
        /// Applications waiting for activation (leaves).
        PENDING_APPLICATIONS = 20;
        /// Reserved memory, MiB.
        RESERVED_MEMORY = 21;
        /// Reserved virtual cores.
        RESERVED_VCORES = 22;
        /// Applications one user may have in the queue (leaves).
        MAXIMUM_APPLICATIONS_PER_USER = 23;
        /// Applications counted against `max-parallel-apps` here (the queue and below).
        RUNNABLE_APPLICATIONS = 24;
        /// `maximum-application-lifetime` in effect, seconds (0 or less: none).
        MAXIMUM_APPLICATION_LIFETIME = 25;
        /// `default-application-lifetime` in effect, seconds (0 or less: none).
        DEFAULT_APPLICATION_LIFETIME = 26;
        /// 1 when capacity preemption may not take the queue's containers.
        PREEMPTION_DISABLED = 27;
        /// 1 when it may not take them for another application of the queue.
        INTRA_QUEUE_PREEMPTION_DISABLED = 28;
        /// 1 when it orders its children by priority, then utilization (its own or its
        /// parent's `ordering-policy` is `priority-utilization`).
        PRIORITY_UTILIZATION = 29;
        /// 1 for a leaf, 0 for a parent (one that may create children is a parent even
        /// with none).
        LEAF = 30;
        /// How it came to be ([`creation_method`]).
        DYNAMIC = 31;
        /// Whether queues may be created under it ([`auto_creation`]).
        AUTO_CREATION = 32;
        /// Containers and reservations its applications hold, every partition (leaves).
        CONTAINERS = 33;
        /// Longs per queue.
        STRIDE = 34;
    }
}

wire_constants! {
    /// How a queue came to be ([`crate::report::CreationMethod`]; Apache's
    /// `creationMethod`).
    creation_method => "CreationCode": i64 {
        /// `static`: configured in the file.
        STATIC = 0;
        /// `dynamicFlexible`: created by flexible auto-creation.
        FLEXIBLE = 1;
        /// `dynamicLegacy`: a managed parent's leaf.
        LEGACY = 2;
    }
}

wire_constants! {
    /// Whether queues may be created under a queue ([`crate::report::AutoCreation`];
    /// Apache's `autoCreationEligibility`).
    auto_creation => "AutoCreationCode": i64 {
        /// `off`.
        OFF = 0;
        /// `flexible`.
        FLEXIBLE = 1;
        /// `legacy`.
        LEGACY = 2;
    }
}

wire_constants! {
    /// A queue's state ([`crate::report::RuntimeState`]; YARN's `QueueState`, by name).
    queue_state => "QueueStateCode": i64 {
        /// `RUNNING`.
        RUNNING = 0;
        /// `STOPPED`.
        STOPPED = 1;
        /// `DRAINING`.
        DRAINING = 2;
    }
}

wire_constants! {
    /// One labelled partition of one queue or user in `partitionReport`'s `counts`
    /// (longs), in order; its label is in `labels`, its fractions in `figures`, at the
    /// row's index.
    partition_counts => "PartitionCounts": usize {
        /// The queue's index in `queueReport`'s order, or the user's in `userReport`'s.
        OWNER = 0;
        /// Whose partition: a [`partition_kind`](super::partition_kind) code.
        KIND = 1;
        /// [`partition_flags`](super::partition_flags), or-ed.
        FLAGS = 2;
        /// Used memory there, MiB.
        USED_MEMORY = 3;
        /// Used virtual cores there.
        USED_VCORES = 4;
        /// Reserved memory there, MiB (queues).
        RESERVED_MEMORY = 5;
        /// Reserved virtual cores there (queues).
        RESERVED_VCORES = 6;
        /// Its ApplicationMasters' memory there, MiB (leaves, users).
        AM_USED_MEMORY = 7;
        /// Its ApplicationMasters' virtual cores there (leaves, users).
        AM_USED_VCORES = 8;
        /// What its ApplicationMasters may hold there, memory (leaves, users).
        AM_LIMIT_MEMORY = 9;
        /// What its ApplicationMasters may hold there, virtual cores (leaves, users).
        AM_LIMIT_VCORES = 10;
        /// One user's ApplicationMaster limit there (weight 1), memory (leaves).
        USER_AM_LIMIT_MEMORY = 11;
        /// One user's ApplicationMaster limit there (weight 1), virtual cores (leaves).
        USER_AM_LIMIT_VCORES = 12;
        /// The guarantee there, memory (queues).
        EFFECTIVE_MIN_MEMORY = 13;
        /// The guarantee there, virtual cores (queues).
        EFFECTIVE_MIN_VCORES = 14;
        /// The maximum there, memory (queues).
        EFFECTIVE_MAX_MEMORY = 15;
        /// The maximum there, virtual cores (queues).
        EFFECTIVE_MAX_VCORES = 16;
        /// The maximum there as configured or inherited (an absolute resource), memory;
        /// 0 for none (queues).
        CONFIGURED_MAX_MEMORY = 17;
        /// The same, virtual cores (queues).
        CONFIGURED_MAX_VCORES = 18;
        /// Longs per row.
        STRIDE = 19;
    }
}

wire_constants! {
    /// A queue's labelled partition's fractions in `partitionReport`'s `figures`
    /// (doubles), in order (zeros for a user's row).
    partition_figures => "PartitionFigures": usize {
        /// `accessible-node-labels.<label>.capacity`, a fraction of the parent's share.
        CAPACITY = 0;
        /// `accessible-node-labels.<label>.maximum-capacity` (0 where the queue has no keys).
        MAXIMUM_CAPACITY = 1;
        /// The guarantee, a fraction of the partition.
        ABSOLUTE_CAPACITY = 2;
        /// The maximum, a fraction of the partition.
        ABSOLUTE_MAXIMUM_CAPACITY = 3;
        /// Used, a fraction of the guarantee.
        USED_CAPACITY = 4;
        /// Used, a fraction of the partition.
        ABSOLUTE_USED_CAPACITY = 5;
        /// The label's `maximum-am-resource-percent` (leaves with keys for it; else 0).
        MAXIMUM_AM_RESOURCE_PERCENT = 6;
        /// `accessible-node-labels.<label>.capacity` given as a weight; -1 otherwise.
        WEIGHT = 7;
        /// That weight over the weights the queue's siblings give there (0 without one).
        NORMALIZED_WEIGHT = 8;
        /// Doubles per row.
        STRIDE = 9;
    }
}

wire_constants! {
    /// Whose partition a row of `partitionReport` is ([`partition_counts::KIND`]).
    partition_kind => "PartitionKind": i64 {
        /// A queue's.
        QUEUE = 0;
        /// A leaf's user's.
        USER = 1;
    }
}

wire_constants! {
    /// What a queue's row of `partitionReport` is ([`partition_counts::FLAGS`], or-ed).
    partition_flags => "PartitionFlags": i64 {
        /// Listed among the queue's capacities.
        CAPACITIES = 1;
        /// Listed among the queue's resources (usage).
        USAGE = 2;
        /// The queue has `accessible-node-labels.<label>.*` keys (the root: some queue has).
        CONFIGURED = 4;
    }
}

wire_constants! {
    /// One user of one leaf in `userReport`'s `counts` (longs), in order; its name is in
    /// `names` and its weight in `weights`, at the user's index.
    user_counts => "UserCounts": usize {
        /// The leaf's index in `queueReport`'s order.
        QUEUE = 0;
        /// Used memory, MiB.
        USED_MEMORY = 1;
        /// Used virtual cores.
        USED_VCORES = 2;
        /// Its ApplicationMasters' memory, MiB.
        AM_USED_MEMORY = 3;
        /// Its ApplicationMasters' virtual cores.
        AM_USED_VCORES = 4;
        /// Its limit's memory, MiB.
        LIMIT_MEMORY = 5;
        /// Its limit's virtual cores.
        LIMIT_VCORES = 6;
        /// Activated applications.
        ACTIVE_APPLICATIONS = 7;
        /// Applications waiting for activation.
        PENDING_APPLICATIONS = 8;
        /// Its applications that make it one of Apache's active users (who share the leaf
        /// now; Apache's queue metrics count them as active applications).
        APPS_COUNTED_ACTIVE = 9;
        /// Its headroom's memory, MiB.
        HEADROOM_MEMORY = 10;
        /// Its headroom's virtual cores.
        HEADROOM_VCORES = 11;
        /// Its ApplicationMasters' limit's memory, MiB, its weight applied.
        AM_LIMIT_MEMORY = 12;
        /// Its ApplicationMasters' limit's virtual cores.
        AM_LIMIT_VCORES = 13;
        /// What it holds in the default partition, memory, MiB (`USED_*` counts every
        /// partition).
        DEFAULT_USED_MEMORY = 14;
        /// What it holds in the default partition, virtual cores.
        DEFAULT_USED_VCORES = 15;
        /// Longs per user.
        STRIDE = 16;
    }
}

wire_constants! {
    /// Fields of one container in `containerReport`'s result (a diagnostics native).
    container_report => "ContainerReport": usize {
        /// The application's key.
        APP = 0;
        /// The attempt it was allocated to.
        ATTEMPT = 1;
        /// The container number in that attempt.
        NUMBER = 2;
        /// The node's key.
        NODE = 3;
        /// Memory, MiB.
        MEMORY = 4;
        /// Virtual cores.
        VCORES = 5;
        /// 0 for a live container, 1 for a reservation, 2 for a container its application
        /// let go of that still holds a share of its node, 3 for a live container lazy
        /// preemption marked killable.
        RESERVED = 6;
        /// Longs per container.
        STRIDE = 7;
    }
}

wire_constants! {
    /// Fields of one action in `preemptionRound`'s result (longs), in order.
    preemption_action => "PreemptionAction": usize {
        /// A [`preemption_kind`](super::preemption_kind) code.
        KIND = 0;
        /// The application's key.
        APP = 1;
        /// The attempt the container was allocated to.
        ATTEMPT = 2;
        /// Its number in that attempt.
        NUMBER = 3;
        /// The node a reserved container holds, or -1.
        NODE = 4;
        /// The node a reservation moves to, or -1.
        TARGET = 5;
        /// Longs per action.
        STRIDE = 6;
    }
}

wire_constants! {
    /// What the RM does with a container a preemption round chose.
    preemption_kind => "PreemptionKind": i64 {
        /// MARK_CONTAINER_FOR_PREEMPTION: the application is told.
        MARK = 0;
        /// MARK_CONTAINER_FOR_KILLABLE: it ends as PREEMPTED.
        KILL = 1;
        /// KILL_RESERVED_CONTAINER: the reservation is dropped.
        KILL_RESERVED = 2;
        /// The reservation moves to another node (the scheduler's `moveReservedContainer`).
        MOVE_RESERVATION = 3;
    }
}

wire_constants! {
    /// Fields of one diagnosis in `amDiagnoses`' result (longs), and the diagnoses: what
    /// an application waiting for its AM container is told about its activation.
    am_diagnosis => "AmDiagnosis": i64 {
        /// The application's key.
        APP = 0;
        /// One of the codes below.
        CODE = 1;
        /// Longs per diagnosis.
        STRIDE = 2;
        /// Activated (Apache's `AMState.ACTIVATED`).
        ACTIVATED = 0;
        /// Held back by the leaf's AM limit (`QUEUE_AM_RESOURCE_LIMIT_EXCEED`).
        QUEUE_AM_LIMIT = 1;
        /// Held back by the user's AM limit (`USER_AM_RESOURCE_LIMIT_EXCEED`).
        USER_AM_LIMIT = 2;
        /// Not activated: the cluster is empty (`CLUSTER_RESOURCE_EMPTY`).
        CLUSTER_EMPTY = 3;
    }
}

wire_constants! {
    /// Fields of one queue in `queueMaximumAllocations`' result (longs), queues in tree
    /// order: the largest container the queue's applications may ask for.
    queue_maximum => "QueueMaximum": usize {
        /// Memory, MiB.
        MEMORY = 0;
        /// Virtual cores.
        VCORES = 1;
        /// Longs per queue.
        STRIDE = 2;
    }
}

wire_constants! {
    /// One queue's QueueInfo figures in `queueInfo`'s result (doubles; the state, limit and
    /// switches are whole numbers, exact as doubles), in order.
    queue_info => "QueueInfoFigures": usize {
        /// Configured capacity, a fraction of the parent.
        CAPACITY = 0;
        /// Configured maximum capacity, a fraction of the parent.
        MAXIMUM_CAPACITY = 1;
        /// The guarantee, a fraction of the cluster.
        ABSOLUTE_CAPACITY = 2;
        /// Used, a fraction of the guarantee.
        USED_CAPACITY = 3;
        /// The weight, -1 unless the capacity is a weight.
        WEIGHT = 4;
        /// A [`queue_state`](super::queue_state) code.
        STATE = 5;
        /// `max-parallel-apps`, -1 when not limited.
        MAX_PARALLEL_APPS = 6;
        /// 1 if preemption may not take the queue's containers, else 0.
        PREEMPTION_DISABLED = 7;
        /// 1 if preemption may not take them for another application of the queue, else 0.
        INTRA_QUEUE_PREEMPTION_DISABLED = 8;
        /// Doubles in all.
        STRIDE = 9;
    }
}

/// Every group of constants, for the protocol test.
pub const GROUPS: &[(&str, &[(&str, i64)])] = &[
    (allocation::JAVA, allocation::ALL),
    (container_ref::JAVA, container_ref::ALL),
    (release_kind::JAVA, release_kind::ALL),
    (kind::JAVA, kind::ALL),
    (locality::JAVA, locality::ALL),
    (acl::JAVA, acl::ALL),
    (queue_figures::JAVA, queue_figures::ALL),
    (queue_counts::JAVA, queue_counts::ALL),
    (queue_info::JAVA, queue_info::ALL),
    (queue_state::JAVA, queue_state::ALL),
    (creation_method::JAVA, creation_method::ALL),
    (auto_creation::JAVA, auto_creation::ALL),
    (user_counts::JAVA, user_counts::ALL),
    (partition_counts::JAVA, partition_counts::ALL),
    (partition_figures::JAVA, partition_figures::ALL),
    (partition_kind::JAVA, partition_kind::ALL),
    (partition_flags::JAVA, partition_flags::ALL),
    (container_report::JAVA, container_report::ALL),
    (preemption_action::JAVA, preemption_action::ALL),
    (preemption_kind::JAVA, preemption_kind::ALL),
    (am_diagnosis::JAVA, am_diagnosis::ALL),
    (queue_maximum::JAVA, queue_maximum::ALL),
];

/// Encodes diagnoses, [`am_diagnosis::STRIDE`] longs each.
pub fn encode_am_diagnoses(diagnoses: &[(AppKey, AmDiagnosis)]) -> Vec<i64> {
    let mut out = Vec::with_capacity(diagnoses.len() * am_diagnosis::STRIDE as usize);
    for &(app, diagnosis) in diagnoses {
        out.push(i64::from(app));
        out.push(match diagnosis {
            AmDiagnosis::Activated => am_diagnosis::ACTIVATED,
            AmDiagnosis::QueueAmLimit => am_diagnosis::QUEUE_AM_LIMIT,
            AmDiagnosis::UserAmLimit => am_diagnosis::USER_AM_LIMIT,
            AmDiagnosis::ClusterEmpty => am_diagnosis::CLUSTER_EMPTY,
        });
    }
    out
}

/// The code of an allocation kind.
pub fn kind_code(kind: AllocationKind) -> i64 {
    match kind {
        AllocationKind::Allocate => kind::ALLOCATE,
        AllocationKind::Reserve => kind::RESERVE,
        AllocationKind::Unreserve => kind::UNRESERVE,
        AllocationKind::AllocateReserved => kind::ALLOCATE_RESERVED,
        AllocationKind::Preempt => kind::PREEMPT,
    }
}

/// The code of a locality.
pub fn locality_code(locality: Locality) -> i64 {
    match locality {
        Locality::NodeLocal => locality::NODE_LOCAL,
        Locality::RackLocal => locality::RACK_LOCAL,
        Locality::OffSwitch => locality::OFF_SWITCH,
    }
}

/// The queue ACL a code names, if any.
pub fn acl_from_code(code: i32) -> Option<QueueAcl> {
    match code {
        acl::SUBMIT_APPLICATIONS => Some(QueueAcl::SubmitApplications),
        acl::ADMINISTER_QUEUE => Some(QueueAcl::AdministerQueue),
        _ => None,
    }
}

/// Encodes allocations, [`allocation::STRIDE`] longs each.
pub fn encode_allocations(allocations: &[Allocation]) -> Vec<i64> {
    let mut out = vec![0; allocations.len() * allocation::STRIDE];
    for (a, record) in allocations.iter().zip(out.chunks_exact_mut(allocation::STRIDE)) {
        record[allocation::APP] = i64::from(a.app);
        record[allocation::ATTEMPT] = i64::from(a.container.attempt);
        record[allocation::NUMBER] = a.container.number as i64;
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

/// Encodes one queue's QueueInfo figures as `queueInfo`'s [`queue_info`] doubles.
pub fn encode_queue_info(q: &QueueInfoRow) -> Vec<f64> {
    use queue_info as f;
    let mut out = vec![0.0; f::STRIDE];
    out[f::CAPACITY] = q.capacity;
    out[f::MAXIMUM_CAPACITY] = q.maximum_capacity;
    out[f::ABSOLUTE_CAPACITY] = q.absolute_capacity;
    out[f::USED_CAPACITY] = q.used_capacity;
    out[f::WEIGHT] = q.weight.unwrap_or(-1.0);
    out[f::STATE] = state_code(q.state) as f64;
    out[f::MAX_PARALLEL_APPS] = q.max_parallel_apps.unwrap_or(-1) as f64;
    out[f::PREEMPTION_DISABLED] = f64::from(u8::from(q.preemption.disabled));
    out[f::INTRA_QUEUE_PREEMPTION_DISABLED] = f64::from(u8::from(q.preemption.intra_queue_disabled));
    out
}

fn state_code(state: RuntimeState) -> i64 {
    match state {
        RuntimeState::Running => queue_state::RUNNING,
        RuntimeState::Stopped => queue_state::STOPPED,
        RuntimeState::Draining => queue_state::DRAINING,
    }
}

/// Encodes queue rows as `queueReport`'s two arrays: [`queue_figures`] doubles and
/// [`queue_counts`] longs per queue.
pub fn encode_queue_rows(rows: &[QueueRow]) -> (Vec<f64>, Vec<i64>) {
    use queue_counts as c;
    use queue_figures as f;
    let mut figures = vec![0.0; rows.len() * f::STRIDE];
    let mut counts = vec![0; rows.len() * c::STRIDE];
    for ((q, fig), count) in
        rows.iter().zip(figures.chunks_exact_mut(f::STRIDE)).zip(counts.chunks_exact_mut(c::STRIDE))
    {
        fig[f::CAPACITY] = q.capacity;
        fig[f::MAXIMUM_CAPACITY] = q.maximum_capacity;
        fig[f::ABSOLUTE_CAPACITY] = q.absolute_capacity;
        fig[f::ABSOLUTE_MAXIMUM_CAPACITY] = q.absolute_maximum_capacity;
        fig[f::USED_CAPACITY] = q.used_capacity;
        fig[f::ABSOLUTE_USED_CAPACITY] = q.absolute_used_capacity;
        fig[f::WEIGHT] = q.weight.unwrap_or(-1.0);
        fig[f::USER_LIMIT_FACTOR] = q.user_limit_factor;
        fig[f::MINIMUM_USER_LIMIT_PERCENT] = q.minimum_user_limit_percent;
        fig[f::MAXIMUM_AM_RESOURCE_PERCENT] = q.maximum_am_resource_percent;
        fig[f::NORMALIZED_WEIGHT] = q.normalized_weight;
        count[c::USED_MEMORY] = q.used.memory_mb;
        count[c::USED_VCORES] = q.used.vcores;
        count[c::APPLICATIONS] = q.applications as i64;
        count[c::STATE] = state_code(q.state);
        count[c::PARENT] = q.parent.map_or(-1, |p| p as i64);
        count[c::MAXIMUM_APPLICATIONS] = q.maximum_applications;
        count[c::MAX_PARALLEL_APPS] = q.max_parallel_apps.unwrap_or(-1);
        count[c::MAXIMUM_ALLOCATION_MEMORY] = q.maximum_allocation.memory_mb;
        count[c::MAXIMUM_ALLOCATION_VCORES] = q.maximum_allocation.vcores;
        count[c::EFFECTIVE_MIN_MEMORY] = q.effective_min.memory_mb;
        count[c::EFFECTIVE_MIN_VCORES] = q.effective_min.vcores;
        count[c::EFFECTIVE_MAX_MEMORY] = q.effective_max.memory_mb;
        count[c::EFFECTIVE_MAX_VCORES] = q.effective_max.vcores;
        count[c::AM_LIMIT_MEMORY] = q.am_limit.memory_mb;
        count[c::AM_LIMIT_VCORES] = q.am_limit.vcores;
        count[c::AM_USED_MEMORY] = q.am_used.memory_mb;
        count[c::AM_USED_VCORES] = q.am_used.vcores;
        count[c::USER_AM_LIMIT_MEMORY] = q.user_am_limit.memory_mb;
        count[c::USER_AM_LIMIT_VCORES] = q.user_am_limit.vcores;
        count[c::ACTIVE_APPLICATIONS] = q.active_applications as i64;
        count[c::PENDING_APPLICATIONS] = q.pending_applications as i64;
        count[c::CONTAINERS] = q.containers as i64;
        count[c::RESERVED_MEMORY] = q.reserved.memory_mb;
        count[c::RESERVED_VCORES] = q.reserved.vcores;
        count[c::MAXIMUM_APPLICATIONS_PER_USER] = q.maximum_applications_per_user;
        count[c::RUNNABLE_APPLICATIONS] = q.runnable_applications as i64;
        count[c::MAXIMUM_APPLICATION_LIFETIME] = q.lifetime.maximum;
        count[c::DEFAULT_APPLICATION_LIFETIME] = q.lifetime.default;
        count[c::PREEMPTION_DISABLED] = i64::from(q.preemption.disabled);
        count[c::INTRA_QUEUE_PREEMPTION_DISABLED] = i64::from(q.preemption.intra_queue_disabled);
        count[c::PRIORITY_UTILIZATION] =
            i64::from(q.queue_ordering == crate::config::QueueOrdering::PriorityUtilization);
        count[c::LEAF] = i64::from(q.leaf);
        count[c::DYNAMIC] = match q.creation {
            CreationMethod::Static => creation_method::STATIC,
            CreationMethod::Flexible => creation_method::FLEXIBLE,
            CreationMethod::Legacy => creation_method::LEGACY,
        };
        count[c::AUTO_CREATION] = match q.auto_creation {
            AutoCreation::Off => auto_creation::OFF,
            AutoCreation::Flexible => auto_creation::FLEXIBLE,
            AutoCreation::Legacy => auto_creation::LEGACY,
        };
    }
    (figures, counts)
}

/// Encodes user rows as `userReport`'s arrays: names, [`user_counts`] longs per user, and
/// weights.
pub fn encode_user_rows(rows: &[UserRow]) -> (Vec<String>, Vec<i64>, Vec<f64>) {
    use user_counts as u;
    let mut counts = vec![0; rows.len() * u::STRIDE];
    for (row, c) in rows.iter().zip(counts.chunks_exact_mut(u::STRIDE)) {
        c[u::QUEUE] = row.queue as i64;
        c[u::USED_MEMORY] = row.used.memory_mb;
        c[u::USED_VCORES] = row.used.vcores;
        c[u::AM_USED_MEMORY] = row.am_used.memory_mb;
        c[u::AM_USED_VCORES] = row.am_used.vcores;
        c[u::LIMIT_MEMORY] = row.limit.memory_mb;
        c[u::LIMIT_VCORES] = row.limit.vcores;
        c[u::ACTIVE_APPLICATIONS] = row.active_applications as i64;
        c[u::PENDING_APPLICATIONS] = row.pending_applications as i64;
        c[u::APPS_COUNTED_ACTIVE] = row.apps_counted_active as i64;
        c[u::HEADROOM_MEMORY] = row.headroom.memory_mb;
        c[u::HEADROOM_VCORES] = row.headroom.vcores;
        c[u::AM_LIMIT_MEMORY] = row.am_limit.memory_mb;
        c[u::AM_LIMIT_VCORES] = row.am_limit.vcores;
        c[u::DEFAULT_USED_MEMORY] = row.used_default.memory_mb;
        c[u::DEFAULT_USED_VCORES] = row.used_default.vcores;
    }
    (rows.iter().map(|r| r.user.clone()).collect(), counts, rows.iter().map(|r| r.weight).collect())
}

/// Encodes queues' and users' labelled partitions as `partitionReport`'s labels, counts
/// and figures: the queues' rows first, then the users'.
pub fn encode_partition_rows(queues: &[PartitionRow], users: &[UserPartitionRow]) -> (Vec<String>, Vec<i64>, Vec<f64>) {
    use partition_counts as c;
    use partition_figures as f;
    let n = queues.len() + users.len();
    let mut labels = Vec::with_capacity(n);
    let mut counts = vec![0; n * c::STRIDE];
    let mut figures = vec![0.0; n * f::STRIDE];
    let mut rows = counts.chunks_exact_mut(c::STRIDE).zip(figures.chunks_exact_mut(f::STRIDE));
    let put = |count: &mut [i64], at: usize, r: crate::resource::Resource| {
        count[at] = r.memory_mb;
        count[at + 1] = r.vcores;
    };
    for (q, (count, fig)) in queues.iter().zip(&mut rows) {
        labels.push(q.label.clone());
        count[c::OWNER] = q.queue as i64;
        count[c::KIND] = partition_kind::QUEUE;
        count[c::FLAGS] = [
            (q.in_capacities, partition_flags::CAPACITIES),
            (q.in_usage, partition_flags::USAGE),
            (q.configured, partition_flags::CONFIGURED),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .fold(0, |flags, (_, flag)| flags | flag);
        put(count, c::USED_MEMORY, q.used);
        put(count, c::RESERVED_MEMORY, q.reserved);
        put(count, c::AM_USED_MEMORY, q.am_used);
        put(count, c::AM_LIMIT_MEMORY, q.am_limit);
        put(count, c::USER_AM_LIMIT_MEMORY, q.user_am_limit);
        put(count, c::EFFECTIVE_MIN_MEMORY, q.effective_min);
        put(count, c::EFFECTIVE_MAX_MEMORY, q.effective_max);
        put(count, c::CONFIGURED_MAX_MEMORY, q.configured_max.unwrap_or(crate::resource::Resource::ZERO));
        fig[f::CAPACITY] = q.capacity;
        fig[f::MAXIMUM_CAPACITY] = q.maximum_capacity;
        fig[f::ABSOLUTE_CAPACITY] = q.absolute_capacity;
        fig[f::ABSOLUTE_MAXIMUM_CAPACITY] = q.absolute_maximum_capacity;
        fig[f::USED_CAPACITY] = q.used_capacity;
        fig[f::ABSOLUTE_USED_CAPACITY] = q.absolute_used_capacity;
        fig[f::MAXIMUM_AM_RESOURCE_PERCENT] = q.maximum_am_resource_percent;
        fig[f::WEIGHT] = q.weight;
        fig[f::NORMALIZED_WEIGHT] = q.normalized_weight;
    }
    for (u, (count, _)) in users.iter().zip(rows) {
        labels.push(u.label.clone());
        count[c::OWNER] = u.user as i64;
        count[c::KIND] = partition_kind::USER;
        put(count, c::USED_MEMORY, u.used);
        put(count, c::AM_USED_MEMORY, u.am_used);
        put(count, c::AM_LIMIT_MEMORY, u.am_limit);
    }
    (labels, counts, figures)
}

/// Encodes a round's actions, [`preemption_action::STRIDE`] longs each.
pub fn encode_preemption_actions(actions: &[crate::preemption::Action]) -> Vec<i64> {
    use crate::preemption::ActionKind;
    use preemption_action as f;
    let mut out = vec![0; actions.len() * f::STRIDE];
    for (a, r) in actions.iter().zip(out.chunks_exact_mut(f::STRIDE)) {
        r[f::KIND] = match a.kind {
            ActionKind::Mark => preemption_kind::MARK,
            ActionKind::Kill => preemption_kind::KILL,
            ActionKind::KillReserved => preemption_kind::KILL_RESERVED,
            ActionKind::MoveReservation => preemption_kind::MOVE_RESERVATION,
        };
        r[f::APP] = i64::from(a.app);
        r[f::ATTEMPT] = i64::from(a.container.attempt);
        r[f::NUMBER] = a.container.number as i64;
        r[f::NODE] = a.node.map_or(-1, i64::from);
        r[f::TARGET] = a.to.map_or(-1, i64::from);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{ContainerId, SchedulerKey};
    use crate::resource::Resource;

    #[test]
    fn an_allocation_encodes_each_field_at_its_index() {
        let a = Allocation {
            kind: AllocationKind::AllocateReserved,
            app: 7,
            container: ContainerId { attempt: 2, number: (3 << 40) + 5 },
            node: 11,
            resource: Resource::new(2048, 3),
            key: SchedulerKey { priority: 2, allocation_request_id: 9 },
            locality: Locality::RackLocal,
        };
        let out = encode_allocations(&[a.clone(), a]);
        assert_eq!(out.len(), 2 * allocation::STRIDE);
        assert_eq!(&out[..allocation::STRIDE], &[7, 2, (3 << 40) + 5, 2048, 3, 2, 9, 1, 3, 11]);
    }

    #[test]
    fn acl_codes_round_trip_and_unknown_codes_name_nothing() {
        assert_eq!(acl_from_code(acl::SUBMIT_APPLICATIONS), Some(QueueAcl::SubmitApplications));
        assert_eq!(acl_from_code(acl::ADMINISTER_QUEUE), Some(QueueAcl::AdministerQueue));
        assert_eq!(acl_from_code(2), None);
    }

    /// `Wire.java` declares exactly these constants, with these values: each group as a
    /// nested class of that name, each constant as `static final int NAME = VALUE;`.
    #[test]
    fn wire_java_mirrors_every_constant() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../java-shim/src/main/java/org/capsched/yarn/Wire.java");
        let java = std::fs::read_to_string(path).expect("Wire.java is readable");
        let mut declared = std::collections::BTreeMap::new();
        let mut class = String::new();
        for line in java.lines().map(str::trim) {
            if let Some(rest) = line.strip_prefix("static final class ") {
                class = rest.split_whitespace().next().unwrap_or_default().to_string();
            } else if let Some(rest) = line.strip_prefix("static final int ") {
                let (name, value) = rest.trim_end_matches(';').split_once(" = ").expect("NAME = VALUE");
                declared.insert(format!("{class}.{name}"), value.parse::<i64>().expect("a literal"));
            }
        }
        let expected: std::collections::BTreeMap<String, i64> = GROUPS
            .iter()
            .flat_map(|(java, all)| all.iter().map(move |(name, value)| (format!("{java}.{name}"), *value)))
            .collect();
        assert_eq!(declared, expected, "Wire.java and jni/wire.rs disagree");
    }
}
