//! The error funnel: every native entry point returns `NativeResult`, and [`ThrowJava`]
//! turns each error kind into a specific Java exception (throwing only if none is pending)
//! and a panic into `NativeSchedulerPanicException` — never an abort of the RM's JVM.

use crate::config::ConfigErrors;
use jni::errors::ErrorPolicy;
use jni::{jni_str, Env};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Everything a native call can fail with.
#[derive(Debug, thiserror::Error)]
pub enum NativeError {
    /// The configuration was rejected; the message lists every problem.
    #[error("{0}")]
    Config(#[from] ConfigErrors),
    /// Java passed something the boundary contract does not allow.
    #[error("{0}")]
    InvalidArgument(String),
    /// The scheduler refused an application (a submission, or a move into a leaf that does
    /// not admit it); the message is what the user sees.
    #[error("{0}")]
    Rejected(String),
    /// A move named no leaf queue; the message is what the user sees.
    #[error("{0}")]
    NoSuchLeaf(String),
    /// The scheduler was used after `close()`.
    #[error("the native scheduler has been closed")]
    Closed,
    /// A panic left the scheduler half-updated, in this call or an earlier one: nothing it
    /// says can be trusted any more (the message is that panic's).
    #[error("the native scheduler is poisoned: a panic left its state half-updated ({0}); the ResourceManager must hand over to a fresh scheduler")]
    Poisoned(String),
    /// A JNI call failed (possibly with a Java exception already pending).
    #[error("JNI call failed: {0}")]
    Jni(#[from] jni::errors::Error),
}

/// Result of a native call.
pub type NativeResult<T> = Result<T, NativeError>;

/// The error funnel: maps each error kind to a specific Java exception, throwing only if
/// none is pending already, and turns panics into `NativeSchedulerPanicException`.
pub struct ThrowJava;

const CONFIG_EXCEPTION: &jni::strings::JNIStr = jni_str!("org/capsched/yarn/SchedulerConfigurationException");
const PANIC_EXCEPTION: &jni::strings::JNIStr = jni_str!("org/capsched/yarn/NativeSchedulerPanicException");
const POISONED_EXCEPTION: &jni::strings::JNIStr = jni_str!("org/capsched/yarn/NativeSchedulerPoisonedException");
const REJECTED_EXCEPTION: &jni::strings::JNIStr = jni_str!("org/capsched/yarn/ApplicationRejectedException");
const NO_SUCH_LEAF_EXCEPTION: &jni::strings::JNIStr = jni_str!("org/capsched/yarn/NoSuchLeafQueueException");

impl<T: Default> ErrorPolicy<T, NativeError> for ThrowJava {
    type Captures<'unowned_env_local: 'native_method, 'native_method> = ();

    fn on_error<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _cap: &mut Self::Captures<'unowned_env_local, 'native_method>,
        err: NativeError,
    ) -> jni::errors::Result<T> {
        if env.exception_check() {
            return Ok(T::default());
        }
        let message = jni::strings::JNIString::from(err.to_string());
        let _ = match err {
            NativeError::Config(_) => env.throw_new(CONFIG_EXCEPTION, &message),
            NativeError::Rejected(_) => env.throw_new(REJECTED_EXCEPTION, &message),
            NativeError::NoSuchLeaf(_) => env.throw_new(NO_SUCH_LEAF_EXCEPTION, &message),
            NativeError::InvalidArgument(_) => env.throw_new(jni_str!("java/lang/IllegalArgumentException"), &message),
            NativeError::Poisoned(_) => env.throw_new(POISONED_EXCEPTION, &message),
            NativeError::Closed => env.throw_new(jni_str!("java/lang/IllegalStateException"), &message),
            NativeError::Jni(_) => env.throw_new(jni_str!("java/lang/RuntimeException"), &message),
        };
        Ok(T::default())
    }

    fn on_panic<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _cap: &mut Self::Captures<'unowned_env_local, 'native_method>,
        payload: Box<dyn std::any::Any + Send + 'static>,
    ) -> jni::errors::Result<T> {
        let text = panic_text(payload);
        log::error!("panic in the native scheduler: {text}");
        if !env.exception_check() {
            let message = jni::strings::JNIString::from(format!("panic in the native scheduler: {text}"));
            let _ = env.throw_new(PANIC_EXCEPTION, &message);
        }
        Ok(T::default())
    }
}

/// The message of a panic, whatever its payload type.
pub(super) fn panic_text(payload: Box<dyn std::any::Any + Send + 'static>) -> String {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        return (*s).to_string();
    }
    if let Some(s) = payload.downcast_ref::<String>() {
        return s.clone();
    }
    // Dropping an arbitrary payload may itself panic; never let that escape.
    if catch_unwind(AssertUnwindSafe(|| drop(payload))).is_err() {
        log::error!("a panic payload panicked while being dropped");
    }
    "non-string panic payload".to_string()
}
