//! The native seam: every call the shim makes into the core, with raw arguments as the JNI
//! trampolines receive them (`jint` keys cast to the core's keys, flat `long[]` records,
//! ask arrays that may disagree in length, strings of any content).

use arbitrary::{Arbitrary, Unstructured};
use capsched::config::{ClusterSettings, SchedulerConfig};
use capsched::jni::ops::{self, build_config, AllocateCall, Handle};
use capsched::jni::ConfigInputs;
use capsched::{ContainerId, Resource, Scheduler, SchedulerKey, Submission};
use std::sync::OnceLock;

/// Two configurations the calls run against and refresh between: plain capacities with
/// the default calculator and a parent that creates queues (`auto-queue-creation-v2`), and DRF with user limits, queue priorities, and lazy preemption
/// with every selector on.
const CONFIGS: [&str; 2] = [
    r#"<configuration>
  <property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>
  <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>40</value></property>
  <property><name>yarn.scheduler.capacity.root.a.maximum-capacity</name><value>70</value></property>
  <property><name>yarn.scheduler.capacity.root.b.capacity</name><value>60</value></property>
  <property><name>yarn.scheduler.capacity.root.b.queues</name><value>b1,b2</value></property>
  <property><name>yarn.scheduler.capacity.root.b.b1.capacity</name><value>1w</value></property>
  <property><name>yarn.scheduler.capacity.root.b.b2.capacity</name><value>1w</value></property>
  <property><name>yarn.scheduler.capacity.root.b.b2.acl_submit_applications</name><value>alice</value></property>
  <property><name>yarn.scheduler.capacity.root.b.auto-queue-creation-v2.enabled</name><value>true</value></property>
  <property><name>yarn.scheduler.capacity.root.b.auto-queue-creation-v2.max-queues</name><value>4</value></property>
  <property><name>yarn.scheduler.capacity.root.b.auto-queue-creation-v2.template.maximum-capacity</name><value>60</value></property>
  <property><name>yarn.scheduler.capacity.maximum-am-resource-percent</name><value>0.5</value></property>
</configuration>"#,
    r#"<configuration>
  <property><name>yarn.scheduler.capacity.resource-calculator</name><value>org.apache.hadoop.yarn.util.resource.DominantResourceCalculator</value></property>
  <property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>
  <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>30</value></property>
  <property><name>yarn.scheduler.capacity.root.a.priority</name><value>2</value></property>
  <property><name>yarn.scheduler.capacity.root.a.user-limit-factor</name><value>2</value></property>
  <property><name>yarn.scheduler.capacity.root.a.minimum-user-limit-percent</name><value>50</value></property>
  <property><name>yarn.scheduler.capacity.root.b.capacity</name><value>70</value></property>
  <property><name>yarn.scheduler.capacity.root.b.maximum-capacity</name><value>90</value></property>
  <property><name>yarn.scheduler.capacity.root.b.queues</name><value>b1,b2</value></property>
  <property><name>yarn.scheduler.capacity.root.b.b1.capacity</name><value>20</value></property>
  <property><name>yarn.scheduler.capacity.root.b.b2.capacity</name><value>80</value></property>
  <property><name>yarn.scheduler.capacity.root.b.b2.maximum-applications</name><value>3</value></property>
  <property><name>yarn.scheduler.capacity.lazy-preemption-enabled</name><value>true</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.enabled</name><value>true</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.select_based_on_reserved_containers</name><value>true</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.preemption-to-balance-queue-after-satisfied.enabled</name><value>true</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill</name><value>0</value></property>
</configuration>"#,
];

/// Calls per input, at most: enough to build a cluster, fill it and churn it.
const MAX_CALLS: usize = 256;

/// A key the shim passes as a `jint`: usually one of the first few (applications and
/// nodes are numbered from zero or one), sometimes anything at all.
#[derive(Debug, Clone, Copy)]
struct Key(i32);

impl<'a> Arbitrary<'a> for Key {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let pick: u8 = u.arbitrary()?;
        Ok(Key(if pick < 240 { i32::from(pick % 8) } else { u.arbitrary()? }))
    }
}

/// A size: usually a plausible one, sometimes any `long` (negative, zero, huge).
#[derive(Debug, Clone, Copy)]
struct Size(i64);

impl<'a> Arbitrary<'a> for Size {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let pick: u8 = u.arbitrary()?;
        Ok(Size(match pick {
            0..=199 => i64::from(pick % 16) * 512,
            200..=239 => i64::from(pick % 8),
            _ => u.arbitrary()?,
        }))
    }
}

/// A name: one the configurations and the cluster use, or any string.
#[derive(Debug, Clone)]
struct Name(String);

const NAMES: [&str; 18] = [
    "root",
    "root.a",
    "a",
    "b",
    "b1",
    "root.b.b2",
    "b2",
    "default",
    "alice",
    "bob",
    "*",
    "",
    "h1",
    "h2:8041",
    "/r1",
    "root.b",
    "root.b.new",
    "root.b.x.y",
];

impl<'a> Arbitrary<'a> for Name {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let pick: u8 = u.arbitrary()?;
        Ok(Name(if pick < 224 { NAMES[usize::from(pick) % NAMES.len()].to_string() } else { u.arbitrary()? }))
    }
}

fn names(v: &[Name]) -> Vec<String> {
    v.iter().map(|n| n.0.clone()).collect()
}

/// One native call, with the arguments its trampoline passes on.
#[derive(Debug, Arbitrary)]
enum Call {
    AddNode {
        host: Name,
        rack: Name,
        memory: Size,
        vcores: Size,
        label: Name,
    },
    /// The cluster's labels, with whether each is exclusive, and nodes' new labels.
    RelabelNodes {
        labels: Vec<(Name, bool)>,
        nodes: Vec<(Key, Name)>,
    },
    RemoveNode {
        node: Key,
    },
    UpdateNodeResource {
        node: Key,
        memory: Size,
        vcores: Size,
    },
    UpdateClusterResource,
    NodeUpdate {
        node: Key,
        finished: Vec<i64>,
    },
    /// A node heartbeat reporting finished the containers it holds (as a NodeManager does),
    /// `count` of them, each as the given release kind.
    NodeUpdateFinishing {
        node: Key,
        count: u8,
        kind: u8,
    },
    Release {
        containers: Vec<i64>,
    },
    Submit {
        id: i32,
        queue: Name,
        user: Name,
        groups: Vec<Name>,
        priority: i64,
        recovering: bool,
        placed: bool,
        am: (Size, Size),
    },
    ApplicationQueue {
        app: Key,
    },
    ApplicationActive {
        app: Key,
    },
    AddAttempt {
        app: Key,
        attempt: i32,
        transfer_state: bool,
        epoch: u8,
    },
    RemoveAttempt {
        app: Key,
    },
    TakeContainerNumber {
        app: Key,
    },
    RemoveApp {
        app: Key,
    },
    Allocate {
        app: Key,
        released: Vec<i64>,
        ask_ints: Vec<i32>,
        ask_longs: Vec<i64>,
        ask_names: Vec<Name>,
        blacklist: (Vec<Name>, Vec<Name>),
        waiting_for_am: bool,
    },
    /// An `allocate()` whose ask arrays agree (the shim's usual call), with sizes of any sign.
    Ask {
        app: Key,
        priority: i32,
        count: i32,
        memory: Size,
        vcores: Size,
        name: Name,
        relax: bool,
    },
    Reports,
    CheckAccess {
        queue: Name,
        acl: i32,
        user: Name,
        groups: Vec<Name>,
        enforced_only: bool,
    },
    Move {
        app: Key,
        target: Name,
        commit: bool,
    },
    ApplicationPriority {
        queue: Name,
        requested: Option<i32>,
        cluster_max: i32,
        user: Option<Name>,
    },
    ApplicationLifetime {
        queue: Name,
        requested: i64,
    },
    MaximumApplicationLifetime {
        queue: Name,
    },
    UpdatePriority {
        app: Key,
        priority: i32,
    },
    RecoverContainer {
        app: Key,
        attempt: i32,
        number: i64,
        node: Key,
        size: (Size, Size),
        priority: i32,
        request: i64,
        am: bool,
    },
    MoveReservation {
        app: Key,
        attempt: i32,
        number: i64,
        from: Key,
        to: Key,
    },
    /// The killed containers and the AM diagnoses the core queued for the RM.
    TakeKilled,
    ContainerKillable {
        app: Key,
        attempt: i32,
        number: i64,
    },
    PreemptionRound {
        ms_later: u16,
    },
    Refresh {
        config: bool,
    },
}

fn inputs(config: usize) -> ConfigInputs {
    ConfigInputs {
        xml: CONFIGS[config].as_bytes().to_vec(),
        source: "fuzz.xml".into(),
        base: Vec::new(),
        overlay: Vec::new(),
        system: Vec::new(),
    }
}

/// A scheduler for one of [`CONFIGS`], read once per process (reading is most of the
/// cost of a short input).
fn handle(config: usize) -> Handle {
    static READ: OnceLock<[SchedulerConfig; 2]> = OnceLock::new();
    let read = READ.get_or_init(|| {
        [0, 1]
            .map(|i| build_config(&inputs(i), ClusterSettings::default()).expect("the seam's configurations are valid"))
    });
    Handle::new(read[config].clone(), 0)
}

/// Runs the calls `data` describes against one scheduler. Errors are answers; a panic, a
/// poisoned scheduler or books that no longer add up are failures.
pub fn seam(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(first) = u.arbitrary::<bool>() else { return };
    let h = handle(usize::from(first));
    let mut now = 1_000_000_i64;
    for _ in 0..MAX_CALLS {
        // Past the end of its bytes `Unstructured` answers zeros forever: stop there.
        if u.is_empty() {
            break;
        }
        let Ok(call) = u.arbitrary::<Call>() else { break };
        call_once(&h, &call, &mut now);
        if let Some(why) = h.poisoned() {
            panic!("{call:?} poisoned the scheduler: {why}");
        }
        let violations = h.read(|s| s.state().invariant_violations()).expect("a whole scheduler answers");
        assert!(violations.is_empty(), "after {call:?}: {violations:#?}");
    }
}

/// The container records of the first `count` containers on `node`, each with release
/// kind `kind`.
fn finishing(s: &Scheduler, node: u32, count: usize, kind: i64) -> Vec<i64> {
    let Some(n) = s.state().nodes.get(&node) else { return Vec::new() };
    let mut held: Vec<_> = n.containers.iter().copied().collect();
    held.sort_unstable_by_key(|&(app, c)| (app, c.attempt, c.number));
    held.into_iter()
        .take(count)
        .flat_map(|(app, c)| [i64::from(app), i64::from(c.attempt), c.number as i64, kind])
        .collect()
}

fn call_once(h: &Handle, call: &Call, now: &mut i64) {
    // Every result is dropped: an error is a legitimate answer to a bad argument.
    match call {
        Call::AddNode { host, rack, memory, vcores, label } => {
            let id = format!("{}:{}", host.0, memory.0);
            let _ = ops::add_node(h, &id, &host.0, &rack.0, (memory.0, vcores.0), (&label.0, memory.0 % 2 == 0));
        }
        Call::RelabelNodes { labels, nodes } => {
            let exclusive: Vec<bool> = labels.iter().map(|(_, e)| *e).collect();
            let labels = labels.iter().map(|(n, _)| n.0.clone()).collect();
            let keys: Vec<i32> = nodes.iter().map(|(k, _)| k.0).collect();
            let _ = ops::relabel_nodes(h, labels, &exclusive, &keys, nodes.iter().map(|(_, n)| n.0.clone()).collect());
        }
        Call::RemoveNode { node } => {
            let _ = h.with(|s| s.remove_node(node.0 as u32));
        }
        Call::UpdateNodeResource { node, memory, vcores } => {
            let _ = ops::update_node_resource(h, node.0 as u32, memory.0, vcores.0);
        }
        Call::UpdateClusterResource => {
            let _ = h.with(Scheduler::resize_cluster);
        }
        Call::NodeUpdate { node, finished } => {
            let _ = ops::node_update(h, node.0 as u32, finished);
        }
        Call::NodeUpdateFinishing { node, count, kind } => {
            let finished = h.read(|s| finishing(s, node.0 as u32, usize::from(*count % 4), i64::from(*kind % 4)));
            if let Ok(finished) = finished {
                let _ = ops::node_update(h, node.0 as u32, &finished);
            }
        }
        Call::Release { containers } => {
            if let Ok(releases) = ops::releases(containers) {
                let _ = h.with(|s| s.apply_releases(&releases));
            }
        }
        Call::Submit { id, queue, user, groups, priority, recovering, placed, am } => {
            let submission = Submission {
                app_id: (1, *id),
                queue: queue.0.clone(),
                user: user.0.clone(),
                groups: names(groups),
                priority: *priority,
                recovering: *recovering,
                am_resource: Resource::new(am.0 .0, am.1 .0),
                am_label: String::new(),
                placed: *placed,
            };
            let _ = ops::submit(h, &submission);
        }
        Call::ApplicationQueue { app } => {
            let _ = ops::application_queue(h, app.0 as u32);
        }
        Call::ApplicationActive { app } => {
            let _ = ops::application_active(h, app.0 as u32);
        }
        Call::AddAttempt { app, attempt, transfer_state, epoch } => {
            let _ = h.with(|s| {
                s.set_epoch(u64::from(*epoch));
                s.add_attempt(app.0 as u32, *attempt, *transfer_state)
            });
        }
        Call::RemoveAttempt { app } => {
            let _ = h.with(|s| s.remove_attempt(app.0 as u32));
        }
        Call::TakeContainerNumber { app } => {
            let _ = h.with(|s| s.take_container_number(app.0 as u32));
        }
        Call::RemoveApp { app } => {
            let _ = h.with(|s| s.remove_app(app.0 as u32));
        }
        Call::Allocate { app, released, ask_ints, ask_longs, ask_names, blacklist, waiting_for_am } => {
            if let Ok(asks) = ops::decode_asks(ask_ints, ask_longs, names(ask_names), h.maximum_allocation()) {
                let call = AllocateCall {
                    labels: Vec::new(),
                    app: app.0 as u32,
                    released: released.clone(),
                    asks,
                    additions: names(&blacklist.0),
                    removals: names(&blacklist.1),
                    waiting_for_am: *waiting_for_am,
                };
                let _ = ops::allocate(h, &call);
            }
        }
        Call::Ask { app, priority, count, memory, vcores, name, relax } => {
            let Ok(asks) = ops::decode_asks(
                &[*priority, *count, i32::from(*relax)],
                &[0, memory.0, vcores.0],
                vec![name.0.clone()],
                h.maximum_allocation(),
            ) else {
                return;
            };
            let call = AllocateCall {
                labels: Vec::new(),
                app: app.0 as u32,
                released: Vec::new(),
                asks,
                additions: Vec::new(),
                removals: Vec::new(),
                waiting_for_am: false,
            };
            let _ = ops::allocate(h, &call);
        }
        Call::Reports => {
            let _ = ops::queue_paths(h);
            let _ = ops::queue_report(h);
            let _ = ops::user_report(h);
            let _ = ops::view_report(h);
        }
        Call::CheckAccess { queue, acl, user, groups, enforced_only } => {
            let _ = ops::check_access(h, &queue.0, *acl, &user.0, &names(groups), *enforced_only);
        }
        Call::Move { app, target, commit } => {
            let _ = ops::move_application(h, app.0 as u32, &target.0, *commit);
        }
        Call::ApplicationPriority { queue, requested, cluster_max, user } => {
            let groups = Vec::new();
            let caller = user.as_ref().map(|u| capsched::policy::admission::Caller { user: &u.0, groups: &groups });
            let _ = h.with(|s| {
                s.application_priority(requested.map(i64::from), &queue.0, i64::from(*cluster_max), caller.as_ref())
            });
        }
        Call::ApplicationLifetime { queue, requested } => {
            let _ = h.with(|s| s.application_lifetime(&queue.0, *requested));
        }
        Call::MaximumApplicationLifetime { queue } => {
            let _ = h.with(|s| s.maximum_application_lifetime(&queue.0));
        }
        Call::UpdatePriority { app, priority } => {
            let _ = h.with(|s| s.update_priority(app.0 as u32, i64::from(*priority)));
        }
        Call::RecoverContainer { app, attempt, number, node, size, priority, request, am } => {
            let key = SchedulerKey { priority: *priority, allocation_request_id: *request };
            let id = ContainerId { attempt: *attempt, number: *number as u64 };
            let _ = ops::recover_container(h, (app.0 as u32, id), node.0 as u32, (size.0 .0, size.1 .0), key, *am);
        }
        Call::MoveReservation { app, attempt, number, from, to } => {
            let id = ContainerId { attempt: *attempt, number: *number as u64 };
            let _ = h.with(|s| s.move_reservation(app.0 as u32, id, from.0 as u32, to.0 as u32));
        }
        Call::TakeKilled => {
            let _ = h.with(Scheduler::take_killed);
            let _ = ops::take_am_diagnoses(h);
        }
        Call::ContainerKillable { app, attempt, number } => {
            let id = ContainerId { attempt: *attempt, number: *number as u64 };
            let _ = h.with(|s| s.container_killable((app.0 as u32, id)));
        }
        Call::PreemptionRound { ms_later } => {
            *now += i64::from(*ms_later);
            let _ = ops::preemption_round(h, *now);
        }
        Call::Refresh { config } => {
            if let Ok(prepared) = h.prepare_refresh(&inputs(usize::from(*config))) {
                let _ = h.commit_refresh(prepared);
            }
        }
    }
}
