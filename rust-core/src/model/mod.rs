//! The live model: the scheduler's state and the objects in it. Each type keeps its own
//! invariants; the ledger books containers and reservations across all of them at once.
//! Nothing here decides anything (that is `policy`) or reacts to events (`scheduler`).

pub mod application;
mod capacities;
mod killable;
mod ledger;
pub mod node;
pub mod partitions;
pub mod queue;
mod queue_states;
pub mod reservation;
pub mod state;
pub mod users;

pub use application::{AmDiagnosis, App, Ask, Blacklist, Outstanding, RequestGroup};
pub use node::Node;
pub use partitions::{Partition, PartitionId, Partitions, DEFAULT_PARTITION};
pub use queue::{Correspondence, Queue, QueueTree, ResolveError};
pub use queue_states::RuntimeState;
pub use reservation::Reservation;
pub use state::{Container, Leaving, State};
pub use users::{LimitCache, PendingUsersCount, UserSlot, UserState, Users};

/// The wall clock, in milliseconds since the epoch: when a container or reservation is
/// booked, as Apache stamps each `RMContainer`'s creation time with
/// `System.currentTimeMillis()` (the preemption policy orders and delays by it).
pub fn wall_clock_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
