//! Property tests of the core's invariants over random event sequences: whatever the RM
//! tells it, in whatever order — nodes joining, resized and lost, submissions, asks of
//! every size, heartbeats that finish containers, releases, kills, attempts failing with
//! and without keep-containers, moves, priority changes, refreshes and preemption rounds
//! (killing at once, or lazily: marking killable for heartbeats to kill for room) —
//! the books stay whole (every container and reservation held by its node, application,
//! user and queues, usage the sum of containers), nothing is refunded below zero, a
//! heartbeat never places a container on a node without room for it, and no queue grows
//! past its maximum. A failing sequence is shrunk to a short one and printed.

use capsched::config::ClusterSettings;
use capsched::ids::ContainerId;
use capsched::preemption::ActionKind;
use capsched::resource::Resource;
use capsched::{
    AllocationKind, AppKey, Ask, NodeKey, Release, Scheduler, SchedulerConfig, SchedulerKey, Submission, ANY,
};
use proptest::prelude::*;

const GB: i64 = 1024;
const LEAVES: [&str; 3] = ["a", "b1", "b2"];

/// root.a (40%, at most 60%) and root.b (60%) with b1 and b2 (half each, b2 at most
/// half), under either calculator, with preemption on (lazy or not; a of higher priority
/// than b, whose reservations may take room from b or move to where they could).
fn config(drf: bool, lazy: bool, b2_max: u32) -> SchedulerConfig {
    let calculator = if drf {
        "<property><name>yarn.scheduler.capacity.resource-calculator</name>\
         <value>org.apache.hadoop.yarn.util.resource.DominantResourceCalculator</value></property>"
    } else {
        ""
    };
    let xml = format!(
        "<configuration>
          <property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>
          <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>40</value></property>
          <property><name>yarn.scheduler.capacity.root.a.maximum-capacity</name><value>60</value></property>
          <property><name>yarn.scheduler.capacity.root.a.user-limit-factor</name><value>2</value></property>
          <property><name>yarn.scheduler.capacity.root.b.capacity</name><value>60</value></property>
          <property><name>yarn.scheduler.capacity.root.b.queues</name><value>b1,b2</value></property>
          <property><name>yarn.scheduler.capacity.root.b.b1.capacity</name><value>50</value></property>
          <property><name>yarn.scheduler.capacity.root.b.b1.minimum-user-limit-percent</name><value>50</value></property>
          <property><name>yarn.scheduler.capacity.root.b.b2.capacity</name><value>50</value></property>
          <property><name>yarn.scheduler.capacity.root.b.b2.maximum-capacity</name><value>{b2_max}</value></property>
          <property><name>yarn.scheduler.capacity.root.b.b2.user-limit-factor</name><value>3</value></property>
          <property><name>yarn.scheduler.capacity.maximum-am-resource-percent</name><value>0.5</value></property>
          <property><name>yarn.resourcemanager.scheduler.monitor.enable</name><value>true</value></property>
          <property><name>yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill</name><value>1000</value></property>
          <property><name>yarn.resourcemanager.monitor.capacity.preemption.select_based_on_reserved_containers</name><value>true</value></property>
          <property><name>yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.enabled</name><value>true</value></property>
          <property><name>yarn.scheduler.capacity.lazy-preemption-enabled</name><value>{lazy}</value></property>
          <property><name>yarn.scheduler.capacity.root.ordering-policy</name><value>priority-utilization</value></property>
          <property><name>yarn.scheduler.capacity.root.a.priority</name><value>1</value></property>
          <property><name>yarn.scheduler.capacity.ordering-policy.priority-utilization.underutilized-preemption.enabled</name><value>true</value></property>
          <property><name>yarn.scheduler.capacity.ordering-policy.priority-utilization.underutilized-preemption.reserved-container-delay-ms</name><value>0</value></property>
          <property><name>yarn.scheduler.capacity.ordering-policy.priority-utilization.underutilized-preemption.allow-move-reservation</name><value>true</value></property>
          {calculator}
        </configuration>"
    );
    SchedulerConfig::from_xml(xml.as_bytes(), "t.xml", ClusterSettings::default()).expect("the test's configuration")
}

/// One thing the RM tells the scheduler. Indices pick among what exists at the time.
#[derive(Debug, Clone)]
enum Op {
    AddNode {
        memory_gb: i64,
        vcores: i64,
    },
    RemoveNode(usize),
    ResizeNode {
        node: usize,
        memory_gb: i64,
        vcores: i64,
    },
    Submit {
        leaf: usize,
        user: usize,
        am_gb: i64,
    },
    Ask {
        app: usize,
        priority: i32,
        memory_gb: i64,
        vcores: i64,
        count: u32,
    },
    /// A heartbeat of a node that reports some of its containers finished.
    Heartbeat {
        node: usize,
        finish: usize,
    },
    Release {
        app: usize,
        count: usize,
    },
    Kill(usize),
    FailAttempt {
        app: usize,
        keep_containers: bool,
    },
    Move {
        app: usize,
        leaf: usize,
    },
    Priority {
        app: usize,
        priority: i64,
    },
    Refresh {
        b2_max: u32,
    },
    Preempt {
        ms_later: i64,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => (1..16i64, 1..16i64).prop_map(|(memory_gb, vcores)| Op::AddNode { memory_gb, vcores }),
        1 => any::<usize>().prop_map(Op::RemoveNode),
        1 => (any::<usize>(), 1..16i64, 1..16i64).prop_map(|(node, memory_gb, vcores)| Op::ResizeNode { node, memory_gb, vcores }),
        3 => (0..LEAVES.len(), 0..3usize, 1..3i64).prop_map(|(leaf, user, am_gb)| Op::Submit { leaf, user, am_gb }),
        4 => (any::<usize>(), 1..4i32, 1..10i64, 1..5i64, 0..6u32)
            .prop_map(|(app, priority, memory_gb, vcores, count)| Op::Ask { app, priority, memory_gb, vcores, count }),
        8 => (any::<usize>(), 0..3usize).prop_map(|(node, finish)| Op::Heartbeat { node, finish }),
        2 => (any::<usize>(), 1..3usize).prop_map(|(app, count)| Op::Release { app, count }),
        1 => any::<usize>().prop_map(Op::Kill),
        1 => (any::<usize>(), any::<bool>()).prop_map(|(app, keep_containers)| Op::FailAttempt { app, keep_containers }),
        1 => (any::<usize>(), 0..LEAVES.len()).prop_map(|(app, leaf)| Op::Move { app, leaf }),
        1 => (any::<usize>(), 0..5i64).prop_map(|(app, priority)| Op::Priority { app, priority }),
        1 => prop_oneof![Just(50u32), Just(80), Just(100)].prop_map(|b2_max| Op::Refresh { b2_max }),
        2 => (0..1500i64).prop_map(|ms_later| Op::Preempt { ms_later }),
    ]
}

/// Events on a crowded cluster of fixed nodes, where queues outgrow their guarantees and
/// preemption has work: big asks, many heartbeats, frequent rounds.
fn crowded_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => (0..LEAVES.len(), 0..3usize, 1..2i64).prop_map(|(leaf, user, am_gb)| Op::Submit { leaf, user, am_gb }),
        3 => (any::<usize>(), 1..4i32, 1..3i64, 1..3i64, 4..30u32)
            .prop_map(|(app, priority, memory_gb, vcores, count)| Op::Ask { app, priority, memory_gb, vcores, count }),
        8 => (any::<usize>(), 0..2usize).prop_map(|(node, finish)| Op::Heartbeat { node, finish }),
        1 => (any::<usize>(), 1..3usize).prop_map(|(app, count)| Op::Release { app, count }),
        1 => any::<usize>().prop_map(Op::Kill),
        1 => (any::<usize>(), 0..LEAVES.len()).prop_map(|(app, leaf)| Op::Move { app, leaf }),
        1 => (any::<usize>(), 0..5i64).prop_map(|(app, priority)| Op::Priority { app, priority }),
        4 => (0..1500i64).prop_map(|ms_later| Op::Preempt { ms_later }),
    ]
}

/// The RM's side of the conversation: what exists, and the attempts it started.
struct Driver {
    s: Scheduler,
    drf: bool,
    lazy: bool,
    nodes: Vec<NodeKey>,
    apps: Vec<(AppKey, i32)>,
    next_node: u32,
    next_app: i32,
    now: i64,
}

impl Driver {
    fn new(drf: bool, lazy: bool) -> Self {
        Driver {
            s: Scheduler::new(config(drf, lazy, 50), 0),
            drf,
            lazy,
            nodes: Vec::new(),
            apps: Vec::new(),
            next_node: 1,
            next_app: 1,
            now: 0,
        }
    }

    fn node(&self, i: usize) -> Option<NodeKey> {
        (!self.nodes.is_empty()).then(|| self.nodes[i % self.nodes.len()])
    }

    fn app(&self, i: usize) -> Option<(usize, AppKey)> {
        (!self.apps.is_empty()).then(|| {
            let at = i % self.apps.len();
            (at, self.apps[at].0)
        })
    }

    /// The RM's ask for an attempt's ApplicationMaster container.
    fn ask_for_am(&mut self, app: AppKey, am_gb: i64) {
        let key = SchedulerKey { priority: 0, allocation_request_id: 0 };
        let ask = Ask {
            key,
            resource_name: ANY.into(),
            capability: Resource::new(am_gb * GB, 1),
            count: 1,
            relax_locality: true,
        };
        self.s.update_requests(app, &[ask]);
    }

    fn containers_of(&self, app: AppKey) -> Vec<ContainerId> {
        let mut ids: Vec<ContainerId> =
            self.s.state().apps.get(&app).map(|a| a.containers.iter().copied().collect()).unwrap_or_default();
        ids.sort_by_key(|c| (c.attempt, c.number));
        ids
    }

    fn apply(&mut self, op: &Op) -> Result<(), TestCaseError> {
        match *op {
            Op::AddNode { memory_gb, vcores } => {
                let n = self.next_node;
                self.next_node += 1;
                let key =
                    self.s.add_node(&format!("h{n}:1"), &format!("h{n}"), "/r", Resource::new(memory_gb * GB, vcores));
                self.nodes.push(key);
            }
            Op::RemoveNode(i) => {
                if let Some(node) = self.node(i) {
                    self.s.remove_node(node);
                    self.nodes.retain(|&n| n != node);
                }
            }
            Op::ResizeNode { node, memory_gb, vcores } => {
                if let Some(node) = self.node(node) {
                    self.s.update_node_resource(node, Resource::new(memory_gb * GB, vcores));
                }
            }
            Op::Submit { leaf, user, am_gb } => {
                let id = self.next_app;
                self.next_app += 1;
                let sub = Submission::new(id, LEAVES[leaf], &format!("u{user}"), Resource::new(am_gb * GB, 1));
                if let Ok((app, _)) = self.s.submit(&sub) {
                    self.s.add_attempt(app, 1, false);
                    self.ask_for_am(app, am_gb);
                    self.apps.push((app, 1));
                }
            }
            Op::Ask { app, priority, memory_gb, vcores, count } => {
                if let Some((_, app)) = self.app(app) {
                    let key = SchedulerKey { priority, allocation_request_id: 0 };
                    let capability = Resource::new(memory_gb * GB, vcores);
                    self.s.update_requests(
                        app,
                        &[Ask { key, resource_name: ANY.into(), capability, count, relax_locality: true }],
                    );
                }
            }
            Op::Heartbeat { node, finish } => {
                let Some(node) = self.node(node) else { return Ok(()) };
                let mut on_node: Vec<_> = self.s.state().nodes[&node].containers.iter().copied().collect();
                on_node.sort_unstable_by_key(|&(app, c)| (app, c.attempt, c.number));
                on_node.truncate(finish);
                let before = self.s.state().clone();
                let placed = self.s.node_heartbeat(node, &on_node);
                // The RM ends at once the killable containers killed to make room.
                let killed: Vec<Release> = placed
                    .iter()
                    .filter(|a| a.kind == AllocationKind::Preempt)
                    .map(|a| Release::Done((a.app, a.container)))
                    .collect();
                self.s.apply_releases(&killed);
                self.check_heartbeat(&before, node, &placed)?;
            }
            Op::Release { app, count } => {
                if let Some((_, app)) = self.app(app) {
                    // The AM's own container (the first) stays.
                    let releases: Vec<Release> = self
                        .containers_of(app)
                        .into_iter()
                        .skip(1)
                        .take(count)
                        .map(|c| Release::NodeHolds((app, c)))
                        .collect();
                    self.s.apply_releases(&releases);
                }
            }
            Op::Kill(i) => {
                if let Some((at, app)) = self.app(i) {
                    let all: Vec<_> = self.containers_of(app).into_iter().map(|c| (app, c)).collect();
                    self.s.release(&all);
                    self.s.remove_attempt(app);
                    self.s.remove_app(app);
                    self.apps.remove(at);
                }
            }
            Op::FailAttempt { app, keep_containers } => {
                if let Some((at, app)) = self.app(app) {
                    // The RM ends the AM's container, and the others unless they are kept.
                    let am = self.s.state().apps[&app].am_container;
                    let done: Vec<_> = self
                        .containers_of(app)
                        .into_iter()
                        .filter(|&c| !keep_containers || Some(c) == am)
                        .map(|c| (app, c))
                        .collect();
                    self.s.release(&done);
                    self.s.remove_attempt(app);
                    let next = self.apps[at].1 + 1;
                    self.apps[at].1 = next;
                    self.s.add_attempt(app, next, keep_containers);
                    self.ask_for_am(app, 1);
                }
            }
            Op::Move { app, leaf } => {
                if let Some((_, app)) = self.app(app) {
                    let _ = self.s.move_app(app, LEAVES[leaf]);
                    // The RM ends at once the killable containers the move's parents killed.
                    let killed: Vec<Release> = self.s.take_killed().into_iter().map(Release::Done).collect();
                    self.s.apply_releases(&killed);
                }
            }
            Op::Priority { app, priority } => {
                if let Some((_, app)) = self.app(app) {
                    self.s.update_priority(app, priority);
                }
            }
            Op::Refresh { b2_max } => {
                let _ = self.s.refresh(config(self.drf, self.lazy, b2_max));
            }
            Op::Preempt { ms_later } => {
                self.now += ms_later;
                for a in self.s.preemption_round(self.now) {
                    let live = self.s.state().containers.contains_key(&(a.app, a.container));
                    let kill = match a.kind {
                        ActionKind::KillReserved => true,
                        ActionKind::Kill => live && self.s.container_killable((a.app, a.container)),
                        ActionKind::Mark => false,
                        ActionKind::MoveReservation => {
                            if let (Some(from), Some(to)) = (a.node, a.to) {
                                self.s.move_reservation(a.app, a.container, from, to);
                            }
                            false
                        }
                    };
                    if kill {
                        self.s.apply_releases(&[Release::Done((a.app, a.container))]);
                    }
                }
            }
        }
        self.check_books()
    }

    /// The books are whole and nothing is negative.
    fn check_books(&self) -> Result<(), TestCaseError> {
        let st = self.s.state();
        let violations = st.invariant_violations();
        prop_assert!(violations.is_empty(), "books: {violations:#?}");
        let negative = |r: Resource| r.memory_mb < 0 || r.vcores < 0;
        for q in &st.queues.queues {
            prop_assert!(!negative(q.used), "queue {} uses {}", q.path(), q.used);
            prop_assert!(!negative(q.am_used), "queue {} AMs use {}", q.path(), q.am_used);
            for (user, u) in &q.users {
                prop_assert!(!negative(u.used), "user {user} in {} uses {}", q.path(), u.used);
            }
        }
        for (key, a) in &st.apps {
            prop_assert!(!negative(a.used), "application {key} uses {}", a.used);
        }
        Ok(())
    }

    /// A heartbeat placed nothing on a node without room for it (but for the room of
    /// killable containers it counted and left running: Apache's leaf does not kill its
    /// own), and grew no queue past its maximum (the calculator's resources: memory, and
    /// vcores under DRF).
    fn check_heartbeat(
        &self,
        before: &capsched::model::State,
        node: NodeKey,
        placed: &[capsched::Allocation],
    ) -> Result<(), TestCaseError> {
        let st = self.s.state();
        let over =
            |used: Resource, cap: Resource| used.memory_mb > cap.memory_mb || (self.drf && used.vcores > cap.vcores);
        if placed.iter().any(|a| a.kind == AllocationKind::Allocate) {
            let n = &st.nodes[&node];
            let killable = n.killable.iter().fold(Resource::ZERO, |sum, c| sum.plus(st.containers[c].resource));
            prop_assert!(
                !over(n.allocated, n.total.plus(killable)),
                "node {} holds {} of {} ({} killable)",
                n.node_id,
                n.allocated,
                n.total,
                killable
            );
        }
        for (q, old) in st.queues.queues.iter().zip(&before.queues.queues) {
            if q.used.memory_mb > old.used.memory_mb || q.used.vcores > old.used.vcores {
                prop_assert!(
                    !over(q.used, q.effective_max),
                    "queue {} grew from {} to {}, past its maximum {}",
                    q.path(),
                    old.used,
                    q.used,
                    q.effective_max
                );
            }
        }
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn the_books_stay_whole_and_no_limit_is_passed(
        drf in any::<bool>(),
        lazy in any::<bool>(),
        ops in prop::collection::vec(op(), 1..300),
    ) {
        let mut d = Driver::new(drf, lazy);
        for op in &ops {
            d.apply(op)?;
        }
    }

    #[test]
    fn preemption_on_a_crowded_cluster_keeps_the_books_and_the_limits(
        drf in any::<bool>(),
        lazy in any::<bool>(),
        ops in prop::collection::vec(crowded_op(), 1..300),
    ) {
        let mut d = Driver::new(drf, lazy);
        for _ in 0..4 {
            d.apply(&Op::AddNode { memory_gb: 8, vcores: 8 })?;
        }
        for op in &ops {
            d.apply(op)?;
        }
    }
}
