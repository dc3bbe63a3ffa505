//! The fuzzing targets of the scheduling core, as plain functions of the fuzzer's bytes.
//!
//! - [`config`]: a capacity-scheduler.xml, through the reader and validator the
//!   ResourceManager uses, then (when valid) into a scheduler and as a refresh of a
//!   running one.
//! - [`seam`]: a sequence of native calls with raw arguments, as the JNI trampolines pass
//!   them to the core: container records, ask arrays, keys of things that may not exist,
//!   sizes of any sign.
//!
//! A target fails (panics) when the core panics, when a call poisons it, or when its books
//! are no longer whole. Everything else, however hostile, must come back as a value or
//! an error. The `fuzz-*` binaries hand these to AFL++; `tests/replay.rs` runs them over
//! the seeds and every input that ever failed.

mod config_target;
mod seam_target;

pub use config_target::config;
pub use seam_target::seam;
