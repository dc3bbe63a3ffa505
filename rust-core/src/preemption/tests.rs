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
    running_app_of(s, node, Submission::new(id, queue, "u", Resource::new(GB, 1)), tasks)
}

/// `count` containers of 1 GB anywhere, at `priority`.
fn ask(priority: i32, count: u32) -> Ask {
    Ask {
        key: SchedulerKey { priority, allocation_request_id: 0 },
        resource_name: ANY.into(),
        capability: Resource::new(GB, 1),
        count,
        relax_locality: true,
    }
}

/// Likewise, for a submission of any user and priority.
fn running_app_of(s: &mut Scheduler, node: NodeKey, sub: Submission, tasks: u32) -> AppKey {
    let (app, _) = s.submit(&sub).expect("admitted");
    s.add_attempt(app, 1, false);
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

/// a (33.5%, preemption disabled) holds 40 GB of a node of 100 GB and 1 MB and asks for
/// nothing more; b and c (33.25% each) hold 20 GB each, b asks for more, and c too if
/// `c_asks`.
fn b_and_c_tied(c_asks: bool) -> Scheduler {
    let xml = "<configuration>
          <property><name>yarn.scheduler.capacity.root.queues</name><value>a,b,c</value></property>
          <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>33.5</value></property>
          <property><name>yarn.scheduler.capacity.root.b.capacity</name><value>33.25</value></property>
          <property><name>yarn.scheduler.capacity.root.c.capacity</name><value>33.25</value></property>
          <property><name>yarn.scheduler.capacity.root.a.disable_preemption</name><value>true</value></property>
          <property><name>yarn.scheduler.capacity.user-limit-factor</name><value>3</value></property>
          <property><name>yarn.scheduler.capacity.maximum-am-resource-percent</name><value>1.0</value></property>
        </configuration>";
    let mut s =
        Scheduler::new(SchedulerConfig::from_xml(xml.as_bytes(), "t.xml", ClusterSettings::default()).unwrap(), 0);
    let n = s.add_node("h1:1", "h1", "/r", Resource::new(100 * GB + 1, 100));
    running_app(&mut s, n, 1, "a", 39);
    beat(&mut s, n, 39);
    running_app(&mut s, n, 2, "b", 60);
    beat(&mut s, n, 19);
    running_app(&mut s, n, 3, "c", if c_asks { 60 } else { 19 });
    beat(&mut s, n, 19);
    s
}

#[test]
fn a_round_says_when_equally_under_served_queues_were_offered_more_than_was_left() {
    // b and c are equally far below their guarantees (20 GB of 34,048 MB each) and the
    // only queues asking; of the 20,481 MB nobody holds, each is offered half rounded up
    // (10,241 MB), so whichever comes second gets 1 MB less: the order decided, and
    // Apache's order changes from one JVM to the next.
    let mut s = b_and_c_tied(true);
    s.preemption_round_with(&on(), 0);
    assert!(s.preemption().last_round_tie_order_mattered());
    // With c asking for nothing more, b is alone: the order is the policy's own.
    let mut s = b_and_c_tied(false);
    s.preemption_round_with(&on(), 0);
    assert!(!s.preemption().last_round_tie_order_mattered());
}

/// Intra-queue preemption on, in the given order.
fn intra(order: crate::config::IntraQueueOrder) -> Settings {
    Settings { intra_queue_enabled: true, intra_queue_order: order, ..on() }
}

/// Queue a holds the whole cluster: application 1 (`first`, priority `p1`) 90 GB with
/// nothing more to ask, application 2 (`second`, priority `p2`) 10 GB and 11 GB more to ask.
fn one_leaf_two_apps(extra: &str, first: (&str, i64), second: (&str, i64)) -> (Scheduler, AppKey, AppKey) {
    let (mut s, n) = cluster(extra);
    let sub = |id, (user, priority): (&str, i64)| Submission {
        priority,
        ..Submission::new(id, "a", user, Resource::new(GB, 1))
    };
    let a1 = running_app_of(&mut s, n, sub(1, first), 89);
    beat(&mut s, n, 89);
    let a2 = running_app_of(&mut s, n, sub(2, second), 20);
    beat(&mut s, n, 20);
    assert_eq!(used(&s, "a").memory_mb, 100 * GB);
    (s, a1, a2)
}

#[test]
fn a_higher_priority_application_takes_from_a_lower_one_in_its_queue_with_priority_first() {
    use crate::config::IntraQueueOrder::{PriorityFirst, UserLimitFirst};
    let (mut s, a1, _) = one_leaf_two_apps("", ("u", 1), ("u", 5));
    // Application 2 is owed 11 GB (its 20 GB ideal less the 9 GB it holds); application 1
    // holds 21 GB beyond its 68 GB ideal and its AM. One round may take 20% of a's 50 GB
    // guarantee: application 1's ten newest containers.
    let marked = of_kind(&s.preemption_round_with(&intra(PriorityFirst), 0), ActionKind::Mark);
    assert_eq!(marked, (81..=90).rev().map(|n| (a1, n)).collect::<Vec<_>>());
    // Putting user limits first, a user is not taken below its limit (here the queue's
    // 100 GB ceiling for the one user, which it holds).
    let (mut s, ..) = one_leaf_two_apps("", ("u", 1), ("u", 5));
    assert!(s.preemption_round_with(&intra(UserLimitFirst), 0).is_empty());
    // Nothing without intra-queue preemption, or where the queue turns it off.
    let (mut s, ..) = one_leaf_two_apps("", ("u", 1), ("u", 5));
    assert!(s.preemption_round_with(&on(), 0).is_empty());
    let (mut s, ..) = one_leaf_two_apps(
        "<property><name>yarn.scheduler.capacity.root.a.intra-queue-preemption.disable_preemption</name><value>true</value></property>",
        ("u", 1),
        ("u", 5),
    );
    assert!(s.preemption_round_with(&intra(PriorityFirst), 0).is_empty());
}

#[test]
fn a_user_under_its_limit_takes_from_a_user_over_it_at_the_same_priority() {
    use crate::config::IntraQueueOrder::UserLimitFirst;
    let mulp =
        "<property><name>yarn.scheduler.capacity.root.a.minimum-user-limit-percent</name><value>50</value></property>";
    let (mut s, a1, _) = one_leaf_two_apps(mulp, ("u1", 0), ("u2", 0));
    // Counting both users, each may hold 51 GB (half the queue's 101 GB current capacity,
    // rounded up), 50 GB beside its AM. u2 is owed 11 GB; u1, 39 GB over, gives at most the
    // round's 10 GB: application 1's ten newest containers.
    let marked = of_kind(&s.preemption_round_with(&intra(UserLimitFirst), 0), ActionKind::Mark);
    assert_eq!(marked, (81..=90).rev().map(|n| (a1, n)).collect::<Vec<_>>());
    // With every user's limit the whole queue (minimum-user-limit-percent 100), no user is
    // over it and nothing is taken.
    let (mut s, ..) = one_leaf_two_apps("", ("u1", 0), ("u2", 0));
    assert!(s.preemption_round_with(&intra(UserLimitFirst), 0).is_empty());
}

/// Two 50 GB nodes. a holds 47 GB on the first (after giving three containers back) and
/// 46 GB on the second; b's AM runs on the first, and b has reserved the first, with 2 GB
/// free, for a 5 GB container (its queue has the room, spread over both nodes).
fn b_reserved() -> (Scheduler, AppKey) {
    let (s, a, _) = b_reserved_with("");
    (s, a)
}

/// [`b_reserved`] with more configuration; also returns the first node.
fn b_reserved_with(extra: &str) -> (Scheduler, AppKey, NodeKey) {
    let (mut s, n1) = cluster(extra);
    s.remove_node(n1);
    let n1 = s.add_node("h1:1", "h1", "/r", Resource::new(50 * GB, 50));
    let n2 = s.add_node("h2:1", "h2", "/r", Resource::new(50 * GB, 50));
    let a = running_app(&mut s, n1, 1, "a", 95);
    beat(&mut s, n1, 49);
    beat(&mut s, n2, 46);
    let number = |n| ContainerId { attempt: 1, number: n };
    s.node_heartbeat(n1, &[(a, number(48)), (a, number(49)), (a, number(50))]);
    assert_eq!(used(&s, "a").memory_mb, 93 * GB);
    let b = running_app(&mut s, n1, 2, "b", 0);
    let big = Ask {
        key: SchedulerKey { priority: 2, allocation_request_id: 0 },
        resource_name: ANY.into(),
        capability: Resource::new(5 * GB, 1),
        count: 1,
        relax_locality: true,
    };
    s.update_requests(b, &[big]);
    beat(&mut s, n1, 1);
    beat(&mut s, n2, 1);
    assert_eq!(s.state().apps[&b].reserved().memory_mb, 5 * GB);
    (s, a, n1)
}

#[test]
fn containers_are_chosen_to_make_room_for_a_reservation_when_asked_to() {
    // With reserved resources still pending and no natural termination, a owes 4 GB; the
    // first node lacks 3 GB for b's reservation: a's three newest containers there (b's AM
    // is newer, but never taken). The FIFO selector, with b's reserved ask not pending,
    // finds a owing nothing.
    let (mut s, a) = b_reserved();
    let settings = Settings { select_for_reservations: true, ..on() };
    let mut marked = of_kind(&s.preemption_round_with(&settings, 0), ActionKind::Mark);
    marked.sort_unstable();
    assert_eq!(marked, (45..=47).map(|n| (a, n)).collect::<Vec<_>>());
    let (mut s, _) = b_reserved();
    assert!(s.preemption_round_with(&on(), 0).is_empty());
}

/// [`b_reserved`] under a priority-utilization root, a of priority 1 and b of
/// `b_priority`, a's containers stamped oldest first by number and b's reservation
/// `reserved_at` (wall clock, ms). The node lacks 3 GB for the reservation.
fn b_reserved_under_priorities(b_priority: i64, reserved_at: i64) -> (Scheduler, AppKey) {
    let (s, a, n1) = b_reserved_with(&format!(
        "<property><name>yarn.scheduler.capacity.root.ordering-policy</name><value>priority-utilization</value></property>
         <property><name>yarn.scheduler.capacity.root.a.priority</name><value>1</value></property>
         <property><name>yarn.scheduler.capacity.root.b.priority</name><value>{b_priority}</value></property>
         <property><name>yarn.scheduler.capacity.root.a.disable_preemption</name><value>true</value></property>"
    ));
    let mut state = s.state().clone();
    for (&(app, id), c) in state.containers.iter_mut() {
        if app == a {
            c.created_ms = 1_000 + id.number as i64;
        }
    }
    state.nodes.get_mut(&n1).unwrap().reservation.as_mut().unwrap().created_ms = reserved_at;
    (Scheduler::from_state_for_tests(state), a)
}

#[test]
fn a_reservation_of_a_higher_priority_queue_takes_the_oldest_room_on_its_node_from_lower_ones() {
    // a's three oldest containers on the node that are not its AM, although a itself is
    // not to be preempted (Apache's selector does not ask).
    let settings = Settings { under_utilized_enabled: true, under_utilized_delay_ms: 0, ..on() };
    let (mut s, a) = b_reserved_under_priorities(2, 0);
    let marked = of_kind(&s.preemption_round_with(&settings, 0), ActionKind::Mark);
    assert_eq!(marked, (2..=4).map(|n| (a, n)).collect::<Vec<_>>());
    // The same priorities: no leaf may take from another.
    let (mut s, _) = b_reserved_under_priorities(1, 0);
    assert!(s.preemption_round_with(&settings, 0).is_empty());
    // Switched off, nothing.
    let (mut s, _) = b_reserved_under_priorities(2, 0);
    assert!(s.preemption_round_with(&on(), 0).is_empty());
    // A reservation younger than the delay (on the wall clock) waits.
    let (mut s, _) = b_reserved_under_priorities(2, crate::model::wall_clock_ms());
    let waiting = Settings { under_utilized_delay_ms: 60_000, ..settings };
    assert!(s.preemption_round_with(&waiting, 0).is_empty());
}

#[test]
fn a_reservation_takes_nothing_once_its_queue_holds_its_guarantee() {
    // With its reservation counted out b holds 1 GB (its AM): below its 50 GB guarantee,
    // but not below one of 1 GB.
    let settings = Settings { under_utilized_enabled: true, under_utilized_delay_ms: 0, ..on() };
    let (s, _) = b_reserved_under_priorities(2, 0);
    let mut state = s.state().clone();
    let b = state.queues.resolve("b").unwrap();
    state.queues.queues[b].effective_min = Resource::new(GB, 1);
    let mut s = Scheduler::from_state_for_tests(state);
    assert!(s.preemption_round_with(&settings, 0).is_empty());
}

const LAZY: &str =
    "<property><name>yarn.scheduler.capacity.lazy-preemption-enabled</name><value>true</value></property>";

fn killed_for_room(out: &[crate::scheduler::Allocation]) -> Vec<(AppKey, u64)> {
    out.iter()
        .filter(|x| x.kind == crate::scheduler::AllocationKind::Preempt)
        .map(|x| (x.app, x.container.number))
        .collect()
}

#[test]
fn without_lazy_preemption_a_container_whose_wait_is_over_is_killed_at_once() {
    let (mut s, a, _) = a_over_b_starved("");
    let c = (a, crate::ids::ContainerId { attempt: 1, number: 90 });
    assert!(s.container_killable(c));
    assert!(s.state().killable.is_empty());
}

#[test]
fn lazily_a_container_whose_wait_is_over_runs_on_until_a_starved_queue_kills_it_for_room() {
    let (mut s, a, b) = a_over_b_starved(LAZY);
    let node = *s.state().nodes.keys().next().unwrap();
    let settings = Settings { lazy: true, ..on() };
    s.preemption_round_with(&settings, 0);
    let kills = s.preemption_round_with(&settings, 15_000);
    assert_eq!(of_kind(&kills, ActionKind::Kill), [(a, 90), (a, 89)]);
    for k in &kills {
        assert!(!s.container_killable((k.app, k.container)), "only marked");
        assert!(!s.container_killable((k.app, k.container)), "marking again changes nothing");
    }
    // Both still run: a keeps its 90 GB, and the node lists them as killable.
    assert_eq!(used(&s, "a").memory_mb, 90 * GB);
    assert_eq!(s.state().nodes[&node].killable.len(), 2);
    // b, below its guarantee, finds the node full: it kills one killable container (the
    // first in the node's map order) to place one of its own. Its NodeManager runs it, so
    // the node keeps the killed container's share until the RM reports it gone: there is
    // no room for more.
    let running = |number| crate::ids::Release::Launched((a, crate::ids::ContainerId { attempt: 1, number }));
    s.apply_releases(&[running(89), running(90)]);
    let out = s.node_heartbeat(node, &[]);
    let first = killed_for_room(&out);
    assert_eq!(first.len(), 1);
    assert_eq!(out.iter().filter(|x| x.app == b && x.kind == crate::scheduler::AllocationKind::Allocate).count(), 1);
    assert_eq!(used(&s, "a").memory_mb, 89 * GB);
    assert_eq!(used(&s, "b").memory_mb, 11 * GB);
    assert_eq!(s.state().nodes[&node].allocated.memory_mb, 101 * GB);
    assert!(killed_for_room(&s.node_heartbeat(node, &[])).is_empty());
    let gone =
        |(app, number): (AppKey, u64)| crate::ids::Release::Done((app, crate::ids::ContainerId { attempt: 1, number }));
    s.apply_releases(&[gone(first[0])]);
    assert_eq!(s.state().nodes[&node].allocated.memory_mb, 100 * GB);
    // Then the other.
    let second = killed_for_room(&s.node_heartbeat(node, &[]));
    let mut both = [first[0], second[0]];
    both.sort_unstable();
    assert_eq!(both, [(a, 89), (a, 90)]);
    s.apply_releases(&[gone(second[0])]);
    assert_eq!(used(&s, "a").memory_mb, 88 * GB);
    assert_eq!(used(&s, "b").memory_mb, 12 * GB);
    assert!(s.state().killable.is_empty());
    s.state().debug_assert_consistent();
}

/// [`a_over_b_starved`] with lazy preemption, after a's two newest containers (89 and 90,
/// on the one node, never reported launched) were marked killable.
fn a_killable_on_a_full_node() -> (Scheduler, AppKey, AppKey, NodeKey) {
    let (mut s, a, b) = a_over_b_starved(LAZY);
    let node = *s.state().nodes.keys().next().unwrap();
    let settings = Settings { lazy: true, ..on() };
    s.preemption_round_with(&settings, 0);
    s.preemption_round_with(&settings, 15_000);
    for number in [89, 90] {
        s.container_killable((a, crate::ids::ContainerId { attempt: 1, number }));
    }
    (s, a, b, node)
}

#[test]
fn a_killable_container_its_node_manager_has_not_reported_running_gives_its_room_at_once() {
    let (mut s, a, b, node) = a_killable_on_a_full_node();
    // Neither was reported launched: the node lets go of each killed one at once, as
    // Apache's node does of a container it has not seen start, and b places one at each
    // heartbeat (one off-switch container per heartbeat).
    let mut killed = Vec::new();
    for _ in 0..2 {
        let out = s.node_heartbeat(node, &[]);
        killed.extend(killed_for_room(&out));
        assert_eq!(
            out.iter().filter(|x| x.app == b && x.kind == crate::scheduler::AllocationKind::Allocate).count(),
            1
        );
    }
    killed.sort_unstable();
    assert_eq!(killed, [(a, 89), (a, 90)]);
    assert_eq!(s.state().nodes[&node].allocated.memory_mb, 100 * GB);
    s.state().debug_assert_consistent();
}

#[test]
fn a_killable_container_of_the_placing_leaf_is_counted_as_room_but_left_running() {
    let (mut s, _, b, node) = a_killable_on_a_full_node();
    // b asks for nothing more; a second node doubles a's guarantee (a is now below it, and
    // the root far below its maximum), and a takes in a new application.
    s.update_requests(b, &[ask(1, 0)]);
    s.add_node("h2:1", "h2", "/r", Resource::new(100 * GB, 100));
    let (c, _) = s.submit(&Submission::new(3, "a", "v", Resource::new(GB, 1))).expect("admitted");
    s.add_attempt(c, 1, false);
    s.update_requests(c, &[ask(0, 1)]);
    // Its AM container, on the full first node, counts a's killable containers as room,
    // but Apache's leaf kills only other leaves' containers: both run on, and the node
    // holds more than it has.
    let out = s.node_heartbeat(node, &[]);
    assert!(killed_for_room(&out).is_empty());
    assert_eq!(out.iter().filter(|x| x.app == c && x.kind == crate::scheduler::AllocationKind::Allocate).count(), 1);
    assert_eq!(s.state().nodes[&node].allocated.memory_mb, 101 * GB);
    assert_eq!(s.state().nodes[&node].killable.len(), 2, "still running, still killable");
    s.state().debug_assert_consistent();
}

#[test]
fn a_killable_container_that_ends_on_its_own_is_forgotten() {
    let (mut s, a, _) = a_over_b_starved(LAZY);
    let c = (a, crate::ids::ContainerId { attempt: 1, number: 90 });
    assert!(!s.container_killable(c));
    assert_eq!(s.state().killable.len(), 1);
    s.release(&[c]);
    assert!(s.state().killable.is_empty());
    assert!(s.state().nodes.values().all(|n| n.killable.is_empty()));
}

#[test]
fn a_queue_at_its_guarantee_does_not_take_killable_room() {
    // b asks for nothing more than it holds once at 50 GB: a's killable containers stay.
    let (mut s, n) = cluster(LAZY);
    let a = running_app(&mut s, n, 1, "a", 49);
    beat(&mut s, n, 49);
    let b = running_app(&mut s, n, 2, "b", 60);
    beat(&mut s, n, 60);
    assert_eq!(used(&s, "b").memory_mb, 50 * GB);
    assert!(!s.container_killable((a, crate::ids::ContainerId { attempt: 1, number: 50 })));
    let out = s.node_heartbeat(n, &[]);
    assert!(killed_for_room(&out).is_empty());
    assert_eq!(used(&s, "b").memory_mb, 50 * GB);
    assert!(s.state().apps[&b].is_asking());
}

#[test]
fn a_parent_pushed_over_its_maximum_kills_its_own_killable_containers_oldest_first() {
    // p (50%, at most 50%) has p1 and p2; q has the other half. p1 fills p; q fills the
    // rest; one container of each is marked killable. p2 (below its guarantee) kills
    // killable containers on the full node for room; whichever it kills, p must come back
    // within its maximum, by killing p1's oldest killable container if need be.
    let xml = "<configuration>
      <property><name>yarn.scheduler.capacity.root.queues</name><value>p,q</value></property>
      <property><name>yarn.scheduler.capacity.root.p.capacity</name><value>50</value></property>
      <property><name>yarn.scheduler.capacity.root.p.maximum-capacity</name><value>50</value></property>
      <property><name>yarn.scheduler.capacity.root.p.queues</name><value>p1,p2</value></property>
      <property><name>yarn.scheduler.capacity.root.p.p1.capacity</name><value>50</value></property>
      <property><name>yarn.scheduler.capacity.root.p.p1.user-limit-factor</name><value>10</value></property>
      <property><name>yarn.scheduler.capacity.root.p.p2.capacity</name><value>50</value></property>
      <property><name>yarn.scheduler.capacity.root.q.capacity</name><value>50</value></property>
      <property><name>yarn.scheduler.capacity.maximum-am-resource-percent</name><value>0.5</value></property>
      <property><name>yarn.scheduler.capacity.lazy-preemption-enabled</name><value>true</value></property>
    </configuration>";
    let mut s =
        Scheduler::new(SchedulerConfig::from_xml(xml.as_bytes(), "t.xml", ClusterSettings::default()).unwrap(), 0);
    let n = s.add_node("h1:1", "h1", "/r", Resource::new(20 * GB, 20));
    let p1 = running_app(&mut s, n, 1, "p1", 9);
    beat(&mut s, n, 9);
    let q = running_app(&mut s, n, 2, "q", 9);
    beat(&mut s, n, 9);
    assert_eq!((used(&s, "p").memory_mb, used(&s, "q").memory_mb), (10 * GB, 10 * GB));
    for c in [(p1, 5), (p1, 3), (q, 4)] {
        assert!(!s.container_killable((c.0, crate::ids::ContainerId { attempt: 1, number: c.1 })));
    }
    let p2 = running_app(&mut s, n, 3, "p2", 3);
    let mut killed = Vec::new();
    for _ in 0..4 {
        let out = s.node_heartbeat(n, &[]);
        killed.extend(killed_for_room(&out));
        assert!(used(&s, "p").memory_mb <= 10 * GB, "p within its maximum: {}", used(&s, "p"));
    }
    // p2's AM got its room; every container killed was killable, p1's oldest before its
    // newer one where p itself had to give back.
    assert!(used(&s, "p2").memory_mb >= GB, "{killed:?}");
    assert!(!killed.is_empty());
    let p1_killed: Vec<u64> = killed.iter().filter(|k| k.0 == p1).map(|k| k.1).collect();
    assert!(p1_killed.windows(2).all(|w| w[0] < w[1]) || p1_killed.len() < 2, "{p1_killed:?}");
    let _ = p2;
    s.state().debug_assert_consistent();
}

/// Queues a and b share a 20 GB default node; a alone may use the non-exclusive gpu node
/// (10 GB). b's application fills its half of the default node and borrows the whole gpu
/// node; a's, its AM on the default node, then asks for 4 GB of gpu.
fn b_borrows_the_gpu_node() -> (Scheduler, AppKey) {
    let xml = "<configuration>
          <property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>
          <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>50</value></property>
          <property><name>yarn.scheduler.capacity.root.b.capacity</name><value>50</value></property>
          <property><name>yarn.scheduler.capacity.root.a.accessible-node-labels</name><value>gpu</value></property>
          <property><name>yarn.scheduler.capacity.root.a.accessible-node-labels.gpu.capacity</name><value>100</value></property>
          <property><name>yarn.scheduler.capacity.maximum-am-resource-percent</name><value>0.5</value></property>
        </configuration>";
    let mut s =
        Scheduler::new(SchedulerConfig::from_xml(xml.as_bytes(), "t.xml", ClusterSettings::default()).unwrap(), 0);
    let h1 = s.add_node("h1:1", "h1", "/r", Resource::new(20 * GB, 100));
    let g1 = s.add_node("g1:1", "g1", "/r", Resource::new(10 * GB, 100));
    s.relabel_nodes(&[("gpu".to_string(), false)], &[(g1, "gpu".to_string())]);
    let b = running_app(&mut s, h1, 1, "b", 30);
    beat(&mut s, h1, 12);
    beat(&mut s, g1, 14);
    assert_eq!(used(&s, "b").memory_mb, 11 * GB, "b past its half of the default partition");
    let lent = s.state().containers.values().filter(|c| c.lent_in.is_some()).count();
    assert_eq!(lent, 10, "the gpu node is lent whole to b");
    let a = running_app(&mut s, h1, 2, "a", 0);
    let gpu_ask = Ask {
        key: SchedulerKey { priority: 1, allocation_request_id: 0 },
        resource_name: ANY.into(),
        capability: Resource::new(GB, 1),
        count: 4,
        relax_locality: true,
    };
    s.update_labelled_requests(a, &[gpu_ask], &["gpu".to_string()]);
    (s, b)
}

#[test]
fn a_non_exclusive_partition_takes_back_what_it_lent_to_the_queue_it_guarantees_nothing() {
    let (mut s, b) = b_borrows_the_gpu_node();
    let settings = Settings { natural_termination_factor: 1.0, total_preemption_per_round: 1.0, ..on() };
    // In the gpu partition b is guaranteed nothing and a asks for 4 GB of it: b gives back
    // the four containers it was lent last; in the default partition it owes nothing.
    let marked = of_kind(&s.preemption_round_with(&settings, 0), ActionKind::Mark);
    assert_eq!(marked, [(b, 21), (b, 20), (b, 19), (b, 18)]);
    let st = s.state();
    for (_, number) in marked {
        let c = st.containers.get(&(b, crate::ids::ContainerId { attempt: 1, number })).unwrap();
        assert_eq!(st.nodes[&c.node].partition, st.partitions.find("gpu").unwrap());
    }
}
