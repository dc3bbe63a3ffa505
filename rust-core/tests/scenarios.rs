//! Runs every scenario in integration-tests/scenarios: the seeds' worked examples and the
//! scheduling rules, each with its expectations. A failing expectation names its line.

use capsched::scenario::{run, Scenario};
use std::path::Path;

#[test]
fn every_scenario_holds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../integration-tests/scenarios");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "scn"))
        .collect();
    files.sort();
    assert!(files.len() >= 6, "expected the scenario suite in {}", dir.display());
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let outcome = Scenario::parse(&text, file.parent().unwrap()).and_then(|s| run(&s, false));
        if let Err(e) = outcome {
            failures.push(format!("{}: {e}", file.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_failed_expectation_names_its_line() {
    let text = "config\n<configuration>\n<property><name>yarn.scheduler.capacity.root.queues</name><value>a</value></property>\n<property><name>yarn.scheduler.capacity.root.a.capacity</name><value>100</value></property>\n</configuration>\nend\nnode n memory=8G vcores=8\nexpect queue a used=1G\n";
    let scenario = Scenario::parse(text, Path::new(".")).unwrap();
    let err = run(&scenario, false).unwrap_err();
    assert_eq!(err.line, 8);
    assert!(err.message.contains("expected <memory:1024"), "{err}");
}
