//! capsched: the scheduling core of a Capacity Scheduler for Apache Hadoop YARN.
//!
//! The ResourceManager loads a thin Java class (`org.capsched.yarn.RustCapacityScheduler`)
//! that forwards every scheduler event and every `allocate()` call to this library over
//! JNI. This crate holds all scheduling state — queues, users, applications and their
//! requests, nodes, containers — and makes every decision; Java only materialises the
//! containers it returns.
//!
//! Layout: `config` reads and validates `capacity-scheduler.xml`; `queue`, `node` and
//! `application` are the live domain objects; `allocation` is the pure placement decision;
//! `scheduler` owns the state and applies decisions; `jni` is the boundary.

pub mod admission;
pub mod allocation;
pub mod application;
pub mod config;
pub mod heap;
pub mod java_order;
pub mod jni;
pub mod node;
pub mod queue;
pub mod report;
pub mod resource;
pub mod scenario;
pub mod scheduler;
pub mod user_limit;

pub use config::SchedulerConfig;
pub use resource::{Resource, ResourceCalculator};
pub use scheduler::Scheduler;
