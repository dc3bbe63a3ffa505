//! A node held for one application's container that does not fit yet. The one record is
//! kept twice, by the node (`Node::reservation`) and by the application
//! (`App::reservations`, by container); the ledger books and unbooks both at once.

use crate::ids::{AppKey, ContainerId, NodeKey, SchedulerKey};
use crate::resource::Resource;

/// One reservation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reservation {
    /// The application it is held for.
    pub app: AppKey,
    /// The container reserved (kept when the container is finally allocated).
    pub container: ContainerId,
    /// The node held.
    pub node: NodeKey,
    /// The node first held (where the reserved `RMContainer` was made, which keeps it as
    /// its node id when the reservation moves): a reservation moves only from there.
    pub origin: NodeKey,
    /// The request it is for.
    pub key: SchedulerKey,
    /// The container's size.
    pub resource: Resource,
    /// When the node was first reserved for it (wall clock, ms; set when it is booked and
    /// kept while it is re-reserved): the reserved `RMContainer`'s creation time.
    pub created_ms: i64,
}
