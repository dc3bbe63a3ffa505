//! Scenario files: a capacity-scheduler.xml, a cluster, and a sequence of events with
//! expectations, run against the scheduler with no JVM. The same files drive the
//! side-by-side harness that runs Apache's CapacityScheduler, so each step is an event
//! the ResourceManager itself delivers. `docs/scenario-format.md` describes the format.
//!
//! `parse` reads a file into [`Scenario`]; `run` steps a [`Scheduler`] through it.

mod parse;
mod run;

pub use run::{run, Runner};

use crate::config::ClusterSettings;
use crate::model::Ask;
use crate::resource::Resource;
use std::collections::HashMap;

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
    /// `app NAME queue=Q user=U [priority=P] [am=M,V] [unmanaged] [keep-containers]`:
    /// submission, attempt, and (for a managed AM) the RM's ask for the AM container; with
    /// `keep-containers`, a later attempt keeps the containers of the one before.
    App { name: String, queue: String, user: String, priority: i64, am: Option<Resource>, keep_containers: bool },
    /// `ask APP [priority=P] memory=M vcores=V count=N [at=NAME] [relax=false] [id=I]
    /// [label=L]`: a `*` ask without a label is for the queue's default label expression,
    /// as the RM fills it in.
    Ask { app: String, ask: Ask, label: String },
    /// `heartbeat NODE|all [rounds=N]`
    Heartbeat { node: Option<String>, rounds: usize },
    /// `finish APP [count=N|all] [node=NODE]`: the AM releases its oldest task containers
    /// (on NODE, if given); its own container stays (see `unregister`).
    Finish { app: String, count: Option<usize>, node: Option<String> },
    /// `complete APP [count=N|all] [node=NODE]`: the oldest task containers (on NODE, if
    /// given) exit, reported by their NodeManagers' heartbeats (which offer the nodes to
    /// the scheduler too).
    Complete { app: String, count: Option<usize>, node: Option<String> },
    /// `fail-am APP`: the AM container exits; the RM fails the attempt and, while attempts
    /// remain (two in all, YARN's default), starts another, which keeps the task containers
    /// with `keep-containers` (they are killed otherwise).
    FailAm { app: String },
    /// `unregister APP`: the AM unregisters and exits; the application finishes and its
    /// containers are released.
    Unregister { app: String },
    /// `expire-am APP`: the RM's liveliness monitor expires the attempt; it fails as with
    /// `fail-am`.
    ExpireAm { app: String },
    /// `expire-container APP`: the newest task container passes its allocation expiry and
    /// the scheduler takes it back (nothing when the application has none).
    ExpireContainer { app: String },
    /// `node-resource NODE memory=M vcores=V`: `yarn rmadmin -updateNodeResource`.
    NodeResource { name: String, total: Resource },
    /// `node-label NAME [exclusive=false]`: `yarn rmadmin -addToClusterNodeLabels` (a
    /// label is exclusive unless it says otherwise).
    NodeLabel { label: String, exclusive: bool },
    /// `label-node NODE [LABEL]`: `yarn rmadmin -replaceLabelsOnNode`; without a label the
    /// node's label is taken away.
    LabelNode { name: String, label: String },
    /// `blacklist APP [add=NODE,...] [remove=NODE,...]`: the AM's blacklist changes.
    Blacklist { app: String, add: Vec<String>, remove: Vec<String> },
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
    /// `preempt`: one round of the capacity preemption policy; the RM applies its marks
    /// and kills.
    Preempt,
    /// `wait SECONDS`: the preemption policy's clock moves on.
    Wait { seconds: i64 },
    /// `expire-queues`: the auto-created queues' expiration time passes, and the deletion
    /// of idle auto-created queues runs twice (it marks a queue in one round and deletes it
    /// in the next).
    ExpireQueues,
    /// `manage-queues`: one round of the queue-management monitor over managed parents'
    /// leaves (Apache's `QueueManagementDynamicEditPolicy`).
    ManageQueues,
}

impl Step {
    /// The word the step's line starts with.
    pub fn verb(&self) -> &'static str {
        match self {
            Step::Node { .. } => "node",
            Step::RemoveNode { .. } => "remove-node",
            Step::App { .. } => "app",
            Step::Ask { .. } => "ask",
            Step::Heartbeat { .. } => "heartbeat",
            Step::Finish { .. } => "finish",
            Step::Complete { .. } => "complete",
            Step::FailAm { .. } => "fail-am",
            Step::Unregister { .. } => "unregister",
            Step::ExpireAm { .. } => "expire-am",
            Step::ExpireContainer { .. } => "expire-container",
            Step::NodeResource { .. } => "node-resource",
            Step::NodeLabel { .. } => "node-label",
            Step::LabelNode { .. } => "label-node",
            Step::Blacklist { .. } => "blacklist",
            Step::Remove { .. } => "remove",
            Step::Refresh { .. } => "refresh",
            Step::Move { .. } => "move",
            Step::Priority { .. } => "priority",
            Step::Expect(_) => "expect",
            Step::Show { .. } => "show",
            Step::Preempt => "preempt",
            Step::Wait { .. } => "wait",
            Step::ExpireQueues => "expire-queues",
            Step::ManageQueues => "manage-queues",
        }
    }
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
    /// Users' groups, primary first (`cluster groups=user=g1,g2;user2=g3`, Hadoop's static
    /// group mapping syntax), for placement rules and ACLs.
    pub groups: HashMap<String, Vec<String>>,
    /// The steps, with their line numbers.
    pub steps: Vec<(usize, Step)>,
}

impl Scenario {
    /// What the side-by-side harness's own reader must find in the same file: the initial
    /// configuration, then each step as `LINE VERB` (a refresh followed by its
    /// configuration), every configuration trimmed. The Java tests compare it with theirs.
    pub fn outline(&self) -> Vec<String> {
        let mut out = vec![self.config_xml.trim().to_string()];
        for (line, step) in &self.steps {
            let mut entry = format!("{line} {}", step.verb());
            if let Step::Refresh { xml } = step {
                entry.push('\n');
                entry.push_str(xml.trim());
            }
            out.push(entry);
        }
        out
    }
}
