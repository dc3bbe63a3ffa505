//! The policy on small clusters built through the scheduler's own events, with the figures
//! worked out by hand from Apache's rules (docs/apache-preemption.md).

use super::*;
use crate::config::{ClusterSettings, SchedulerConfig};
use crate::ids::{SchedulerKey, ANY};
use crate::model::Ask;
use crate::policy::admission::Submission;
use crate::resource::Resource;
use crate::scheduler::Scheduler;

const GB: i64 = 1024;

/// Apache's defaults, with the monitor on.
fn on() -> Settings {
    Settings { monitor_enabled: true, ..Settings::default() }
}

/// Two leaves of 50% each, both free to grow to the whole cluster, on one 100 GB node.
fn cluster(extra: &str) -> (Scheduler, NodeKey) {
    let xml = format!(
        "<configuration>
          <property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>
          <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>50</value></property>
          <property><name>yarn.scheduler.capacity.root.b.capacity</name><value>50</value></property>
          <property><name>yarn.scheduler.capacity.root.a.user-limit-factor</name><value>2</value></property>
          <property><name>yarn.scheduler.capacity.maximum-am-resource-percent</name><value>0.5</value></property>
          {extra}
        </configuration>"
    );
    let mut s =
        Scheduler::new(SchedulerConfig::from_xml(xml.as_bytes(), "t.xml", ClusterSettings::default()).unwrap(), 0);
    let n = s.add_node("h1:1", "h1", "/r", Resource::new(100 * GB, 100));
    (s, n)
}

/// An application in `queue` whose AM runs, then asking for `tasks` containers of 1 GB.
fn running_app(s: &mut Scheduler, node: NodeKey, id: i32, queue: &str, tasks: u32) -> AppKey {
    let (app, _) = s.submit(&Submission::new(id, queue, "u", Resource::new(GB, 1))).expect("admitted");
    s.add_attempt(app, 1, false);
    let ask = |priority, count| Ask {
        key: SchedulerKey { priority, allocation_request_id: 0 },
        resource_name: ANY.into(),
        capability: Resource::new(GB, 1),
        count,
        relax_locality: true,
    };
    s.update_requests(app, &[ask(0, 1)]);
    s.node_heartbeat(node, &[]);
    s.update_blacklist(app, false, &[], &[]);
    s.update_requests(app, &[ask(1, tasks)]);
    app
}

fn beat(s: &mut Scheduler, node: NodeKey, rounds: usize) {
    for _ in 0..rounds {
        s.node_heartbeat(node, &[]);
    }
}

fn used(s: &Scheduler, queue: &str) -> Resource {
    let st = s.state();
    st.queues.get(st.queues.resolve(queue).unwrap()).used
}

/// Queue a holds 90 GB; b holds 10 GB and asks for 31 GB more.
fn a_over_b_starved(extra: &str) -> (Scheduler, AppKey, AppKey) {
    let (mut s, n) = cluster(extra);
    let a = running_app(&mut s, n, 1, "a", 89);
    beat(&mut s, n, 89);
    assert_eq!(used(&s, "a").memory_mb, 90 * GB);
    let b = running_app(&mut s, n, 2, "b", 40);
    beat(&mut s, n, 20);
    assert_eq!(used(&s, "b").memory_mb, 10 * GB);
    (s, a, b)
}

fn of_kind(actions: &[Action], kind: ActionKind) -> Vec<(AppKey, u64)> {
    actions.iter().filter(|x| x.kind == kind).map(|x| (x.app, x.container.number)).collect()
}

#[test]
fn a_queue_over_its_guarantee_gives_back_a_fifth_of_the_rounds_budget_newest_first() {
    let (mut s, a, _) = a_over_b_starved("");
    let settings = on();
    // b's ideal is 41 GB (what it holds and asks for), a's the 59 GB left; a gives back its
    // 31 GB excess scaled to the round's budget (10% of 100 GB), of which the natural
    // termination factor (0.2) asks 2 GB: a's two newest containers.
    let first = s.preemption_round_with(&settings, 0);
    assert_eq!(of_kind(&first, ActionKind::Mark), [(a, 90), (a, 89)]);
    assert!(of_kind(&first, ActionKind::Kill).is_empty());
    // Chosen again before the wait is over: nothing new to say.
    assert!(s.preemption_round_with(&settings, 14_999).is_empty());
    // After the wait they are killed.
    let later = s.preemption_round_with(&settings, 15_000);
    assert_eq!(of_kind(&later, ActionKind::Kill), [(a, 90), (a, 89)]);
}

#[test]
fn the_am_container_is_never_taken_while_others_can_be() {
    let (mut s, a, _) = a_over_b_starved("");
    let settings = Settings { natural_termination_factor: 1.0, total_preemption_per_round: 1.0, ..on() };
    let marked = of_kind(&s.preemption_round_with(&settings, 0), ActionKind::Mark);
    // The whole 31 GB excess, the AM (container 1) spared.
    assert_eq!(marked.len(), 31);
    assert!(marked.iter().all(|&(app, n)| app == a && n > 1));
}

#[test]
fn nothing_is_taken_within_the_dead_zone_or_from_a_disabled_queue_or_when_observing() {
    let (mut s, _, _) = a_over_b_starved("");
    let dead_zone = Settings { max_ignored_over_capacity: 0.85, ..on() };
    assert!(s.preemption_round_with(&dead_zone, 0).is_empty(), "90 GB is within 50 GB x 1.85");
    let observe = Settings { observe_only: true, ..on() };
    assert!(s.preemption_round_with(&observe, 0).is_empty());
    let off = Settings { monitor_enabled: false, ..on() };
    assert!(s.preemption_round_with(&off, 0).is_empty(), "with the monitor off every queue is disabled");
    let (mut s, _, _) = a_over_b_starved(
        "<property><name>yarn.scheduler.capacity.root.a.disable_preemption</name><value>true</value></property>",
    );
    assert!(s.preemption_round_with(&on(), 0).is_empty());
    // A child's own setting wins over its parent's.
    let (mut s, a, _) = a_over_b_starved(
        "<property><name>yarn.scheduler.capacity.root.disable_preemption</name><value>true</value></property>
         <property><name>yarn.scheduler.capacity.root.a.disable_preemption</name><value>false</value></property>",
    );
    assert_eq!(of_kind(&s.preemption_round_with(&on(), 0), ActionKind::Mark), [(a, 90), (a, 89)]);
}

#[test]
fn no_queue_gives_back_when_every_asking_queue_is_at_its_guarantee() {
    let (mut s, n) = cluster("");
    running_app(&mut s, n, 1, "a", 49);
    beat(&mut s, n, 49);
    running_app(&mut s, n, 2, "b", 60);
    beat(&mut s, n, 60);
    assert_eq!((used(&s, "a").memory_mb, used(&s, "b").memory_mb), (50 * GB, 50 * GB));
    assert!(s.preemption_round_with(&on(), 0).is_empty());
}

#[test]
fn a_mark_is_forgotten_after_twice_the_wait_and_a_container_chosen_again_late_is_killed_at_once() {
    let (mut s, a, _) = a_over_b_starved("");
    let settings = on();
    s.preemption_round_with(&settings, 0);
    assert_eq!(s.preemption().marked(), 2);
    // Not chosen in a round (observe-only rounds do not touch the memory; a round with
    // nothing to take does): a's excess vanishes when b stops asking.
    let quiet = Settings { max_ignored_over_capacity: 10.0, ..on() };
    assert!(s.preemption_round_with(&quiet, 20_000).is_empty());
    assert_eq!(s.preemption().marked(), 2, "kept until twice the wait has passed");
    let again = s.preemption_round_with(&settings, 25_000);
    assert_eq!(of_kind(&again, ActionKind::Kill), [(a, 90), (a, 89)], "no second warning");
    s.preemption_round_with(&settings, 40_000);
    assert!(s.preemption_round_with(&quiet, 70_001).is_empty());
    assert_eq!(s.preemption().marked(), 0);
}

#[test]
fn leaves_are_visited_in_the_order_of_javas_hash_set_of_their_paths() {
    let (s, _) = cluster("");
    let order: Vec<&str> = leaf_order(s.state(), 0).into_iter().map(|q| s.state().queues.get(q).path()).collect();
    // "root.a" and "root.b" hash to adjacent buckets of a 16-bucket table.
    assert_eq!(order, ["root.a", "root.b"]);
}
