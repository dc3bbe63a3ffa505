//! Capacity preemption: taking containers back from queues that hold more than their
//! ideal share, so that queues below their guarantee get it (Apache's
//! `ProportionalCapacityPreemptionPolicy`, whose rules docs/apache-preemption.md sets out
//! with the places Apache decides them).
//!
//! A round ([`Preemption::round`]) is a pure function of the scheduler's state plus one
//! remembered thing, when each container was first marked:
//! 1. `ideal`: the queues are copied, and each queue's ideal assignment and what each leaf
//!    owes this round are worked out (guarantees, the dead zone, natural termination, the
//!    per-round budget);
//! 2. the selectors choose containers, in Apache's order, each skipping what an earlier
//!    one chose: `queue_priority` (if under-utilized queue-priority preemption is on)
//!    where a reservation of an under-served leaf of higher priority needs room on its
//!    node; `reserved` (if `select_based_on_reserved_containers`) where taking a
//!    node's containers makes room for its reservation; `select` toward each leaf's debt,
//!    youngest applications first, ApplicationMasters last (then, if enabled, again to
//!    balance queues once all are satisfied); `intra` (if intra-queue preemption is on)
//!    inside the leaves found under-served, for applications of higher priority or users
//!    under their limits;
//! 3. each chosen container is marked (the application is told, in its next `allocate()`,
//!    through a `PreemptionMessage`), and killed once it has been marked for
//!    `max_wait_before_kill` — as PREEMPTED — if it is still chosen then.
//!
//! The round only decides. The RM applies its actions as Apache's policy's events
//! (MARK_CONTAINER_FOR_PREEMPTION, MARK_CONTAINER_FOR_KILLABLE, KILL_RESERVED_CONTAINER),
//! on the scheduler's own thread, where they change the state like any other event.

mod arith;
mod ideal;
mod intra;
mod queue_priority;
mod reserved;
mod select;

use crate::ids::{AppKey, ContainerId, ContainerRef, NodeKey, QueueIndex};
use crate::java_order;
use crate::model::{PartitionId, State};
use crate::resource::Resource;
use arith::{mul, Calc};
use ideal::Mode;
use rustc_hash::FxHashMap as HashMap;
use select::Selection;

pub use crate::config::PreemptionSettings as Settings;

/// Whether preemption may take containers from a queue, and from one application for
/// another inside it (Apache's `CSQueuePreemptionSettings`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Switches {
    /// `<q>.disable_preemption`, inherited; always so with the monitor off.
    pub disabled: bool,
    /// `<q>.intra-queue-preemption.disable_preemption`, inherited, or `disabled`; always
    /// so with intra-queue preemption off.
    pub intra_queue_disabled: bool,
}

/// Every queue's switches under the configuration in force, in tree order: a queue's own
/// setting, else its parent's.
pub fn switches(state: &State) -> Vec<Switches> {
    switches_under(state, &state.config.global.preemption)
}

fn switches_under(state: &State, settings: &Settings) -> Vec<Switches> {
    let mut out: Vec<(Switches, bool)> = Vec::with_capacity(state.queues.queues.len());
    for q in &state.queues.queues {
        let inherited = q.config.parent.map(|p| out[p]);
        out.push(switches_step(settings, q, inherited));
    }
    out.into_iter().map(|(switches, _)| switches).collect()
}

/// The switches of the queue at `index` alone (its ancestors' worked out on the way).
pub fn switches_of(state: &State, index: QueueIndex) -> Switches {
    fn walk(state: &State, settings: &Settings, index: QueueIndex) -> (Switches, bool) {
        let q = state.queues.get(index);
        let inherited = q.config.parent.map(|p| walk(state, settings, p));
        switches_step(settings, q, inherited)
    }
    walk(state, &state.config.global.preemption, index).0
}

/// A queue's switches, and whether intra-queue preemption is disabled in its hierarchy
/// (what its children inherit), from its own settings and its parent's (`inherited`).
fn switches_step(
    settings: &Settings,
    q: &crate::model::Queue,
    inherited: Option<(Switches, bool)>,
) -> (Switches, bool) {
    let disabled = !settings.monitor_enabled
        || q.config.disable_preemption.unwrap_or_else(|| inherited.is_some_and(|(p, _)| p.disabled));
    let intra = !settings.intra_queue_enabled
        || q.config.intra_queue_disable_preemption.unwrap_or_else(|| inherited.is_some_and(|(_, intra)| intra));
    (Switches { disabled, intra_queue_disabled: intra || disabled }, intra)
}

/// What the RM is to do with a container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionKind {
    /// Tell its application it will be taken (MARK_CONTAINER_FOR_PREEMPTION).
    Mark,
    /// End it as PREEMPTED (MARK_CONTAINER_FOR_KILLABLE).
    Kill,
    /// Drop the reservation (KILL_RESERVED_CONTAINER).
    KillReserved,
    /// Move the reservation from `node` to `to` (Apache's policy calls the scheduler's
    /// `moveReservedContainer` itself, at once).
    MoveReservation,
}

/// One decision of a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Action {
    /// What to do.
    pub kind: ActionKind,
    /// The application holding the container.
    pub app: AppKey,
    /// The container.
    pub container: ContainerId,
    /// The node, for a reserved container.
    pub node: Option<NodeKey>,
    /// The node a reservation moves to.
    pub to: Option<NodeKey>,
}

/// A container a selector chose this round.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    container: ContainerRef,
    /// The node it is reserved on, if it is a reservation.
    reserved_on: Option<NodeKey>,
    /// Chosen by the balancing selector (its own kill wait).
    balance: bool,
}

/// What a round decided, and the leaves whose applications it ordered (Apache's
/// preemption iterator, which takes stale fair caches afresh).
#[derive(Debug, Clone, Default)]
pub struct Round {
    /// The actions for the RM, in the order to apply them.
    pub actions: Vec<Action>,
    /// Leaves whose applications were ordered.
    pub reordered: Vec<QueueIndex>,
    /// Leaves whose user limits the round looked up in a partition (to cap each active
    /// application's pending asks), as Apache's policy does through the leaf's user-limit
    /// cache of the partition.
    pub looked_up: Vec<(QueueIndex, PartitionId)>,
    /// Leaves whose users' limits counting all users the round looked up in a partition
    /// (intra-queue preemption's, through the leaf's other user-limit cache), each with the
    /// limit read.
    pub looked_up_among_all: Vec<(QueueIndex, PartitionId, Resource)>,
}

/// The policy across rounds: when each container still remembered was first marked.
#[derive(Debug, Clone, Default)]
pub struct Preemption {
    marked: HashMap<ContainerRef, i64>,
    /// Whether the last round's result hung on the order of equally under-served queues.
    last_round_tie_order_mattered: bool,
}

impl Preemption {
    /// One round at time `now` (ms).
    pub fn round(&mut self, state: &State, settings: &Settings, now: i64) -> Round {
        let calc = Calc(state.calculator());
        let cluster = state.cluster;
        let mut parts = ideal::snapshot(state, settings);
        let looked_up: Vec<(QueueIndex, PartitionId)> = parts
            .iter()
            .flat_map(|p| p.tqs.iter().filter(|t| t.looked_up).map(move |t| (t.queue, p.partition)))
            .collect();
        let leaves = leaf_order(state, 0);
        let mut sel = Selection {
            chosen: Vec::new(),
            chosen_set: Default::default(),
            allowed: mul(cluster, f64::from(settings.total_preemption_per_round)),
            skip_killable: settings.lazy,
        };
        let mut actions = Vec::new();
        let mut reordered = Vec::new();
        // First (if enabled) room for the reservations of under-served leaves of higher
        // priority, their age measured on the wall clock as Apache's selector does. A
        // reservation it moves (`allow-move-reservation`) is moved at once, as Apache's
        // selector has the scheduler do: the later selectors see it where it went.
        let moved_state;
        let state = if settings.under_utilized_enabled {
            let wall_now = crate::model::wall_clock_ms();
            let rules = queue_priority::Rules {
                delay_ms: settings.under_utilized_delay_ms,
                move_reservations: settings.under_utilized_move_reservation,
            };
            let moves = queue_priority::select(state, &parts, calc, rules, wall_now, &mut sel);
            if moves.is_empty() {
                state
            } else {
                let mut moved = state.clone();
                for &(r, to) in &moves {
                    moved.move_reservation(r.node, to);
                    actions.push(Action {
                        kind: ActionKind::MoveReservation,
                        app: r.app,
                        container: r.container,
                        node: Some(r.node),
                        to: Some(to),
                    });
                }
                moved_state = moved;
                &moved_state
            }
        } else {
            state
        };
        // Then (if enabled) room for reservations, with its own ideal assignment.
        if settings.select_for_reservations {
            let mode = Mode { reserved: true, balance: false };
            ideal::compute(&mut parts, calc, cluster, settings, &leaves, sel.allowed, mode);
            reserved::select(state, &parts, calc, &leaves, &mut sel);
        }
        // The main FIFO selector, then (if enabled) the balancing one.
        let main = Mode { reserved: settings.reserved_counts_as_pending, balance: false };
        let passes: &[Mode] =
            if settings.balance_after_satisfied { &[main, Mode { reserved: false, balance: true }] } else { &[main] };
        for &mode in passes {
            ideal::compute(&mut parts, calc, cluster, settings, &leaves, sel.allowed, mode);
            select::deduct_selected(state, &mut parts, calc, &sel);
            select::fifo(
                state,
                &parts,
                calc,
                &leaves,
                settings.conservative_drf,
                settings.observe_only,
                mode.balance,
                &mut sel,
                &mut actions,
                &mut reordered,
            );
        }
        // Then (if enabled) inside the leaves found under-served, partition by partition.
        let mut looked_up_among_all = Vec::new();
        if settings.intra_queue_enabled {
            let mut intra_leaves = intra::demand(state, &parts, calc, settings, &sel);
            intra::deduct_selected(state, &parts, &mut intra_leaves, calc, &sel);
            intra::select(state, calc, settings, &parts, &intra_leaves, &mut sel);
            looked_up_among_all.extend(intra::looked_up(&intra_leaves));
        }
        if log::log_enabled!(log::Level::Debug) {
            for part in &parts {
                for &leaf in &leaves {
                    let t = &part.tqs[leaf];
                    log::debug!(
                        "preemption: {} in partition {:?} guaranteed {} used {} pending {} ideal {} to give back {}",
                        state.queues.get(t.queue).path(),
                        state.partitions.get(part.partition).name,
                        t.guaranteed,
                        t.used,
                        t.pending,
                        t.ideal,
                        t.actually_to_be_preempted
                    );
                }
            }
        }
        self.last_round_tie_order_mattered = parts.iter().any(|p| p.under_served.tie_order_mattered());
        if settings.observe_only {
            return Round { actions, reordered, looked_up, looked_up_among_all };
        }
        for c in &sel.chosen {
            let wait = if c.balance && settings.balance_max_wait_before_kill_ms > 0 {
                settings.balance_max_wait_before_kill_ms
            } else {
                settings.max_wait_before_kill_ms
            };
            let action =
                |kind| Action { kind, app: c.container.0, container: c.container.1, node: c.reserved_on, to: None };
            match self.marked.get(&c.container) {
                Some(&first) if first + wait <= now => {
                    self.marked.remove(&c.container);
                    actions.push(action(ActionKind::Kill));
                }
                Some(_) => {}
                None => {
                    self.marked.insert(c.container, now);
                    actions.push(action(ActionKind::Mark));
                }
            }
        }
        let forget_before = now - 2 * settings.max_wait_before_kill_ms;
        self.marked.retain(|_, &mut first| first >= forget_before);
        Round { actions, reordered, looked_up, looked_up_among_all }
    }

    /// How many containers are remembered as marked (for reports and tests).
    pub fn marked(&self) -> usize {
        self.marked.len()
    }

    /// Whether the last round's ideal assignment hung on the order in which equally
    /// under-served queues were offered what was left, an order Apache's policy takes
    /// from identity hash codes (so its own result differs from one JVM to the next).
    /// For the side-by-side harness, which cannot expect Apache's pick there.
    pub fn last_round_tie_order_mattered(&self) -> bool {
        self.last_round_tie_order_mattered
    }
}

/// A container on a node as Apache's scheduler node lists it: live, or let go of by its
/// application but still running until its NodeManager reports it gone (the node walks of
/// the reserved-container and queue-priority selectors see both).
#[derive(Debug, Clone, Copy)]
struct OnNode {
    container: ContainerRef,
    app_id: (i64, i32),
    /// Its leaf: its application's, or for one let go of the one it was charged to (None
    /// if that queue has left the tree).
    queue: Option<QueueIndex>,
    size: Resource,
    created_ms: i64,
    /// Its place in the order containers were booked on nodes.
    booked: u64,
    am: bool,
}

/// Every container on `node`, live or leaving, in no particular order.
fn containers_on_node(state: &State, node: NodeKey) -> Vec<OnNode> {
    let Some(n) = state.nodes.get(&node) else { return Vec::new() };
    let live = n.containers.iter().filter_map(|&c| {
        let app = state.apps.get(&c.0)?;
        let x = state.containers.get(&c)?;
        Some(OnNode {
            container: c,
            app_id: app.app_id,
            queue: Some(app.queue),
            size: x.resource,
            created_ms: x.created_ms,
            booked: x.booked,
            am: app.am_container == Some(c.1),
        })
    });
    let leaving = n.leaving.iter().map(|(&c, l)| OnNode {
        container: c,
        app_id: l.app_id,
        queue: state.queues.index_of_path(&l.queue),
        size: l.container.resource,
        created_ms: l.container.created_ms,
        booked: l.container.booked,
        am: l.am,
    });
    live.chain(leaving).collect()
}

/// A container its application let go of that its node still holds.
fn leaving_of(state: &State, c: ContainerRef) -> Option<&crate::model::Leaving> {
    state.nodes.get(state.leaving.get(&c)?)?.leaving.get(&c)
}

/// The leaf a chosen container is charged to: its application's, or for one its
/// application let go of, the one it was charged to then (Apache's `RMContainer` queue name).
fn candidate_queue(state: &State, c: &Candidate) -> Option<QueueIndex> {
    if c.reserved_on.is_none() && !state.containers.contains_key(&c.container) {
        if let Some(l) = leaving_of(state, c.container) {
            return state.queues.index_of_path(&l.queue);
        }
    }
    state.apps.get(&c.container.0).map(|a| a.queue)
}

/// Every node, in the order the scheduler's `HashMap<NodeId, _>` iterates them (which
/// depends on the most nodes it has held, so every node is placed, reserved or not).
fn nodes_in_map_order(state: &State) -> Vec<NodeKey> {
    let mut keys: Vec<NodeKey> = state.nodes.keys().copied().collect();
    keys.sort_unstable();
    let ids: Vec<&str> = keys.iter().map(|k| state.nodes[k].node_id.as_str()).collect();
    java_order::node_map_order(&ids, state.most_nodes).into_iter().map(|i| keys[i]).collect()
}

/// The leaves under `q` in the order Apache's policy visits them: each parent gathers its
/// children's leaf paths into a fresh `HashSet`, so the order is that set's.
fn leaf_order(state: &State, q: QueueIndex) -> Vec<QueueIndex> {
    let queue = state.queues.get(q);
    if queue.is_leaf() {
        return vec![q];
    }
    let gathered: Vec<QueueIndex> = queue.config.children.iter().flat_map(|&c| leaf_order(state, c)).collect();
    let paths: Vec<&str> = gathered.iter().map(|&i| state.queues.get(i).path()).collect();
    java_order::hash_map_order(&paths, paths.len()).into_iter().map(|i| gathered[i]).collect()
}

#[cfg(test)]
mod tests;
