//! Stepping a scheduler through a scenario, checking its expectations and its books.

use super::{Expectation, Scenario, ScenarioError, Step};
use crate::config::{ClusterSettings, Properties, SchedulerConfig};
use crate::ids::{ContainerId, NodeKey, Release, SchedulerKey, ANY};
use crate::model::Ask;
use crate::policy::admission::Submission;
use crate::policy::mapping;
use crate::resource::Resource;
use crate::scheduler::Scheduler;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

/// Runs a scenario, step by step.
pub struct Runner {
    scheduler: Scheduler,
    cluster: ClusterSettings,
    max_application_priority: i64,
    groups: HashMap<String, Vec<String>>,
    nodes: BTreeMap<String, NodeKey>,
    node_order: Vec<String>,
    apps: HashMap<String, u32>,
    rejected: HashMap<String, String>,
    /// The reason the last refused move of each application gave.
    refused_moves: HashMap<String, String>,
    next_app_id: i32,
    /// Containers allocated so far, by application name, oldest first.
    containers: HashMap<String, Vec<ContainerId>>,
    /// Each managed application's AM container (its current attempt's first).
    am_containers: HashMap<String, ContainerId>,
    /// What each application was submitted with that a new attempt needs: its AM's size
    /// (none when unmanaged), whether it keeps containers across attempts, and its
    /// current attempt.
    attempts: HashMap<String, AttemptSpec>,
    /// The preemption policy's clock (ms): `wait` moves it on.
    clock_ms: i64,
    /// The cluster's node labels, with whether each is exclusive, in the order added.
    labels: Vec<(String, bool)>,
}

/// How a scenario application's attempts start over.
#[derive(Debug, Clone, Copy)]
struct AttemptSpec {
    am: Option<Resource>,
    keep_containers: bool,
    current: i32,
}

/// YARN's default `yarn.resourcemanager.am.max-attempts`.
const MAX_ATTEMPTS: i32 = 2;

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
            groups: scenario.groups.clone(),
            nodes: BTreeMap::new(),
            node_order: Vec::new(),
            apps: HashMap::new(),
            rejected: HashMap::new(),
            refused_moves: HashMap::new(),
            next_app_id: 1,
            containers: HashMap::new(),
            am_containers: HashMap::new(),
            attempts: HashMap::new(),
            labels: Vec::new(),
            clock_ms: 0,
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
            Step::App { name, queue, user, priority, am, keep_containers } => {
                let groups = self.groups.get(user).cloned().unwrap_or_default();
                // The RM asks the placement rules first, as the real one does.
                let state = self.scheduler.state();
                let placing =
                    mapping::Submission { user, groups: &groups, queue, application_name: name, recovery: false };
                let (queue, placed) =
                    match mapping::place(&state.config.global.placement, &state.queues, &placing).placement {
                        mapping::Placement::Placed { queue, .. } => (queue, true),
                        mapping::Placement::Unplaced => (queue.clone(), false),
                        mapping::Placement::Rejected { .. } => {
                            self.next_app_id += 1;
                            self.rejected.insert(name.clone(), mapping::REJECTED_MESSAGE.to_string());
                            return Ok(format!("app {name} rejected by a placement rule"));
                        }
                    };
                let queue = &queue;
                let sub = Submission {
                    app_id: (1, self.next_app_id),
                    queue: queue.clone(),
                    user: user.clone(),
                    groups,
                    // Scenarios do not exercise priority ACLs: no caller is named.
                    priority: self
                        .scheduler
                        .application_priority(Some(*priority), queue, self.max_application_priority, None)
                        .unwrap_or_else(|p| p),
                    recovering: false,
                    // An unmanaged AM asks the RM for no container; Apache still counts
                    // the minimum allocation against the AM limits for it.
                    am_resource: am.unwrap_or_else(|| self.scheduler.state().minimum_allocation()),
                    // The RM gives the AM's request its queue's default label expression.
                    am_label: match (am, self.scheduler.state().queues.resolve(queue)) {
                        (Some(_), Ok(leaf)) => self
                            .scheduler
                            .state()
                            .queues
                            .get(leaf)
                            .config
                            .default_node_label_expression
                            .clone()
                            .unwrap_or_default(),
                        _ => String::new(),
                    },
                    placed,
                };
                self.next_app_id += 1;
                self.scheduler.set_clock(self.clock_ms);
                match self.scheduler.submit(&sub) {
                    Err(r) => {
                        self.rejected.insert(name.clone(), r.0.clone());
                        Ok(format!("app {name} rejected: {}", r.0))
                    }
                    Ok((key, path)) => {
                        self.apps.insert(name.clone(), key);
                        let spec = AttemptSpec { am: *am, keep_containers: *keep_containers, current: 1 };
                        self.attempts.insert(name.clone(), spec);
                        self.start_attempt(key, spec);
                        Ok(format!("app {name} accepted into {path}"))
                    }
                }
            }
            Step::Ask { app, ask, label } => {
                let key = self.app_key(app, line)?;
                let label = self.label_for(key, &ask.resource_name, label);
                // The attempt waits for its AM container until it is placed (an unmanaged
                // AM has none to wait for), as the RM tells the scheduler on every allocate.
                let unmanaged = self.attempts.get(app).is_some_and(|spec| spec.am.is_none());
                let placed = self.scheduler.state().apps.get(&key).is_some_and(|a| a.am_container.is_some());
                self.scheduler.update_blacklist(key, !unmanaged && !placed, &[], &[]);
                let headroom = self.scheduler.update_labelled_requests(key, std::slice::from_ref(ask), &[label]);
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
                let mut count = 0;
                for _ in 0..*rounds {
                    for n in &targets {
                        count += self.beat(n).map_err(err)?;
                    }
                }
                Ok(format!("{count} containers allocated"))
            }
            Step::Finish { app, count, node } => {
                let key = self.app_key(app, line)?;
                let done = self.take_containers(app, key, *count, node.as_deref()).map_err(err)?;
                let n = done.len();
                self.scheduler.release(&done);
                Ok(format!("{n} containers of {app} released"))
            }
            Step::Complete { app, count, node } => {
                let key = self.app_key(app, line)?;
                let done = self.take_containers(app, key, *count, node.as_deref()).map_err(err)?;
                let st = self.scheduler.state();
                let mut nodes: Vec<String> = self
                    .node_order
                    .iter()
                    .filter(|n| {
                        done.iter().any(|c| st.containers.get(c).is_some_and(|x| Some(&x.node) == self.nodes.get(*n)))
                    })
                    .cloned()
                    .collect();
                nodes.dedup();
                self.scheduler.release(&done);
                let mut placed = 0;
                for n in &nodes {
                    placed += self.beat(n).map_err(err)?;
                }
                Ok(format!("{} containers of {app} completed; {placed} allocated", done.len()))
            }
            Step::ExpireContainer { app } => {
                let key = self.app_key(app, line)?;
                let newest = self.containers.get_mut(app).and_then(Vec::pop);
                let Some(c) = newest else { return Ok(format!("{app} has no container to expire")) };
                self.scheduler.release(&[(key, c)]);
                Ok(format!("container {c} of {app} expired"))
            }
            Step::FailAm { app } | Step::ExpireAm { app } => {
                let key = self.app_key(app, line)?;
                let mut spec = self.attempts[app];
                let mut done: Vec<(u32, ContainerId)> =
                    self.am_containers.remove(app).map(|c| (key, c)).into_iter().collect();
                if !spec.keep_containers {
                    done.extend(self.containers.remove(app).unwrap_or_default().into_iter().map(|c| (key, c)));
                }
                self.scheduler.release(&done);
                self.scheduler.remove_attempt(key);
                if spec.current >= MAX_ATTEMPTS {
                    self.end_app(app, key);
                    return Ok(format!("the AM of {app} failed; no attempts left, the application failed"));
                }
                spec.current += 1;
                self.attempts.insert(app.clone(), spec);
                self.start_attempt(key, spec);
                Ok(format!("the AM of {app} failed; attempt {} started", spec.current))
            }
            Step::Unregister { app } => {
                let key = self.app_key(app, line)?;
                let mut done: Vec<(u32, ContainerId)> =
                    self.containers.remove(app).unwrap_or_default().into_iter().map(|c| (key, c)).collect();
                done.extend(self.am_containers.remove(app).map(|c| (key, c)));
                self.scheduler.release(&done);
                self.end_app(app, key);
                Ok(format!("app {app} finished"))
            }
            Step::NodeResource { name, total } => {
                let key = *self.nodes.get(name).ok_or_else(|| err(format!("no node '{name}'")))?;
                self.scheduler.update_node_resource(key, *total);
                // The RM's label manager then announces the node again, and the scheduler
                // drops its reservation and works its limits out again (as Apache's does).
                let reserved = self.scheduler.state().nodes.get(&key).and_then(|n| n.reservation.as_ref());
                if let Some(r) = reserved.map(|r| (r.app, r.container)) {
                    self.scheduler.apply_releases(&[Release::Done(r)]);
                }
                self.scheduler.resize_cluster();
                Ok(format!("node {name} now offers {total}"))
            }
            Step::NodeLabel { label, exclusive } => {
                // The scheduler hears of it with the next node it labels, as from the RM.
                if !self.labels.iter().any(|(l, _)| l == label) {
                    self.labels.push((label.clone(), *exclusive));
                }
                Ok(format!("the cluster has label {label}"))
            }
            Step::LabelNode { name, label } => {
                let key = *self.nodes.get(name).ok_or_else(|| err(format!("no node '{name}'")))?;
                if !label.is_empty() && !self.labels.iter().any(|(l, _)| l == label) {
                    return Err(err(format!("no node label '{label}' (add it with node-label first)")));
                }
                // As for a new size, the node's reservation is dropped first (see above).
                let reserved = self.scheduler.state().nodes.get(&key).and_then(|n| n.reservation.as_ref());
                if let Some(r) = reserved.map(|r| (r.app, r.container)) {
                    self.scheduler.apply_releases(&[Release::Done(r)]);
                }
                self.scheduler.relabel_nodes(&self.labels, &[(key, label.clone())]);
                Ok(format!("node {name} is now in partition '{label}'"))
            }
            Step::Blacklist { app, add, remove } => {
                let key = self.app_key(app, line)?;
                self.scheduler.update_blacklist(key, false, add, remove);
                Ok(format!("blacklist of {app}: +{add:?} -{remove:?}"))
            }
            Step::Remove { app } => {
                let key = self.app_key(app, line)?;
                self.end_app(app, key);
                Ok(format!("app {app} removed"))
            }
            Step::Refresh { xml } => {
                let props = Properties::from_xml(xml.as_bytes(), "refresh").map_err(|e| err(e.to_string()))?;
                let loaded = SchedulerConfig::from_properties(&props, self.cluster);
                if loaded.is_err() {
                    self.scheduler.refused_refresh();
                }
                match loaded.and_then(|c| self.scheduler.refresh(c)) {
                    Ok(notices) if notices.is_empty() => Ok("queues refreshed".into()),
                    Ok(notices) => Ok(format!("queues refreshed; {}", notices.join("; "))),
                    Err(e) => Ok(format!("refresh refused: {e}")),
                }
            }
            Step::Move { app, queue } => {
                let key = self.app_key(app, line)?;
                match self.scheduler.move_app(key, queue) {
                    Ok(path) => {
                        for (owner, c) in self.scheduler.take_killed() {
                            self.scheduler.apply_releases(&[Release::Done((owner, c))]);
                            self.forget_container(owner, c);
                        }
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
                let p = self
                    .scheduler
                    .application_priority(Some(*priority), &queue, self.max_application_priority, None)
                    .unwrap_or_else(|p| p);
                self.scheduler.update_priority(key, p);
                Ok(format!("app {app} now runs at priority {p}"))
            }
            Step::Preempt => Ok(self.preempt()),
            Step::Wait { seconds } => {
                self.clock_ms += seconds * 1000;
                Ok(format!("{seconds} s pass"))
            }
            Step::ExpireQueues => {
                let expiration = self.scheduler.state().config.global.auto_queue_expiration_secs;
                self.clock_ms += (expiration + 1) * 1000 + 100;
                self.scheduler.set_clock(self.clock_ms);
                let mut deleted = self.scheduler.delete_expired_queues();
                deleted.extend(self.scheduler.delete_expired_queues());
                Ok(if deleted.is_empty() {
                    "no queue deleted".into()
                } else {
                    format!("deleted {}", deleted.join(", "))
                })
            }
            Step::ManageQueues => Ok(if self.scheduler.manage_queues() {
                "managed leaves' guarantees changed".into()
            } else {
                "no managed leaf changed".into()
            }),
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

    /// One preemption round, its decisions applied as the RM applies the policy's events:
    /// a mark only tells the AM; a kill ends the container (with lazy preemption, marks it
    /// killable); a reservation killed is dropped.
    fn preempt(&mut self) -> String {
        use crate::preemption::ActionKind;
        let (mut marked, mut killed, mut killable, mut unreserved, mut moved) = (0, 0, 0, 0, 0);
        for a in self.scheduler.preemption_round(self.clock_ms) {
            match a.kind {
                ActionKind::Mark => marked += 1,
                ActionKind::MoveReservation => {
                    if let (Some(from), Some(to)) = (a.node, a.to) {
                        moved += usize::from(self.scheduler.move_reservation(a.app, a.container, from, to));
                    }
                }
                ActionKind::Kill | ActionKind::KillReserved => {
                    let live = self.scheduler.state().containers.contains_key(&(a.app, a.container));
                    if a.kind == ActionKind::Kill && !live {
                        continue;
                    }
                    if a.kind == ActionKind::Kill {
                        if !self.scheduler.container_killable((a.app, a.container)) {
                            killable += 1;
                            continue;
                        }
                        killed += 1;
                    } else {
                        unreserved += 1;
                    }
                    self.scheduler.apply_releases(&[Release::Done((a.app, a.container))]);
                    self.forget_container(a.app, a.container);
                }
            }
        }
        let killable = if killable > 0 { format!(", {killable} marked killable") } else { String::new() };
        let moved = if moved > 0 { format!(", {moved} reservations moved") } else { String::new() };
        format!("preemption: {marked} marked, {killed} killed{killable}, {unreserved} reservations dropped{moved}")
    }

    /// The runner's lists no longer hold a container the RM ended.
    fn forget_container(&mut self, app: u32, container: ContainerId) {
        if let Some(name) = self.apps.iter().find(|(_, k)| **k == app).map(|(n, _)| n.clone()) {
            self.containers.entry(name.clone()).or_default().retain(|c| *c != container);
            if self.am_containers.get(&name) == Some(&container) {
                self.am_containers.remove(&name);
            }
        }
    }

    /// Starts `spec.current`, the application's next attempt, with the RM's ask for its AM
    /// container (for a managed AM).
    fn start_attempt(&mut self, key: u32, spec: AttemptSpec) {
        self.scheduler.add_attempt(key, spec.current, spec.keep_containers && spec.current > 1);
        if let Some(am) = spec.am {
            let ask = Ask {
                key: SchedulerKey { priority: 0, allocation_request_id: 0 },
                resource_name: ANY.into(),
                capability: am,
                count: 1,
                relax_locality: true,
            };
            let label = self.label_for(key, ANY, "");
            self.scheduler.update_labelled_requests(key, &[ask], &[label]);
        }
    }

    /// The label the RM gives an ask at `resource_name` that names `label`: a `*` ask that
    /// names none takes its queue's default label expression (Apache's
    /// `normalizeNodeLabelExpressionInRequest`).
    fn label_for(&self, app: u32, resource_name: &str, label: &str) -> String {
        if !label.is_empty() || resource_name != ANY {
            return label.to_string();
        }
        let s = self.scheduler.state();
        s.apps
            .get(&app)
            .and_then(|a| s.queues.get(a.queue).config.default_node_label_expression.clone())
            .unwrap_or_default()
    }

    /// The application's attempt and the application end; what it still holds is released.
    fn end_app(&mut self, app: &str, key: u32) {
        self.scheduler.remove_attempt(key);
        self.scheduler.remove_app(key);
        self.containers.remove(app);
        self.am_containers.remove(app);
        self.attempts.remove(app);
        self.apps.remove(app);
    }

    /// One heartbeat of node `name`; records what it allocated. Returns how many containers.
    fn beat(&mut self, name: &str) -> Result<usize, String> {
        use crate::scheduler::AllocationKind;
        let key = *self.nodes.get(name).ok_or_else(|| format!("no node '{name}'"))?;
        let names: HashMap<u32, String> = self.apps.iter().map(|(n, k)| (*k, n.clone())).collect();
        let mut count = 0;
        for a in self.scheduler.node_heartbeat(key, &[]) {
            if a.kind == AllocationKind::Preempt {
                // A killable container killed to make room: the RM ends it at once.
                self.scheduler.apply_releases(&[Release::Done((a.app, a.container))]);
                self.forget_container(a.app, a.container);
                continue;
            }
            if !matches!(a.kind, AllocationKind::Allocate | AllocationKind::AllocateReserved) {
                continue;
            }
            count += 1;
            if let Some(name) = names.get(&a.app) {
                if a.key.priority == 0 && !self.am_containers.contains_key(name) {
                    self.am_containers.insert(name.clone(), a.container);
                } else {
                    self.containers.entry(name.clone()).or_default().push(a.container);
                }
            }
        }
        Ok(count)
    }

    /// Takes the application's oldest `count` task containers (all without a count), on
    /// `node` if given, out of its list.
    fn take_containers(
        &mut self,
        app: &str,
        key: u32,
        count: Option<usize>,
        node: Option<&str>,
    ) -> Result<Vec<(u32, ContainerId)>, String> {
        let on_node = match node {
            Some(n) => Some(*self.nodes.get(n).ok_or_else(|| format!("no node '{n}'"))?),
            None => None,
        };
        let st = self.scheduler.state();
        let list = self.containers.entry(app.to_string()).or_default();
        let candidates: Vec<ContainerId> = list
            .iter()
            .copied()
            .filter(|c| on_node.is_none_or(|n| st.containers.get(&(key, *c)).is_some_and(|x| x.node == n)))
            .collect();
        let n = count.unwrap_or(candidates.len()).min(candidates.len());
        let chosen: Vec<ContainerId> = candidates[..n].to_vec();
        list.retain(|c| !chosen.contains(c));
        Ok(chosen.into_iter().map(|c| (key, c)).collect())
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
