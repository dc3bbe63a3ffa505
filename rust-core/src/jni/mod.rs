//! The JNI boundary with `org.capsched.yarn.NativeScheduler`.
//!
//! - `native_scheduler`: the `Java_…` trampolines, one per native method; each only
//!   converts its arguments (`convert`), calls a safe function in `ops`, and converts the
//!   result back. Errors and panics go through one funnel (`error`).
//! - `ops`: the safe operations behind the trampolines, with unit tests that need no JVM.
//! - `wire`: every record layout and code that crosses the boundary, defined once and
//!   checked against `Wire.java` by a test.
//! - `logging`: the core's log records, sent to the RM's own loggers.
//! - `diagnostics`: natives the test and benchmark builds turn on (cargo features), never
//!   carried by the library the RM loads.

mod convert;
#[cfg(feature = "diagnostics")]
mod diagnostics;
mod error;
pub mod logging;
pub mod native_scheduler;
pub mod ops;
pub mod wire;

pub use convert::ConfigInputs;
pub use error::{NativeError, NativeResult, ThrowJava};
