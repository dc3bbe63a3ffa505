//! Table-driven tests of `refreshQueues` against a running scheduler: what a new
//! configuration may change, and that a refused refresh changes nothing.

mod common;

use capsched::resource::Resource;
use capsched::{Ask, SchedulerKey};
use capsched::{Scheduler, Submission};
use common::{load, with, AB};

fn scheduler(props: &[(&'static str, &'static str)]) -> Scheduler {
    let mut s = Scheduler::new(load(props).unwrap(), 0);
    s.add_node("n1:1", "n1", "/r1", Resource::new(8192, 8));
    s
}

fn submit(s: &mut Scheduler, id: i32, queue: &str) -> u32 {
    s.submit(&Submission::new(id, queue, "alice", Resource::new(1024, 1))).unwrap_or_else(|r| panic!("{}", r.0)).0
}

struct Case {
    why: &'static str,
    old: Vec<(&'static str, &'static str)>,
    /// Applications submitted to these queues before the refresh.
    apps_in: &'static [&'static str],
    /// A refresh applied after the submissions and before the one under test.
    first: Option<Vec<(&'static str, &'static str)>>,
    new: Vec<(&'static str, &'static str)>,
    /// None: accepted; Some(text): refused with a message containing it.
    refused: Option<&'static str>,
}

#[test]
fn refresh_rules() {
    let cases = vec![
        Case {
            why: "a new queue may be added",
            old: AB.to_vec(),
            apps_in: &[],
            first: None,
            new: vec![
                ("root.queues", "a,b,c"),
                ("root.a.capacity", "40"),
                ("root.b.capacity", "40"),
                ("root.c.capacity", "20"),
            ],
            refused: None,
        },
        Case {
            why: "capacities, limits, states and ACLs change live",
            old: AB.to_vec(),
            apps_in: &["a"],
            first: None,
            new: vec![
                ("root.queues", "a,b"),
                ("root.a.capacity", "70"),
                ("root.b.capacity", "30"),
                ("root.a.user-limit-factor", "3"),
                ("root.b.state", "STOPPED"),
                ("root.a.acl_submit_applications", "alice"),
            ],
            refused: None,
        },
        Case {
            why: "a RUNNING queue cannot be removed",
            old: AB.to_vec(),
            apps_in: &[],
            first: None,
            new: vec![("root.queues", "a"), ("root.a.capacity", "100")],
            refused: Some("queue root.b: cannot be removed from the configuration: it is RUNNING"),
        },
        Case {
            why: "a STOPPED, empty queue may be removed",
            old: with(AB, &[("root.b.state", "STOPPED")]),
            apps_in: &[],
            first: None,
            new: vec![("root.queues", "a"), ("root.a.capacity", "100")],
            refused: None,
        },
        Case {
            why: "a queue stopped with applications drains, and cannot be removed until they end",
            old: AB.to_vec(),
            apps_in: &["b"],
            first: Some(with(AB, &[("root.b.state", "STOPPED")])),
            new: vec![("root.queues", "a"), ("root.a.capacity", "100")],
            refused: Some("queue root.b: cannot be removed from the configuration: it is DRAINING"),
        },
        Case {
            why: "a RUNNING queue cannot be removed (nor moved: that removes it)",
            old: AB.to_vec(),
            apps_in: &[],
            first: None,
            new: vec![
                ("root.queues", "a"),
                ("root.a.capacity", "100"),
                ("root.a.queues", "b"),
                ("root.a.b.capacity", "100"),
            ],
            refused: Some("queue root.b: cannot be removed from the configuration: it is RUNNING"),
        },
        Case {
            why: "a queue may be removed in the refresh whose file marks it STOPPED",
            old: AB.to_vec(),
            apps_in: &[],
            first: None,
            new: vec![("root.queues", "a"), ("root.a.capacity", "100"), ("root.b.state", "STOPPED")],
            refused: None,
        },
        Case {
            why: "a stopped queue's name may come back under another parent",
            old: AB.to_vec(),
            apps_in: &[],
            first: Some(with(AB, &[("root.b.state", "STOPPED")])),
            new: vec![
                ("root.queues", "a,c"),
                ("root.a.capacity", "50"),
                ("root.c.capacity", "50"),
                ("root.c.queues", "b"),
                ("root.c.b.capacity", "100"),
            ],
            refused: None,
        },
        Case {
            why: "the leaves of a stopped parent are stopped too, and go with it",
            old: with(AB, &[("root.b.queues", "x,y"), ("root.b.x.capacity", "50"), ("root.b.y.capacity", "50")]),
            apps_in: &[],
            first: Some(with(
                AB,
                &[
                    ("root.b.queues", "x,y"),
                    ("root.b.x.capacity", "50"),
                    ("root.b.y.capacity", "50"),
                    ("root.b.state", "STOPPED"),
                ],
            )),
            new: vec![("root.queues", "a"), ("root.a.capacity", "100")],
            refused: None,
        },
        Case {
            why: "a RUNNING leaf cannot become a parent",
            old: AB.to_vec(),
            apps_in: &[],
            first: None,
            new: with(AB, &[("root.a.queues", "x"), ("root.a.x.capacity", "100")]),
            refused: Some("queue root.a: cannot become a parent queue while it is RUNNING"),
        },
        Case {
            why: "a STOPPED, empty leaf may become a parent",
            old: with(AB, &[("root.a.state", "STOPPED")]),
            apps_in: &[],
            first: None,
            new: with(AB, &[("root.a.queues", "x"), ("root.a.x.capacity", "100")]),
            refused: None,
        },
        Case {
            why: "an invalid file is refused whole",
            old: AB.to_vec(),
            apps_in: &[],
            first: None,
            new: vec![
                ("root.queues", "a,b,c"),
                ("root.a.capacity", "50"),
                ("root.b.capacity", "50"),
                ("root.c.capacity", "10"),
            ],
            refused: Some("sum to 110%"),
        },
    ];
    for case in cases {
        let mut s = scheduler(&case.old);
        for (i, q) in case.apps_in.iter().enumerate() {
            submit(&mut s, i as i32 + 1, q);
        }
        if let Some(first) = &case.first {
            s.refresh(load(first).unwrap()).unwrap_or_else(|e| panic!("{}: first refresh: {e}", case.why));
        }
        let before: Vec<String> = s.state().queues.queues.iter().map(|q| format!("{:?}", q.config)).collect();
        let result = load(&case.new)
            .map_err(|e| e.to_string())
            .and_then(|c| s.refresh(c).map(|_| ()).map_err(|e| e.to_string()));
        match (case.refused, result) {
            (None, Ok(())) => {}
            (None, Err(e)) => panic!("{}: refused: {e}", case.why),
            (Some(text), Ok(())) => panic!("{}: accepted, expected refusal containing {text:?}", case.why),
            (Some(text), Err(e)) => {
                assert!(e.contains(text), "{}: message lacks {text:?}: {e}", case.why);
                let after: Vec<String> = s.state().queues.queues.iter().map(|q| format!("{:?}", q.config)).collect();
                assert_eq!(before, after, "{}: a refused refresh changed the queues", case.why);
            }
        }
    }
}

#[test]
fn applications_and_usage_survive_a_refresh() {
    let mut s = scheduler(AB);
    let app = submit(&mut s, 1, "a");
    s.add_attempt(app, 1, false);
    let key = SchedulerKey { priority: 1, allocation_request_id: 0 };
    s.update_requests(
        app,
        &[Ask { key, resource_name: "*".into(), capability: Resource::new(1024, 1), count: 2, relax_locality: true }],
    );
    // One off-switch container per heartbeat (per-node-heartbeat.maximum-offswitch-assignments).
    let mut allocated = s.node_heartbeat(0, &[]);
    allocated.extend(s.node_heartbeat(0, &[]));
    assert_eq!(allocated.len(), 2);

    s.refresh(
        load(&[
            ("root.queues", "a,b,c"),
            ("root.a.capacity", "30"),
            ("root.b.capacity", "30"),
            ("root.c.capacity", "40"),
        ])
        .unwrap(),
    )
    .unwrap();
    let a = s.state().queues.resolve("a").unwrap();
    assert_eq!(s.state().queues.get(a).used, Resource::new(2048, 2));
    assert_eq!(s.state().queues.get(a).apps, vec![app]);
    assert!((s.state().queues.get(a).absolute_capacity - 0.3).abs() < 1e-6);
    assert_eq!(s.state().apps[&app].queue, a);
    // The application's containers still return to the right queue.
    s.release(&[(app, allocated[0].container)]);
    assert_eq!(s.state().queues.get(a).used, Resource::new(1024, 1));
    assert_eq!(s.state().queues.get(0).used, Resource::new(1024, 1));
}

#[test]
fn the_resource_calculator_changes_only_at_a_restart() {
    let mut s = scheduler(AB);
    let notices = s
        .refresh(
            load(&[
                ("root.queues", "a,b"),
                ("root.a.capacity", "50"),
                ("root.b.capacity", "50"),
                ("resource-calculator", "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator"),
            ])
            .unwrap(),
        )
        .unwrap();
    assert_eq!(s.state().calculator(), capsched::ResourceCalculator::Memory);
    assert_eq!(notices.len(), 1);
    assert!(notices[0].contains("takes effect at the next ResourceManager restart"), "{}", notices[0]);
}
