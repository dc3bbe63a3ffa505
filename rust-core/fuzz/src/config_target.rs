//! The configuration door: bytes as a capacity-scheduler.xml.

use capsched::config::ClusterSettings;
use capsched::jni::ops::build_config;
use capsched::jni::ConfigInputs;
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
