//! The operations behind the native methods, as safe functions of plain values: what each
//! `Java_…` trampoline calls once it has converted its arguments. Everything here is
//! tested without a JVM.

use super::convert::ConfigInputs;
use super::error::{panic_text, NativeError, NativeResult};
use super::wire;
use super::wire::{container_ref, release_kind};
use crate::config::{ClusterSettings, ConfigErrors, Properties, SchedulerConfig};
use crate::ids::{AppKey, ContainerId, ContainerRef, NodeKey, Release, SchedulerKey};
use crate::model::Ask;
use crate::policy::admission::{MoveRefusal, Submission};
use crate::policy::mapping;
use crate::report::{partition_rows, queue_info_row, queue_rows, user_partition_rows, user_rows};
use crate::resource::Resource;
use crate::scheduler::{PreparedRefresh, Retired, Scheduler};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

/// What the Java object's `long handle` points to: one scheduler behind one lock, the
/// yarn-site.xml settings every configuration it loads is read with, and a count of the
/// calls that may have changed the scheduler (so that figures derived from its reports,
/// such as the RM's queue gauges, are worked out again only when they may differ).
///
/// A panic while the scheduler is being changed may leave it half-updated, so
/// [`Handle::with`] marks the handle poisoned when one unwinds through it: that call and
/// every later one fail with [`NativeError::Poisoned`], and the shim hands the RM over as
/// a fatal error. A panic while the scheduler is only read fails that call alone.
pub struct Handle {
    /// std's mutex, not parking_lot's: a thread that finds it held spins briefly and then
    /// sleeps in the kernel until it is released, where parking_lot's yields the CPU
    /// between spins — and on an RM whose cores are all busy (node heartbeats, AM and
    /// client threads), a thread that yields goes behind every runnable thread. Under a
    /// saturating load, AM threads spent two fifths of `allocate()`'s wall time yielding
    /// for this lock (BENCHMARKS.md, "A real RM's concurrent load").
    scheduler: Mutex<Scheduler>,
    cluster: ClusterSettings,
    changes: AtomicU64,
    /// Why the scheduler can no longer be trusted: the panic that left it half-updated.
    poisoned: OnceLock<String>,
    /// A panic the tests asked for (see [`Handle::inject_fault`]).
    fault: AtomicU8,
}

/// A panic a test may arm at the seam ([`Handle::inject_fault`]), to show what the RM
/// does with one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The next call that changes the scheduler panics halfway.
    PanicWhileChanging = 1,
    /// The next call that only reads the scheduler panics.
    PanicWhileReading = 2,
}

impl Handle {
    /// A scheduler for the configuration `inputs` describe. `cluster_settings` is
    /// `[minMemory, minVcores, maxMemory, maxVcores, aclEnabled, amNonExclusive]` from
    /// yarn-site.xml.
    pub fn create(inputs: &ConfigInputs, cluster_settings: &[i64], epoch: i64) -> NativeResult<Handle> {
        let [min_mb, min_vc, max_mb, max_vc, acl, am_non_exclusive] = cluster_settings[..] else {
            return Err(NativeError::InvalidArgument(format!(
                "cluster settings need 6 values, got {}",
                cluster_settings.len()
            )));
        };
        let cluster = ClusterSettings {
            minimum_allocation: Resource::new(min_mb, min_vc),
            maximum_allocation: Resource::new(max_mb, max_vc),
            acl_enabled: acl != 0,
            am_non_exclusive: am_non_exclusive != 0,
        };
        let config = build_config(inputs, cluster)?;
        for w in &config.warnings {
            log::warn!("{w}");
        }
        Ok(Handle::new(config, epoch))
    }

    /// A scheduler for a configuration already read and validated, whose cluster settings
    /// every later refresh is read with.
    pub fn new(config: SchedulerConfig, epoch: i64) -> Handle {
        Handle {
            cluster: config.cluster,
            scheduler: Mutex::new(Scheduler::new(config, epoch as u64)),
            changes: AtomicU64::new(0),
            poisoned: OnceLock::new(),
            fault: AtomicU8::new(0),
        }
    }

    /// The scheduler's lock. A panic while reading unwinds through the guard and marks the
    /// mutex poisoned, though it changed nothing; a panic while changing is caught under the
    /// guard and poisons the handle instead ([`Handle::with`]). So the mutex's own flag is
    /// not needed and is ignored.
    fn lock(&self) -> MutexGuard<'_, Scheduler> {
        self.scheduler.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `f` on the scheduler, under its lock, and counts the call as a change. If `f`
    /// panics, the scheduler is marked poisoned and the call fails with
    /// [`NativeError::Poisoned`]; on a poisoned scheduler `f` does not run.
    pub fn with<R>(&self, f: impl FnOnce(&mut Scheduler) -> R) -> NativeResult<R> {
        let mut scheduler = self.lock();
        self.check_whole()?;
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            self.take_fault(Fault::PanicWhileChanging);
            f(&mut scheduler)
        }));
        // Counted before the lock is released: whoever reads the count and then a report
        // sees a report at least as new as the count.
        self.changes.fetch_add(1, Ordering::Release);
        outcome.map_err(|payload| {
            let text = panic_text(payload);
            log::error!(
                "the native scheduler panicked while changing its state, which may now be half-updated: {text}; \
                 every later call fails and the ResourceManager is handed over as after a fatal error"
            );
            NativeError::Poisoned(self.poisoned.get_or_init(|| text).clone())
        })
    }

    /// Runs `f` on the scheduler, under its lock, without changing it. A panic in `f`
    /// fails this call only (it reaches the JNI boundary as a panic).
    pub fn read<R>(&self, f: impl FnOnce(&Scheduler) -> R) -> NativeResult<R> {
        let scheduler = self.lock();
        self.check_whole()?;
        self.take_fault(Fault::PanicWhileReading);
        Ok(f(&scheduler))
    }

    /// `yarn.scheduler.maximum-allocation-*`: no ask or ApplicationMaster is larger.
    pub fn maximum_allocation(&self) -> Resource {
        self.cluster.maximum_allocation
    }

    /// How many calls may have changed the scheduler so far. Equal counts at two moments
    /// mean equal reports.
    pub fn changes(&self) -> u64 {
        self.changes.load(Ordering::Acquire)
    }

    /// The panic that poisoned the scheduler, if one did.
    pub fn poisoned(&self) -> Option<&str> {
        self.poisoned.get().map(String::as_str)
    }

    /// Arms `fault` for the next call of its kind: how the tests make the core panic
    /// through the real RM. Never called in normal operation.
    pub fn inject_fault(&self, fault: Fault) {
        self.fault.store(fault as u8, Ordering::Release);
    }

    fn take_fault(&self, kind: Fault) {
        if self.fault.compare_exchange(kind as u8, 0, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            panic!("fault injected by a test: {kind:?}");
        }
    }

    fn check_whole(&self) -> NativeResult<()> {
        match self.poisoned.get() {
            Some(text) => Err(NativeError::Poisoned(text.clone())),
            None => Ok(()),
        }
    }

    /// `refreshQueues`, first half: the new configuration read and validated completely
    /// and its queue tree built, without the scheduler's lock (and the shim holds none of
    /// its own). If it is invalid,
    /// the configuration in force is loaded again (as Apache's scheduler reloads it when a
    /// new one fails) and the errors come back.
    pub fn prepare_refresh(&self, inputs: &ConfigInputs) -> NativeResult<PreparedRefresh> {
        match build_config(inputs, self.cluster) {
            Ok(config) => Ok(PreparedRefresh::new(config)),
            Err(e) => {
                self.with(Scheduler::refused_refresh)?;
                Err(e)
            }
        }
    }

    /// `refreshQueues`, second half: a prepared configuration checked against the live
    /// state and swapped in under the lock (the shim holds its own write lock around this
    /// and the rebuild of its queue directory). Returns warnings.
    pub fn commit_refresh(&self, prepared: PreparedRefresh) -> NativeResult<Vec<String>> {
        self.commit_refresh_keeping(prepared, &mut Retired::default())
    }

    /// [`Handle::commit_refresh`], handing what the swap replaced to `retired` for the
    /// caller to free once its own lock is released too.
    pub fn commit_refresh_keeping(
        &self,
        prepared: PreparedRefresh,
        retired: &mut Retired,
    ) -> NativeResult<Vec<String>> {
        let mut warnings: Vec<String> = prepared.config().warnings.iter().map(ToString::to_string).collect();
        warnings.extend(self.with(|s| {
            let outcome = s.refresh_prepared(prepared);
            *retired = s.take_retired();
            outcome
        })??);
        Ok(warnings)
    }
}

/// Reads and validates a configuration: the RM's capacity keys from its files first, the
/// file over them, the keys set in code over both; `${var}` expanded from the system
/// properties.
pub fn build_config(inputs: &ConfigInputs, cluster: ClusterSettings) -> NativeResult<SchedulerConfig> {
    let mut props = Properties::new();
    for kv in inputs.base.chunks_exact(2) {
        props.set(&kv[0], &kv[1]);
    }
    props.set_system_properties(
        inputs.system.chunks_exact(2).map(|kv| (kv[0].clone(), kv[1].clone())).collect::<HashMap<_, _>>(),
    );
    props.load_xml(&inputs.xml, &inputs.source).map_err(ConfigErrors::from)?;
    for kv in inputs.overlay.chunks_exact(2) {
        props.overlay(&kv[0], &kv[1]);
    }
    Ok(SchedulerConfig::from_properties(&props, cluster)?)
}

/// Containers the RM is done with, from a flat `long[]` of [`container_ref`] records.
pub fn releases(values: &[i64]) -> NativeResult<Vec<Release>> {
    if values.len() % container_ref::STRIDE != 0 {
        return Err(NativeError::InvalidArgument(format!(
            "container list has length {}; expected (application, attempt, number, kind) records of {} longs",
            values.len(),
            container_ref::STRIDE
        )));
    }
    let release = |r: &[i64]| {
        let id = ContainerId { attempt: r[container_ref::ATTEMPT] as i32, number: r[container_ref::NUMBER] as u64 };
        let c = (r[container_ref::APP] as u32, id);
        match r[container_ref::KIND] {
            release_kind::DONE => Ok(Release::Done(c)),
            release_kind::NODE_HOLDS => Ok(Release::NodeHolds(c)),
            release_kind::NODE_FREED => Ok(Release::NodeFreed(c)),
            release_kind::LAUNCHED => Ok(Release::Launched(c)),
            other => Err(NativeError::InvalidArgument(format!("unknown release kind {other}"))),
        }
    };
    values.chunks_exact(container_ref::STRIDE).map(release).collect()
}

/// The flat `long[]` of [`container_ref`] records.
pub fn container_refs_to_longs(containers: &[ContainerRef]) -> Vec<i64> {
    let mut out = vec![0; containers.len() * container_ref::STRIDE];
    for (&(app, id), r) in containers.iter().zip(out.chunks_exact_mut(container_ref::STRIDE)) {
        r[container_ref::APP] = i64::from(app);
        r[container_ref::ATTEMPT] = i64::from(id.attempt);
        r[container_ref::NUMBER] = id.number as i64;
        r[container_ref::KIND] = release_kind::DONE;
    }
    out
}

/// NODE_UPDATE: releases `finished` and returns every allocation on the node, encoded.
pub fn node_update(h: &Handle, node: NodeKey, finished: &[i64]) -> NativeResult<Vec<i64>> {
    let finished = releases(finished)?;
    // Encoded under the lock: a panic anywhere between the change and its answer poisons
    // the scheduler rather than losing the answer.
    h.with(|s| {
        s.apply_releases(&finished);
        wire::encode_allocations(&s.node_heartbeat(node, &[]))
    })
}

/// One preemption round at `now` (ms); returns the actions, encoded
/// ([`wire::preemption_action`]).
pub fn preemption_round(h: &Handle, now: i64) -> NativeResult<Vec<i64>> {
    h.with(|s| wire::encode_preemption_actions(&s.preemption_round(now)))
}

/// The largest memory (MiB) or vcore count the core takes for a node or a recovered
/// container: 2^40, so that the sums over any cluster stay far from overflowing.
pub const MAX_SIZE: i64 = 1 << 40;

/// A size that crosses the boundary, checked: memory and vcores each between 0 and
/// `limit`'s, or an error naming `what` (worked out only then: `allocate()` checks every
/// ask) and the size.
pub fn size(memory: i64, vcores: i64, limit: Resource, what: impl FnOnce() -> String) -> NativeResult<Resource> {
    let r = Resource::new(memory, vcores);
    if (0..=limit.memory_mb).contains(&memory) && (0..=limit.vcores).contains(&vcores) {
        Ok(r)
    } else {
        Err(NativeError::InvalidArgument(format!(
            "{} of {r} is refused: memory and vcores must each be between 0 and {limit}",
            what()
        )))
    }
}

/// The largest size of a node or a recovered container ([`MAX_SIZE`] each way).
const LARGEST: Resource = Resource::new(MAX_SIZE, MAX_SIZE);

/// The asks of one `allocate()`: 3 ints (priority, count, relaxLocality 0/1) and 3 longs
/// (allocation-request id, memory MiB, vcores) per resource name. The RM refuses an ask
/// of a negative size or over the maximum allocation before the scheduler sees it; one
/// that gets here all the same is refused with the call.
pub fn decode_asks(ints: &[i32], longs: &[i64], names: Vec<String>, maximum: Resource) -> NativeResult<Vec<Ask>> {
    if ints.len() != names.len() * 3 || longs.len() != names.len() * 3 {
        return Err(NativeError::InvalidArgument(format!(
            "ask arrays disagree: {} names, {} ints, {} longs",
            names.len(),
            ints.len(),
            longs.len()
        )));
    }
    names
        .into_iter()
        .enumerate()
        .map(|(i, resource_name)| {
            let key = SchedulerKey { priority: ints[3 * i], allocation_request_id: longs[3 * i] };
            let what = || format!("the ask at priority {} for {resource_name}", key.priority);
            Ok(Ask {
                key,
                capability: size(longs[3 * i + 1], longs[3 * i + 2], maximum, what)?,
                resource_name,
                count: ints[3 * i + 1].max(0) as u32,
                relax_locality: ints[3 * i + 2] != 0,
            })
        })
        .collect()
}

/// NODE_ADDED: the node's key. `label` is the node's label when it registers (`""`: none),
/// exclusive or not.
pub fn add_node(
    h: &Handle,
    node_id: &str,
    host: &str,
    rack: &str,
    (memory, vcores): (i64, i64),
    label: (&str, bool),
) -> NativeResult<NodeKey> {
    let total = size(memory, vcores, LARGEST, || format!("node {node_id}"))?;
    h.with(|s| s.add_labelled_node(node_id, host, rack, total, label))
}

/// NODE_LABELS_UPDATE: the cluster's labels (`labels[i]`, exclusive when `exclusive[i]`),
/// and the label each of `nodes` now has (`node_labels[i]`, `""` for none).
pub fn relabel_nodes(
    h: &Handle,
    labels: Vec<String>,
    exclusive: &[bool],
    nodes: &[i32],
    node_labels: Vec<String>,
) -> NativeResult<()> {
    if labels.len() != exclusive.len() || nodes.len() != node_labels.len() {
        return Err(NativeError::InvalidArgument(format!(
            "node labels: {} labels with {} exclusivity flags, {} nodes with {} labels",
            labels.len(),
            exclusive.len(),
            nodes.len(),
            node_labels.len()
        )));
    }
    let labels: Vec<(String, bool)> = labels.into_iter().zip(exclusive.iter().copied()).collect();
    let changes: Vec<(NodeKey, String)> = nodes.iter().map(|&n| n as NodeKey).zip(node_labels).collect();
    h.with(|s| s.relabel_nodes(&labels, &changes))
}

/// NODE_RESOURCE_UPDATE: the node's new total.
pub fn update_node_resource(h: &Handle, node: NodeKey, memory: i64, vcores: i64) -> NativeResult<()> {
    let total = size(memory, vcores, LARGEST, || format!("the new total of node {node}"))?;
    h.with(|s| s.update_node_resource(node, total))
}

/// A container a NodeManager reported after an RM restart; false when it was not recorded.
pub fn recover_container(
    h: &Handle,
    (app, id): ContainerRef,
    node: NodeKey,
    (memory, vcores): (i64, i64),
    key: SchedulerKey,
    am: bool,
) -> NativeResult<bool> {
    let resource = size(memory, vcores, LARGEST, || format!("recovered container {id} of application {app}"))?;
    h.with(|s| s.recover_container(app, id, node, resource, key, am))
}

/// What one `allocate()` carries to the core: the containers the AM released (pairs), its
/// asks and its blacklist changes.
pub struct AllocateCall {
    /// The application.
    pub app: AppKey,
    /// The containers it released, as [`container_ref`] records.
    pub released: Vec<i64>,
    /// Its asks.
    pub asks: Vec<Ask>,
    /// The node label of each ask (`labels[i]` for `asks[i]`), or none at all when no ask
    /// names one.
    pub labels: Vec<String>,
    /// Hosts or racks to blacklist.
    pub additions: Vec<String>,
    /// Hosts or racks no longer blacklisted.
    pub removals: Vec<String>,
    /// The attempt still waits for its AM container (the RM's own blacklist applies).
    pub waiting_for_am: bool,
}

/// `allocate()`, in Apache's order: releases, then blacklist changes and asks; returns the
/// headroom as `[memory, vcores]`.
pub fn allocate(h: &Handle, call: &AllocateCall) -> NativeResult<[i64; 2]> {
    let released = releases(&call.released)?;
    let AllocateCall { app, ref asks, ref labels, ref additions, ref removals, waiting_for_am, .. } = *call;
    if !labels.is_empty() && labels.len() != asks.len() {
        // The RM has let go of the released containers already: the core hears of them
        // even though the asks are refused.
        h.with(|s| s.apply_releases(&released))?;
        return Err(NativeError::InvalidArgument(format!(
            "{} ask labels for {} asks: give one per ask, or none",
            labels.len(),
            asks.len()
        )));
    }
    let headroom = h.with(|s| {
        s.apply_releases(&released);
        // Always: which of the two lists is in force follows the attempt's AM container.
        s.update_blacklist(app, waiting_for_am, additions, removals);
        s.update_labelled_requests(app, asks, labels)
    })?;
    Ok([headroom.memory_mb, headroom.vcores])
}

/// APP_ADDED: the application's key, or why it was rejected.
pub fn submit(h: &Handle, submission: &Submission) -> NativeResult<AppKey> {
    // The RM checked a new application's ApplicationMaster against the maximum allocation;
    // one it recovers was checked against the maximum of its day, which may have been larger.
    let (am, id) = (submission.am_resource, submission.app_id);
    let limit = if submission.recovering { LARGEST } else { h.maximum_allocation() };
    size(am.memory_mb, am.vcores, limit, || format!("the ApplicationMaster of application {}_{}", id.0, id.1))?;
    h.with(|s| {
        s.set_clock(monotonic_ms());
        s.submit(submission)
    })?
    .map(|(key, _)| key)
    .map_err(|rejection| NativeError::Rejected(rejection.0))
}

/// Milliseconds on a monotonic clock (as Java's `Time.monotonicNow`, with its own origin):
/// the time auto-created queues' idleness is measured in.
fn monotonic_ms() -> i64 {
    static ORIGIN: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    let origin = *ORIGIN.get_or_init(std::time::Instant::now);
    i64::try_from(origin.elapsed().as_millis()).unwrap_or(i64::MAX)
}

/// Whether a submission by `user` to the missing `queue` would create a queue its ACLs
/// (its templates', its parents') do not let the user submit to.
pub fn creation_denied(h: &Handle, queue: &str, user: &str, groups: &[String]) -> NativeResult<bool> {
    h.read(|s| s.creation_denied(queue, user, groups))
}

/// One round of the deletion of idle auto-created queues, now; the paths deleted.
pub fn delete_expired_queues(h: &Handle) -> NativeResult<Vec<String>> {
    h.with(|s| {
        s.set_clock(monotonic_ms());
        s.delete_expired_queues()
    })
}

/// One round of the queue-management monitor; whether some managed leaf changed.
pub fn manage_queues(h: &Handle) -> NativeResult<bool> {
    h.with(|s| s.manage_queues())
}

/// The full path of the leaf an application runs in.
pub fn application_queue(h: &Handle, app: AppKey) -> NativeResult<String> {
    h.read(|s| {
        let st = s.state();
        st.apps.get(&app).map(|a| st.queues.get(a.queue).path().to_string())
    })?
    .ok_or_else(|| NativeError::InvalidArgument(format!("no application with key {app}")))
}

/// Whether the application is activated: past its leaf's ApplicationMaster and
/// application limits, so that it may be given containers.
pub fn application_active(h: &Handle, app: AppKey) -> NativeResult<bool> {
    h.read(|s| s.state().apps.get(&app).map(|a| a.active))?
        .ok_or_else(|| NativeError::InvalidArgument(format!("no application with key {app}")))
}

/// A move (or, without `commit`, only its check): the destination leaf's path, or why not
/// — no leaf by that name, or a leaf that does not admit the application (which Apache
/// reports as an access-control failure).
pub fn move_application(h: &Handle, app: AppKey, target: &str, commit: bool) -> NativeResult<String> {
    let result = h.with(|s| if commit { s.move_app(app, target) } else { s.check_move(app, target) })?;
    result.map_err(|refusal| match refusal {
        MoveRefusal::NoSuchLeaf(reason) => NativeError::NoSuchLeaf(reason),
        MoveRefusal::NotAdmitted(rejection) => NativeError::Rejected(rejection.0),
        // Apache's refusal is a plain one, as for a queue that is not a leaf.
        MoveRefusal::Partitions(reason) => NativeError::NoSuchLeaf(reason),
    })
}

/// Whether `user` holds the ACL `acl_code` names on `queue` (see `Scheduler::may_access`).
pub fn check_access(
    h: &Handle,
    queue: &str,
    acl_code: i32,
    user: &str,
    groups: &[String],
    enforced_only: bool,
) -> NativeResult<bool> {
    let acl = wire::acl_from_code(acl_code)
        .ok_or_else(|| NativeError::InvalidArgument(format!("unknown queue ACL code {acl_code}")))?;
    h.read(|s| s.may_access(queue, acl, user, groups, enforced_only))
}

/// Every queue's full path, in tree order (the order of `queueReport`'s records).
pub fn queue_paths(h: &Handle) -> NativeResult<Vec<String>> {
    h.read(|s| s.state().queues.queues.iter().map(|q| q.path().to_string()).collect())
}

/// A number that changes whenever the queues' paths or their order change.
pub fn queue_layout(h: &Handle) -> NativeResult<i64> {
    h.read(|s| s.state().queue_layout as i64)
}

/// A number that changes whenever the layout does or any queue's node labels change.
pub fn queue_labels_version(h: &Handle) -> NativeResult<i64> {
    h.read(|s| s.state().queue_labels_version as i64)
}

/// Every queue's maximum allocation, in tree order ([`wire::queue_maximum`] records).
pub fn queue_maximum_allocations(h: &Handle) -> NativeResult<Vec<i64>> {
    h.read(|s| {
        let queues = &s.state().queues.queues;
        let mut out = vec![0; queues.len() * wire::queue_maximum::STRIDE];
        for (record, q) in out.chunks_exact_mut(wire::queue_maximum::STRIDE).zip(queues) {
            record[wire::queue_maximum::MEMORY] = q.config.maximum_allocation.memory_mb;
            record[wire::queue_maximum::VCORES] = q.config.maximum_allocation.vcores;
        }
        out
    })
}

/// Every queue's node labels, in tree order, two strings per queue: the labels it may
/// access (comma-separated, `*` for every label) and its default label expression (`""`
/// for none).
pub fn queue_node_labels(h: &Handle) -> NativeResult<Vec<String>> {
    h.read(|s| {
        let queues = &s.state().queues.queues;
        let mut out = Vec::with_capacity(queues.len() * 2);
        for q in queues {
            out.push(q.config.accessible_node_labels.names().join(","));
            out.push(q.config.default_node_label_expression.clone().unwrap_or_default());
        }
        out
    })
}

/// The keys of the queues created at run time, as `[name, value, name, value, …]`: what the
/// shim's views add to the file's configuration to describe those queues.
pub fn dynamic_queue_keys(h: &Handle) -> NativeResult<Vec<String>> {
    h.read(|s| {
        let config = &s.state().config;
        crate::config::autoqueue::written_keys(&config.properties, &config.dynamic, |leaf| {
            s.managed_capacity_reads_zero(leaf)
        })
        .into_iter()
        .flat_map(|(k, v)| [k, v])
        .collect()
    })
}

/// Every queue's row, encoded as `queueReport`'s figures and counts (see
/// [`wire::encode_queue_rows`]).
pub fn queue_report(h: &Handle) -> NativeResult<(Vec<f64>, Vec<i64>)> {
    h.read(|s| wire::encode_queue_rows(&queue_rows(s.state())))
}

/// The QueueInfo figures of the queue at full path `path`, encoded as `queueInfo`'s
/// doubles ([`wire::encode_queue_info`]); none if no queue has that path.
pub fn queue_info(h: &Handle, path: &str) -> NativeResult<Option<Vec<f64>>> {
    h.read(|s| {
        let state = s.state();
        state.queues.index_of_path(path).map(|index| wire::encode_queue_info(&queue_info_row(state, index)))
    })
}

/// Every leaf's users, encoded as `userReport`'s names, counts and weights (see
/// [`wire::encode_user_rows`]).
pub fn user_report(h: &Handle) -> NativeResult<(Vec<String>, Vec<i64>, Vec<f64>)> {
    h.read(|s| wire::encode_user_rows(&user_rows(s.state())))
}

/// What applications waiting for their AM container were told about their activation
/// since the last call, encoded as `amDiagnoses`' records (see [`wire::encode_am_diagnoses`]).
pub fn take_am_diagnoses(h: &Handle) -> NativeResult<Vec<i64>> {
    h.with(|s| wire::encode_am_diagnoses(&s.take_am_diagnoses()))
}

/// Where the placement rules put a submission, as [`place`](super::native_scheduler) answers
/// it: the outcome, the queue (or what a rejected submitter is told), then the trace.
pub fn place(
    h: &Handle,
    user: &str,
    groups: &[String],
    queue: &str,
    application_name: &str,
    recovery: bool,
) -> NativeResult<Vec<String>> {
    h.read(|s| {
        let state = s.state();
        let submission = mapping::Submission { user, groups, queue, application_name, recovery };
        let decision = mapping::place(&state.config.global.placement, &state.queues, &submission);
        let (outcome, queue) = match decision.placement {
            mapping::Placement::Placed { queue, .. } => ("placed", queue),
            mapping::Placement::Rejected { .. } => ("rejected", mapping::REJECTED_MESSAGE.to_string()),
            mapping::Placement::Unplaced => ("unplaced", String::new()),
        };
        [outcome.to_string(), queue].into_iter().chain(decision.trace).collect()
    })
}

/// A queue report, a user report (as [`queue_report`] and [`user_report`] encode them)
/// and their labelled partitions (see [`wire::encode_partition_rows`]) of one moment:
/// read under one lock, so a view built from them is never torn between two states.
pub type ViewReport = ((Vec<f64>, Vec<i64>), (Vec<String>, Vec<i64>, Vec<f64>), (Vec<String>, Vec<i64>, Vec<f64>));

/// Every queue's row, every leaf's users and their labelled partitions, in one read (see
/// [`ViewReport`]).
pub fn view_report(h: &Handle) -> NativeResult<ViewReport> {
    h.read(|s| {
        let state = s.state();
        (
            wire::encode_queue_rows(&queue_rows(state)),
            wire::encode_user_rows(&user_rows(state)),
            wire::encode_partition_rows(&partition_rows(state), &user_partition_rows(state)),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::ANY;

    fn handle(xml: &str) -> Handle {
        let inputs = ConfigInputs {
            xml: xml.as_bytes().to_vec(),
            source: "test.xml".into(),
            base: vec!["yarn.scheduler.capacity.root.a.capacity".into(), "70".into()],
            overlay: vec![],
            system: vec![],
        };
        Handle::create(&inputs, &[1024, 1, 8192, 4, 0, 0], 0).expect("valid")
    }

    const AB: &str = "<configuration>
      <property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>
      <property><name>yarn.scheduler.capacity.root.b.capacity</name><value>30</value></property>
    </configuration>";

    #[test]
    fn the_rm_configuration_is_the_base_the_file_builds_on() {
        let h = handle(AB);
        let rows = h.with(|s| queue_rows(s.state())).unwrap();
        assert_eq!(rows.len(), 3);
        assert!((rows[1].capacity - 0.7).abs() < 1e-9, "a's capacity comes from the RM's keys");
    }

    #[test]
    fn keys_set_in_code_win_over_the_file_and_keys_from_files_lose_to_it() {
        let key = |q: &str| format!("yarn.scheduler.capacity.root.{q}.capacity");
        let inputs = ConfigInputs {
            xml: AB.into(),
            source: "t".into(),
            base: vec![key("b"), "90".into()],
            overlay: vec![key("a"), "60".into(), key("b"), "40".into()],
            system: vec![],
        };
        let rows =
            Handle::create(&inputs, &[1024, 1, 8192, 4, 0, 0], 0).unwrap().with(|s| queue_rows(s.state())).unwrap();
        assert!((rows[1].capacity - 0.6).abs() < 1e-9 && (rows[2].capacity - 0.4).abs() < 1e-9);
    }

    #[test]
    fn bad_cluster_settings_and_ragged_container_lists_are_refused_with_what_is_wrong() {
        let inputs = ConfigInputs { xml: AB.into(), source: "t".into(), base: vec![], overlay: vec![], system: vec![] };
        let err = Handle::create(&inputs, &[1, 2, 3], 0).err().expect("refused").to_string();
        assert!(err.contains("6 values, got 3"), "{err}");
        let err = releases(&[1, 2, 3]).unwrap_err().to_string();
        assert!(err.contains("length 3; expected (application, attempt, number, kind) records of 4"), "{err}");
        let read = releases(&[1, 2, 3, 0, 4, 5, 6, 1, 7, 8, 9, 2]).unwrap();
        let c = |a, attempt, number| (a, ContainerId { attempt, number });
        assert_eq!(read, [Release::Done(c(1, 2, 3)), Release::NodeHolds(c(4, 5, 6)), Release::NodeFreed(c(7, 8, 9))]);
        assert!(releases(&[1, 2, 3, 7]).unwrap_err().to_string().contains("unknown release kind 7"));
        assert_eq!(container_refs_to_longs(&[c(4, 5, 6)]), [4, 5, 6, 0]);
    }

    const MAX: Resource = Resource::new(8192, 4);

    #[test]
    fn sizes_of_any_sign_or_past_their_limit_are_refused_at_the_door_and_change_nothing() {
        let h = handle(AB);
        let err = add_node(&h, "n:1", "n", "/r", (-1, 4), ("", true)).unwrap_err().to_string();
        assert!(err.contains("node n:1 of <memory:-1, vCores:4> is refused"), "{err}");
        assert!(add_node(&h, "n:1", "n", "/r", (MAX_SIZE + 1, 4), ("", true)).is_err());
        let node = add_node(&h, "n:1", "n", "/r", (8192, 4), ("", true)).unwrap();
        let err = update_node_resource(&h, node, 8192, i64::MIN).unwrap_err().to_string();
        assert!(err.contains(&format!("the new total of node {node}")), "{err}");
        assert_eq!(h.read(|s| s.state().nodes[&node].total).unwrap(), Resource::new(8192, 4));
        let err = decode_asks(&[1, 1, 1], &[0, 8193, 1], vec![ANY.into()], MAX).unwrap_err().to_string();
        assert!(err.contains("the ask at priority 1 for * of <memory:8193, vCores:1> is refused"), "{err}");
        assert!(decode_asks(&[1, 1, 1], &[0, 1024, -1], vec![ANY.into()], MAX).is_err());
        let key = SchedulerKey { priority: 0, allocation_request_id: 0 };
        let c = ContainerId { attempt: 1, number: 1 };
        assert!(recover_container(&h, (0, c), node, (i64::MAX, 1), key, true).is_err());
        let big_am = Submission::new(1, "a", "u", Resource::new(-5, 1));
        assert!(submit(&h, &big_am).unwrap_err().to_string().contains("ApplicationMaster of application 1_1"));
        let past_today = Submission {
            recovering: true,
            ..Submission::new(2, "a", "u", Resource::new(h.maximum_allocation().memory_mb * 2, 1))
        };
        assert!(submit(&h, &Submission { recovering: false, ..past_today.clone() }).is_err());
        assert!(h.read(|s| s.state().apps.is_empty()).unwrap());
        submit(&h, &past_today).expect("a recovered application is taken at the size it had");
    }

    #[test]
    fn asks_decode_by_position_and_must_agree_in_length() {
        let asks = decode_asks(&[2, 3, 0], &[7, 2048, 2], vec![ANY.into()], MAX).unwrap();
        assert_eq!(asks[0].key, SchedulerKey { priority: 2, allocation_request_id: 7 });
        assert_eq!((asks[0].count, asks[0].relax_locality, asks[0].capability), (3, false, Resource::new(2048, 2)));
        let err = decode_asks(&[2, 3], &[7, 2048, 2], vec![ANY.into()], MAX).unwrap_err().to_string();
        assert!(err.contains("1 names, 2 ints, 3 longs"), "{err}");
    }

    #[test]
    fn calls_that_may_change_the_core_are_counted_and_reports_are_not() {
        let h = handle(AB);
        let start = h.changes();
        h.with(|s| s.add_node("h:1", "h", "/r", Resource::new(8192, 8))).unwrap();
        assert_eq!(h.changes(), start + 1);
        let _ = (queue_report(&h), user_report(&h), queue_paths(&h));
        assert_eq!(h.changes(), start + 1, "reading the reports changes nothing");
        submit(&h, &Submission::new(1, "a", "u", Resource::new(1024, 1))).unwrap();
        assert_eq!(h.changes(), start + 2);
    }

    #[test]
    fn the_user_report_carries_each_users_headroom_and_am_limit() {
        let h = handle(AB);
        h.with(|s| s.add_node("h:1", "h", "/r", Resource::new(8192, 8))).unwrap();
        submit(&h, &Submission::new(1, "a", "u", Resource::new(1024, 1))).unwrap();
        let (names, counts, _) = user_report(&h).unwrap();
        assert_eq!(names, ["u"]);
        let u = &counts[..wire::user_counts::STRIDE];
        // a holds 70% of 8 GiB; its one user may take all of it (the user limit rounds up to
        // 1 GiB steps), and its ApplicationMasters 10% of it, rounded up likewise.
        assert_eq!(u[wire::user_counts::HEADROOM_MEMORY], 6 * 1024);
        assert_eq!(u[wire::user_counts::AM_LIMIT_MEMORY], 1024);
    }

    #[test]
    fn submissions_moves_and_acls_answer_with_codes_and_reasons() {
        let h = handle(AB);
        h.with(|s| s.add_node("h:1", "h", "/r", Resource::new(8192, 8))).unwrap();
        let sub = |queue: &str| Submission::new(1, queue, "u", Resource::new(1024, 1));
        assert!(matches!(submit(&h, &sub("nowhere")), Err(NativeError::Rejected(_))));
        let app = submit(&h, &sub("a")).unwrap();
        assert_eq!(application_queue(&h, app).unwrap(), "root.a");
        assert!(matches!(move_application(&h, app, "root", false), Err(NativeError::NoSuchLeaf(_))));
        assert_eq!(move_application(&h, app, "b", false).unwrap(), "root.b");
        assert_eq!(application_queue(&h, app).unwrap(), "root.a", "a check moves nothing");
        assert_eq!(move_application(&h, app, "b", true).unwrap(), "root.b");
        assert_eq!(application_queue(&h, app).unwrap(), "root.b");
        assert!(check_access(&h, "a", wire::acl::SUBMIT_APPLICATIONS, "anyone", &[], true).unwrap());
        assert!(check_access(&h, "a", 9, "anyone", &[], false).is_err());
        assert_eq!(queue_paths(&h).unwrap(), ["root", "root.a", "root.b"]);
        let (figures, counts) = queue_report(&h).unwrap();
        assert_eq!(figures.len(), 3 * wire::queue_figures::STRIDE);
        assert_eq!(counts[2 * wire::queue_counts::STRIDE + wire::queue_counts::APPLICATIONS], 1, "b holds the app");
        assert_eq!(counts[wire::queue_counts::PARENT], -1);
    }

    #[test]
    fn a_heartbeat_encodes_what_it_placed() {
        let h = handle(AB);
        let node = h.with(|s| s.add_node("h:1", "h", "/r", Resource::new(8192, 8))).unwrap();
        let app = submit(&h, &Submission::new(1, "a", "u", Resource::new(1024, 1))).unwrap();
        h.with(|s| s.add_attempt(app, 1, false)).unwrap();
        let asks = decode_asks(&[0, 1, 1], &[0, 1024, 1], vec![ANY.into()], MAX).unwrap();
        let call = |released: Vec<i64>, asks: Vec<Ask>| AllocateCall {
            app,
            released,
            asks,
            labels: vec![],
            additions: vec![],
            removals: vec![],
            waiting_for_am: true,
        };
        assert_eq!(allocate(&h, &call(vec![], asks)).unwrap(), [0, 0], "no pass has reached it yet");
        let out = node_update(&h, node, &[]).unwrap();
        assert_eq!(out.len(), wire::allocation::STRIDE);
        assert_eq!(out[wire::allocation::APP], i64::from(app));
        assert_eq!(out[wire::allocation::KIND], wire::kind::ALLOCATE);
        assert!(node_update(&h, node, &[1]).is_err());
        assert_eq!(out[wire::allocation::ATTEMPT], 1);
        let released = vec![i64::from(app), 1, out[wire::allocation::NUMBER], wire::release_kind::DONE];
        allocate(&h, &call(released, vec![])).unwrap();
        assert!(h.with(|s| s.state().containers.is_empty()).unwrap(), "the release came with the allocate call");
        // Asks refused for their labels: the releases that came with them still count.
        let asks = decode_asks(&[0, 1, 1], &[0, 1024, 1], vec![ANY.into()], MAX).unwrap();
        allocate(&h, &call(vec![], asks)).unwrap();
        let out = node_update(&h, node, &[]).unwrap();
        let released = vec![i64::from(app), 1, out[wire::allocation::NUMBER], wire::release_kind::DONE];
        let mut refused = call(released, vec![]);
        refused.labels = vec!["gpu".into()];
        assert!(matches!(allocate(&h, &refused), Err(NativeError::InvalidArgument(_))));
        assert!(h.with(|s| s.state().containers.is_empty()).unwrap(), "released though the call was refused");
    }

    #[test]
    fn a_panic_while_changing_poisons_the_scheduler_for_every_later_call() {
        let h = handle(AB);
        let node = h.with(|s| s.add_node("h:1", "h", "/r", Resource::new(8192, 8))).unwrap();
        h.inject_fault(Fault::PanicWhileChanging);
        let err = node_update(&h, node, &[]).unwrap_err();
        assert!(matches!(&err, NativeError::Poisoned(text) if text.contains("fault injected")), "{err}");
        assert!(h.poisoned().is_some());
        assert!(matches!(queue_report(&h), Err(NativeError::Poisoned(_))), "reads fail too");
        assert!(matches!(
            submit(&h, &Submission::new(1, "a", "u", Resource::new(1024, 1))),
            Err(NativeError::Poisoned(_))
        ));
        let before = h.changes();
        assert!(h.with(|_| unreachable!("a poisoned scheduler runs nothing")).is_err());
        assert_eq!(h.changes(), before, "a refused call changes nothing");
    }

    #[test]
    fn a_panic_while_reading_fails_that_call_only() {
        let h = handle(AB);
        h.inject_fault(Fault::PanicWhileReading);
        let caught = std::panic::catch_unwind(AssertUnwindSafe(|| queue_report(&h)));
        assert!(caught.is_err(), "the panic reaches the JNI boundary, which throws it to Java");
        assert!(h.poisoned().is_none());
        assert_eq!(queue_paths(&h).unwrap(), ["root", "root.a", "root.b"], "the scheduler is whole");
        h.with(|s| s.add_node("h:1", "h", "/r", Resource::new(8192, 8))).unwrap();
    }

    #[test]
    fn a_refresh_is_prepared_without_the_lock_and_committed_under_it() {
        let h = handle(AB);
        let abc = ConfigInputs {
            xml: AB.replace("a,b", "a,b,c").replace("</configuration>", "<property><name>yarn.scheduler.capacity.root.c.capacity</name><value>0</value></property></configuration>").into_bytes(),
            source: "new.xml".into(),
            base: vec!["yarn.scheduler.capacity.root.a.capacity".into(), "70".into()],
            overlay: vec![],
            system: vec![],
        };
        let prepared = h.prepare_refresh(&abc).unwrap();
        assert_eq!(queue_paths(&h).unwrap().len(), 3, "nothing changes until the commit");
        let mut retired = Retired::default();
        h.commit_refresh_keeping(prepared, &mut retired).unwrap();
        assert_eq!(queue_paths(&h).unwrap(), ["root", "root.a", "root.b", "root.c"]);
        assert!(!retired.is_empty(), "the replaced configuration comes back, to be freed after the shim's lock");
        assert!(h.with(|s| s.take_retired().is_empty()).unwrap(), "and the scheduler keeps none of it");
        let broken = ConfigInputs { xml: b"<configuration>".to_vec(), ..abc };
        assert!(matches!(h.prepare_refresh(&broken), Err(NativeError::Config(_))));
        assert_eq!(queue_paths(&h).unwrap().len(), 4, "a refused file leaves the running tree");
    }
}
