//! Native methods of `org.capsched.yarn.NativeScheduler`.
//!
//! Wire formats (kept primitive on the hot paths):
//! - a container is a pair `(application key, container number)` in a `long[]`;
//! - an allocation is [`wire::allocation::STRIDE`] longs, laid out in [`wire`];
//! - an ask is 3 ints (priority, count, relaxLocality 0/1) + 3 longs (allocation-request
//!   id, memory MiB, vcores) + its resource name;
//! - a queue report is [`QUEUE_REPORT_STRIDE`] doubles per queue, in tree order.

use super::wire;
use super::{new_longs, read_ints, read_longs, read_string, read_strings, NativeError, NativeResult, ThrowJava};
use crate::config::{CapacitySpec, ClusterSettings, MaxCapacitySpec, Properties, QueueState, SchedulerConfig};
use crate::ids::{ContainerRef, SchedulerKey};
use crate::model::{Ask, Queue, State};
use crate::policy::admission::{self, MoveRefusal, Submission};
use crate::resource::Resource;
use crate::scheduler::Scheduler;
use jni::objects::{JByteArray, JClass, JDoubleArray, JIntArray, JLongArray, JObjectArray, JString};
use jni::sys::{jboolean, jint, jlong};
use jni::{Env, EnvUnowned};
use parking_lot::Mutex;
use std::collections::HashMap;

/// Doubles per queue in `queueReport`'s result.
pub const QUEUE_REPORT_STRIDE: usize = 17;

/// What the Java object's `long handle` points to.
pub struct Handle {
    scheduler: Mutex<Scheduler>,
    cluster: ClusterSettings,
}

/// Runs `f` on the scheduler behind `handle`.
///
/// The handle was made by `create` and is freed only by `destroy`, which Java calls once,
/// after every other call has returned (`NativeScheduler.close`).
fn with_scheduler<R>(handle: jlong, f: impl FnOnce(&mut Scheduler) -> R) -> NativeResult<R> {
    let handle = handle_ref(handle)?;
    let mut s = handle.scheduler.lock();
    Ok(f(&mut s))
}

fn handle_ref<'a>(handle: jlong) -> NativeResult<&'a Handle> {
    if handle == 0 {
        return Err(NativeError::Closed);
    }
    // SAFETY: a non-zero handle is a pointer from `Box::into_raw` in `create` that `destroy`
    // has not freed yet (Java zeroes its copy before calling destroy).
    Ok(unsafe { &*(handle as *const Handle) })
}

fn container_pairs(values: &[i64]) -> NativeResult<Vec<ContainerRef>> {
    if values.len() % 2 != 0 {
        return Err(NativeError::InvalidArgument(format!(
            "container list has odd length {}; expected (application, number) pairs",
            values.len()
        )));
    }
    Ok(values.chunks_exact(2).map(|p| (p[0] as u32, p[1] as u64)).collect())
}

fn pairs_to_longs(pairs: &[ContainerRef]) -> Vec<i64> {
    pairs.iter().flat_map(|&(a, n)| [a as i64, n as i64]).collect()
}

/// The configuration inputs Java gathers: the file's bytes and name, the
/// `yarn.scheduler.capacity.*` keys already set in the RM's own configuration (a base layer
/// the file overrides, as in Apache), and the JVM's system properties for `${var}`.
fn load_config(
    env: &mut Env<'_>,
    xml: &JByteArray<'_>,
    source: &JString<'_>,
    base_properties: &JObjectArray<'_, JString<'_>>,
    system_properties: &JObjectArray<'_, JString<'_>>,
    cluster: ClusterSettings,
) -> NativeResult<SchedulerConfig> {
    let bytes = env.convert_byte_array(xml)?;
    let source = read_string(env, source, "configuration source")?;
    let base = read_strings(env, base_properties, "base property")?;
    let system = read_strings(env, system_properties, "system property")?;
    let mut props = Properties::new();
    for kv in base.chunks_exact(2) {
        props.set(&kv[0], &kv[1]);
    }
    props.set_system_properties(
        system.chunks_exact(2).map(|kv| (kv[0].clone(), kv[1].clone())).collect::<HashMap<_, _>>(),
    );
    props.load_xml(&bytes, &source).map_err(crate::config::ConfigErrors::from)?;
    Ok(SchedulerConfig::from_properties(&props, cluster)?)
}

fn init_logging() {
    let env = env_logger::Env::default().filter_or("CAPSCHED_LOG", "info");
    let _ = env_logger::Builder::from_env(env).format_timestamp_millis().try_init();
}

/// `static native long create(byte[] xml, String source, long[] clusterSettings, long epoch, String[] baseProperties, String[] systemProperties)`
///
/// `clusterSettings` is `[minMemory, minVcores, maxMemory, maxVcores, aclEnabled]` from
/// yarn-site.xml; property arrays hold name/value pairs.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_create<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    xml: JByteArray<'l>,
    source: JString<'l>,
    cluster_settings: JLongArray<'l>,
    epoch: jlong,
    base_properties: JObjectArray<'l, JString<'l>>,
    system_properties: JObjectArray<'l, JString<'l>>,
) -> jlong {
    env.with_env(|env| -> NativeResult<jlong> {
        init_logging();
        let a = read_longs(env, &cluster_settings)?;
        let [min_mb, min_vc, max_mb, max_vc, acl] = a[..] else {
            return Err(NativeError::InvalidArgument(format!("cluster settings need 5 values, got {}", a.len())));
        };
        let cluster = ClusterSettings {
            minimum_allocation: Resource::new(min_mb, min_vc),
            maximum_allocation: Resource::new(max_mb, max_vc),
            acl_enabled: acl != 0,
        };
        let config = load_config(env, &xml, &source, &base_properties, &system_properties, cluster)?;
        for w in &config.warnings {
            log::warn!("{w}");
        }
        let handle = Box::new(Handle { scheduler: Mutex::new(Scheduler::new(config, epoch as u64)), cluster });
        Ok(Box::into_raw(handle) as jlong)
    })
    .resolve::<ThrowJava>()
}

/// `static native void destroy(long handle)`
///
/// # Safety
/// `handle` must come from `create` and must not be used again afterwards; Java's
/// `NativeScheduler.close()` guarantees both.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn Java_org_capsched_yarn_NativeScheduler_destroy<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    env.with_env(|_env| -> NativeResult<()> {
        if handle != 0 {
            // SAFETY: see the function's contract.
            drop(unsafe { Box::from_raw(handle as *mut Handle) });
        }
        Ok(())
    })
    .resolve::<ThrowJava>()
}

/// `static native String refresh(long handle, byte[] xml, String source, String[] baseProperties, String[] systemProperties)`
///
/// Validates the new configuration completely, outside the scheduler lock, then applies the
/// refresh rules and swaps it in. Throws `SchedulerConfigurationException` listing every
/// problem and leaves the running configuration untouched. Returns warnings, one per line.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_refresh<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    xml: JByteArray<'l>,
    source: JString<'l>,
    base_properties: JObjectArray<'l, JString<'l>>,
    system_properties: JObjectArray<'l, JString<'l>>,
) -> JString<'l> {
    env.with_env(|env| -> NativeResult<JString<'l>> {
        let cluster = handle_ref(handle)?.cluster;
        let config = load_config(env, &xml, &source, &base_properties, &system_properties, cluster)?;
        let mut warnings: Vec<String> = config.warnings.iter().map(ToString::to_string).collect();
        warnings.extend(with_scheduler(handle, |s| s.refresh(config))??);
        Ok(env.new_string(warnings.join("\n"))?)
    })
    .resolve::<ThrowJava>()
}

/// `static native int addNode(long handle, String nodeId, String host, String rack, long memory, long vcores)`
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_addNode<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    node_id: JString<'l>,
    host: JString<'l>,
    rack: JString<'l>,
    memory: jlong,
    vcores: jlong,
) -> jint {
    env.with_env(|env| -> NativeResult<jint> {
        let node_id = read_string(env, &node_id, "node id")?;
        let host = read_string(env, &host, "host")?;
        let rack = read_string(env, &rack, "rack")?;
        with_scheduler(handle, |s| s.add_node(&node_id, &host, &rack, Resource::new(memory, vcores)) as jint)
    })
    .resolve::<ThrowJava>()
}

/// `static native long[] removeNode(long handle, int node)`: returns containers still on it.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_removeNode<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    node: jint,
) -> JLongArray<'l> {
    env.with_env(|env| -> NativeResult<JLongArray<'l>> {
        let lost = with_scheduler(handle, |s| s.remove_node(node as u32))?;
        new_longs(env, &pairs_to_longs(&lost))
    })
    .resolve::<ThrowJava>()
}

/// `static native void updateNodeResource(long handle, int node, long memory, long vcores)`
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_updateNodeResource<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    node: jint,
    memory: jlong,
    vcores: jlong,
) {
    env.with_env(|_env| -> NativeResult<()> {
        with_scheduler(handle, |s| s.update_node_resource(node as u32, Resource::new(memory, vcores)))
    })
    .resolve::<ThrowJava>()
}

/// `static native long[] nodeUpdate(long handle, int node, long[] finished)`
///
/// One call per heartbeat: the containers that finished on the node (pairs) go in, every
/// allocation made on the node comes out ([`wire::allocation::STRIDE`] longs each).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_nodeUpdate<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    node: jint,
    finished: JLongArray<'l>,
) -> JLongArray<'l> {
    env.with_env(|env| -> NativeResult<JLongArray<'l>> {
        let finished = container_pairs(&read_longs(env, &finished)?)?;
        let allocations = with_scheduler(handle, |s| s.node_heartbeat(node as u32, &finished))?;
        new_longs(env, &wire::encode_allocations(&allocations))
    })
    .resolve::<ThrowJava>()
}

/// `static native void release(long handle, long[] containers)`
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_release<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    containers: JLongArray<'l>,
) {
    env.with_env(|env| -> NativeResult<()> {
        let containers = container_pairs(&read_longs(env, &containers)?)?;
        with_scheduler(handle, |s| s.release(&containers))
    })
    .resolve::<ThrowJava>()
}

/// `static native int submit(long handle, long clusterTimestamp, int id, String queue, String user, String[] groups, long priority, boolean recovering, long amMemory, long amVcores, String[] out)`
///
/// Returns the application's key, with `out[0]` set to its leaf queue's full path; or -1,
/// with `out[0]` set to the reason it was rejected.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_submit<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    cluster_timestamp: jlong,
    id: jint,
    queue: JString<'l>,
    user: JString<'l>,
    groups: JObjectArray<'l, JString<'l>>,
    priority: jlong,
    recovering: jboolean,
    am_memory: jlong,
    am_vcores: jlong,
    out: JObjectArray<'l, JString<'l>>,
) -> jint {
    env.with_env(|env| -> NativeResult<jint> {
        let submission = Submission {
            app_id: (cluster_timestamp, id),
            queue: read_string(env, &queue, "queue")?,
            user: read_string(env, &user, "user")?,
            groups: read_strings(env, &groups, "group")?,
            priority,
            recovering,
            am_resource: Resource::new(am_memory, am_vcores),
        };
        let (key, text) = match with_scheduler(handle, |s| s.submit(&submission))? {
            Ok((key, path)) => (key as jint, path),
            Err(rejection) => (-1, rejection.0),
        };
        set_out(env, &out, &text)?;
        Ok(key)
    })
    .resolve::<ThrowJava>()
}

/// `static native void addAttempt(long handle, int app, int attemptId)`
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_addAttempt<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    app: jint,
    attempt_id: jint,
) {
    env.with_env(|_env| -> NativeResult<()> { with_scheduler(handle, |s| s.add_attempt(app as u32, attempt_id)) })
        .resolve::<ThrowJava>()
}

/// `static native void removeAttempt(long handle, int app)`
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_removeAttempt<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    app: jint,
) {
    env.with_env(|_env| -> NativeResult<()> { with_scheduler(handle, |s| s.remove_attempt(app as u32)) })
        .resolve::<ThrowJava>()
}

/// `static native long[] removeApp(long handle, int app)`: returns containers it still held.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_removeApp<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    app: jint,
) -> JLongArray<'l> {
    env.with_env(|env| -> NativeResult<JLongArray<'l>> {
        let left = with_scheduler(handle, |s| s.remove_app(app as u32))?;
        new_longs(env, &pairs_to_longs(&left))
    })
    .resolve::<ThrowJava>()
}

/// `static native long[] allocate(long handle, int app, int[] askInts, long[] askLongs, String[] askNames, String[] blacklistAdditions, String[] blacklistRemovals, boolean waitingForAm)`
///
/// Records the AM's asks and blacklist changes; returns its headroom as `[memory, vcores]`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_allocate<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    app: jint,
    ask_ints: JIntArray<'l>,
    ask_longs: JLongArray<'l>,
    ask_names: JObjectArray<'l, JString<'l>>,
    blacklist_additions: JObjectArray<'l, JString<'l>>,
    blacklist_removals: JObjectArray<'l, JString<'l>>,
    waiting_for_am: jboolean,
) -> JLongArray<'l> {
    env.with_env(|env| -> NativeResult<JLongArray<'l>> {
        let ints = read_ints(env, &ask_ints)?;
        let longs = read_longs(env, &ask_longs)?;
        let names = read_strings(env, &ask_names, "resource name")?;
        if ints.len() != names.len() * 3 || longs.len() != names.len() * 3 {
            return Err(NativeError::InvalidArgument(format!(
                "ask arrays disagree: {} names, {} ints, {} longs",
                names.len(),
                ints.len(),
                longs.len()
            )));
        }
        let asks: Vec<Ask> = names
            .into_iter()
            .enumerate()
            .map(|(i, resource_name)| Ask {
                key: SchedulerKey { priority: ints[3 * i], allocation_request_id: longs[3 * i] },
                resource_name,
                capability: Resource::new(longs[3 * i + 1], longs[3 * i + 2]),
                count: ints[3 * i + 1].max(0) as u32,
                relax_locality: ints[3 * i + 2] != 0,
            })
            .collect();
        let additions = read_strings(env, &blacklist_additions, "blacklist addition")?;
        let removals = read_strings(env, &blacklist_removals, "blacklist removal")?;
        let headroom = with_scheduler(handle, |s| {
            if !additions.is_empty() || !removals.is_empty() {
                s.update_blacklist(app as u32, waiting_for_am, &additions, &removals);
            }
            s.update_requests(app as u32, &asks)
        })?;
        new_longs(env, &[headroom.memory_mb, headroom.vcores])
    })
    .resolve::<ThrowJava>()
}

/// `static native String[] queueStrings(long handle)`: three strings per queue, in tree
/// order: full path, submit ACL, administer ACL (Hadoop syntax).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_queueStrings<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JObjectArray<'l, JString<'l>> {
    env.with_env(|env| -> NativeResult<JObjectArray<'l, JString<'l>>> {
        let strings: Vec<String> = with_scheduler(handle, |s| {
            s.state()
                .queues
                .queues
                .iter()
                .flat_map(|q| {
                    [
                        q.config.path.clone(),
                        q.config.acl_submit_applications.to_hadoop_string(),
                        q.config.acl_administer_queue.to_hadoop_string(),
                    ]
                })
                .collect()
        })?;
        let empty = JString::null();
        let arr = JObjectArray::<JString>::new(env, strings.len(), &empty)?;
        for (i, s) in strings.iter().enumerate() {
            let js = env.new_string(s)?;
            arr.set_element(env, i, &js)?;
        }
        Ok(arr)
    })
    .resolve::<ThrowJava>()
}

/// `static native double[] queueReport(long handle)`: [`QUEUE_REPORT_STRIDE`] numbers per
/// queue in tree order: capacity, maximum capacity (fractions of the parent), absolute
/// capacity, absolute maximum capacity, used capacity, absolute used capacity, used memory,
/// used vcores, applications, state (0 running, 1 stopped), parent index (-1 for root),
/// weight (-1 unless weight mode), maximum applications, user-limit-factor,
/// minimum-user-limit-percent, maximum-am-resource-percent, max-parallel-apps (-1 when
/// unlimited).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_queueReport<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JDoubleArray<'l> {
    env.with_env(|env| -> NativeResult<JDoubleArray<'l>> {
        let values = with_scheduler(handle, |s| queue_report(s))?;
        let arr = JDoubleArray::new(env, values.len())?;
        arr.set_region(env, 0, &values)?;
        Ok(arr)
    })
    .resolve::<ThrowJava>()
}

fn queue_report(s: &Scheduler) -> Vec<f64> {
    let st = s.state();
    let calc = st.calculator();
    let mut out = Vec::with_capacity(st.queues.queues.len() * QUEUE_REPORT_STRIDE);
    for (index, q) in st.queues.queues.iter().enumerate() {
        let parent = q.config.parent.map(|p| st.queues.get(p));
        let relative = |abs: f64, parent_abs: f64| if parent_abs > 0.0 { abs / parent_abs } else { 0.0 };
        // Apache reports 0 as the configured capacity of a weight-mode queue (its share is
        // in the absolute capacity and the weight); we report the same.
        let capacity = match (q.config.capacity, parent) {
            (CapacitySpec::Percent(p), _) => p / 100.0,
            (CapacitySpec::Weight(_), Some(_)) => 0.0,
            (_, Some(p)) => relative(q.absolute_capacity, p.absolute_capacity),
            (_, None) => 1.0,
        };
        let maximum = match (q.config.maximum_capacity, parent) {
            (MaxCapacitySpec::Percent(p), _) => p / 100.0,
            (_, Some(p)) => relative(q.absolute_maximum_capacity, p.absolute_maximum_capacity),
            (_, None) => 1.0,
        };
        let weight = match q.config.capacity {
            CapacitySpec::Weight(w) => w,
            _ => -1.0,
        };
        let max_apps = admission::maximum_applications(st, index);
        out.extend_from_slice(&[
            capacity,
            maximum,
            q.absolute_capacity,
            q.absolute_maximum_capacity,
            q.used_capacity(calc, st.cluster, st.config.cluster.minimum_allocation),
            calc.ratio(q.used, st.cluster),
            q.used.memory_mb as f64,
            q.used.vcores as f64,
            count_apps(st, q) as f64,
            if q.config.state == QueueState::Stopped { 1.0 } else { 0.0 },
            q.config.parent.map_or(-1.0, |p| p as f64),
            weight,
            max_apps as f64,
            q.config.user_limit_factor,
            q.config.minimum_user_limit_percent,
            q.config.maximum_am_resource_percent,
            q.config.max_parallel_apps.map_or(-1.0, |m| m as f64),
        ]);
    }
    out
}

fn count_apps(st: &State, q: &Queue) -> usize {
    if q.is_leaf() {
        q.apps.len()
    } else {
        q.config.children.iter().map(|&c| count_apps(st, st.queues.get(c))).sum()
    }
}

/// `static native String resourceCalculator(long handle)`: the Java class name of the
/// configured calculator, for the RM's request normalisation.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_resourceCalculator<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JString<'l> {
    env.with_env(|env| -> NativeResult<JString<'l>> {
        let name = with_scheduler(handle, |s| s.state().calculator().class_name())?;
        Ok(env.new_string(name)?)
    })
    .resolve::<ThrowJava>()
}

/// `static native boolean userMetricsEnabled(long handle)`: `user-metrics.enable`, which
/// decides whether new queues keep QueueMetrics per user.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_userMetricsEnabled<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jboolean {
    env.with_env(|_env| -> NativeResult<jboolean> {
        with_scheduler(handle, |s| s.state().config.global.user_metrics_enabled)
    })
    .resolve::<ThrowJava>()
}

/// `static native boolean checkAccess(long handle, String queue, int acl, String user, String[] groups, boolean enforcedOnly)`
///
/// `acl` is YARN's `QueueACL` ordinal (0 submit, 1 administer). An unknown queue grants
/// nothing. With `enforcedOnly`, every ACL is granted while `yarn.acl.enable` is false.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_checkAccess<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    queue: JString<'l>,
    acl: jint,
    user: JString<'l>,
    groups: JObjectArray<'l, JString<'l>>,
    enforced_only: jboolean,
) -> jboolean {
    env.with_env(|env| -> NativeResult<jboolean> {
        let queue = read_string(env, &queue, "queue")?;
        let user = read_string(env, &user, "user")?;
        let groups = read_strings(env, &groups, "group")?;
        let acl = wire::acl_from_code(acl)
            .ok_or_else(|| NativeError::InvalidArgument(format!("unknown queue ACL code {acl}")))?;
        with_scheduler(handle, |s| {
            let st = s.state();
            if enforced_only && !st.config.cluster.acl_enabled {
                return true;
            }
            st.queues.resolve(&queue).is_ok_and(|q| s.check_access(q, acl, &user, &groups))
        })
    })
    .resolve::<ThrowJava>()
}

/// Writes `text` into `out[0]`, the way results with a reason come back to Java.
fn set_out(env: &mut Env<'_>, out: &JObjectArray<'_, JString<'_>>, text: &str) -> NativeResult<()> {
    let text = env.new_string(text)?;
    out.set_element(env, 0, &text)?;
    Ok(())
}

/// `static native int moveApplication(long handle, int app, String target, boolean commit, String[] out)`
///
/// Checks whether the application may move to `target` and, with `commit`, moves it.
/// Returns 0 with `out[0]` set to the destination leaf's full path; otherwise `out[0]` is
/// the reason, and the result says its kind: 1 the target is no leaf queue, 2 the leaf
/// does not admit the application (Apache reports that as an access-control failure).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_moveApplication<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    app: jint,
    target: JString<'l>,
    commit: jboolean,
    out: JObjectArray<'l, JString<'l>>,
) -> jint {
    env.with_env(|env| -> NativeResult<jint> {
        let target = read_string(env, &target, "target queue")?;
        let result = with_scheduler(handle, |s| {
            if commit {
                s.move_app(app as u32, &target)
            } else {
                admission::admit_move(s.state(), app as u32, &target)
                    .map(|q| s.state().queues.get(q).path().to_string())
            }
        })?;
        let (code, text) = match result {
            Ok(path) => (0, path),
            Err(refusal @ MoveRefusal::NoSuchLeaf(_)) => (1, refusal.reason().to_string()),
            Err(refusal @ MoveRefusal::NotAdmitted(_)) => (2, refusal.reason().to_string()),
        };
        set_out(env, &out, &text)?;
        Ok(code)
    })
    .resolve::<ThrowJava>()
}

/// `static native int applicationPriority(long handle, String queue, boolean requested, int priority, int clusterMax)`
///
/// The priority an application submitted or updated to `queue` runs at: `priority` if
/// `requested`, else the queue's default; capped at `clusterMax`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_applicationPriority<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    queue: JString<'l>,
    requested: jboolean,
    priority: jint,
    cluster_max: jint,
) -> jint {
    env.with_env(|env| -> NativeResult<jint> {
        let queue = read_string(env, &queue, "queue")?;
        let requested = requested.then_some(priority as i64);
        with_scheduler(handle, |s| s.application_priority(requested, &queue, cluster_max as i64) as jint)
    })
    .resolve::<ThrowJava>()
}

/// `static native void updatePriority(long handle, int app, int priority)`
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_updatePriority<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    app: jint,
    priority: jint,
) {
    env.with_env(|_env| -> NativeResult<()> {
        with_scheduler(handle, |s| s.update_priority(app as u32, priority as i64))
    })
    .resolve::<ThrowJava>()
}

/// `static native boolean recoverContainer(long handle, int app, long number, int node, long memory, long vcores, int priority, long allocationRequestId)`
///
/// A running container a NodeManager reported after an RM restart. Returns false when it
/// was not recorded (unknown application or node, or already known).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_recoverContainer<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    app: jint,
    number: jlong,
    node: jint,
    memory: jlong,
    vcores: jlong,
    priority: jint,
    allocation_request_id: jlong,
) -> jboolean {
    env.with_env(|_env| -> NativeResult<jboolean> {
        let key = SchedulerKey { priority, allocation_request_id };
        with_scheduler(handle, |s| {
            s.recover_container(app as u32, number as u64, node as u32, Resource::new(memory, vcores), key)
        })
    })
    .resolve::<ThrowJava>()
}

/// Longs per container in `containerReport`'s result.
pub const CONTAINER_REPORT_STRIDE: usize = 6;

/// `static native long[] containerReport(long handle)`
///
/// Every container the core holds, for the consistency check: [`CONTAINER_REPORT_STRIDE`]
/// longs each — application, number, node, memory, vcores, and 0 for a live container or
/// 1 for a reservation — sorted.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_containerReport<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JLongArray<'l> {
    env.with_env(|env| -> NativeResult<JLongArray<'l>> {
        let rows = with_scheduler(handle, |s| container_report(s))?;
        new_longs(env, &rows.concat())
    })
    .resolve::<ThrowJava>()
}

fn container_report(s: &Scheduler) -> Vec<[i64; CONTAINER_REPORT_STRIDE]> {
    let st = s.state();
    let live = st.containers.iter().map(|(&(app, number), c)| {
        [app as i64, number as i64, c.node as i64, c.resource.memory_mb, c.resource.vcores, 0]
    });
    let reserved = st.nodes.iter().filter_map(|(&node, n)| {
        n.reservation
            .as_ref()
            .map(|r| [r.app as i64, r.number as i64, node as i64, r.resource.memory_mb, r.resource.vcores, 1])
    });
    let mut rows: Vec<_> = live.chain(reserved).collect();
    rows.sort_unstable();
    rows
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

/// `static native void checkPanicFunnel(String message)`
///
/// Panics with `message` on purpose, so operators and tests can confirm that a bug in the
/// native core surfaces as a Java exception and never takes the JVM down.
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
