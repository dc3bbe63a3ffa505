//! Natives for tests and benchmarks only, compiled in by the `diagnostics` cargo feature
//! that the test and benchmark builds turn on; the library the RM loads carries none of
//! them (nor the counting allocator behind `nativeHeapBytes`).

use super::convert::{new_longs, read_string};
use super::error::{NativeResult, ThrowJava};
use super::native_scheduler::with_scheduler;
use super::wire::container_report as f;
use crate::ids::ContainerId;
use crate::scheduler::Scheduler;
use jni::objects::{JClass, JLongArray, JString};
use jni::sys::{jboolean, jlong};
use jni::EnvUnowned;

/// `static native long[] containerReport(long handle)`
///
/// Every container the core holds, for the consistency check: one
/// [`container_report`](super::wire::container_report) record each, sorted.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_containerReport<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JLongArray<'l> {
    env.with_env(|env| -> NativeResult<JLongArray<'l>> {
        let rows = with_scheduler(handle, container_report)?;
        new_longs(env, &rows.concat())
    })
    .resolve::<ThrowJava>()
}

/// Every live container (killable or not), reservation and container a node still holds,
/// as report records.
pub fn container_report(s: &mut Scheduler) -> Vec<[i64; f::STRIDE]> {
    let st = s.state();
    let record = |app: u32, id: ContainerId, node: u32, size: crate::resource::Resource, reserved: i64| {
        let mut r = [0; f::STRIDE];
        r[f::APP] = i64::from(app);
        r[f::ATTEMPT] = i64::from(id.attempt);
        r[f::NUMBER] = id.number as i64;
        r[f::NODE] = i64::from(node);
        r[f::MEMORY] = size.memory_mb;
        r[f::VCORES] = size.vcores;
        r[f::RESERVED] = reserved;
        r
    };
    let live = st.containers.iter().map(|(&(app, id), c)| {
        let state = if st.killable.contains(&(app, id)) { 3 } else { 0 };
        record(app, id, c.node, c.resource, state)
    });
    let reserved =
        st.nodes.values().filter_map(|n| n.reservation).map(|r| record(r.app, r.container, r.node, r.resource, 1));
    let leaving = st.nodes.iter().flat_map(|(&node, n)| {
        n.leaving.iter().map(move |(&(app, id), l)| record(app, id, node, l.container.resource, 2))
    });
    let mut rows: Vec<_> = live.chain(reserved).chain(leaving).collect();
    rows.sort_unstable();
    rows
}

/// `static native boolean preemptionTieOrderMattered(long handle)`
///
/// Whether the last preemption round's ideal assignment hung on the order of equally
/// under-served queues (see [`crate::preemption::Preemption::last_round_tie_order_mattered`]),
/// for the side-by-side harness.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_preemptionTieOrderMattered<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jboolean {
    env.with_env(|_env| -> NativeResult<jboolean> {
        with_scheduler(handle, |s| s.preemption().last_round_tie_order_mattered())
    })
    .resolve::<ThrowJava>()
}

/// `static native void checkPanicFunnel(String message)`
///
/// Panics with `message` on purpose, so tests can confirm that a bug in the native core
/// surfaces as a Java exception and never takes the JVM down.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_checkPanicFunnel<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    message: JString<'l>,
) {
    env.with_env(|env| -> NativeResult<()> {
        let message = read_string(env, &message, "message")?;
        panic!("{message}");
    })
    .resolve::<ThrowJava>()
}

/// `static native long nativeHeapBytes()`: bytes the native core holds on the heap, for
/// the memory benchmarks.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_nativeHeapBytes<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
) -> jlong {
    env.with_env(|_env| -> NativeResult<jlong> { Ok(crate::heap::live_bytes() as jlong) }).resolve::<ThrowJava>()
}

/// The scenario reader's outline, in a build with the `scenario` feature too.
#[cfg(feature = "scenario")]
mod scenario_outline {
    use crate::jni::convert::{new_strings, read_string};
    use crate::jni::error::{NativeError, NativeResult, ThrowJava};
    use jni::objects::{JClass, JObjectArray, JString};
    use jni::EnvUnowned;

    /// `static native String[] scenarioOutline(String text, String baseDir)`
    ///
    /// The Rust scenario reader's outline of a scenario file ([`Scenario::outline`]), for the
    /// Java test that keeps the side-by-side harness's reader in agreement with it. Only in a
    /// build with the `scenario` feature too.
    ///
    /// [`Scenario::outline`]: crate::scenario::Scenario::outline
    #[unsafe(no_mangle)]
    pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_scenarioOutline<'l>(
        mut env: EnvUnowned<'l>,
        _class: JClass<'l>,
        text: JString<'l>,
        base_dir: JString<'l>,
    ) -> JObjectArray<'l, JString<'l>> {
        env.with_env(|env| -> NativeResult<JObjectArray<'l, JString<'l>>> {
            let text = read_string(env, &text, "scenario text")?;
            let base = read_string(env, &base_dir, "base directory")?;
            let scenario = crate::scenario::Scenario::parse(&text, std::path::Path::new(&base))
                .map_err(|e| NativeError::InvalidArgument(e.to_string()))?;
            new_strings(env, &scenario.outline())
        })
        .resolve::<ThrowJava>()
    }
}
