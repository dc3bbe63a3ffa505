//! The JNI boundary. One Rust file per Java class with native methods; each `Java_…`
//! function only converts its arguments and calls a safe function returning
//! `Result<_, NativeError>`. Errors and panics go through one funnel, [`ThrowJava`], which
//! throws a specific Java exception — never aborting the ResourceManager's JVM.

pub mod native_scheduler;
pub mod wire;

use crate::config::ConfigErrors;
use jni::errors::ErrorPolicy;
use jni::objects::{JIntArray, JLongArray, JObjectArray, JString};
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
    /// The scheduler was used after `close()`.
    #[error("the native scheduler has been closed")]
    Closed,
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
            NativeError::InvalidArgument(_) => env.throw_new(jni_str!("java/lang/IllegalArgumentException"), &message),
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
fn panic_text(payload: Box<dyn std::any::Any + Send + 'static>) -> String {
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

/// Reads a Java `String` (null is an error naming `what`).
pub fn read_string(env: &Env<'_>, s: &JString<'_>, what: &str) -> NativeResult<String> {
    if s.is_null() {
        return Err(NativeError::InvalidArgument(format!("{what} is null")));
    }
    Ok(s.try_to_string(env)?)
}

/// Reads a Java `String[]` (null reads as empty; null elements are an error).
pub fn read_strings(env: &mut Env<'_>, arr: &JObjectArray<'_, JString<'_>>, what: &str) -> NativeResult<Vec<String>> {
    if arr.is_null() {
        return Ok(Vec::new());
    }
    let n = arr.len(env)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let s = arr.get_element(env, i)?;
        out.push(read_string(env, &s, what)?);
    }
    Ok(out)
}

/// Reads a Java `long[]` (null reads as empty).
pub fn read_longs(env: &Env<'_>, arr: &JLongArray<'_>) -> NativeResult<Vec<i64>> {
    if arr.is_null() {
        return Ok(Vec::new());
    }
    let mut buf = vec![0i64; arr.len(env)?];
    arr.get_region(env, 0, &mut buf)?;
    Ok(buf)
}

/// Reads a Java `int[]` (null reads as empty).
pub fn read_ints(env: &Env<'_>, arr: &JIntArray<'_>) -> NativeResult<Vec<i32>> {
    if arr.is_null() {
        return Ok(Vec::new());
    }
    let mut buf = vec![0i32; arr.len(env)?];
    arr.get_region(env, 0, &mut buf)?;
    Ok(buf)
}

/// Makes a Java `long[]`.
pub fn new_longs<'local>(env: &mut Env<'local>, values: &[i64]) -> NativeResult<JLongArray<'local>> {
    let arr = JLongArray::new(env, values.len())?;
    arr.set_region(env, 0, values)?;
    Ok(arr)
}
