//! Reading a scenario file: the configuration block, then one step per line.

use super::{Expectation, Scenario, ScenarioError, Step};
use crate::config::ClusterSettings;
use crate::ids::{SchedulerKey, ANY};
use crate::model::Ask;
use crate::resource::Resource;
use std::collections::HashMap;
use std::path::Path;

/// Sizes: `1024`, `1024M`, `10G`, `1T` (MiB by default).
fn parse_memory(v: &str) -> Option<i64> {
    let v = v.trim();
    let (num, mult) = match v.chars().last()? {
        'G' | 'g' => (&v[..v.len() - 1], 1024),
        'T' | 't' => (&v[..v.len() - 1], 1024 * 1024),
        'M' | 'm' => (&v[..v.len() - 1], 1),
        _ => (v, 1),
    };
    num.parse::<i64>().ok().map(|n| n * mult)
}

/// `M,V` or just `M` (vcores 1).
fn parse_resource(v: &str) -> Option<Resource> {
    match v.split_once(',') {
        Some((m, c)) => Some(Resource::new(parse_memory(m)?, c.trim().parse().ok()?)),
        None => Some(Resource::new(parse_memory(v)?, 1)),
    }
}

impl Scenario {
    /// Parses a scenario; `base` resolves `config FILE` lines.
    pub fn parse(text: &str, base: &Path) -> Result<Scenario, ScenarioError> {
        let mut config_xml = None;
        let mut cluster = ClusterSettings::default();
        let mut max_application_priority = 0;
        let mut groups = HashMap::new();
        let mut steps = Vec::new();
        let lines: Vec<&str> = text.lines().collect();
        let mut i = 0;
        while i < lines.len() {
            let line_no = i + 1;
            let line = lines[i].trim();
            i += 1;
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let err = |m: String| ScenarioError { line: line_no, message: m };
            let mut words = split_words(line);
            let verb = words.remove(0);
            let (positional, named) = split_args(&words);
            let get = |k: &str| named.get(k).map(String::as_str);
            let need = |k: &str| get(k).ok_or_else(|| err(format!("'{verb}' needs {k}=")));
            let first = |what: &str| positional.first().cloned().ok_or_else(|| err(format!("'{verb}' needs {what}")));
            let read_block = |i: &mut usize| -> Result<String, ScenarioError> {
                let mut xml = String::new();
                while *i < lines.len() && lines[*i].trim() != "end" {
                    xml.push_str(lines[*i]);
                    xml.push('\n');
                    *i += 1;
                }
                if *i == lines.len() {
                    return Err(ScenarioError {
                        line: line_no,
                        message: format!("'{verb}' block has no closing 'end'"),
                    });
                }
                *i += 1;
                Ok(xml)
            };
            match verb.as_str() {
                "config" => {
                    config_xml = Some(match positional.first() {
                        Some(file) => std::fs::read_to_string(base.join(file))
                            .map_err(|e| err(format!("cannot read {file}: {e}")))?,
                        None => read_block(&mut i)?,
                    })
                }
                "cluster" => {
                    if let Some(v) = get("min-allocation") {
                        cluster.minimum_allocation =
                            parse_resource(v).ok_or_else(|| err(format!("bad min-allocation {v}")))?;
                    }
                    if let Some(v) = get("max-allocation") {
                        cluster.maximum_allocation =
                            parse_resource(v).ok_or_else(|| err(format!("bad max-allocation {v}")))?;
                    }
                    if let Some(v) = get("acl") {
                        cluster.acl_enabled = v == "true";
                    }
                    if let Some(v) = get("am-non-exclusive") {
                        cluster.am_non_exclusive = v == "true";
                    }
                    if let Some(v) = get("max-priority") {
                        max_application_priority = v.parse().map_err(|_| err(format!("bad max-priority {v}")))?;
                    }
                    if let Some(v) = get("groups") {
                        groups = parse_groups(v).map_err(err)?;
                    }
                }
                "node" => {
                    let count: usize =
                        get("count").map_or(Ok(1), |c| c.parse().map_err(|_| err(format!("bad count {c}"))))?;
                    let memory = parse_memory(need("memory")?).ok_or_else(|| err("bad memory".into()))?;
                    let vcores = need("vcores")?.parse().map_err(|_| err("bad vcores".into()))?;
                    let name = first("a node name")?;
                    let rack = get("rack").unwrap_or("/default-rack").to_string();
                    steps.push((line_no, Step::Node { name, count, rack, total: Resource::new(memory, vcores) }));
                }
                "remove-node" => steps.push((line_no, Step::RemoveNode { name: first("a node name")? })),
                "app" => {
                    let am = if positional.iter().any(|p| p == "unmanaged") {
                        None
                    } else {
                        Some(parse_resource(get("am").unwrap_or("1024,1")).ok_or_else(|| err("bad am".into()))?)
                    };
                    steps.push((
                        line_no,
                        Step::App {
                            name: first("an application name")?,
                            queue: need("queue")?.to_string(),
                            user: need("user")?.to_string(),
                            priority: get("priority")
                                .map_or(Ok(0), |p| p.parse().map_err(|_| err(format!("bad priority {p}"))))?,
                            am,
                            keep_containers: positional.iter().any(|p| p == "keep-containers"),
                        },
                    ));
                }
                "ask" => {
                    let memory = parse_memory(need("memory")?).ok_or_else(|| err("bad memory".into()))?;
                    let ask = Ask {
                        key: SchedulerKey {
                            priority: get("priority")
                                .map_or(Ok(1), |p| p.parse().map_err(|_| err(format!("bad priority {p}"))))?,
                            allocation_request_id: get("id")
                                .map_or(Ok(0), |p| p.parse().map_err(|_| err(format!("bad id {p}"))))?,
                        },
                        resource_name: get("at").unwrap_or(ANY).to_string(),
                        capability: Resource::new(
                            memory,
                            get("vcores").map_or(Ok(1), |v| v.parse().map_err(|_| err("bad vcores".into())))?,
                        ),
                        count: need("count")?.parse().map_err(|_| err("bad count".into()))?,
                        relax_locality: get("relax") != Some("false"),
                    };
                    let label = get("label").unwrap_or_default().to_string();
                    steps.push((line_no, Step::Ask { app: first("an application name")?, ask, label }));
                }
                "heartbeat" => {
                    let target = first("a node name or 'all'")?;
                    let rounds =
                        get("rounds").map_or(Ok(1), |r| r.parse().map_err(|_| err(format!("bad rounds {r}"))))?;
                    steps.push((line_no, Step::Heartbeat { node: (target != "all").then_some(target), rounds }));
                }
                "finish" | "complete" => {
                    let count = match get("count").or_else(|| positional.get(1).map(String::as_str)) {
                        None | Some("all") => None,
                        Some(c) => Some(c.parse().map_err(|_| err(format!("bad count {c}")))?),
                    };
                    let (app, node) = (first("an application name")?, get("node").map(str::to_string));
                    steps.push((
                        line_no,
                        if verb == "finish" {
                            Step::Finish { app, count, node }
                        } else {
                            Step::Complete { app, count, node }
                        },
                    ));
                }
                "fail-am" => steps.push((line_no, Step::FailAm { app: first("an application name")? })),
                "unregister" => steps.push((line_no, Step::Unregister { app: first("an application name")? })),
                "expire-am" => steps.push((line_no, Step::ExpireAm { app: first("an application name")? })),
                "expire-container" => {
                    steps.push((line_no, Step::ExpireContainer { app: first("an application name")? }))
                }
                "node-resource" => {
                    let memory = parse_memory(need("memory")?).ok_or_else(|| err("bad memory".into()))?;
                    let vcores = need("vcores")?.parse().map_err(|_| err("bad vcores".into()))?;
                    steps.push((
                        line_no,
                        Step::NodeResource { name: first("a node name")?, total: Resource::new(memory, vcores) },
                    ));
                }
                "node-label" => {
                    let exclusive = match get("exclusive") {
                        None | Some("true") => true,
                        Some("false") => false,
                        Some(v) => return Err(err(format!("exclusive={v}: give true or false"))),
                    };
                    steps.push((line_no, Step::NodeLabel { label: first("a label")?, exclusive }));
                }
                "label-node" => {
                    let label = positional.get(1).cloned().unwrap_or_default();
                    steps.push((line_no, Step::LabelNode { name: first("a node name")?, label }));
                }
                "blacklist" => {
                    let list = |k: &str| -> Vec<String> {
                        get(k).map(|v| v.split(',').map(str::to_string).collect()).unwrap_or_default()
                    };
                    let (add, remove) = (list("add"), list("remove"));
                    steps.push((line_no, Step::Blacklist { app: first("an application name")?, add, remove }));
                }
                "remove" => steps.push((line_no, Step::Remove { app: first("an application name")? })),
                "refresh" => steps.push((line_no, Step::Refresh { xml: read_block(&mut i)? })),
                "move" => steps.push((
                    line_no,
                    Step::Move { app: first("an application name")?, queue: need("queue")?.to_string() },
                )),
                "priority" => {
                    let p = positional.get(1).ok_or_else(|| err("'priority' needs APP and a priority".into()))?;
                    let priority = p.parse().map_err(|_| err(format!("bad priority {p}")))?;
                    steps.push((line_no, Step::Priority { app: first("an application name")?, priority }));
                }
                "expect" => steps.push((line_no, Step::Expect(parse_expectation(&positional, &named).map_err(err)?))),
                "show" => steps.push((line_no, Step::Show { queue: first("a queue")? })),
                "preempt" => steps.push((line_no, Step::Preempt)),
                "expire-queues" => steps.push((line_no, Step::ExpireQueues)),
                "manage-queues" => steps.push((line_no, Step::ManageQueues)),
                "wait" => {
                    let s = positional.first().ok_or_else(|| err("'wait' needs a number of seconds".into()))?;
                    let seconds = s.parse().map_err(|_| err(format!("bad number of seconds {s}")))?;
                    steps.push((line_no, Step::Wait { seconds }));
                }
                other => return Err(err(format!("unknown step '{other}'"))),
            }
        }
        let config_xml = config_xml.ok_or(ScenarioError { line: 0, message: "no 'config' given".into() })?;
        Ok(Scenario { config_xml, cluster, max_application_priority, groups, steps })
    }
}

fn parse_expectation(positional: &[String], named: &HashMap<String, String>) -> Result<Expectation, String> {
    let what = positional.first().map(String::as_str).unwrap_or("");
    let used = |named: &HashMap<String, String>| -> Result<(Resource, bool), String> {
        let v = named.get("used").ok_or("expect needs used=")?;
        let r = parse_resource(v).ok_or(format!("bad used={v}"))?;
        Ok((r, v.contains(',')))
    };
    match what {
        "queue" => {
            let (used, vcores) = used(named)?;
            Ok(Expectation::QueueUsed {
                queue: positional.get(1).ok_or("expect queue needs a queue")?.clone(),
                used,
                vcores,
            })
        }
        "user" => {
            let (used, vcores) = used(named)?;
            Ok(Expectation::UserUsed {
                queue: positional.get(1).ok_or("expect user needs a queue")?.clone(),
                user: positional.get(2).ok_or("expect user needs a user")?.clone(),
                used,
                vcores,
            })
        }
        "app" => {
            let app = positional.get(1).ok_or("expect app needs an application")?.clone();
            if let Some(c) = named.get("containers") {
                return Ok(Expectation::AppContainers {
                    app,
                    containers: c.parse().map_err(|_| format!("bad containers={c}"))?,
                });
            }
            if let Some(q) = named.get("queue") {
                return Ok(Expectation::AppQueue { app, queue: q.clone() });
            }
            match positional.get(2).map(String::as_str) {
                Some("active") => Ok(Expectation::AppActive { app, active: true }),
                Some("pending") => Ok(Expectation::AppActive { app, active: false }),
                _ => Err("expect app needs containers=N, active or pending".into()),
            }
        }
        "rejected" => Ok(Expectation::Rejected {
            app: positional.get(1).ok_or("expect rejected needs an application")?.clone(),
            text: positional.get(2).cloned().unwrap_or_default(),
        }),
        "move-refused" => Ok(Expectation::MoveRefused {
            app: positional.get(1).ok_or("expect move-refused needs an application")?.clone(),
            text: positional.get(2).cloned().unwrap_or_default(),
        }),
        "reserved" => Ok(Expectation::Reserved {
            node: positional.get(1).ok_or("expect reserved needs a node")?.clone(),
            app: positional.get(2).filter(|a| *a != "none").cloned(),
        }),
        "headroom" => Ok(Expectation::Headroom {
            app: positional.get(1).ok_or("expect headroom needs an application")?.clone(),
            memory: parse_memory(named.get("memory").ok_or("expect headroom needs memory=")?).ok_or("bad memory")?,
        }),
        other => Err(format!("unknown expectation '{other}'")),
    }
}

/// Splits on white space, keeping "quoted text" together.
fn split_words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `user=g1,g2;user2=g3`: each user's groups, primary first (Hadoop's
/// `hadoop.user.group.static.mapping.overrides`).
fn parse_groups(value: &str) -> Result<HashMap<String, Vec<String>>, String> {
    value
        .split(';')
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
        .map(|entry| {
            let (user, groups) =
                entry.split_once('=').ok_or_else(|| format!("'{entry}' in groups= is not user=group,group"))?;
            let groups = groups.split(',').map(str::trim).filter(|g| !g.is_empty()).map(String::from).collect();
            Ok((user.trim().to_string(), groups))
        })
        .collect()
}

fn split_args(words: &[String]) -> (Vec<String>, HashMap<String, String>) {
    let mut positional = Vec::new();
    let mut named = HashMap::new();
    for w in words {
        match w.split_once('=') {
            Some((k, v)) if !k.contains(' ') => {
                named.insert(k.to_string(), v.to_string());
            }
            _ => positional.push(w.clone()),
        }
    }
    (positional, named)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sizes_and_words() {
        assert_eq!(parse_memory("10G"), Some(10240));
        assert_eq!(parse_resource("2G,3"), Some(Resource::new(2048, 3)));
        assert_eq!(split_words(r#"expect rejected a "Queue root.x is STOPPED""#)[3], "Queue root.x is STOPPED");
    }
}
