//! The configuration door: bytes as a capacity-scheduler.xml.

use capsched::config::ClusterSettings;
use capsched::jni::ops::build_config;
use capsched::jni::ConfigInputs;
use capsched::policy::mapping::{place, Placement, Submission};
use capsched::report::describe_tree;
use capsched::resource::Resource;
use capsched::Scheduler;

/// The configuration a refresh replaces: the repository's own `conf/`.
const RUNNING: &[u8] = include_bytes!("../../../conf/capacity-scheduler.xml");

/// Reads `data` as the ResourceManager reads capacity-scheduler.xml. A valid configuration
/// must build a scheduler, describe itself (`capsched check`), and be offered as a refresh
/// of a running scheduler (which may refuse it, with errors). An invalid one must say
/// what is wrong.
pub fn config(data: &[u8]) {
    let inputs = |xml: &[u8]| ConfigInputs {
        xml: xml.to_vec(),
        source: "fuzz.xml".into(),
        base: Vec::new(),
        overlay: Vec::new(),
        system: Vec::new(),
    };
    let cluster = ClusterSettings::default();
    match build_config(&inputs(data), cluster) {
        Ok(config) => {
            // What `capsched check` prints, for a small cluster and a large one.
            describe_tree(&config, Resource::new(8 * 1024, 8));
            describe_tree(&config, Resource::new(1 << 40, 1 << 20));
            let queues = config.queues.len();
            let fresh = Scheduler::new(config.clone(), 0);
            assert_eq!(fresh.state().queues.queues.len(), queues, "every configured queue is in the tree");
            place_some(&fresh);
            let running = build_config(&inputs(RUNNING), cluster).expect("conf/capacity-scheduler.xml is valid");
            let mut scheduler = Scheduler::new(running, 0);
            match scheduler.refresh(config) {
                Ok(_) => {}
                Err(errors) => assert!(!errors.to_string().is_empty(), "a refused refresh names why"),
            }
            let violations = scheduler.state().invariant_violations();
            assert!(violations.is_empty(), "books after a refresh: {violations:#?}");
        }
        Err(error) => assert!(!error.to_string().is_empty(), "an invalid configuration names what is wrong"),
    }
}

/// The placement rules of a valid configuration, for a few submissions: a queue they place
/// an application in is a leaf of the tree, or one a dynamic parent of it may create.
fn place_some(scheduler: &Scheduler) {
    let state = scheduler.state();
    let groups = ["eng".to_string(), "staff".to_string(), "a.b".to_string()];
    for (user, queue, name, with_groups) in [
        ("alice", "default", "etl", true),
        ("bob.smith", "root.default", "", false),
        ("%user", "", "%application", true),
    ] {
        let groups: &[String] = if with_groups { &groups } else { &[] };
        let submission = Submission { user, groups, queue, application_name: name, recovery: false };
        let decision = place(&state.config.global.placement, &state.queues, &submission);
        assert!(!decision.trace.is_empty(), "a placement says how it was reached");
        if let Placement::Placed { queue, .. } = decision.placement {
            let leaf = state.queues.index_of_path(&queue).map(|i| state.queues.get(i).is_leaf());
            let parent = queue.rsplit_once('.').and_then(|(p, _)| state.queues.index_of_path(p));
            let creatable = parent.is_some_and(|p| state.queues.get(p).config.auto_create_child_queue);
            assert!(leaf == Some(true) || leaf.is_none() && creatable, "placed in {queue}, which cannot take it");
        }
    }
}
