//! Scenario files: a capacity-scheduler.xml, a cluster, and a sequence of events with
//! expectations, run against the scheduler with no JVM. The same files drive the
//! side-by-side harness that runs Apache's CapacityScheduler, so each step is an event
//! the ResourceManager itself delivers. `docs/scenario-format.md` describes the format.

use crate::config::{ClusterSettings, Properties, SchedulerConfig};
use crate::ids::{NodeKey, SchedulerKey, ANY};
use crate::model::Ask;
use crate::policy::admission::Submission;
use crate::resource::Resource;
use crate::scheduler::Scheduler;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;

/// A problem in a scenario file or a failed expectation, with the line it comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioError {
    /// Line number in the scenario file (from 1).
    pub line: usize,
    /// What went wrong.
    pub message: String,
}

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ScenarioError {}

/// One step of a scenario.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// `node NAME [count=N] [rack=R] memory=M vcores=V`: with a count, nodes NAME1..NAMEN.
    Node { name: String, count: usize, rack: String, total: Resource },
    /// `remove-node NAME`
    RemoveNode { name: String },
    /// `app NAME queue=Q user=U [priority=P] [am=M,V] [unmanaged]`: submission, attempt,
    /// and (for a managed AM) the RM's ask for the AM container.
    App { name: String, queue: String, user: String, priority: i64, am: Option<Resource> },
    /// `ask APP [priority=P] memory=M vcores=V count=N [at=NAME] [relax=false] [id=I]`
    Ask { app: String, ask: Ask },
    /// `heartbeat NODE|all [rounds=N]`
    Heartbeat { node: Option<String>, rounds: usize },
    /// `finish APP [count=N|all] [node=NODE]`: the app's oldest task containers (on NODE,
    /// if given) complete; the AM's only with `all`.
    Finish { app: String, count: Option<usize>, node: Option<String> },
    /// `remove APP`: the application ends (attempt and application removed).
    Remove { app: String },
    /// `refresh` followed by an XML block: `yarn rmadmin -refreshQueues`.
    Refresh { xml: String },
    /// `move APP queue=Q`: `yarn application -movetoqueue`; a refused move is recorded.
    Move { app: String, queue: String },
    /// `priority APP P`: `yarn application -updatePriority`.
    Priority { app: String, priority: i64 },
    /// `expect ...`: a check on the state.
    Expect(Expectation),
    /// `show QUEUE`: prints each user's usage in a leaf (for writing scenarios).
    Show { queue: String },
}

/// A check on the state after the steps before it.
#[derive(Debug, Clone, PartialEq)]
pub enum Expectation {
    /// `expect queue Q used=M[,V]`
    QueueUsed { queue: String, used: Resource, vcores: bool },
    /// `expect user Q USER used=M[,V]`
    UserUsed { queue: String, user: String, used: Resource, vcores: bool },
    /// `expect app APP containers=N`
    AppContainers { app: String, containers: usize },
    /// `expect app APP active|pending`
    AppActive { app: String, active: bool },
    /// `expect rejected APP "text"`
    Rejected { app: String, text: String },
    /// `expect headroom APP memory=M`
    Headroom { app: String, memory: i64 },
    /// `expect reserved NODE APP|none`
    Reserved { node: String, app: Option<String> },
    /// `expect app APP queue=Q`: the leaf the application is in now.
    AppQueue { app: String, queue: String },
    /// `expect move-refused APP "text"`: the last move of APP was refused with TEXT.
    MoveRefused { app: String, text: String },
}

/// A parsed scenario.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The initial capacity-scheduler.xml.
    pub config_xml: String,
    /// yarn-site.xml allocation bounds and ACL switch.
    pub cluster: ClusterSettings,
    /// `yarn.cluster.max-application-priority` (YARN's default is 0).
    pub max_application_priority: i64,
    /// The steps, with their line numbers.
    pub steps: Vec<(usize, Step)>,
}

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
                    if let Some(v) = get("max-priority") {
                        max_application_priority = v.parse().map_err(|_| err(format!("bad max-priority {v}")))?;
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
                    steps.push((line_no, Step::Ask { app: first("an application name")?, ask }));
                }
                "heartbeat" => {
                    let target = first("a node name or 'all'")?;
                    let rounds =
                        get("rounds").map_or(Ok(1), |r| r.parse().map_err(|_| err(format!("bad rounds {r}"))))?;
                    steps.push((line_no, Step::Heartbeat { node: (target != "all").then_some(target), rounds }));
                }
                "finish" => {
                    let count = match get("count") {
                        None | Some("all") => None,
                        Some(c) => Some(c.parse().map_err(|_| err(format!("bad count {c}")))?),
                    };
                    steps.push((
                        line_no,
                        Step::Finish {
                            app: first("an application name")?,
                            count,
                            node: get("node").map(str::to_string),
                        },
                    ));
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
                other => return Err(err(format!("unknown step '{other}'"))),
            }
        }
        let config_xml = config_xml.ok_or(ScenarioError { line: 0, message: "no 'config' given".into() })?;
        Ok(Scenario { config_xml, cluster, max_application_priority, steps })
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

/// Runs a scenario, step by step.
pub struct Runner {
    scheduler: Scheduler,
    cluster: ClusterSettings,
    max_application_priority: i64,
    nodes: BTreeMap<String, NodeKey>,
    node_order: Vec<String>,
    apps: HashMap<String, u32>,
    rejected: HashMap<String, String>,
    /// The reason the last refused move of each application gave.
    refused_moves: HashMap<String, String>,
    next_app_id: i32,
    /// Containers allocated so far, by application name, oldest first.
    containers: HashMap<String, Vec<u64>>,
    /// Each managed application's AM container (its first).
    am_containers: HashMap<String, u64>,
}

impl Runner {
    /// Loads the scenario's configuration.
    pub fn new(scenario: &Scenario) -> Result<Runner, ScenarioError> {
        let props = Properties::from_xml(scenario.config_xml.as_bytes(), "scenario config")
            .map_err(|e| ScenarioError { line: 0, message: e.to_string() })?;
        let config = SchedulerConfig::from_properties(&props, scenario.cluster)
            .map_err(|e| ScenarioError { line: 0, message: e.to_string() })?;
        Ok(Runner {
            scheduler: Scheduler::new(config, 0),
            cluster: scenario.cluster,
            max_application_priority: scenario.max_application_priority,
            nodes: BTreeMap::new(),
            node_order: Vec::new(),
            apps: HashMap::new(),
            rejected: HashMap::new(),
            refused_moves: HashMap::new(),
            next_app_id: 1,
            containers: HashMap::new(),
            am_containers: HashMap::new(),
        })
    }

    /// The scheduler, for inspection.
    pub fn scheduler(&self) -> &Scheduler {
        &self.scheduler
    }

    fn app_key(&self, name: &str, line: usize) -> Result<u32, ScenarioError> {
        self.apps.get(name).copied().ok_or_else(|| ScenarioError { line, message: format!("no application '{name}'") })
    }

    /// Applies one step; returns a line describing what happened.
    pub fn step(&mut self, line: usize, step: &Step) -> Result<String, ScenarioError> {
        let err = |m: String| ScenarioError { line, message: m };
        match step {
            Step::Node { name, count, rack, total } => {
                for n in 0..*count {
                    let name = if *count == 1 { name.clone() } else { format!("{name}{}", n + 1) };
                    let key = self.scheduler.add_node(&format!("{name}:8041"), &name, rack, *total);
                    self.nodes.insert(name.clone(), key);
                    self.node_order.push(name);
                }
                Ok(format!("{count} node(s) of {total} added in {rack}"))
            }
            Step::RemoveNode { name } => {
                let key = self.nodes.remove(name).ok_or_else(|| err(format!("no node '{name}'")))?;
                self.node_order.retain(|n| n != name);
                let lost = self.scheduler.remove_node(key);
                for (app, number) in &lost {
                    if let Some(name) = self.apps.iter().find(|(_, k)| *k == app).map(|(n, _)| n.clone()) {
                        self.containers.entry(name).or_default().retain(|n| n != number);
                    }
                }
                Ok(format!("node {name} removed, {} containers lost", lost.len()))
            }
            Step::App { name, queue, user, priority, am } => {
                let sub = Submission {
                    app_id: (1, self.next_app_id),
                    queue: queue.clone(),
                    user: user.clone(),
                    groups: Vec::new(),
                    priority: self.scheduler.application_priority(
                        Some(*priority),
                        queue,
                        self.max_application_priority,
                    ),
                    recovering: false,
                    am_resource: am.unwrap_or(Resource::ZERO),
                };
                self.next_app_id += 1;
                match self.scheduler.submit(&sub) {
                    Err(r) => {
                        self.rejected.insert(name.clone(), r.0.clone());
                        Ok(format!("app {name} rejected: {}", r.0))
                    }
                    Ok((key, path)) => {
                        self.apps.insert(name.clone(), key);
                        self.scheduler.add_attempt(key, 1);
                        if let Some(am) = am {
                            let ask = Ask {
                                key: SchedulerKey { priority: 0, allocation_request_id: 0 },
                                resource_name: ANY.into(),
                                capability: *am,
                                count: 1,
                                relax_locality: true,
                            };
                            self.scheduler.update_requests(key, &[ask]);
                        }
                        Ok(format!("app {name} accepted into {path}"))
                    }
                }
            }
            Step::Ask { app, ask } => {
                let key = self.app_key(app, line)?;
                let headroom = self.scheduler.update_requests(key, std::slice::from_ref(ask));
                Ok(format!(
                    "app {app} asks {}x{} at {}; headroom {headroom}",
                    ask.count, ask.capability, ask.resource_name
                ))
            }
            Step::Heartbeat { node, rounds } => {
                let targets: Vec<String> = match node {
                    Some(n) => vec![n.clone()],
                    None => self.node_order.clone(),
                };
                let names: HashMap<u32, String> = self.apps.iter().map(|(n, k)| (*k, n.clone())).collect();
                let mut count = 0;
                for _ in 0..*rounds {
                    for n in &targets {
                        let key = *self.nodes.get(n).ok_or_else(|| err(format!("no node '{n}'")))?;
                        for a in self.scheduler.node_heartbeat(key, &[]) {
                            use crate::scheduler::AllocationKind;
                            if !matches!(a.kind, AllocationKind::Allocate | AllocationKind::AllocateReserved) {
                                continue;
                            }
                            count += 1;
                            if let Some(name) = names.get(&a.app) {
                                if a.key.priority == 0 && !self.am_containers.contains_key(name) {
                                    self.am_containers.insert(name.clone(), a.number);
                                } else {
                                    self.containers.entry(name.clone()).or_default().push(a.number);
                                }
                            }
                        }
                    }
                }
                Ok(format!("{count} containers allocated"))
            }
            Step::Finish { app, count, node } => {
                let key = self.app_key(app, line)?;
                let on_node = match node {
                    Some(n) => Some(*self.nodes.get(n).ok_or_else(|| err(format!("no node '{n}'")))?),
                    None => None,
                };
                let st = self.scheduler.state();
                let list = self.containers.entry(app.clone()).or_default();
                let candidates: Vec<u64> = list
                    .iter()
                    .copied()
                    .filter(|c| on_node.is_none_or(|n| st.containers.get(&(key, *c)).is_some_and(|x| x.node == n)))
                    .collect();
                let n = count.unwrap_or(candidates.len()).min(candidates.len());
                let chosen: Vec<u64> = candidates[..n].to_vec();
                list.retain(|c| !chosen.contains(c));
                let mut done: Vec<(u32, u64)> = chosen.into_iter().map(|c| (key, c)).collect();
                if count.is_none() && node.is_none() {
                    done.extend(self.am_containers.remove(app).map(|c| (key, c)));
                }
                let n = done.len();
                self.scheduler.release(&done);
                Ok(format!("{n} containers of {app} finished"))
            }
            Step::Remove { app } => {
                let key = self.app_key(app, line)?;
                self.scheduler.remove_attempt(key);
                self.scheduler.remove_app(key);
                self.containers.remove(app);
                self.am_containers.remove(app);
                self.apps.remove(app);
                Ok(format!("app {app} removed"))
            }
            Step::Refresh { xml } => {
                let props = Properties::from_xml(xml.as_bytes(), "refresh").map_err(|e| err(e.to_string()))?;
                match SchedulerConfig::from_properties(&props, self.cluster).and_then(|c| self.scheduler.refresh(c)) {
                    Ok(notices) if notices.is_empty() => Ok("queues refreshed".into()),
                    Ok(notices) => Ok(format!("queues refreshed; {}", notices.join("; "))),
                    Err(e) => Ok(format!("refresh refused: {e}")),
                }
            }
            Step::Move { app, queue } => {
                let key = self.app_key(app, line)?;
                match self.scheduler.move_app(key, queue) {
                    Ok(path) => {
                        self.refused_moves.remove(app);
                        Ok(format!("app {app} moved to {path}"))
                    }
                    Err(r) => {
                        self.refused_moves.insert(app.clone(), r.reason().to_string());
                        Ok(format!("move of {app} refused: {}", r.reason()))
                    }
                }
            }
            Step::Priority { app, priority } => {
                let key = self.app_key(app, line)?;
                let queue =
                    self.scheduler.state().queues.get(self.scheduler.state().apps[&key].queue).path().to_string();
                let p = self.scheduler.application_priority(Some(*priority), &queue, self.max_application_priority);
                self.scheduler.update_priority(key, p);
                Ok(format!("app {app} now runs at priority {p}"))
            }
            Step::Expect(e) => self.check(e).map_err(err),
            Step::Show { queue } => {
                let st = self.scheduler.state();
                let i = st.queues.resolve(queue).map_err(|_| err(format!("no queue '{queue}'")))?;
                let mut users: Vec<(&String, i64)> =
                    st.queues.get(i).users.iter().map(|(n, u)| (n, u.used.memory_mb / 1024)).collect();
                users.sort();
                Ok(users.iter().map(|(n, g)| format!("{n}={g}G")).collect::<Vec<_>>().join(" "))
            }
        }
    }

    fn check(&self, e: &Expectation) -> Result<String, String> {
        let st = self.scheduler.state();
        let queue = |q: &str| st.queues.resolve(q).map_err(|_| format!("no queue '{q}'"));
        let compare = |what: String, got: Resource, want: Resource, vcores: bool| {
            let ok = got.memory_mb == want.memory_mb && (!vcores || got.vcores == want.vcores);
            if ok {
                Ok(format!("ok: {what} = {got}"))
            } else {
                Err(format!("{what}: expected {want}, got {got}"))
            }
        };
        match e {
            Expectation::QueueUsed { queue: q, used, vcores } => {
                let i = queue(q)?;
                compare(format!("queue {q} used"), st.queues.get(i).used, *used, *vcores)
            }
            Expectation::UserUsed { queue: q, user, used, vcores } => {
                let i = queue(q)?;
                let got = st.queues.get(i).users.get(user).map_or(Resource::ZERO, |u| u.used);
                compare(format!("user {user} in {q} used"), got, *used, *vcores)
            }
            Expectation::AppContainers { app, containers } => {
                let key = self.apps.get(app).ok_or(format!("no application '{app}'"))?;
                let got = st.apps[key].containers.len();
                if got == *containers {
                    Ok(format!("ok: {app} holds {got} containers"))
                } else {
                    Err(format!("app {app}: expected {containers} containers, got {got}"))
                }
            }
            Expectation::AppActive { app, active } => {
                let key = self.apps.get(app).ok_or(format!("no application '{app}'"))?;
                let got = st.apps[key].active;
                let word = |b: bool| if b { "active" } else { "pending" };
                if got == *active {
                    Ok(format!("ok: {app} is {}", word(got)))
                } else {
                    Err(format!("app {app}: expected {}, is {}", word(*active), word(got)))
                }
            }
            Expectation::Rejected { app, text } => match self.rejected.get(app) {
                Some(reason) if reason.contains(text.as_str()) => Ok(format!("ok: {app} rejected: {reason}")),
                Some(reason) => Err(format!("app {app} was rejected, but with '{reason}', not containing '{text}'")),
                None => Err(format!("app {app} was not rejected")),
            },
            Expectation::Reserved { node, app } => {
                let key = self.nodes.get(node).ok_or(format!("no node '{node}'"))?;
                let holder = st.nodes[key].reservation.map(|r| r.app);
                let want = match app {
                    Some(a) => Some(*self.apps.get(a).ok_or(format!("no application '{a}'"))?),
                    None => None,
                };
                let name = |k: Option<u32>| {
                    k.and_then(|k| self.apps.iter().find(|(_, v)| **v == k).map(|(n, _)| n.clone()))
                        .unwrap_or_else(|| "none".into())
                };
                if holder == want {
                    Ok(format!("ok: {node} reserved for {}", name(holder)))
                } else {
                    Err(format!("node {node}: expected reservation for {}, found {}", name(want), name(holder)))
                }
            }
            Expectation::AppQueue { app, queue: q } => {
                let key = self.apps.get(app).ok_or(format!("no application '{app}'"))?;
                let want = queue(q)?;
                let got = st.apps[key].queue;
                let path = st.queues.get(got).path();
                if got == want {
                    Ok(format!("ok: {app} is in {path}"))
                } else {
                    Err(format!("app {app}: expected queue {q}, is in {path}"))
                }
            }
            Expectation::MoveRefused { app, text } => match self.refused_moves.get(app) {
                Some(reason) if reason.contains(text.as_str()) => Ok(format!("ok: move of {app} refused: {reason}")),
                Some(reason) => Err(format!("move of {app} was refused, but with '{reason}', not containing '{text}'")),
                None => Err(format!("no move of {app} was refused")),
            },
            Expectation::Headroom { app, memory } => {
                let key = self.apps.get(app).ok_or(format!("no application '{app}'"))?;
                let got = self.scheduler.headroom(*key);
                if got.memory_mb == *memory {
                    Ok(format!("ok: headroom of {app} = {got}"))
                } else {
                    Err(format!("headroom of {app}: expected {memory} MB, got {got}"))
                }
            }
        }
    }

    /// A one-line summary of every queue's usage, for `simulate` output.
    pub fn summary(&self) -> String {
        let st = self.scheduler.state();
        let mut out = String::new();
        for q in st.queues.queues.iter().filter(|q| !q.used.is_none() || q.is_leaf()) {
            let _ = write!(out, "{}={}G ", q.config.name, q.used.memory_mb / 1024);
        }
        out.trim_end().to_string()
    }
}

/// Runs a whole scenario; with `trace`, returns the log of every step.
pub fn run(scenario: &Scenario, trace: bool) -> Result<String, ScenarioError> {
    let mut runner = Runner::new(scenario)?;
    let mut log = String::new();
    for (line, step) in &scenario.steps {
        let what = runner.step(*line, step)?;
        let violations = runner.scheduler.state().invariant_violations();
        if !violations.is_empty() {
            return Err(ScenarioError {
                line: *line,
                message: format!("the books disagree: {}", violations.join("; ")),
            });
        }
        if trace {
            let _ = writeln!(log, "{line:>4}  {what:<60} | {}", runner.summary());
        }
    }
    Ok(log)
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
