//! The `capsched check` command an operator runs before `yarn rmadmin -refreshQueues`.

use std::process::Command;

fn check(xml: &str) -> (i32, String, String) {
    let dir = std::env::temp_dir().join(format!("capsched-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("cs-{}.xml", xml.len()));
    std::fs::write(&file, xml).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_capsched")).arg("check").arg(&file).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_valid_file_prints_the_tree_with_effective_capacities() {
    let sample =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../conf/capacity-scheduler.xml")).unwrap();
    let (code, out, err) = check(&sample);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("valid (6 queues)"), "{out}");
    let dev = out.lines().find(|l| l.trim_start().starts_with("development")).expect("development row");
    // 60% x 20% = 12% guaranteed; 60% x 40% = 24% maximum.
    assert!(dev.contains("12.000") && dev.contains("24.000"), "{dev}");
}

#[test]
fn an_invalid_file_lists_every_problem_and_exits_1() {
    let xml = "<configuration>
      <property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>
      <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>70</value></property>
      <property><name>yarn.scheduler.capacity.root.b.capacity</name><value>40</value></property>
      <property><name>yarn.scheduler.capacity.root.b.state</name><value>DRAINING</value></property>
    </configuration>";
    let (code, _, err) = check(xml);
    assert_eq!(code, 1);
    assert!(err.contains("invalid"), "{err}");
    assert!(err.contains("'DRAINING' is not a queue state"), "{err}");
    // Typed-key errors come first; the sum rule is checked once every key reads cleanly.
    let (code, _, err) = check(&xml.replace("DRAINING", "RUNNING"));
    assert_eq!(code, 1);
    assert!(err.contains("sum to 110%"), "{err}");
}

#[test]
fn malformed_xml_names_the_line() {
    let (code, _, err) = check("<configuration>\n<property><name>x</name>\n</configuration>");
    assert_eq!(code, 1);
    assert!(err.contains(":3:"), "{err}");
}
