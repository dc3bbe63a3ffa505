//! Pure decisions over the state (`&State`), nothing mutated: who may enter a queue
//! (`admission`), the limits that hold queues, users and ApplicationMasters (`limits`),
//! the order queues and applications are offered a node in (`ordering`), delay scheduling
//! (`locality`), where the next container goes (`placement`) and which queue a submitted
//! application goes to (`mapping`). The scheduler applies what they return.

pub mod admission;
pub mod limits;
pub mod locality;
pub mod mapping;
pub mod ordering;
pub mod placement;
