//! The live model: the scheduler's state and the objects in it. Each type keeps its own
//! invariants; the ledger books containers and reservations across all of them at once.
//! Nothing here decides anything (that is `policy`) or reacts to events (`scheduler`).

pub mod application;
mod capacities;
mod ledger;
pub mod node;
pub mod queue;
mod queue_states;
pub mod reservation;
pub mod state;
pub mod users;

pub use application::{App, Ask, Blacklist, Outstanding, RequestGroup};
pub use node::Node;
pub use queue::{Queue, QueueTree, ResolveError};
pub use queue_states::RuntimeState;
pub use reservation::Reservation;
pub use state::{Container, State};
pub use users::{PendingUsersCount, UserState};
