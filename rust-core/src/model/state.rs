//! Everything the scheduler knows, in one value: the configuration in force, the queue
//! tree with its usage, nodes, applications and containers. The policy reads it (`&State`);
//! only the scheduler changes it, and only through the ledger when containers and
//! reservations come and go.

use crate::config::SchedulerConfig;
use crate::ids::{AppKey, ContainerRef, NodeKey, SchedulerKey};
use crate::model::{App, Node, Partitions, QueueTree};
use crate::resource::{Resource, ResourceCalculator};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::sync::Arc;

/// A container as the scheduler tracks it.
#[derive(Debug, Clone, PartialEq)]
pub struct Container {
    /// The node it runs on.
    pub node: NodeKey,
    /// Its size.
    pub resource: Resource,
    /// The request it satisfied.
    pub key: SchedulerKey,
    /// When it was booked (wall clock, ms): Apache's `RMContainer` creation time.
    pub created_ms: i64,
    /// Its place in the order containers were booked on nodes.
    pub booked: u64,
    /// Its request was for the default partition (Apache's `RMContainer` node-label
    /// expression is empty).
    pub asked_default: bool,
    /// The labelled partition it was lent in: a default-partition request placed on a
    /// non-exclusive node, as Apache's leaf lists it among the containers that ignored
    /// partition exclusivity (set when booked or moved to the leaf, under the node's
    /// partition then; a later relabel does not change it). Preemption takes these back
    /// first.
    pub lent_in: Option<crate::model::PartitionId>,
    /// Its NodeManager has reported it running (or it was recovered from one): from then
    /// its node keeps its share after its application lets go of it until the NodeManager
    /// reports it gone, as Apache's scheduler node keeps a launched container's.
    pub launched: bool,
    /// Its NodeManager has reported it gone before the core heard that its application let
    /// go of it: the RM released it on one thread (an AM's `allocate()`), the node's
    /// heartbeat reported it finished on another, and the heartbeat crossed first. The
    /// release that follows, though it says the node holds the container, frees all of it.
    pub freed_by_node: bool,
}

/// A container its application let go of that still runs on its node until the
/// NodeManager reports it gone. Apache's scheduler node keeps it among its containers, so
/// the preemption policy's node walks still see it.
#[derive(Debug, Clone, PartialEq)]
pub struct Leaving {
    /// The container as it was booked.
    pub container: Container,
    /// Its application's id, `(cluster timestamp, sequence number)`.
    pub app_id: (i64, i32),
    /// The leaf it was charged to (its `RMContainer`'s queue name).
    pub queue: String,
    /// It was its attempt's ApplicationMaster.
    pub am: bool,
}

/// Everything the scheduler knows. Public so the pure decision functions can read it.
#[derive(Debug, Clone)]
pub struct State {
    /// The configuration in force.
    pub config: Arc<SchedulerConfig>,
    /// The queue tree with usage.
    pub queues: QueueTree,
    /// Live nodes.
    pub nodes: HashMap<NodeKey, Node>,
    /// Live applications, each in a box of its own: the map's slots stay small enough to
    /// stay in cache, and a walk over a leaf's applications finds each one's scheduling
    /// fields together at its start (see [`App`]).
    pub apps: HashMap<AppKey, Box<App>>,
    /// Live containers.
    pub containers: HashMap<ContainerRef, Container>,
    /// Containers their application let go of that still hold a share of their node (see
    /// `Node::leaving`), by the node.
    pub leaving: HashMap<ContainerRef, NodeKey>,
    /// Total resources of all live nodes.
    pub cluster: Resource,
    /// The node partitions (labels), with what the live nodes in each offer.
    pub partitions: Partitions,
    /// The RM's epoch (bumped at each restart), carried in container numbers.
    pub epoch: u64,
    /// The key the next node added gets.
    pub(crate) next_node: NodeKey,
    /// The key the next application admitted gets.
    pub(crate) next_app: AppKey,
    /// Runnable applications per user, across queues (for `user.max-parallel-apps`).
    pub user_runnable: HashMap<String, usize>,
    /// The start order the next attempt gets (Apache orders applications waiting on
    /// `max-parallel-apps` by their attempt's start time).
    pub(crate) next_attempt_seq: u64,
    /// The most nodes held at once: the size of Apache's map of nodes, whose iteration
    /// order the preemption policy follows.
    pub most_nodes: usize,
    /// How many containers have been booked on nodes: each takes the next number, the
    /// order Apache's node map of containers keeps within a bucket.
    pub(crate) bookings: u64,
    /// Live containers marked killable by lazy preemption (see `Node::killable`).
    pub killable: HashSet<ContainerRef>,
    /// Changes whenever the queues' paths, or their order in the tree, change: while it
    /// stays, so does the shim's directory of queues.
    pub queue_layout: u64,
    /// Changes whenever the layout does, or any queue's accessible labels or default
    /// label expression change: while it stays, so do the shim's queues' labels.
    pub queue_labels_version: u64,
}

impl State {
    /// A state with no nodes and no applications, for `config`.
    pub fn new(config: SchedulerConfig, epoch: u64) -> Self {
        let queues = QueueTree::build(&config);
        State {
            config: Arc::new(config),
            queues,
            nodes: HashMap::default(),
            apps: HashMap::default(),
            containers: HashMap::default(),
            leaving: HashMap::default(),
            cluster: Resource::ZERO,
            partitions: Partitions::default(),
            epoch,
            next_node: 0,
            next_app: 0,
            user_runnable: HashMap::default(),
            next_attempt_seq: 0,
            most_nodes: 0,
            bookings: 0,
            killable: HashSet::default(),
            queue_layout: 0,
            queue_labels_version: 0,
        }
    }

    /// The live application `key`.
    pub fn app(&self, key: AppKey) -> Option<&App> {
        self.apps.get(&key).map(|a| &**a)
    }

    /// What the live nodes of the default partition offer: the resource every capacity
    /// and limit of the default partition is a share of (the whole cluster while no node
    /// has a label).
    pub fn default_partition(&self) -> Resource {
        self.partitions.default_resource()
    }

    /// The most `queue` may hold in `partition`: its effective maximum there (in a
    /// labelled partition, nothing until the queue has a share of it).
    pub fn maximum_in(&self, queue: crate::ids::QueueIndex, partition: crate::model::PartitionId) -> Resource {
        self.effective_in(queue, partition).1
    }

    /// What `queue` is guaranteed in `partition` (see [`State::maximum_in`]).
    pub fn guaranteed_in(&self, queue: crate::ids::QueueIndex, partition: crate::model::PartitionId) -> Resource {
        self.effective_in(queue, partition).0
    }

    /// `queue`'s effective guarantee and maximum in `partition`.
    pub fn effective_in(
        &self,
        queue: crate::ids::QueueIndex,
        partition: crate::model::PartitionId,
    ) -> (Resource, Resource) {
        let q = self.queues.get(queue);
        if partition == crate::model::DEFAULT_PARTITION {
            return (q.guaranteed(), q.maximum());
        }
        q.labelled.get(&partition).map_or((Resource::ZERO, Resource::ZERO), |s| (s.effective_min, s.effective_max))
    }

    /// The configured resource calculator.
    pub fn calculator(&self) -> ResourceCalculator {
        self.config.global.resource_calculator
    }

    /// `yarn.scheduler.minimum-allocation-*`: the step containers and limits are rounded to.
    pub fn minimum_allocation(&self) -> Resource {
        self.config.cluster.minimum_allocation
    }

    /// Missed opportunities a request waits for a node-local container before it takes a
    /// rack-local one: `node-locality-delay`, capped by the number of nodes (Apache's
    /// `getActualNodeLocalityDelay`).
    pub fn node_locality_delay(&self) -> u64 {
        (self.nodes.len() as u64).min(self.config.global.node_locality_delay.max(0) as u64)
    }
}
