//! The scheduler stepped by hand, one event at a time, with the books checked after each
//! step: a table of small stories per family of events.

use super::*;
use crate::config::{ClusterSettings, SchedulerConfig};
use crate::ids::{ContainerId, ContainerRef, Release, ANY};
use crate::model::Ask;
use crate::policy::admission::Submission;
use crate::report::RuntimeState;

const GB: i64 = 1024;

/// Two leaves, `a` (60%, at most 80%) and `b` (40%), AMs up to half of each.
fn scheduler(extra: &str) -> Scheduler {
    let xml = format!(
        "<configuration>
          <property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>
          <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>60</value></property>
          <property><name>yarn.scheduler.capacity.root.a.maximum-capacity</name><value>80</value></property>
          <property><name>yarn.scheduler.capacity.root.b.capacity</name><value>40</value></property>
          <property><name>yarn.scheduler.capacity.maximum-am-resource-percent</name><value>0.5</value></property>
          {extra}
        </configuration>"
    );
    Scheduler::new(SchedulerConfig::from_xml(xml.as_bytes(), "t.xml", ClusterSettings::default()).unwrap(), 0)
}

fn submit(s: &mut Scheduler, id: i32, queue: &str, user: &str) -> AppKey {
    let (key, _) = s.submit(&Submission::new(id, queue, user, Resource::new(GB, 1))).expect("admitted");
    s.add_attempt(key, 1, false);
    key
}

fn ask(s: &mut Scheduler, app: AppKey, memory_gb: i64, count: u32) {
    let key = SchedulerKey { priority: 1, allocation_request_id: 0 };
    let capability = Resource::new(memory_gb * GB, 1);
    s.update_requests(app, &[Ask { key, resource_name: ANY.into(), capability, count, relax_locality: true }]);
}

/// `rounds` heartbeats of `node` (each places at most one off-switch container, Apache's
/// default), and everything they decided.
fn beat(s: &mut Scheduler, node: NodeKey, rounds: usize) -> Vec<Allocation> {
    (0..rounds).flat_map(|_| s.node_heartbeat(node, &[])).collect()
}

fn used(s: &Scheduler, queue: &str) -> Resource {
    let st = s.state();
    st.queues.get(st.queues.resolve(queue).unwrap()).used
}

fn consistent(s: &Scheduler) {
    let violations = s.state().invariant_violations();
    assert!(violations.is_empty(), "{violations:#?}");
}

#[test]
fn a_labelled_node_is_outside_the_default_partition_and_its_capacities() {
    let mut s = scheduler("");
    let plain = s.add_node("h1:1", "h1", "/r", Resource::new(8 * GB, 8));
    let labels = [("gpu".to_string(), true), ("big".to_string(), false)];
    s.relabel_nodes(&labels, &[]);
    let gpu = s.add_labelled_node("h2:1", "h2", "/r", Resource::new(8 * GB, 8), ("gpu", true));
    let big = s.add_node("h3:1", "h3", "/r", Resource::new(16 * GB, 16));
    s.relabel_nodes(&labels, &[(big, "big".into())]);
    let st = s.state();
    assert_eq!(st.cluster, Resource::new(32 * GB, 32));
    assert_eq!(st.default_partition(), Resource::new(8 * GB, 8));
    let a = st.queues.resolve("a").unwrap();
    assert_eq!(st.queues.get(a).guaranteed(), Resource::new(8 * GB * 6 / 10, 4), "60% of the default partition");
    // Requests without a label are placed in the default partition only: neither the
    // exclusive nor the non-exclusive labelled node takes them.
    let app = submit(&mut s, 1, "a", "u");
    ask(&mut s, app, 1, 3);
    assert!(beat(&mut s, gpu, 2).is_empty());
    assert!(beat(&mut s, big, 2).is_empty());
    assert_eq!(beat(&mut s, plain, 3).len(), 3);
    consistent(&s);
    // The label removed from the cluster, its node is back in the default partition.
    let labels = [("big".to_string(), false)];
    s.relabel_nodes(&labels, &[]);
    assert_eq!(s.state().default_partition(), Resource::new(16 * GB, 16));
    ask(&mut s, app, 1, 4);
    assert_eq!(beat(&mut s, gpu, 1).len(), 1);
    s.relabel_nodes(&labels, &[(big, String::new())]);
    assert_eq!(s.state().default_partition(), s.state().cluster);
    // A label the cluster does not have moves nothing.
    s.relabel_nodes(&labels, &[(plain, "ssd".into())]);
    assert_eq!(s.state().nodes[&plain].partition, crate::model::DEFAULT_PARTITION);
    consistent(&s);
}

#[test]
fn nodes_size_the_cluster_and_take_their_containers_with_them() {
    let mut s = scheduler("");
    let n1 = s.add_node("h1:1", "h1", "/r", Resource::new(8 * GB, 8));
    let n2 = s.add_node("h2:1", "h2", "/r", Resource::new(8 * GB, 8));
    assert_eq!(s.state().cluster, Resource::new(16 * GB, 16));
    let app = submit(&mut s, 1, "a", "u");
    ask(&mut s, app, 2, 2);
    assert_eq!(beat(&mut s, n1, 3).len(), 2);
    consistent(&s);
    let lost = s.remove_node(n1);
    assert_eq!(lost.len(), 2);
    assert_eq!(used(&s, "a"), Resource::ZERO);
    assert_eq!(s.state().cluster, Resource::new(8 * GB, 8));
    s.update_node_resource(n2, Resource::new(4 * GB, 4));
    assert_eq!(s.state().cluster, Resource::new(4 * GB, 4));
    consistent(&s);
}

#[test]
fn a_heartbeat_places_releases_and_books_every_record_at_once() {
    let mut s = scheduler("");
    let n = s.add_node("h1:1", "h1", "/r", Resource::new(16 * GB, 16));
    let app = submit(&mut s, 1, "a", "alice");
    ask(&mut s, app, 1, 3);
    let placed = beat(&mut s, n, 4);
    let kinds: Vec<AllocationKind> = placed.iter().map(|a| a.kind).collect();
    assert_eq!(kinds, [AllocationKind::Allocate; 3]);
    assert_eq!(used(&s, "a"), Resource::new(3 * GB, 3));
    assert_eq!(used(&s, "root"), Resource::new(3 * GB, 3));
    assert_eq!(s.state().queues.get(1).users["alice"].used, Resource::new(3 * GB, 3));
    consistent(&s);
    let finished: Vec<ContainerRef> = placed.iter().take(2).map(|a| (a.app, a.container)).collect();
    s.node_heartbeat(n, &finished);
    assert_eq!(used(&s, "a"), Resource::new(GB, 1));
    // A container reported twice is ignored.
    s.release(&finished);
    assert_eq!(used(&s, "a"), Resource::new(GB, 1));
    consistent(&s);
}

/// Two 8 GB nodes, each with 6 GB taken by `small` (in `a`), and `big` (in `b`) asking
/// for one 4 GB container: the queues have room for it, neither node has.
fn crowded() -> (Scheduler, [NodeKey; 2], Vec<Allocation>, AppKey) {
    let mut s =
        scheduler("<property><name>yarn.scheduler.capacity.root.a.user-limit-factor</name><value>2</value></property>");
    let nodes = [1, 2].map(|i| s.add_node(&format!("h{i}:1"), &format!("h{i}"), "/r", Resource::new(8 * GB, 8)));
    let small = submit(&mut s, 1, "a", "u1");
    ask(&mut s, small, 2, 6);
    let placed: Vec<Allocation> = nodes.iter().flat_map(|&n| beat(&mut s, n, 3)).collect();
    assert_eq!(placed.len(), 6);
    let big = submit(&mut s, 2, "b", "u2");
    ask(&mut s, big, 4, 1);
    (s, nodes, placed, big)
}

#[test]
fn a_container_that_fits_no_node_yet_reserves_one_and_is_placed_there_later() {
    let (mut s, [n, _], placed, big) = crowded();
    let reserved = s.node_heartbeat(n, &[]);
    assert_eq!(reserved.len(), 1);
    assert_eq!(reserved[0].kind, AllocationKind::Reserve);
    assert_eq!(s.state().nodes[&n].reservation.map(|r| r.app), Some(big));
    // The reservation counts as used by the queue.
    assert_eq!(used(&s, "b"), Resource::new(4 * GB, 1));
    assert_eq!(used(&s, "root"), Resource::new(16 * GB, 7));
    consistent(&s);
    let finished = [(placed[0].app, placed[0].container)];
    let fulfilled = s.node_heartbeat(n, &finished);
    assert_eq!(fulfilled.len(), 1);
    assert_eq!(fulfilled[0].kind, AllocationKind::AllocateReserved);
    assert_eq!(fulfilled[0].container, reserved[0].container, "the container keeps the reserved id");
    assert!(s.state().nodes[&n].reservation.is_none());
    assert_eq!(s.state().queues.get(0).reserved, Resource::ZERO);
    assert_eq!(used(&s, "b"), Resource::new(4 * GB, 1));
    consistent(&s);
}

#[test]
fn a_reservation_on_a_node_the_application_blacklisted_since_is_kept_but_not_served() {
    let (mut s, [n, _], placed, big) = crowded();
    assert_eq!(s.node_heartbeat(n, &[])[0].kind, AllocationKind::Reserve);
    s.update_blacklist(big, false, &["h1".to_string()], &[]);
    // The node frees room enough, but the application keeps away from it: the
    // reservation stays (as Apache's), the node serves nobody else.
    let finished = [(placed[0].app, placed[0].container)];
    assert!(s.node_heartbeat(n, &finished).is_empty());
    assert_eq!(s.state().nodes[&n].reservation.map(|r| r.app), Some(big));
    consistent(&s);
    s.update_blacklist(big, false, &[], &["h1".to_string()]);
    assert_eq!(s.node_heartbeat(n, &[])[0].kind, AllocationKind::AllocateReserved);
    consistent(&s);
}

#[test]
fn a_reservation_no_longer_wanted_is_dropped() {
    let (mut s, [n, _], _, big) = crowded();
    assert_eq!(s.node_heartbeat(n, &[])[0].kind, AllocationKind::Reserve);
    ask(&mut s, big, 4, 0);
    let out = s.node_heartbeat(n, &[]);
    assert_eq!(out[0].kind, AllocationKind::Unreserve);
    assert_eq!(used(&s, "b"), Resource::ZERO);
    consistent(&s);
}

#[test]
fn applications_wait_for_the_am_limit_and_activate_as_others_end() {
    // a's AM limit: half of 60% of 4 GB is 1.2 GB, rounded up to 2 GB: two 1 GB AMs.
    let mut s = scheduler("");
    s.add_node("h1:1", "h1", "/r", Resource::new(4 * GB, 4));
    let apps: Vec<AppKey> = (1..=3).map(|i| submit(&mut s, i, "a", "u")).collect();
    let active = |s: &Scheduler| apps.iter().map(|k| s.state().apps[k].active).collect::<Vec<_>>();
    assert_eq!(active(&s), [true, true, false]);
    s.remove_app(apps[0]);
    assert_eq!(s.state().apps.get(&apps[0]).map(|a| a.active), None);
    assert!(s.state().apps[&apps[2]].active, "the pending application took the freed AM room");
    consistent(&s);
}

#[test]
fn a_moved_application_takes_its_containers_and_reservations_along() {
    let mut s = scheduler("");
    let n = s.add_node("h1:1", "h1", "/r", Resource::new(8 * GB, 8));
    let app = submit(&mut s, 1, "a", "u");
    ask(&mut s, app, 2, 2);
    beat(&mut s, n, 2);
    assert_eq!(s.move_app(app, "b"), Ok("root.b".to_string()));
    assert_eq!(used(&s, "a"), Resource::ZERO);
    assert_eq!(used(&s, "b"), Resource::new(4 * GB, 2));
    assert!(s.move_app(app, "nowhere").is_err());
    consistent(&s);
}

#[test]
fn checking_a_move_forgets_the_default_partition_in_the_headroom() {
    let mut s = scheduler(
        "<property><name>yarn.scheduler.capacity.root.accessible-node-labels.gpu.capacity</name><value>100</value></property>
         <property><name>yarn.scheduler.capacity.root.a.accessible-node-labels</name><value>gpu</value></property>
         <property><name>yarn.scheduler.capacity.root.a.accessible-node-labels.gpu.capacity</name><value>100</value></property>
         <property><name>yarn.scheduler.capacity.root.b.accessible-node-labels</name><value> </value></property>",
    );
    let plain = s.add_node("h1:1", "h1", "/r", Resource::new(10 * GB, 10));
    s.relabel_nodes(&[("gpu".to_string(), true)], &[]);
    let gpu = s.add_labelled_node("h2:1", "h2", "/r", Resource::new(4 * GB, 4), ("gpu", true));
    let app = submit(&mut s, 1, "a", "u");
    beat(&mut s, plain, 1);
    let key = |priority| SchedulerKey { priority, allocation_request_id: 0 };
    let asks = [
        Ask {
            key: key(1),
            resource_name: ANY.into(),
            capability: Resource::new(GB, 1),
            count: 2,
            relax_locality: true,
        },
        Ask {
            key: key(2),
            resource_name: ANY.into(),
            capability: Resource::new(GB, 1),
            count: 2,
            relax_locality: true,
        },
    ];
    s.update_labelled_requests(app, &asks, &[String::new(), "gpu".to_string()]);
    beat(&mut s, gpu, 1);
    // Its room in the default partition (4 GB under the user limit) and in gpu (the 3 GB
    // the node has left).
    assert_eq!(s.headroom(app).memory_mb, 7 * GB);
    // b cannot reach gpu: the move is refused, but the check has dropped the default
    // partition from what the attempt asked in, as Apache's does.
    assert!(matches!(s.check_move(app, "b"), Err(MoveRefusal::Partitions(_))));
    assert_eq!(s.headroom(app).memory_mb, 3 * GB, "only gpu's room is left");
    // Asking there again brings it back.
    let again = s.update_labelled_requests(app, &asks[..1], &[String::new()]);
    assert_eq!(again.memory_mb, 7 * GB);
    consistent(&s);
}

#[test]
fn the_views_list_a_labelled_partition_from_its_first_pending_ask_on() {
    let mut s = scheduler(
        "<property><name>yarn.scheduler.capacity.root.a.accessible-node-labels</name><value>*</value></property>",
    );
    s.add_node("h1:1", "h1", "/r", Resource::new(8 * GB, 8));
    s.relabel_nodes(&[("gpu".to_string(), true)], &[]);
    let app = submit(&mut s, 1, "a", "u");
    let listed = |s: &Scheduler, queue: &str| -> Vec<String> {
        let st = s.state();
        let q = st.queues.resolve(queue).unwrap();
        crate::report::partition_rows(st).into_iter().filter(|r| r.queue == q && r.in_usage).map(|r| r.label).collect()
    };
    let key = SchedulerKey { priority: 1, allocation_request_id: 0 };
    let any =
        |count| Ask { key, resource_name: ANY.into(), capability: Resource::new(GB, 1), count, relax_locality: true };
    // Of two `*` asks for one request in a call, the last (without a label) is the one.
    s.update_labelled_requests(app, &[any(1), any(2)], &["gpu".to_string(), String::new()]);
    assert!(listed(&s, "a").is_empty());
    // Asked for in gpu, the leaf and its ancestors list it, and keep it once nothing is
    // pending there.
    s.update_labelled_requests(app, &[any(1)], &["gpu".to_string()]);
    assert_eq!(listed(&s, "a"), ["gpu"]);
    assert_eq!(listed(&s, "root"), ["gpu"]);
    assert!(listed(&s, "b").is_empty());
    s.update_labelled_requests(app, &[any(0)], &["gpu".to_string()]);
    assert_eq!(listed(&s, "a"), ["gpu"]);
}

#[test]
fn a_recovered_container_is_booked_once_and_numbers_continue_after_it() {
    let mut s = scheduler("");
    let n = s.add_node("h1:1", "h1", "/r", Resource::new(8 * GB, 8));
    let app = submit(&mut s, 1, "a", "u");
    let key = SchedulerKey { priority: 1, allocation_request_id: 0 };
    let id = |attempt, number| ContainerId { attempt, number };
    assert!(s.recover_container(app, id(1, 41), n, Resource::new(GB, 1), key, false));
    assert!(!s.recover_container(app, id(1, 41), n, Resource::new(GB, 1), key, false), "already known");
    assert!(!s.recover_container(app, id(1, 42), 99, Resource::new(GB, 1), key, false), "unknown node");
    ask(&mut s, app, 1, 1);
    assert_eq!(s.node_heartbeat(n, &[])[0].container, id(1, 42));
    consistent(&s);
}

#[test]
fn a_later_attempt_numbers_its_containers_afresh_beside_the_ones_it_keeps() {
    let mut s = scheduler("");
    let n = s.add_node("h1:1", "h1", "/r", Resource::new(8 * GB, 8));
    let app = submit(&mut s, 1, "a", "u");
    ask(&mut s, app, 1, 2);
    let first = beat(&mut s, n, 2);
    let kept = ContainerId { attempt: 1, number: 2 };
    assert_eq!(first[1].container, kept);
    // The first attempt fails; its AM container ends, the other is kept for the next.
    s.release(&[(app, first[0].container)]);
    s.add_attempt(app, 2, false);
    ask(&mut s, app, 1, 2);
    let second = beat(&mut s, n, 2);
    let ids: Vec<ContainerId> = second.iter().map(|a| a.container).collect();
    assert_eq!(ids, [ContainerId { attempt: 2, number: 1 }, ContainerId { attempt: 2, number: 2 }]);
    assert_eq!(s.state().apps[&app].containers.len(), 3, "number 2 twice, of two attempts");
    s.release(&[(app, kept)]);
    assert!(s.state().containers.contains_key(&(app, ContainerId { attempt: 2, number: 2 })));
    assert_eq!(s.state().apps[&app].used, Resource::new(2 * GB, 2));
    // A number the RM takes for a container of its own is skipped by the scheduler.
    assert_eq!(s.take_container_number(app), Some(3));
    ask(&mut s, app, 1, 1);
    assert_eq!(beat(&mut s, n, 1)[0].container, ContainerId { attempt: 2, number: 4 });
    assert_eq!(s.take_container_number(99), None);
    consistent(&s);
}

#[test]
fn a_refresh_carries_usage_by_path_and_refuses_removing_a_running_queue() {
    let mut s = scheduler("");
    let n = s.add_node("h1:1", "h1", "/r", Resource::new(8 * GB, 8));
    let app = submit(&mut s, 1, "b", "u");
    ask(&mut s, app, 1, 1);
    s.node_heartbeat(n, &[]);
    let reordered = "<configuration>
      <property><name>yarn.scheduler.capacity.root.queues</name><value>b,a</value></property>
      <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>50</value></property>
      <property><name>yarn.scheduler.capacity.root.b.capacity</name><value>50</value></property>
    </configuration>";
    let config = SchedulerConfig::from_xml(reordered.as_bytes(), "t.xml", ClusterSettings::default()).unwrap();
    s.refresh(config).expect("accepted");
    assert_eq!(used(&s, "b"), Resource::new(GB, 1), "the container stays charged");
    assert_eq!(s.state().apps[&app].queue, s.state().queues.resolve("b").unwrap());
    let without_b = "<configuration>
      <property><name>yarn.scheduler.capacity.root.queues</name><value>a</value></property>
      <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>100</value></property>
    </configuration>";
    let config = SchedulerConfig::from_xml(without_b.as_bytes(), "t.xml", ClusterSettings::default()).unwrap();
    let err = s.refresh(config).unwrap_err().to_string();
    assert!(err.contains("root.b") && err.contains("STOPPED"), "{err}");
    assert_eq!(used(&s, "b"), Resource::new(GB, 1), "a refused refresh changes nothing");
    consistent(&s);
}

#[test]
fn applications_are_admitted_before_any_node_registers() {
    let mut s = scheduler("");
    let app = submit(&mut s, 1, "a", "u");
    assert!(s.state().apps.contains_key(&app));
    // As Apache's leaf: no activation while the cluster is empty, and the application is
    // told why.
    assert!(!s.state().apps[&app].active, "nothing is activated in an empty cluster");
    assert_eq!(s.take_am_diagnoses(), vec![(app, crate::model::AmDiagnosis::ClusterEmpty)]);
    s.add_node("h1:1", "h1", "/r", Resource::new(8 * GB, 8));
    assert!(s.state().apps[&app].active, "the first node's registration activates it");
    assert_eq!(s.take_am_diagnoses(), vec![(app, crate::model::AmDiagnosis::Activated)]);
    ask(&mut s, app, 1, 1);
    assert_eq!(beat(&mut s, 0, 1).len(), 1);
    consistent(&s);
}

/// A 4 GB node running one 3 GB container of an application in `a`.
fn one_container_of_three_on_four() -> (Scheduler, NodeKey, AppKey, ContainerRef) {
    let mut s = scheduler("");
    let n = s.add_node("h1:1", "h1", "/r", Resource::new(4 * GB, 4));
    let app = submit(&mut s, 1, "a", "u");
    ask(&mut s, app, 3, 1);
    let placed = beat(&mut s, n, 1);
    let c = (app, placed[0].container);
    (s, n, app, c)
}

#[test]
fn a_node_keeps_the_share_of_a_released_container_until_its_node_manager_reports_it_gone() {
    let (mut s, n, app, c) = one_container_of_three_on_four();
    // The AM releases it while it runs: the application and queue are done with it, the
    // node is not, so a new 3 GB ask does not fit yet.
    s.apply_releases(&[Release::NodeHolds(c)]);
    assert_eq!(used(&s, "a"), Resource::ZERO);
    assert_eq!(s.state().nodes[&n].allocated, Resource::new(3 * GB, 1));
    consistent(&s);
    ask(&mut s, app, 3, 1);
    let kinds = |v: Vec<Allocation>| v.iter().map(|a| a.kind).collect::<Vec<_>>();
    assert_eq!(kinds(beat(&mut s, n, 1)), [AllocationKind::Reserve], "the node still holds it");
    consistent(&s);
    // The NodeManager reports it gone: the node is free and the reservation fulfilled.
    s.apply_releases(&[Release::NodeFreed(c)]);
    assert_eq!(kinds(beat(&mut s, n, 1)), [AllocationKind::AllocateReserved]);
    consistent(&s);
}

#[test]
fn a_node_report_that_overtakes_the_release_it_follows_still_frees_the_node() {
    let (mut s, n, app, c) = one_container_of_three_on_four();
    s.apply_releases(&[Release::Launched(c)]);
    // The AM released it on its thread while the node's heartbeat reported it gone on
    // another, and the heartbeat reached the core first.
    s.apply_releases(&[Release::NodeFreed(c)]);
    assert_eq!(s.state().nodes[&n].allocated, Resource::new(3 * GB, 1), "still the application's");
    s.apply_releases(&[Release::NodeHolds(c)]);
    assert_eq!(used(&s, "a"), Resource::ZERO);
    assert_eq!(s.state().nodes[&n].allocated, Resource::ZERO, "the node let it go already");
    consistent(&s);
    ask(&mut s, app, 3, 1);
    assert_eq!(beat(&mut s, n, 1)[0].kind, AllocationKind::Allocate);
    consistent(&s);
}

#[test]
fn a_fair_leaf_orders_by_usage_as_cached_when_it_last_ordered_its_applications() {
    let fair = "<property><name>yarn.scheduler.capacity.root.a.ordering-policy</name><value>fair</value></property>";
    let mut s = scheduler(fair);
    let n = s.add_node("h1:1", "h1", "/r", Resource::new(16 * GB, 16));
    let x = submit(&mut s, 1, "a", "u");
    let y = submit(&mut s, 2, "a", "u");
    ask(&mut s, x, 1, 3);
    // Each placement orders the leaf first (taking x's usage afresh), then marks x stale.
    beat(&mut s, n, 3);
    let app = |s: &Scheduler, app| s.state().apps[&app].clone();
    assert_eq!(app(&s, x).fair_cached.0, Resource::new(2 * GB, 2), "cached before the third placement");
    assert!(app(&s, x).fair_stale);
    assert_eq!(app(&s, x).fair_usage().0, Resource::new(3 * GB, 3), "a stale cache is seen as taken now");
    // Two releases: x holds 1 GB, and is still marked.
    let held: Vec<ContainerRef> = app(&s, x).containers.iter().map(|&c| (x, c)).take(2).collect();
    s.release(&held);
    assert_eq!(app(&s, x).fair_usage().0, Resource::new(GB, 1));
    // A refresh rebuilds the leaf's policy, which knows nothing of the mark: x is ordered by
    // what was cached, whatever it holds now.
    let config = (*s.state().config).clone();
    s.refresh(config).expect("accepted");
    assert_eq!(app(&s, x).fair_usage().0, Resource::new(2 * GB, 2));
    assert_eq!(app(&s, x).used, Resource::new(GB, 1));
    // y's attempt has nothing cached.
    assert_eq!(app(&s, y).fair_usage().0, Resource::ZERO);
    consistent(&s);
}

#[test]
fn an_application_recovered_into_a_stopped_leaf_drains_it_and_its_stopped_parents() {
    let xml = "<configuration>
      <property><name>yarn.scheduler.capacity.root.queues</name><value>p,b</value></property>
      <property><name>yarn.scheduler.capacity.root.p.capacity</name><value>50</value></property>
      <property><name>yarn.scheduler.capacity.root.b.capacity</name><value>50</value></property>
      <property><name>yarn.scheduler.capacity.root.p.state</name><value>STOPPED</value></property>
      <property><name>yarn.scheduler.capacity.root.p.queues</name><value>a</value></property>
      <property><name>yarn.scheduler.capacity.root.p.a.capacity</name><value>100</value></property>
    </configuration>";
    let mut s =
        Scheduler::new(SchedulerConfig::from_xml(xml.as_bytes(), "t.xml", ClusterSettings::default()).unwrap(), 0);
    let state = |s: &Scheduler, path: &str| {
        let q = &s.state().queues;
        q.get(q.index_of_path(path).unwrap()).state
    };
    assert_eq!(state(&s, "root.p.a"), RuntimeState::Stopped);
    let mut sub = Submission::new(1, "a", "alice", Resource::new(GB, 1));
    sub.recovering = true;
    let (key, _) = s.submit(&sub).expect("a recovered application is taken back");
    assert_eq!((state(&s, "root.p.a"), state(&s, "root.p")), (RuntimeState::Draining, RuntimeState::Draining));
    assert_eq!(state(&s, "root"), RuntimeState::Running);
    s.remove_app(key);
    assert_eq!((state(&s, "root.p.a"), state(&s, "root.p")), (RuntimeState::Stopped, RuntimeState::Stopped));
}

/// Flexible auto-creation: a submission creates its leaf (and a parent), configured by the
/// templates; a placed submission that cannot create its queue is told why; created queues
/// survive a refresh; idle ones go after two deletion rounds past their expiration time,
/// a parent a round after its last child.
#[test]
fn created_queues_live_until_idle_past_their_expiration() {
    let weights = "<property><name>yarn.scheduler.capacity.root.queues</name><value>a,u</value></property>
        <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>1w</value></property>
        <property><name>yarn.scheduler.capacity.root.u.capacity</name><value>1w</value></property>
        <property><name>yarn.scheduler.capacity.root.u.auto-queue-creation-v2.enabled</name><value>true</value></property>
        <property><name>yarn.scheduler.capacity.root.u.auto-queue-creation-v2.leaf-template.maximum-capacity</name><value>50</value></property>
        <property><name>yarn.scheduler.capacity.auto-queue-creation-v2.queue-expiration-time</name><value>10</value></property>";
    let xml = format!("<configuration>{weights}</configuration>");
    let config = || SchedulerConfig::from_xml(xml.as_bytes(), "t.xml", ClusterSettings::default()).unwrap();
    let mut s = Scheduler::new(config(), 0);
    s.add_node("n1", "h1", "/r", Resource::new(16 * GB, 16));
    s.set_clock(1_000);
    let app = submit(&mut s, 1, "root.u.alice", "alice");
    submit(&mut s, 2, "root.u.team.bob", "bob");
    let leaf = s.state().queues.index_of_path("root.u.alice").expect("created");
    let q = s.state().queues.get(leaf);
    assert!(q.config.dynamic && q.is_leaf());
    assert_eq!(q.config.user_limit_factor, -1.0);
    assert_eq!(q.config.maximum_am_resource_percent, 1.0);
    assert_eq!(q.config.maximum_capacity, crate::config::MaxCapacitySpec::Percent(50.0));
    assert!(!s.state().queues.get(s.state().queues.index_of_path("root.u.team").unwrap()).is_leaf());

    let mut placed = Submission::new(3, "root.a.x", "carol", Resource::new(GB, 1));
    placed.placed = true;
    let refused = s.submit(&placed).expect_err("root.a is a leaf");
    assert_eq!(
        refused.0,
        "Application application_1_0003 submission by user : carol to  queue : root.a.x failed : Could not auto create hierarchy of root.a.x. Queue root.a is not a ParentQueue."
    );

    s.refresh(config()).expect("the same file again");
    assert!(s.state().queues.index_of_path("root.u.team.bob").is_some(), "a refresh keeps created queues");

    // alice's leaf still has her application; bob's has none.
    let bob = s.state().apps.iter().find(|(_, a)| a.user == "bob").map(|(k, _)| *k).unwrap();
    s.remove_app(bob);
    s.set_clock(20_000);
    assert!(s.delete_expired_queues().is_empty(), "the first round only marks");
    assert_eq!(s.delete_expired_queues(), vec!["root.u.team.bob".to_string()]);
    assert!(s.delete_expired_queues().is_empty(), "the parent is marked a round after its child went");
    assert_eq!(s.delete_expired_queues(), vec!["root.u.team".to_string()]);
    s.remove_app(app);
    assert!(s.delete_expired_queues().is_empty());
    assert_eq!(s.delete_expired_queues(), vec!["root.u.alice".to_string()]);
    assert!(s.state().invariant_violations().is_empty());
}

/// Legacy auto-creation: a managed parent's placed submissions create leaves holding the
/// template's share while the parent has one free; an unplaced one creates its leaf and is
/// refused; the monitor moves the share from an idle leaf to one with applications; a
/// refresh hands the shares out again; and the leaves never expire.
#[test]
fn managed_leaves_hold_the_template_share_or_none() {
    let xml = "<configuration>
        <property><name>yarn.scheduler.capacity.root.queues</name><value>a,m</value></property>
        <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>80</value></property>
        <property><name>yarn.scheduler.capacity.root.m.capacity</name><value>20</value></property>
        <property><name>yarn.scheduler.capacity.root.m.auto-create-child-queue.enabled</name><value>true</value></property>
        <property><name>yarn.scheduler.capacity.root.m.leaf-queue-template.capacity</name><value>50</value></property>
        <property><name>yarn.scheduler.capacity.root.m.leaf-queue-template.maximum-applications</name><value>1</value></property>
        </configuration>";
    let config = || SchedulerConfig::from_xml(xml.as_bytes(), "t.xml", ClusterSettings::default()).unwrap();
    let mut s = Scheduler::new(config(), 0);
    s.add_node("n1", "h1", "/r", Resource::new(16 * GB, 16));
    let placed = |id: i32, queue: &str, user: &str| {
        let mut sub = Submission::new(id, queue, user, Resource::new(GB, 1));
        sub.placed = true;
        sub
    };
    let abs = |s: &Scheduler, path: &str| {
        let q = s.state().queues.get(s.state().queues.index_of_path(path).expect(path));
        (q.absolute_capacity * 1000.0).round() / 1000.0
    };
    let (a1, _) = s.submit(&placed(1, "root.m.u1", "u1")).expect("creates root.m.u1");
    s.submit(&placed(2, "root.m.u1", "u1")).expect("maximum-applications does not hold a managed leaf");
    let (b1, _) = s.submit(&placed(3, "root.m.u2", "u2")).expect("creates root.m.u2");
    let (c1, _) = s.submit(&placed(4, "root.m.u3", "u3")).expect("creates root.m.u3");
    for key in [a1, b1, c1] {
        s.add_attempt(key, 1, false);
    }
    assert_eq!((abs(&s, "root.m.u1"), abs(&s, "root.m.u2"), abs(&s, "root.m.u3")), (0.1, 0.1, 0.0));
    let q = s.state().queues.get(s.state().queues.index_of_path("root.m.u3").unwrap());
    assert!(q.config.managed_leaf && !q.config.dynamic);

    let refused = s.submit(&Submission::new(5, "root.m.zed", "nobody", Resource::new(GB, 1))).unwrap_err();
    assert!(refused.0.contains("to specified queue : root.m.zed  is prohibited"), "{}", refused.0);
    assert!(s.state().queues.index_of_path("root.m.zed").is_some(), "the leaf is created all the same");

    assert!(!s.manage_queues(), "every active leaf has applications; nothing is free");
    s.remove_app(b1);
    assert!(s.manage_queues());
    assert_eq!((abs(&s, "root.m.u1"), abs(&s, "root.m.u2"), abs(&s, "root.m.u3")), (0.1, 0.0, 0.1));

    s.refresh(config()).expect("the same file again");
    assert_eq!((abs(&s, "root.m.u1"), abs(&s, "root.m.u3"), abs(&s, "root.m.zed")), (0.1, 0.1, 0.0));
    assert!(s.managed_capacity_reads_zero("root.m.zed") && !s.managed_capacity_reads_zero("root.m.u1"));
    s.set_clock(1_000_000);
    assert!(s.delete_expired_queues().is_empty() && s.delete_expired_queues().is_empty(), "managed leaves stay");
    assert!(s.state().invariant_violations().is_empty());
}

#[test]
fn one_queues_queue_info_figures_are_its_row_in_the_whole_report() {
    // Weights under one parent, percentages under another, inherited and own preemption
    // switches, a stopped queue, a parallel-application limit, and a queue in use.
    let xml = r#"<configuration>
      <property><name>yarn.resourcemanager.scheduler.monitor.enable</name><value>true</value></property>
      <property><name>yarn.scheduler.capacity.root.queues</name><value>w,p</value></property>
      <property><name>yarn.scheduler.capacity.root.w.capacity</name><value>3w</value></property>
      <property><name>yarn.scheduler.capacity.root.p.capacity</name><value>1w</value></property>
      <property><name>yarn.scheduler.capacity.root.w.queues</name><value>x,y</value></property>
      <property><name>yarn.scheduler.capacity.root.w.x.capacity</name><value>2w</value></property>
      <property><name>yarn.scheduler.capacity.root.w.y.capacity</name><value>1w</value></property>
      <property><name>yarn.scheduler.capacity.root.w.disable_preemption</name><value>true</value></property>
      <property><name>yarn.scheduler.capacity.root.w.y.disable_preemption</name><value>false</value></property>
      <property><name>yarn.scheduler.capacity.root.p.queues</name><value>a,b</value></property>
      <property><name>yarn.scheduler.capacity.root.p.a.capacity</name><value>70</value></property>
      <property><name>yarn.scheduler.capacity.root.p.a.maximum-capacity</name><value>90</value></property>
      <property><name>yarn.scheduler.capacity.root.p.a.max-parallel-apps</name><value>3</value></property>
      <property><name>yarn.scheduler.capacity.root.p.b.capacity</name><value>30</value></property>
      <property><name>yarn.scheduler.capacity.root.p.b.state</name><value>STOPPED</value></property>
    </configuration>"#;
    let mut s =
        Scheduler::new(SchedulerConfig::from_xml(xml.as_bytes(), "t.xml", ClusterSettings::default()).unwrap(), 0);
    let node = s.add_node("h1:1", "h1", "/r", Resource::new(16 * GB, 16));
    let app = submit(&mut s, 1, "a", "alice");
    ask(&mut s, app, 2, 3);
    beat(&mut s, node, 3);
    let st = s.state();
    let rows = crate::report::queue_rows(st);
    for (index, row) in rows.iter().enumerate() {
        let info = crate::report::queue_info_row(st, index);
        let path = st.queues.get(index).path();
        assert_eq!(info.capacity, row.capacity, "{path} capacity");
        assert_eq!(info.maximum_capacity, row.maximum_capacity, "{path} maximum capacity");
        assert_eq!(info.absolute_capacity, row.absolute_capacity, "{path} absolute capacity");
        assert_eq!(info.used_capacity, row.used_capacity, "{path} used capacity");
        assert_eq!(info.weight, row.weight, "{path} weight");
        assert_eq!(info.state, row.state, "{path} state");
        assert_eq!(info.max_parallel_apps, row.max_parallel_apps, "{path} max-parallel-apps");
        assert_eq!(info.preemption, row.preemption, "{path} preemption switches");
    }
    // The case is not empty: each figure differs somewhere.
    let a = st.queues.resolve("a").unwrap();
    assert!(rows[a].used_capacity > 0.0 && rows[a].max_parallel_apps == Some(3));
    assert!(rows[st.queues.resolve("x").unwrap()].preemption.disabled);
    assert!(!rows[st.queues.resolve("y").unwrap()].preemption.disabled);
    assert_eq!(rows[st.queues.resolve("b").unwrap()].state, RuntimeState::Stopped);
}
