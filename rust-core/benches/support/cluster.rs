//! The cluster `heartbeat.rs` measures, shared with `examples/noop_walk.rs`: 10,000
//! nodes, 1,000 leaf queues (10 parents of 100 leaves), 10,000 applications (10 a leaf,
//! each of its own user), each with its ApplicationMaster placed and asking for a
//! million 1 GiB containers.
#![allow(dead_code)]

use capsched::config::{ClusterSettings, SchedulerConfig};
use capsched::resource::Resource;
use capsched::{Ask, SchedulerKey, ANY};
use capsched::{Scheduler, Submission};

pub const NODES: usize = 10_000;
pub const PARENTS: usize = 10;
pub const LEAVES_PER_PARENT: usize = 100;
pub const APPS_PER_LEAF: usize = 10;

/// The resource calculator a case schedules with.
#[derive(Clone, Copy)]
pub enum Calculator {
    Memory,
    Drf,
}

pub fn config(user_limit_factor: &str) -> SchedulerConfig {
    config_with(user_limit_factor, Calculator::Memory)
}

pub fn config_with(user_limit_factor: &str, calculator: Calculator) -> SchedulerConfig {
    let mut xml = String::from("<configuration>\n");
    let mut prop = |k: String, v: String| {
        xml.push_str(&format!("<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>\n"))
    };
    if let Calculator::Drf = calculator {
        prop("resource-calculator".into(), "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator".into());
    }
    let parents: Vec<String> = (0..PARENTS).map(|p| format!("p{p}")).collect();
    prop("root.queues".into(), parents.join(","));
    prop("maximum-applications".into(), "100000".into());
    prop("maximum-am-resource-percent".into(), "1.0".into());
    for p in &parents {
        prop(format!("root.{p}.capacity"), format!("{}", 100.0 / PARENTS as f64));
        let leaves: Vec<String> = (0..LEAVES_PER_PARENT).map(|l| format!("{p}l{l}")).collect();
        prop(format!("root.{p}.queues"), leaves.join(","));
        for l in &leaves {
            prop(format!("root.{p}.{l}.capacity"), format!("{}", 100.0 / LEAVES_PER_PARENT as f64));
            prop(format!("root.{p}.{l}.user-limit-factor"), user_limit_factor.into());
        }
    }
    xml.push_str("</configuration>\n");
    let cluster = ClusterSettings {
        minimum_allocation: Resource::new(1024, 1),
        maximum_allocation: Resource::new(8192, 8),
        acl_enabled: false,
        am_non_exclusive: false,
    };
    SchedulerConfig::from_xml(xml.as_bytes(), "bench.xml", cluster).expect("valid bench config")
}

/// A cluster with every application submitted, its AM placed, and asking for more.
pub fn cluster(user_limit_factor: &str) -> Scheduler {
    cluster_with(user_limit_factor, Calculator::Memory)
}

pub fn cluster_with(user_limit_factor: &str, calculator: Calculator) -> Scheduler {
    let mut s = Scheduler::new(config_with(user_limit_factor, calculator), 0);
    for n in 0..NODES {
        s.add_node(&format!("n{n}:8041"), &format!("n{n}"), &format!("/r{}", n % 100), Resource::new(64 * 1024, 64));
    }
    let mut id = 0;
    for p in 0..PARENTS {
        for l in 0..LEAVES_PER_PARENT {
            for a in 0..APPS_PER_LEAF {
                id += 1;
                let sub = Submission::new(id, &format!("p{p}l{l}"), &format!("user{a}"), Resource::new(1024, 1));
                let (key, _) = s.submit(&sub).expect("admitted");
                s.add_attempt(key, 1, false);
                let ask = Ask {
                    key: SchedulerKey { priority: 1, allocation_request_id: 0 },
                    resource_name: ANY.into(),
                    capability: Resource::new(1024, 1),
                    count: 1_000_000,
                    relax_locality: true,
                };
                s.update_requests(key, &[ask]);
            }
        }
    }
    s
}

/// The no-op case's cluster: a tiny user-limit-factor, set by a refresh once the
/// applications are in (at submission it would also cap each user's number of
/// applications), holds each user at one minimum allocation, plus the container Apache
/// lets a user pass it by; the nodes are filled in turn until one gets nothing, when every
/// user is at its limit. (The nodes are alike, so no later node would get anything.)
pub fn every_user_at_its_limit(calculator: Calculator) -> Scheduler {
    let mut s = cluster_with("100", calculator);
    s.refresh(config_with("0.0001", calculator)).expect("refresh");
    for n in 0..NODES as u32 {
        if s.node_heartbeat(n, &[]).is_empty() {
            break;
        }
        while !s.node_heartbeat(n, &[]).is_empty() {}
    }
    s
}
