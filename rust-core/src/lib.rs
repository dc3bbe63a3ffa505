//! capsched: the scheduling core of a Capacity Scheduler for Apache Hadoop YARN.
//!
//! The ResourceManager loads a thin Java class (`org.capsched.yarn.RustCapacityScheduler`)
//! that forwards every scheduler event and every `allocate()` call to this library over
//! JNI. This crate holds all scheduling state — queues, users, applications and their
//! requests, nodes, containers — and makes every decision; Java only materialises the
//! containers it returns.
//!
//! Layout, each layer depending only on the ones before it:
//! - `ids`, `resource`, `java_order`: the vocabulary (compact ids, resources and the two
//!   calculators, Java's hashing and iteration orders where Apache's behaviour hangs on them);
//! - `config`: reading and validating `capacity-scheduler.xml`, as a pure pass;
//! - `model`: the live state — queues, users, applications, nodes, reservations — and the
//!   ledger that books containers and reservations across them;
//! - `policy`: pure decisions over the state (admission, limits, ordering, locality,
//!   placement);
//! - `preemption`: the capacity preemption policy, a pure function of the state and of
//!   when it marked each container;
//! - `scheduler`: the single owner, applying decisions, one file per family of events;
//! - `jni`: the boundary with the Java shim; `report`: views of the queues;
//! - `scenario` (feature `scenario`, on by default, off in the RM's library): the scenario
//!   interpreter behind `capsched simulate` and the scenario tests; `heap` (feature
//!   `diagnostics`, for the test and benchmark builds): the counting allocator.

pub mod config;
#[cfg(feature = "diagnostics")]
pub mod heap;
pub mod ids;
pub mod java_order;
pub mod jni;
pub mod model;
pub mod policy;
pub mod preemption;
pub mod report;
pub mod resource;
#[cfg(feature = "scenario")]
pub mod scenario;
pub mod scheduler;

pub use config::SchedulerConfig;
pub use ids::{AppKey, ContainerId, ContainerRef, Locality, NodeKey, QueueIndex, Release, SchedulerKey, ANY};
pub use model::Ask;
pub use policy::admission::{MoveRefusal, QueueAcl, Rejection, Submission};
pub use resource::{Resource, ResourceCalculator};
pub use scheduler::{Allocation, AllocationKind, Scheduler};
