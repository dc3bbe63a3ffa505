//! Native methods of `org.capsched.yarn.NativeScheduler`: trampolines only. Each converts
//! its arguments (`convert`), calls one safe operation (`ops`) and converts the result;
//! [`ThrowJava`] turns any error or panic into a Java exception. Record layouts and codes
//! are in [`wire`](super::wire).

use super::convert::{
    new_longs, new_partition_report, new_queue_report, new_strings, new_user_report, new_view_report,
    read_config_inputs, read_ints, read_longs, read_string, read_strings,
};
use super::error::{NativeError, NativeResult, ThrowJava};
use super::ops::{self, Handle};
use crate::ids::{ContainerId, SchedulerKey};
use crate::policy::admission::{Caller, Submission};
use crate::resource::Resource;
use crate::scheduler::Scheduler;
use crate::scheduler::{PreparedRefresh, Retired};
use jni::objects::{JByteArray, JClass, JDoubleArray, JIntArray, JLongArray, JObject, JObjectArray, JString};
use jni::sys::{jboolean, jint, jlong};
use jni::EnvUnowned;

/// The handle Java holds.
///
/// The handle was made by `create` and is freed only by `destroy`, which Java calls once,
/// after every other call has returned (`NativeScheduler.close`).
pub(super) fn handle_ref<'a>(handle: jlong) -> NativeResult<&'a Handle> {
    if handle == 0 {
        return Err(NativeError::Closed);
    }
    // SAFETY: a non-zero handle is a pointer from `Box::into_raw` in `create` that `destroy`
    // has not freed yet (Java zeroes its copy before calling destroy).
    Ok(unsafe { &*(handle as *const Handle) })
}

/// Runs `f` on the scheduler behind `handle`, under its lock.
pub(super) fn with_scheduler<R>(handle: jlong, f: impl FnOnce(&mut Scheduler) -> R) -> NativeResult<R> {
    handle_ref(handle)?.with(f)
}

/// `static native long create(byte[] xml, String source, long[] clusterSettings, long epoch, String[] baseProperties, String[] overlayProperties, String[] systemProperties)`
///
/// `clusterSettings` is `[minMemory, minVcores, maxMemory, maxVcores, aclEnabled, amNonExclusive]` from
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
    overlay_properties: JObjectArray<'l, JString<'l>>,
    system_properties: JObjectArray<'l, JString<'l>>,
) -> jlong {
    env.with_env(|env| -> NativeResult<jlong> {
        super::logging::install(env)?;
        let inputs = read_config_inputs(env, &xml, &source, &base_properties, &overlay_properties, &system_properties)?;
        let handle = Handle::create(&inputs, &read_longs(env, &cluster_settings)?, epoch)?;
        Ok(Box::into_raw(Box::new(handle)) as jlong)
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

/// A refresh between `prepareRefresh` and `discardRefresh`, as the shim holds it: the
/// prepared configuration until `commitRefresh` swaps it in, then what the swap replaced,
/// freed by `discardRefresh` once the shim has released its own lock.
struct RefreshSlot {
    prepared: Option<PreparedRefresh>,
    retired: Retired,
}

/// `static native long prepareRefresh(long handle, byte[] xml, String source, String[] baseProperties, String[] overlayProperties, String[] systemProperties)`
///
/// The first half of a refresh, taken without any lock: reads and validates the new
/// configuration and returns it as an opaque pointer that `discardRefresh` frees (exactly
/// once), after `commitRefresh` or instead of it. Throws
/// `SchedulerConfigurationException` listing every problem; the running configuration
/// stays.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_prepareRefresh<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    xml: JByteArray<'l>,
    source: JString<'l>,
    base_properties: JObjectArray<'l, JString<'l>>,
    overlay_properties: JObjectArray<'l, JString<'l>>,
    system_properties: JObjectArray<'l, JString<'l>>,
) -> jlong {
    env.with_env(|env| -> NativeResult<jlong> {
        let inputs = read_config_inputs(env, &xml, &source, &base_properties, &overlay_properties, &system_properties)?;
        let prepared = handle_ref(handle)?.prepare_refresh(&inputs)?;
        Ok(Box::into_raw(Box::new(RefreshSlot { prepared: Some(prepared), retired: Retired::default() })) as jlong)
    })
    .resolve::<ThrowJava>()
}

/// The refresh `prepareRefresh` made.
///
/// # Safety
/// `prepared` must come from `prepareRefresh`, not yet freed by `discardRefresh`, and not
/// in use by another call.
unsafe fn slot<'a>(prepared: jlong) -> NativeResult<&'a mut RefreshSlot> {
    if prepared == 0 {
        return Err(NativeError::InvalidArgument("no prepared configuration".into()));
    }
    // SAFETY: see the function's contract.
    Ok(unsafe { &mut *(prepared as *mut RefreshSlot) })
}

/// `static native String[] commitRefresh(long handle, long prepared)`
///
/// The second half: checks the prepared configuration against the live state and swaps
/// it in, returning the warnings; or throws `SchedulerConfigurationException` and leaves
/// the running configuration in force. Either way the configuration is used up, and
/// `prepared` keeps what the swap replaced until `discardRefresh`.
///
/// # Safety
/// As for `slot`; Java's `NativeScheduler.PreparedRefresh` guarantees it.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn Java_org_capsched_yarn_NativeScheduler_commitRefresh<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    prepared: jlong,
) -> JObjectArray<'l, JString<'l>> {
    env.with_env(|env| -> NativeResult<JObjectArray<'l, JString<'l>>> {
        // SAFETY: see the function's contract.
        let slot = unsafe { slot(prepared) }?;
        let config = slot
            .prepared
            .take()
            .ok_or_else(|| NativeError::InvalidArgument("the prepared configuration was committed already".into()))?;
        let warnings = handle_ref(handle)?.commit_refresh_keeping(config, &mut slot.retired)?;
        new_strings(env, &warnings)
    })
    .resolve::<ThrowJava>()
}

/// `static native void discardRefresh(long prepared)`: frees a prepared refresh: the
/// configuration if it was not committed, else what its commit replaced.
///
/// # Safety
/// `prepared` must come from `prepareRefresh`, is not usable afterwards, and no other call
/// may be using it.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn Java_org_capsched_yarn_NativeScheduler_discardRefresh<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    prepared: jlong,
) {
    env.with_env(|_env| -> NativeResult<()> {
        // SAFETY: see the function's contract.
        if prepared != 0 {
            drop(unsafe { Box::from_raw(prepared as *mut RefreshSlot) });
        }
        Ok(())
    })
    .resolve::<ThrowJava>()
}

/// `static native void injectFault(long handle, int fault)`: arms a panic for the next
/// call that changes the scheduler (1) or only reads it (2). For the tests that show what
/// the RM does with a panic in the core; never called otherwise.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_injectFault<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    fault: jint,
) {
    env.with_env(|_env| -> NativeResult<()> {
        let fault = match fault {
            1 => ops::Fault::PanicWhileChanging,
            2 => ops::Fault::PanicWhileReading,
            other => return Err(NativeError::InvalidArgument(format!("unknown fault {other}"))),
        };
        handle_ref(handle)?.inject_fault(fault);
        Ok(())
    })
    .resolve::<ThrowJava>()
}

/// `static native int addNode(long handle, String nodeId, String host, String rack, long memory, long vcores,
/// String label, boolean exclusive)`
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
    label: JString<'l>,
    exclusive: jboolean,
) -> jint {
    env.with_env(|env| -> NativeResult<jint> {
        let (node_id, host, rack, label) = (
            read_string(env, &node_id, "node id")?,
            read_string(env, &host, "host")?,
            read_string(env, &rack, "rack")?,
            read_string(env, &label, "node label")?,
        );
        let label = (label.as_str(), exclusive);
        Ok(ops::add_node(handle_ref(handle)?, &node_id, &host, &rack, (memory, vcores), label)? as jint)
    })
    .resolve::<ThrowJava>()
}

/// `static native void relabelNodes(long handle, String[] labels, int[] exclusive, int[] nodes,
/// String[] nodeLabels)`: the cluster's labels (each exclusive when its flag is not 0), and
/// each node's label now (`""` for none).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_relabelNodes<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    labels: JObjectArray<'l, JString<'l>>,
    exclusive: JIntArray<'l>,
    nodes: JIntArray<'l>,
    node_labels: JObjectArray<'l, JString<'l>>,
) {
    env.with_env(|env| -> NativeResult<()> {
        let labels = read_strings(env, &labels, "cluster node labels")?;
        let exclusive: Vec<bool> = read_ints(env, &exclusive)?.into_iter().map(|f| f != 0).collect();
        let nodes = read_ints(env, &nodes)?;
        let node_labels = read_strings(env, &node_labels, "node labels")?;
        ops::relabel_nodes(handle_ref(handle)?, labels, &exclusive, &nodes, node_labels)
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
        new_longs(env, &ops::container_refs_to_longs(&lost))
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
        ops::update_node_resource(handle_ref(handle)?, node as u32, memory, vcores)
    })
    .resolve::<ThrowJava>()
}

/// `static native void updateClusterResource(long handle)`: capacities, limits passed
/// down, activations and headroom worked out again, as Apache's scheduler does when the
/// RM's label manager announces nodes (`Scheduler::resize_cluster`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_updateClusterResource<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    env.with_env(|_env| -> NativeResult<()> { with_scheduler(handle, Scheduler::resize_cluster) })
        .resolve::<ThrowJava>()
}

/// `static native long[] nodeUpdate(long handle, int node, long[] finished)`
///
/// One call per heartbeat: the containers that finished on the node (pairs) go in, every
/// allocation made on the node comes out ([`wire::allocation`](super::wire::allocation)).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_nodeUpdate<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    node: jint,
    finished: JLongArray<'l>,
) -> JLongArray<'l> {
    env.with_env(|env| -> NativeResult<JLongArray<'l>> {
        let out = ops::node_update(handle_ref(handle)?, node as u32, &read_longs(env, &finished)?)?;
        new_longs(env, &out)
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
        let releases = ops::releases(&read_longs(env, &containers)?)?;
        with_scheduler(handle, |s| s.apply_releases(&releases))
    })
    .resolve::<ThrowJava>()
}

/// `static native int submit(long handle, long clusterTimestamp, int id, String queue, String user, String[] groups, long priority, boolean recovering, boolean placed, long amMemory, long amVcores, String amLabel) throws ApplicationRejectedException`
///
/// Returns the application's key; a rejection throws with the reason the user sees.
/// `placed`: a placement rule chose the queue. A missing queue under a parent that may
/// create it is created first. `amLabel`: the partition the AM's request names (`""`: the
/// default one).
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
    placed: jboolean,
    am_memory: jlong,
    am_vcores: jlong,
    am_label: JString<'l>,
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
            am_label: read_string(env, &am_label, "AM label")?,
            placed,
        };
        Ok(ops::submit(handle_ref(handle)?, &submission)? as jint)
    })
    .resolve::<ThrowJava>()
}

/// `static native String[] place(long handle, String user, String[] groups, String queue, String applicationName, boolean recovery)`
///
/// Where the placement rules put a submission: `["placed", queue, trace…]`,
/// `["rejected", message, trace…]` (the message the submitter is told) or
/// `["unplaced", "", trace…]`, the trace saying rule by rule
/// how the answer was reached (for the RM's log).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_place<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    user: JString<'l>,
    groups: JObjectArray<'l, JString<'l>>,
    queue: JString<'l>,
    application_name: JString<'l>,
    recovery: jboolean,
) -> JObjectArray<'l, JString<'l>> {
    env.with_env(|env| -> NativeResult<JObjectArray<'l, JString<'l>>> {
        let (user, queue) = (read_string(env, &user, "user")?, read_string(env, &queue, "queue")?);
        let groups = read_strings(env, &groups, "group")?;
        // A submission may carry no name; the rules then match it as an empty one.
        let name =
            if application_name.is_null() { String::new() } else { read_string(env, &application_name, "name")? };
        let answer = ops::place(handle_ref(handle)?, &user, &groups, &queue, &name, recovery)?;
        new_strings(env, &answer)
    })
    .resolve::<ThrowJava>()
}

/// `static native String applicationQueue(long handle, int app)`: the full path of the leaf
/// the application runs in.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_applicationQueue<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    app: jint,
) -> JString<'l> {
    env.with_env(|env| -> NativeResult<JString<'l>> {
        let path = ops::application_queue(handle_ref(handle)?, app as u32)?;
        Ok(env.new_string(path)?)
    })
    .resolve::<ThrowJava>()
}

/// `static native boolean applicationActive(long handle, int app)`: whether the application
/// is activated (may be given containers).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_applicationActive<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    app: jint,
) -> jboolean {
    env.with_env(|_env| -> NativeResult<jboolean> { ops::application_active(handle_ref(handle)?, app as u32) })
        .resolve::<ThrowJava>()
}

/// `static native void addAttempt(long handle, int app, int attemptId, boolean transferState, long epoch)`
///
/// `transferState`: the attempt takes over its predecessor's (`keep-containers`). `epoch`:
/// the RM's epoch now ([`Scheduler::set_epoch`]).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_addAttempt<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    app: jint,
    attempt_id: jint,
    transfer_state: jboolean,
    epoch: jlong,
) {
    env.with_env(|_env| -> NativeResult<()> {
        with_scheduler(handle, |s| {
            s.set_epoch(epoch as u64);
            s.add_attempt(app as u32, attempt_id, transfer_state)
        })
    })
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

/// `static native long takeContainerNumber(long handle, int app)`: the next container
/// number of the application's current attempt, or -1 if it has none.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_takeContainerNumber<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    app: jint,
) -> jlong {
    env.with_env(|_env| -> NativeResult<jlong> {
        with_scheduler(handle, |s| s.take_container_number(app as u32).map_or(-1, |n| n as jlong))
    })
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
        new_longs(env, &ops::container_refs_to_longs(&left))
    })
    .resolve::<ThrowJava>()
}

/// `static native long[] allocate(long handle, int app, long[] released, int[] askInts, long[] askLongs, String[] askNames, String[] askLabels, String[] blacklistAdditions, String[] blacklistRemovals, boolean waitingForAm)`
///
/// One crossing per AM heartbeat: the released containers (records), the asks
/// ([`ops::decode_asks`], with each ask's node label, `askLabels` null when none names
/// one) and the blacklist changes; returns the headroom as
/// `[memory, vcores]`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_allocate<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    app: jint,
    released: JLongArray<'l>,
    ask_ints: JIntArray<'l>,
    ask_longs: JLongArray<'l>,
    ask_names: JObjectArray<'l, JString<'l>>,
    ask_labels: JObjectArray<'l, JString<'l>>,
    blacklist_additions: JObjectArray<'l, JString<'l>>,
    blacklist_removals: JObjectArray<'l, JString<'l>>,
    waiting_for_am: jboolean,
) -> JLongArray<'l> {
    env.with_env(|env| -> NativeResult<JLongArray<'l>> {
        let h = handle_ref(handle)?;
        let names = read_strings(env, &ask_names, "resource name")?;
        let call = ops::AllocateCall {
            app: app as u32,
            released: read_longs(env, &released)?,
            asks: ops::decode_asks(
                &read_ints(env, &ask_ints)?,
                &read_longs(env, &ask_longs)?,
                names,
                h.maximum_allocation(),
            )?,
            labels: if ask_labels.is_null() { Vec::new() } else { read_strings(env, &ask_labels, "ask label")? },
            additions: read_strings(env, &blacklist_additions, "blacklist addition")?,
            removals: read_strings(env, &blacklist_removals, "blacklist removal")?,
            waiting_for_am,
        };
        new_longs(env, &ops::allocate(h, &call)?)
    })
    .resolve::<ThrowJava>()
}

/// `static native String[] queuePaths(long handle)`: every queue's full path, in tree order
/// (the order of `queueReport`'s records).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_queuePaths<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JObjectArray<'l, JString<'l>> {
    env.with_env(|env| -> NativeResult<JObjectArray<'l, JString<'l>>> {
        let paths = ops::queue_paths(handle_ref(handle)?)?;
        new_strings(env, &paths)
    })
    .resolve::<ThrowJava>()
}

/// `static native long queueLayout(long handle)`: a number that changes whenever the
/// queues' paths or their order change (while it stays, `queuePaths` would return the
/// same).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_queueLayout<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    env.with_env(|_env| -> NativeResult<jlong> { ops::queue_layout(handle_ref(handle)?) }).resolve::<ThrowJava>()
}

/// `static native long queueLabelsVersion(long handle)`: a number that changes whenever
/// `queueLayout` does or any queue's node labels change (while it stays, `queueNodeLabels`
/// would return the same).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_queueLabelsVersion<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    env.with_env(|_env| -> NativeResult<jlong> { ops::queue_labels_version(handle_ref(handle)?) })
        .resolve::<ThrowJava>()
}

/// `static native long[] queueMaximumAllocations(long handle)`: every queue's maximum
/// allocation, in tree order ([`wire::queue_maximum`](super::wire::queue_maximum) records).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_queueMaximumAllocations<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JLongArray<'l> {
    env.with_env(|env| -> NativeResult<JLongArray<'l>> {
        let records = ops::queue_maximum_allocations(handle_ref(handle)?)?;
        new_longs(env, &records)
    })
    .resolve::<ThrowJava>()
}

/// `static native String[] queueNodeLabels(long handle)`: every queue's accessible labels
/// and default label expression, in tree order ([`ops::queue_node_labels`]).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_queueNodeLabels<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JObjectArray<'l, JString<'l>> {
    env.with_env(|env| -> NativeResult<JObjectArray<'l, JString<'l>>> {
        let labels = ops::queue_node_labels(handle_ref(handle)?)?;
        new_strings(env, &labels)
    })
    .resolve::<ThrowJava>()
}

/// `static native boolean creationDenied(long handle, String queue, String user, String[] groups)`:
/// a submission by `user` to the missing `queue` would create a queue whose ACLs (its
/// templates', its parents') refuse the user.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_creationDenied<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    queue: JString<'l>,
    user: JString<'l>,
    groups: JObjectArray<'l, JString<'l>>,
) -> jboolean {
    env.with_env(|env| -> NativeResult<jboolean> {
        let queue = read_string(env, &queue, "queue")?;
        let user = read_string(env, &user, "user")?;
        let groups = read_strings(env, &groups, "group")?;
        ops::creation_denied(handle_ref(handle)?, &queue, &user, &groups)
    })
    .resolve::<ThrowJava>()
}

/// `static native String[] deleteExpiredQueues(long handle)`: one round of the deletion of
/// idle auto-created queues (Apache's `AutoCreatedQueueDeletionPolicy`); the paths deleted.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_deleteExpiredQueues<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JObjectArray<'l, JString<'l>> {
    env.with_env(|env| -> NativeResult<JObjectArray<'l, JString<'l>>> {
        let deleted = ops::delete_expired_queues(handle_ref(handle)?)?;
        new_strings(env, &deleted)
    })
    .resolve::<ThrowJava>()
}

/// `static native boolean manageQueues(long handle)`: one round of the queue-management
/// monitor over managed parents' leaves (Apache's `QueueManagementDynamicEditPolicy`);
/// whether some leaf's guarantee changed.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_manageQueues<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jboolean {
    env.with_env(|_env| -> NativeResult<jboolean> { ops::manage_queues(handle_ref(handle)?) }).resolve::<ThrowJava>()
}

/// `static native String[] dynamicQueueKeys(long handle)`: the configuration keys of the
/// queues created at run time, as `[name, value, …]` (their templates written in).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_dynamicQueueKeys<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JObjectArray<'l, JString<'l>> {
    env.with_env(|env| -> NativeResult<JObjectArray<'l, JString<'l>>> {
        let keys = ops::dynamic_queue_keys(handle_ref(handle)?)?;
        new_strings(env, &keys)
    })
    .resolve::<ThrowJava>()
}

/// `static native QueueReport queueReport(long handle)`: one record per queue in tree
/// order, fractions in `figures` ([`wire::queue_figures`](super::wire::queue_figures)) and
/// amounts, counts and links in `counts` ([`wire::queue_counts`](super::wire::queue_counts)).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_queueReport<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JObject<'l> {
    env.with_env(|env| -> NativeResult<JObject<'l>> {
        let (figures, counts) = ops::queue_report(handle_ref(handle)?)?;
        new_queue_report(env, &figures, &counts)
    })
    .resolve::<ThrowJava>()
}

/// `static native double[] queueInfo(long handle, String path)`: the QueueInfo figures of
/// the queue at full path `path` ([`wire::queue_info`](super::wire::queue_info)); null if
/// no queue has that path.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_queueInfo<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    path: JString<'l>,
) -> JDoubleArray<'l> {
    env.with_env(|env| -> NativeResult<JDoubleArray<'l>> {
        let path = read_string(env, &path, "queue path")?;
        match ops::queue_info(handle_ref(handle)?, &path)? {
            Some(figures) => {
                let out = JDoubleArray::new(env, figures.len())?;
                out.set_region(env, 0, &figures)?;
                Ok(out)
            }
            None => Ok(JDoubleArray::default()),
        }
    })
    .resolve::<ThrowJava>()
}

/// `static native long changes(long handle)`: how many calls may have changed the
/// scheduler so far (see [`Handle::changes`](super::ops::Handle::changes)); no lock taken.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_changes<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    env.with_env(|_env| -> NativeResult<jlong> { Ok(handle_ref(handle)?.changes() as jlong) }).resolve::<ThrowJava>()
}

/// `static native UserReport userReport(long handle)`: every leaf's users, leaves in tree
/// order ([`wire::user_counts`](super::wire::user_counts)).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_userReport<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JObject<'l> {
    env.with_env(|env| -> NativeResult<JObject<'l>> {
        let (names, counts, weights) = ops::user_report(handle_ref(handle)?)?;
        new_user_report(env, &names, &counts, &weights)
    })
    .resolve::<ThrowJava>()
}

/// `static native long[] amDiagnoses(long handle)`: what applications waiting for their
/// AM container were told about their activation since the last call
/// ([`wire::am_diagnosis`](super::wire::am_diagnosis) records).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_amDiagnoses<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JLongArray<'l> {
    env.with_env(|env| -> NativeResult<JLongArray<'l>> {
        let records = ops::take_am_diagnoses(handle_ref(handle)?)?;
        new_longs(env, &records)
    })
    .resolve::<ThrowJava>()
}

/// `static native ViewReport viewReport(long handle)`: a queue report, a user report and
/// their labelled partitions of one moment, for views that show them together (the
/// scheduler page, the REST scheduler view).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_viewReport<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JObject<'l> {
    env.with_env(|env| -> NativeResult<JObject<'l>> {
        let ((figures, counts), (names, user_counts, weights), (labels, partition_counts, partition_figures)) =
            ops::view_report(handle_ref(handle)?)?;
        let queues = new_queue_report(env, &figures, &counts)?;
        let users = new_user_report(env, &names, &user_counts, &weights)?;
        let partitions = new_partition_report(env, &labels, &partition_counts, &partition_figures)?;
        new_view_report(env, &queues, &users, &partitions)
    })
    .resolve::<ThrowJava>()
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
/// `acl` is a [`wire`](super::wire) ACL code. An unknown queue grants nothing. With
/// `enforcedOnly`, every ACL is granted while `yarn.acl.enable` is false.
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
        let (queue, user) = (read_string(env, &queue, "queue")?, read_string(env, &user, "user")?);
        let groups = read_strings(env, &groups, "group")?;
        ops::check_access(handle_ref(handle)?, &queue, acl, &user, &groups, enforced_only)
    })
    .resolve::<ThrowJava>()
}

/// `static native String moveApplication(long handle, int app, String target, boolean commit) throws NoSuchLeafQueueException, ApplicationRejectedException`
///
/// Checks whether the application may move to `target` and, with `commit`, moves it.
/// Returns the destination leaf's full path; throws when the target is no leaf queue, or
/// when the leaf does not admit the application (Apache reports that as an access-control
/// failure).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_moveApplication<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    app: jint,
    target: JString<'l>,
    commit: jboolean,
) -> JString<'l> {
    env.with_env(|env| -> NativeResult<JString<'l>> {
        let target = read_string(env, &target, "target queue")?;
        let path = ops::move_application(handle_ref(handle)?, app as u32, &target, commit)?;
        Ok(env.new_string(path)?)
    })
    .resolve::<ThrowJava>()
}

/// `static native long applicationPriority(long handle, String queue, boolean requested, int priority, int clusterMax, String user, String[] groups)`
///
/// The priority an application submitted or updated to `queue` runs at: `priority` if
/// `requested`, else the caller's or the queue's default; capped at `clusterMax`. A null
/// `user` is no caller (no priority ACL applies). The answer is `(priority << 1) | allowed`:
/// the priority, and whether the caller may have it.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_applicationPriority<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    queue: JString<'l>,
    requested: jboolean,
    priority: jint,
    cluster_max: jint,
    user: JString<'l>,
    groups: JObjectArray<'l, JString<'l>>,
) -> jlong {
    env.with_env(|env| -> NativeResult<jlong> {
        let queue = read_string(env, &queue, "queue")?;
        let requested = requested.then_some(priority as i64);
        let user = if user.is_null() { None } else { Some(read_string(env, &user, "user")?) };
        let groups = if groups.is_null() { Vec::new() } else { read_strings(env, &groups, "groups")? };
        let caller = user.as_deref().map(|user| Caller { user, groups: &groups });
        with_scheduler(handle, |s| {
            let (p, allowed) = match s.application_priority(requested, &queue, cluster_max as i64, caller.as_ref()) {
                Ok(p) => (p, 1),
                Err(p) => (p, 0),
            };
            (p << 1) | allowed
        })
    })
    .resolve::<ThrowJava>()
}

/// `static native long applicationLifetime(long handle, String queue, long requested)`
///
/// The lifetime (seconds) an application submitted to `queue` asking for `requested` gets.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_applicationLifetime<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    queue: JString<'l>,
    requested: jlong,
) -> jlong {
    env.with_env(|env| -> NativeResult<jlong> {
        let queue = read_string(env, &queue, "queue")?;
        with_scheduler(handle, |s| s.application_lifetime(&queue, requested))
    })
    .resolve::<ThrowJava>()
}

/// `static native long maximumApplicationLifetime(long handle, String queue)`
///
/// The longest lifetime (seconds) of `queue`'s applications; -1 for a name that is not a leaf.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_maximumApplicationLifetime<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    queue: JString<'l>,
) -> jlong {
    env.with_env(|env| -> NativeResult<jlong> {
        let queue = read_string(env, &queue, "queue")?;
        with_scheduler(handle, |s| s.maximum_application_lifetime(&queue))
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

/// `static native boolean recoverContainer(long handle, int app, int attempt, long number, int node, long memory, long vcores, int priority, long allocationRequestId, boolean am)`
///
/// A running container a NodeManager reported after an RM restart (`am`: it is the
/// attempt's ApplicationMaster). Returns false when it was not recorded (unknown
/// application or node, or already known).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_recoverContainer<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    app: jint,
    attempt: jint,
    number: jlong,
    node: jint,
    memory: jlong,
    vcores: jlong,
    priority: jint,
    allocation_request_id: jlong,
    am: jboolean,
) -> jboolean {
    env.with_env(|_env| -> NativeResult<jboolean> {
        let key = SchedulerKey { priority, allocation_request_id };
        let id = ContainerId { attempt, number: number as u64 };
        ops::recover_container(handle_ref(handle)?, (app as u32, id), node as u32, (memory, vcores), key, am)
    })
    .resolve::<ThrowJava>()
}

/// `static native boolean moveReservation(long handle, int app, int attempt, long number, int from, int to)`
///
/// Moves a reservation as a preemption round decided; false if it could not be
/// ([`crate::scheduler::Scheduler::move_reservation`]).
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_moveReservation<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    app: jint,
    attempt: jint,
    number: jlong,
    from: jint,
    to: jint,
) -> jboolean {
    env.with_env(|_env| -> NativeResult<jboolean> {
        let id = ContainerId { attempt, number: number as u64 };
        with_scheduler(handle, |s| s.move_reservation(app as u32, id, from as u32, to as u32))
    })
    .resolve::<ThrowJava>()
}

/// `static native long[] takeKilled(long handle)`
///
/// The killable containers the core killed outside a heartbeat since the last call, as
/// container records ([`crate::scheduler::Scheduler::take_killed`]).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_takeKilled<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JLongArray<'l> {
    env.with_env(|env| -> NativeResult<JLongArray<'l>> {
        let killed = with_scheduler(handle, |s| s.take_killed())?;
        new_longs(env, &ops::container_refs_to_longs(&killed))
    })
    .resolve::<ThrowJava>()
}

/// `static native boolean containerKillable(long handle, int app, int attempt, long number)`
///
/// MARK_CONTAINER_FOR_KILLABLE for a container: true if the RM is to kill it now, false if
/// lazy preemption only marked it killable ([`crate::scheduler::Scheduler::container_killable`]).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_containerKillable<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    app: jint,
    attempt: jint,
    number: jlong,
) -> jboolean {
    env.with_env(|_env| -> NativeResult<jboolean> {
        let id = ContainerId { attempt, number: number as u64 };
        with_scheduler(handle, |s| s.container_killable((app as u32, id)))
    })
    .resolve::<ThrowJava>()
}

/// `static native long[] preemptionRound(long handle, long now)`
///
/// One round of the preemption policy at `now` (ms since the epoch, the policy's clock):
/// the containers to mark, kill or unreserve ([`ops::preemption_round`]).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeScheduler_preemptionRound<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    now: jlong,
) -> JLongArray<'l> {
    env.with_env(|env| -> NativeResult<JLongArray<'l>> {
        let actions = ops::preemption_round(handle_ref(handle)?, now)?;
        new_longs(env, &actions)
    })
    .resolve::<ThrowJava>()
}

/// `static native void levelsChanged(int maxLevel)` of `org.capsched.yarn.NativeLog`
///
/// The RM's loggers' levels may have changed; `maxLevel` (0 off ... 5 trace) is the most
/// verbose level any of the core's loggers now has.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_capsched_yarn_NativeLog_levelsChanged<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    max_level: jint,
) {
    env.with_env(|_env| -> NativeResult<()> {
        super::logging::levels_changed(max_level);
        Ok(())
    })
    .resolve::<ThrowJava>()
}
