//! Table-driven tests of capacity-scheduler.xml: every key with its default and a set
//! value, every validation rule valid and invalid. Apache's own classes are the reference
//! for the real-world files (see java-shim's ConfigurationConformanceTest); these tables pin
//! the rules one by one.

mod common;

use capsched::config::{
    AccessControlList, CapacitySpec, MaxCapacitySpec, OrderingPolicy, QueueOrdering, QueueState, SchedulerConfig,
};
use capsched::resource::{Resource, ResourceCalculator};
use common::{load, with, AB};

fn queue<'a>(c: &'a SchedulerConfig, path: &str) -> &'a capsched::config::QueueConfig {
    &c.queues[c.queue_index(path).unwrap_or_else(|| panic!("no queue {path}"))]
}

#[test]
fn global_keys_defaults_and_values() {
    let d = load(AB).unwrap().global;
    assert_eq!(d.maximum_applications, 10_000);
    assert_eq!(d.maximum_am_resource_percent, 0.1);
    assert_eq!(d.resource_calculator, ResourceCalculator::Memory);
    assert_eq!(d.node_locality_delay, 40);
    assert_eq!(d.rack_locality_additional_delay, -1);
    assert!(d.rack_locality_full_reset);
    assert!(d.multiple_assignments_enabled);
    assert!(!d.user_metrics_enabled);
    assert_eq!(d.max_container_assignments, 100);
    assert_eq!(d.max_offswitch_assignments, 1);
    assert!(d.reservations_continue_look_all_nodes);
    assert_eq!(d.max_parallel_apps, None);
    assert_eq!(d.user_max_parallel_apps, None);
    assert!(d.placement.rules.is_empty());
    assert!(!d.placement.override_specified);

    let g = load(&with(
        AB,
        &[
            ("maximum-applications", "500"),
            ("maximum-am-resource-percent", "0.25"),
            ("resource-calculator", "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator"),
            ("node-locality-delay", "10"),
            ("rack-locality-additional-delay", "5"),
            ("rack-locality-full-reset", "false"),
            ("per-node-heartbeat.multiple-assignments-enabled", "false"),
            ("per-node-heartbeat.maximum-container-assignments", "7"),
            ("per-node-heartbeat.maximum-offswitch-assignments", "3"),
            ("reservations-continue-look-all-nodes", "false"),
            ("max-parallel-apps", "20"),
            ("user.max-parallel-apps", "4"),
            ("queue-mappings", "u:alice:a, g:eng:b,u:%user:%user"),
            ("queue-mappings-override.enable", "true"),
            ("user-metrics.enable", "true"),
        ],
    ))
    .unwrap()
    .global;
    assert_eq!(g.maximum_applications, 500);
    assert_eq!(g.maximum_am_resource_percent, 0.25);
    assert_eq!(g.resource_calculator, ResourceCalculator::Dominant);
    assert_eq!(g.node_locality_delay, 10);
    assert_eq!(g.rack_locality_additional_delay, 5);
    assert!(!g.rack_locality_full_reset);
    assert!(!g.multiple_assignments_enabled);
    assert_eq!(g.max_container_assignments, 7);
    assert_eq!(g.max_offswitch_assignments, 3);
    assert!(!g.reservations_continue_look_all_nodes);
    assert_eq!(g.max_parallel_apps, Some(20));
    assert_eq!(g.user_max_parallel_apps, Some(4));
    let rules: Vec<String> = g.placement.rules.iter().map(ToString::to_string).collect();
    assert_eq!(rules, ["u:alice:a", "g:eng:b", "u:%user:%user"]);
    assert!(g.placement.override_specified);
    assert!(g.user_metrics_enabled);
}

#[test]
fn queue_keys_defaults_and_values() {
    let c = load(AB).unwrap();
    let root = queue(&c, "root");
    assert_eq!(root.capacity, CapacitySpec::Percent(100.0));
    assert_eq!(root.acl_submit_applications, AccessControlList::everyone());
    assert_eq!(root.acl_administer_queue, AccessControlList::everyone());
    let a = queue(&c, "root.a");
    assert_eq!(a.capacity, CapacitySpec::Percent(50.0));
    assert_eq!(a.maximum_capacity, MaxCapacitySpec::Percent(100.0));
    assert_eq!(a.state, QueueState::Running);
    assert_eq!(a.user_limit_factor, 1.0);
    assert_eq!(a.minimum_user_limit_percent, 100.0);
    assert_eq!(a.maximum_applications, None);
    assert_eq!(a.maximum_am_resource_percent, 0.1);
    assert_eq!(a.max_parallel_apps, None);
    assert_eq!(a.acl_submit_applications, AccessControlList::nobody());
    assert_eq!(a.acl_administer_queue, AccessControlList::nobody());
    assert_eq!(a.ordering_policy, OrderingPolicy::Fifo);
    assert_eq!(a.default_application_priority, 0);
    assert_eq!(a.priority, 0);
    assert_eq!(a.maximum_allocation, Resource::new(8192, 4));
    assert!(a.user_weights.is_empty());

    let c = load(&with(
        AB,
        &[
            ("root.a.maximum-capacity", "-1"),
            ("root.b.maximum-capacity", "75.5"),
            ("root.a.state", "stopped"),
            ("root.a.user-limit-factor", "2.5"),
            ("root.a.minimum-user-limit-percent", "20"),
            ("root.a.maximum-applications", "30"),
            ("root.a.maximum-am-resource-percent", "0.5"),
            ("root.a.max-parallel-apps", "3"),
            ("root.a.acl_submit_applications", "alice,bob devs"),
            ("root.a.acl_administer_queue", " admins"),
            ("root.a.ordering-policy", "fair"),
            ("root.a.default-application-priority", "5"),
            ("root.a.priority", "2"),
            ("root.a.maximum-allocation-mb", "4096"),
            ("root.a.maximum-allocation-vcores", "2"),
            ("root.a.user-settings.alice.weight", "3"),
            ("root.ordering-policy", "priority-utilization"),
        ],
    ))
    .unwrap();
    let a = queue(&c, "root.a");
    assert_eq!(a.maximum_capacity, MaxCapacitySpec::Percent(100.0));
    assert_eq!(queue(&c, "root.b").maximum_capacity, MaxCapacitySpec::Percent(75.5));
    assert_eq!(a.state, QueueState::Stopped);
    assert_eq!(a.user_limit_factor, 2.5);
    assert_eq!(a.minimum_user_limit_percent, 20.0);
    assert_eq!(a.maximum_applications, Some(30));
    assert_eq!(a.maximum_am_resource_percent, 0.5);
    assert_eq!(a.max_parallel_apps, Some(3));
    assert_eq!(a.acl_submit_applications.users, ["alice", "bob"]);
    assert_eq!(a.acl_submit_applications.groups, ["devs"]);
    assert_eq!(a.acl_administer_queue.groups, ["admins"]);
    assert_eq!(a.ordering_policy, OrderingPolicy::Fair);
    assert_eq!(a.default_application_priority, 5);
    assert_eq!(a.priority, 2);
    assert_eq!(a.maximum_allocation, Resource::new(4096, 2));
    assert_eq!(a.user_weights.get("alice"), Some(&3.0));
    assert_eq!(queue(&c, "root").queue_ordering, QueueOrdering::PriorityUtilization);
}

#[test]
fn capacity_modes() {
    let c = load(&[("root.queues", "a,b"), ("root.a.capacity", "1w"), ("root.b.capacity", "3w")]).unwrap();
    assert_eq!(queue(&c, "root.b").capacity, CapacitySpec::Weight(3.0));
    let c = load(&[
        ("root.queues", "a,b"),
        ("root.a.capacity", "[memory=4096,vcores=4]"),
        ("root.b.capacity", "[memory=2048,vcores=2]"),
        ("root.b.maximum-capacity", "[memory=8192,vcores=8]"),
    ])
    .unwrap();
    assert_eq!(queue(&c, "root.a").capacity, CapacitySpec::Absolute(Resource::new(4096, 4)));
    assert_eq!(queue(&c, "root.b").maximum_capacity, MaxCapacitySpec::Absolute(Resource::new(8192, 8)));
}

/// One invalid configuration and what its error must say.
struct Invalid {
    why: &'static str,
    props: Vec<(&'static str, &'static str)>,
    expect: &'static [&'static str],
}

#[test]
fn every_validation_rule_rejects_with_queue_key_and_values() {
    let cases = vec![
        Invalid {
            why: "children must sum to 100",
            props: vec![("root.queues", "a,b"), ("root.a.capacity", "60"), ("root.b.capacity", "50")],
            expect: &["queue root", "sum to 110%", "a=60%", "b=50%"],
        },
        Invalid {
            why: "children at 0% under a parent with capacity",
            props: with(AB, &[("root.a.queues", "x,y")]),
            expect: &["queue root.a", "sum to 0%", "allow-zero-capacity-sum"],
        },
        Invalid {
            why: "a 0% parent cannot have children summing to 100%",
            props: vec![
                ("root.queues", "a,b"),
                ("root.a.capacity", "0"),
                ("root.b.capacity", "100"),
                ("root.a.queues", "x"),
                ("root.a.x.capacity", "100"),
            ],
            expect: &["queue root.a", "has zero capacity"],
        },
        Invalid {
            why: "percent and weight siblings",
            props: vec![("root.queues", "a,b"), ("root.a.capacity", "50"), ("root.b.capacity", "2w")],
            expect: &["queue root", "mix capacity modes", "b=2w"],
        },
        Invalid {
            why: "absolute child under a percentage parent",
            props: with(AB, &[("root.a.queues", "x"), ("root.a.x.capacity", "[memory=1024,vcores=1]")]),
            expect: &["queue root.a", "absolute resources"],
        },
        Invalid {
            why: "children's absolute resources exceed the parent's",
            props: vec![
                ("root.queues", "a"),
                ("root.a.capacity", "[memory=4096,vcores=4]"),
                ("root.a.queues", "x,y"),
                ("root.a.x.capacity", "[memory=4096,vcores=4]"),
                ("root.a.y.capacity", "[memory=1024,vcores=1]"),
            ],
            expect: &["queue root.a", "less than the sum"],
        },
        Invalid {
            why: "capacity above 100",
            props: vec![("root.queues", "a"), ("root.a.capacity", "120")],
            expect: &["root.a.capacity", "120 is outside [0, 100]"],
        },
        Invalid {
            why: "maximum-capacity above 100",
            props: with(AB, &[("root.a.maximum-capacity", "150")]),
            expect: &["root.a.maximum-capacity", "150"],
        },
        Invalid {
            why: "absolute minimum above absolute maximum",
            props: vec![
                ("root.queues", "a"),
                ("root.a.capacity", "[memory=4096,vcores=4]"),
                ("root.a.maximum-capacity", "[memory=2048,vcores=2]"),
            ],
            expect: &["root.a", "greater than maximum-capacity"],
        },
        Invalid {
            why: "child absolute maximum above the parent's",
            props: vec![
                ("root.queues", "a"),
                ("root.a.capacity", "[memory=4096,vcores=4]"),
                ("root.a.maximum-capacity", "[memory=8192,vcores=8]"),
                ("root.a.queues", "x"),
                ("root.a.x.capacity", "[memory=4096,vcores=4]"),
                ("root.a.x.maximum-capacity", "[memory=16384,vcores=8]"),
            ],
            expect: &["root.a.x.maximum-capacity", "greater than the parent root.a"],
        },
        Invalid {
            why: "queue maximum allocation above the cluster's",
            props: with(AB, &[("root.a.maximum-allocation-mb", "16384")]),
            expect: &["root.a.maximum-allocation-mb", "16384", "8192"],
        },
        Invalid {
            why: "child maximum allocation above its parent's",
            props: with(
                AB,
                &[
                    ("root.a.maximum-allocation-vcores", "2"),
                    ("root.a.queues", "x"),
                    ("root.a.x.capacity", "100"),
                    ("root.a.x.maximum-allocation-vcores", "3"),
                ],
            ),
            expect: &["root.a.x.maximum-allocation-vcores", "parent root.a"],
        },
        Invalid {
            why: "unparseable capacity",
            props: vec![("root.queues", "a"), ("root.a.capacity", "half")],
            expect: &["root.a.capacity", "'half' is not a capacity"],
        },
        Invalid {
            why: "unknown state",
            props: with(AB, &[("root.a.state", "PAUSED")]),
            expect: &["root.a.state", "'PAUSED'", "RUNNING or STOPPED"],
        },
        Invalid {
            why: "application ordering policy on a parent",
            props: with(AB, &[("root.ordering-policy", "fair")]),
            expect: &["root.ordering-policy", "'fair' is not a queue ordering policy"],
        },
        Invalid {
            why: "queue ordering policy on a leaf",
            props: with(AB, &[("root.a.ordering-policy", "utilization")]),
            expect: &["root.a.ordering-policy", "not an application ordering policy"],
        },
        Invalid {
            why: "unknown resource calculator",
            props: with(AB, &[("resource-calculator", "com.example.Gpu")]),
            expect: &["resource-calculator", "com.example.Gpu"],
        },
        Invalid {
            why: "minimum-user-limit-percent out of range",
            props: with(AB, &[("root.a.minimum-user-limit-percent", "0")]),
            expect: &["root.a.minimum-user-limit-percent", "outside (0, 100]"],
        },
        Invalid {
            why: "non-numeric integer",
            props: with(AB, &[("maximum-applications", "lots")]),
            expect: &["maximum-applications", "'lots' is not a whole number"],
        },
        Invalid {
            why: "a malformed queue mapping",
            props: with(AB, &[("queue-mappings", "u:alice:a,bob:b")]),
            expect: &["queue-mappings", "'bob:b' is not a queue mapping"],
        },
        Invalid {
            why: "root without children",
            props: vec![("root.capacity", "100")],
            expect: &["queue root", "root.queues", "at least one child"],
        },
        Invalid {
            why: "a child listed twice",
            props: vec![("root.queues", "a,a"), ("root.a.capacity", "100")],
            expect: &["root.queues", "listed twice"],
        },
        Invalid {
            why: "node-label capacities must sum to 100",
            props: with(
                AB,
                &[
                    ("root.accessible-node-labels.gpu.capacity", "100"),
                    ("root.a.accessible-node-labels.gpu.capacity", "30"),
                    ("root.b.accessible-node-labels.gpu.capacity", "30"),
                ],
            ),
            expect: &["queue root", "partition 'gpu'", "sum to 60%"],
        },
        Invalid {
            why: "node-label capacities configured below the root only must still sum to 100 at the root",
            props: with(AB, &[("root.a.accessible-node-labels.gpu.capacity", "40")]),
            expect: &["queue root", "partition 'gpu'", "sum to 40%"],
        },
        Invalid {
            why: "a child may access only labels its parent may",
            props: vec![
                ("root.queues", "p"),
                ("root.p.capacity", "100"),
                ("root.p.queues", "c"),
                ("root.p.accessible-node-labels", "gpu"),
                ("root.p.c.capacity", "100"),
                ("root.p.c.accessible-node-labels", "gpu,ssd"),
            ],
            expect: &["root.p.c.accessible-node-labels", "[ssd]", "root.p", "[gpu]"],
        },
        Invalid {
            why: "a child may not access every label when its parent may not",
            props: vec![
                ("root.queues", "p"),
                ("root.p.capacity", "100"),
                ("root.p.queues", "c"),
                ("root.p.accessible-node-labels", "gpu"),
                ("root.p.c.capacity", "100"),
                ("root.p.c.accessible-node-labels", "*"),
            ],
            expect: &["root.p.c.accessible-node-labels", "'*' is not allowed"],
        },
        Invalid {
            why: "a leaf's default label expression must be accessible",
            props: with(
                AB,
                &[("root.a.accessible-node-labels", "gpu"), ("root.a.default-node-label-expression", "ssd")],
            ),
            expect: &["root.a.default-node-label-expression", "'ssd'", "[gpu]"],
        },
        Invalid {
            why: "absolute resources in one partition and a percentage in another",
            props: vec![
                ("root.queues", "a"),
                ("root.a.capacity", "[memory=1024,vcores=1]"),
                ("root.a.accessible-node-labels.gpu.capacity", "100"),
            ],
            expect: &[
                "root.a.accessible-node-labels.gpu.capacity",
                "is 100%",
                "[memory=1024,vcores=1]",
                "every partition",
            ],
        },
        Invalid {
            why: "weights in the default partition, percentages in a label",
            props: vec![
                ("root.queues", "a,b"),
                ("root.a.capacity", "1w"),
                ("root.b.capacity", "1w"),
                ("root.a.accessible-node-labels.gpu.capacity", "60"),
                ("root.b.accessible-node-labels.gpu.capacity", "40"),
            ],
            expect: &["queue root", "mix capacity modes", "a[gpu]=60%"],
        },
        Invalid {
            why: "children's absolute label capacities exceed the parent's",
            props: vec![
                ("root.queues", "p"),
                ("root.p.capacity", "[memory=4096,vcores=4]"),
                ("root.p.accessible-node-labels.gpu.capacity", "[memory=2048,vcores=2]"),
                ("root.p.queues", "x,y"),
                ("root.p.x.capacity", "[memory=2048,vcores=2]"),
                ("root.p.y.capacity", "[memory=2048,vcores=2]"),
                ("root.p.x.accessible-node-labels.gpu.capacity", "[memory=2048,vcores=2]"),
                ("root.p.y.accessible-node-labels.gpu.capacity", "[memory=1024,vcores=1]"),
            ],
            expect: &["queue root.p", "in partition 'gpu'", "[memory=3072,vcores=3]"],
        },
        Invalid {
            why: "node-label capacity out of range",
            props: with(AB, &[("root.a.accessible-node-labels.gpu.capacity", "130")]),
            expect: &["root.a.accessible-node-labels.gpu.capacity", "130 is outside"],
        },
    ];
    for case in cases {
        let err = match load(&case.props) {
            Ok(_) => panic!("{}: accepted", case.why),
            Err(e) => e.to_string(),
        };
        for needle in case.expect {
            assert!(err.contains(needle), "{}: error lacks {needle:?}:\n{err}", case.why);
        }
    }
}

#[test]
fn node_label_access_and_default_expressions_are_inherited_as_apache_does() {
    use capsched::config::LabelAccess;
    let labels = |names: &[&str]| LabelAccess::Labels(names.iter().map(|s| s.to_string()).collect());
    let c = load(&[
        ("root.queues", "p,q"),
        ("root.accessible-node-labels", "ignored"),
        ("root.p.capacity", "50"),
        ("root.q.capacity", "50"),
        ("root.p.queues", "inherits,narrower,own"),
        ("root.p.accessible-node-labels", " gpu , ssd ,"),
        ("root.p.default-node-label-expression", " gpu "),
        ("root.p.inherits.capacity", "40"),
        ("root.p.narrower.capacity", "30"),
        ("root.p.narrower.accessible-node-labels", "ssd"),
        ("root.p.own.capacity", "30"),
        ("root.p.own.default-node-label-expression", "ssd"),
        ("root.q.accessible-node-labels", "*,gpu"),
        ("root.q.accessible-node-labels.gpu.capacity", "100"),
        ("root.q.accessible-node-labels.gpu.maximum-am-resource-percent", "0.5"),
        ("root.q.maximum-am-resource-percent", "0.2"),
        ("root.p.accessible-node-labels.gpu.capacity", "0"),
    ])
    .unwrap();
    assert_eq!(queue(&c, "root").accessible_node_labels, LabelAccess::Any);
    assert_eq!(queue(&c, "root.p").accessible_node_labels, labels(&["gpu", "ssd"]));
    assert_eq!(queue(&c, "root.p").default_node_label_expression.as_deref(), Some("gpu"));
    // Unset: the parent's labels, and with them its default expression.
    assert_eq!(queue(&c, "root.p.inherits").accessible_node_labels, labels(&["gpu", "ssd"]));
    assert_eq!(queue(&c, "root.p.inherits").default_node_label_expression.as_deref(), Some("gpu"));
    // Fewer labels than the parent: no default expression is inherited.
    assert_eq!(queue(&c, "root.p.narrower").accessible_node_labels, labels(&["ssd"]));
    assert_eq!(queue(&c, "root.p.narrower").default_node_label_expression, None);
    assert_eq!(queue(&c, "root.p.own").default_node_label_expression.as_deref(), Some("ssd"));
    // `*` anywhere in the list means every label.
    assert_eq!(queue(&c, "root.q").accessible_node_labels, LabelAccess::Any);
    assert!(LabelAccess::Any.allows("anything") && labels(&[]).allows("") && !labels(&["gpu"]).allows("ssd"));
    let gpu = queue(&c, "root.q").node_labels["gpu"];
    assert_eq!((gpu.percent(), gpu.maximum_percent(), gpu.maximum_am_resource_percent), (100.0, 100.0, 0.5));
    // The root holds every configured partition, all of it.
    assert_eq!(queue(&c, "root").node_labels["gpu"].percent(), 100.0);
    assert_eq!(queue(&c, "root.p").node_labels["gpu"].maximum_am_resource_percent, 0.1);
    assert!(c.warnings.iter().any(|w| w.to_string().contains("root.accessible-node-labels")));
}

#[test]
fn allocation_bounds_from_yarn_site_are_validated() {
    use capsched::config::ClusterSettings;
    let bad = ClusterSettings {
        minimum_allocation: Resource::new(4096, 1),
        maximum_allocation: Resource::new(2048, 4),
        acl_enabled: false,
        am_non_exclusive: false,
    };
    let err = SchedulerConfig::from_xml(common::xml(AB).as_bytes(), "t.xml", bad).unwrap_err().to_string();
    assert!(err.contains("yarn.scheduler.minimum-allocation-mb=4096"), "{err}");
}

#[test]
fn valid_edge_cases_are_accepted() {
    let cases: Vec<(&str, Vec<(&'static str, &'static str)>)> = vec![
        (
            "sum within Apache's 0.0005 tolerance",
            vec![
                ("root.queues", "a,b,c"),
                ("root.a.capacity", "33.333"),
                ("root.b.capacity", "33.333"),
                ("root.c.capacity", "33.334"),
            ],
        ),
        (
            "zero-capacity elastic queue",
            vec![("root.queues", "a,b"), ("root.a.capacity", "100"), ("root.b.capacity", "0")],
        ),
        (
            "children at 0% allowed explicitly",
            with(AB, &[("root.a.queues", "x"), ("root.a.x.capacity", "0"), ("root.a.allow-zero-capacity-sum", "true")]),
        ),
        (
            "zero-percent sibling next to weights",
            vec![("root.queues", "a,b"), ("root.a.capacity", "0"), ("root.b.capacity", "2w")],
        ),
        ("trimmed child list", vec![("root.queues", " a , b "), ("root.a.capacity", "50"), ("root.b.capacity", "50")]),
        (
            "maximum-am-resource-percent out of range is only a warning",
            with(AB, &[("maximum-am-resource-percent", "100")]),
        ),
        // Apache 3.4 accepts a guarantee above the maximum; the maximum still caps the queue.
        ("capacity above maximum-capacity", with(AB, &[("root.a.maximum-capacity", "40")])),
    ];
    for (why, props) in cases {
        if let Err(e) = load(&props) {
            panic!("{why}: rejected: {e}");
        }
    }
    let warned = load(&with(AB, &[("maximum-am-resource-percent", "100")])).unwrap();
    assert!(warned.warnings.iter().any(|w| w.to_string().contains("fraction")));
}

#[test]
fn reservable_and_auto_create_queues_are_shaped_like_apache() {
    let c =
        load(&with(AB, &[("root.a.reservable", "true"), ("root.b.auto-create-child-queue.enabled", "true")])).unwrap();
    let a = queue(&c, "root.a");
    assert!(a.reservable && !a.is_leaf());
    let default = queue(&c, "root.a.a-default");
    assert_eq!(default.capacity, CapacitySpec::Percent(100.0));
    assert!(!queue(&c, "root.b").is_leaf(), "a managed parent is a parent");
}
