//! The core's log records, in the ResourceManager's own logging.
//!
//! Every record goes to `org.capsched.yarn.NativeLog`, which hands it to the slf4j logger
//! named after the record's Rust module (`capsched::scheduler::nodes` logs as
//! `org.capsched.core.scheduler.nodes`), so the RM's log4j configuration decides where it
//! goes and at which level, and `yarn daemonlog -setlevel` changes that while the RM runs.
//! Nothing is written to standard error.
//!
//! Two gates keep a record below its level cheap. `log`'s global maximum level is the most
//! verbose level any of the core's loggers has (a record above it costs one atomic load),
//! and each module's own level is asked of Java once and kept ([`LevelCache`]). A Java
//! daemon thread (`NativeLog`) reads the loggers' levels again every second and hands the
//! new maximum over ([`levels_changed`]), which also forgets the kept levels, so a level
//! set with `yarn daemonlog` takes effect within a second.

use super::error::NativeResult;
use jni::objects::{Global, JClass, JValue};
use jni::{jni_sig, jni_str, Env, JavaVM};
use log::{Level, LevelFilter, Log, Metadata, Record};
use parking_lot::RwLock;
use rustc_hash::FxHashMap;
use std::cell::Cell;
use std::sync::OnceLock;

/// Each module's enabled level, as last read from its logger.
pub struct LevelCache {
    levels: RwLock<FxHashMap<String, LevelFilter>>,
}

impl Default for LevelCache {
    fn default() -> Self {
        Self::new()
    }
}

impl LevelCache {
    /// An empty cache: every module is read on its first record.
    pub fn new() -> Self {
        Self { levels: RwLock::new(FxHashMap::default()) }
    }

    /// The most verbose level enabled for `target`; `read` asks the logger when the cache
    /// has no answer.
    pub fn level(&self, target: &str, read: impl FnOnce(&str) -> LevelFilter) -> LevelFilter {
        if let Some(&level) = self.levels.read().get(target) {
            return level;
        }
        let level = read(target);
        self.levels.write().insert(target.to_owned(), level);
        level
    }

    /// Forgets every answer: the loggers' levels may have changed.
    pub fn clear(&self) {
        self.levels.write().clear();
    }
}

/// Whether a record is to be written: the core's own records only (the `jni` crate logs
/// too, from inside the calls the logger makes), none while this thread is already inside
/// the logger, and those at or above the level `cache` holds for the record's module
/// (`read` asks the module's logger when the cache has no fresh answer). The decision every
/// record, written or not, costs.
pub fn record_enabled(cache: &LevelCache, metadata: &Metadata, read: impl FnOnce(&str) -> LevelFilter) -> bool {
    let target = metadata.target();
    (target == "capsched" || target.starts_with("capsched::"))
        && !IN_LOGGER.with(Cell::get)
        && metadata.level() <= in_logger(|| cache.level(target, read))
}

/// The `log` backend that forwards to Java.
struct JavaLog {
    /// `org.capsched.yarn.NativeLog`, held for the JVM's life.
    class: Global<JClass<'static>>,
    cache: LevelCache,
}

impl JavaLog {
    /// `NativeLog.level(target)`: 0 (off) to 5 (trace).
    fn read_level(&self, target: &str) -> NativeResult<LevelFilter> {
        let vm = JavaVM::singleton()?;
        let code = vm.attach_current_thread(|env: &mut Env| -> NativeResult<i32> {
            let name = env.new_string(target)?;
            let level = env.call_static_method(
                &self.class,
                jni_str!("level"),
                jni_sig!("(Ljava/lang/String;)I"),
                &[JValue::from(&name)],
            )?;
            Ok(level.i()?)
        })?;
        Ok(level_filter(code))
    }

    /// `NativeLog.log(target, level, message)`.
    fn write(&self, target: &str, level: Level, message: &str) -> NativeResult<()> {
        let vm = JavaVM::singleton()?;
        vm.attach_current_thread(|env: &mut Env| -> NativeResult<()> {
            let target = env.new_string(target)?;
            let message = env.new_string(message)?;
            env.call_static_method(
                &self.class,
                jni_str!("log"),
                jni_sig!("(Ljava/lang/String;ILjava/lang/String;)V"),
                &[JValue::from(&target), JValue::Int(level as i32), JValue::from(&message)],
            )?;
            Ok(())
        })
    }
}

impl Log for JavaLog {
    fn enabled(&self, metadata: &Metadata) -> bool {
        record_enabled(&self.cache, metadata, |t| self.read_level(t).unwrap_or(LevelFilter::Info))
    }

    fn log(&self, record: &Record) {
        if self.enabled(record.metadata()) {
            // A record that cannot reach Java (the JVM shutting down) is dropped: there is
            // nowhere else the operator would look for it.
            let _ = in_logger(|| self.write(record.target(), record.level(), &record.args().to_string()));
        }
    }

    fn flush(&self) {}
}

/// The installed logger, once the first scheduler has installed it.
static LOGGER: OnceLock<&'static JavaLog> = OnceLock::new();

thread_local! {
    /// Set while this thread runs the logger's own calls into Java.
    static IN_LOGGER: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with [`IN_LOGGER`] set on this thread.
fn in_logger<T>(f: impl FnOnce() -> T) -> T {
    IN_LOGGER.with(|flag| flag.set(true));
    let out = f();
    IN_LOGGER.with(|flag| flag.set(false));
    out
}

/// Makes the RM's logging the core's, once per JVM (the first scheduler created does it).
/// Until `NativeLog` first reports the loggers' levels, every record is decided by its
/// module's level.
pub fn install(env: &mut Env) -> NativeResult<()> {
    if LOGGER.get().is_some() {
        return Ok(());
    }
    let class = env.find_class(jni_str!("org/capsched/yarn/NativeLog"))?;
    let class = env.new_global_ref(class)?;
    let logger: &'static JavaLog = Box::leak(Box::new(JavaLog { class, cache: LevelCache::new() }));
    if LOGGER.set(logger).is_ok() && log::set_logger(logger).is_ok() {
        log::set_max_level(LevelFilter::Trace);
        std::panic::set_hook(Box::new(log_panic));
    }
    Ok(())
}

/// The panic hook inside the RM: a panic's place, message and backtrace go to the RM's log
/// (where the operator looks), not to the process's standard error. What the panic does to
/// the call is decided where it is caught (`ops::Handle::with`, the JNI error funnel).
fn log_panic(info: &std::panic::PanicHookInfo<'_>) {
    let backtrace = std::backtrace::Backtrace::force_capture();
    log::error!(target: "capsched::panic", "the native scheduler {info}\nbacktrace:\n{backtrace}");
}

/// The loggers' levels may have changed: `max` (0 off ... 5 trace) is the most verbose
/// level any of the core's loggers now has.
pub fn levels_changed(max: i32) {
    if let Some(logger) = LOGGER.get() {
        logger.cache.clear();
        log::set_max_level(level_filter(max));
    }
}

/// `NativeLog`'s level numbering.
fn level_filter(code: i32) -> LevelFilter {
    match code {
        i32::MIN..=0 => LevelFilter::Off,
        1 => LevelFilter::Error,
        2 => LevelFilter::Warn,
        3 => LevelFilter::Info,
        4 => LevelFilter::Debug,
        _ => LevelFilter::Trace,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_level_is_read_once_until_the_levels_change() {
        let cache = LevelCache::new();
        let reads = Cell::new(0);
        let read = |_: &str| {
            reads.set(reads.get() + 1);
            LevelFilter::Debug
        };
        assert_eq!(cache.level("capsched::scheduler", read), LevelFilter::Debug);
        assert_eq!(cache.level("capsched::scheduler", read), LevelFilter::Debug);
        assert_eq!(reads.get(), 1, "a kept answer is not read again");
        cache.level("capsched::model", read);
        assert_eq!(reads.get(), 2, "each module has its own answer");
        cache.clear();
        cache.level("capsched::scheduler", read);
        assert_eq!(reads.get(), 3, "after a change every module is read again");
    }

    #[test]
    fn only_the_cores_own_records_reach_java() {
        let cache = LevelCache::new();
        let meta = |target| Metadata::builder().level(Level::Info).target(target).build();
        assert!(record_enabled(&cache, &meta("capsched::scheduler::nodes"), |_| LevelFilter::Info));
        assert!(!record_enabled(&cache, &meta("jni::vm"), |_| LevelFilter::Trace));
        assert!(!record_enabled(&cache, &meta("capschedule"), |_| LevelFilter::Trace));
        assert!(!record_enabled(&cache, &Metadata::builder().level(Level::Debug).target("capsched").build(), |_| {
            LevelFilter::Info
        }));
    }
}
