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
//! 2. `select`: containers are chosen toward each leaf's debt, youngest applications
//!    first, ApplicationMasters last;
//! 3. each chosen container is marked (the application is told, in its next `allocate()`,
//!    through a `PreemptionMessage`), and killed once it has been marked for
//!    `max_wait_before_kill` — as PREEMPTED — if it is still chosen then.
//!
//! The round only decides. The RM applies its actions as Apache's policy's events
//! (MARK_CONTAINER_FOR_PREEMPTION, MARK_CONTAINER_FOR_KILLABLE, KILL_RESERVED_CONTAINER),
//! on the scheduler's own thread, where they change the state like any other event.

mod arith;
mod ideal;
mod select;

use crate::ids::{AppKey, ContainerId, ContainerRef, NodeKey, QueueIndex};
use crate::java_order;
use crate::model::State;
use arith::{mul, Calc};
use rustc_hash::FxHashMap as HashMap;
use select::Selection;

/// The policy's settings: `yarn.resourcemanager.monitor.capacity.preemption.*` and the
/// monitor switch, read by the RM from its configuration (yarn-site.xml with
/// capacity-scheduler.xml over it) with Hadoop's own parsing.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// `yarn.resourcemanager.scheduler.monitor.enable`: off, every queue counts as
    /// preemption-disabled.
    pub monitor_enabled: bool,
    /// `observe_only`: work everything out, change nothing.
    pub observe_only: bool,
    /// `max_wait_before_kill` (ms): from first mark to kill.
    pub max_wait_before_kill_ms: i64,
    /// `total_preemption_per_round`: the share of the cluster one round may take back.
    pub total_preemption_per_round: f32,
    /// `max_ignored_over_capacity`: the dead zone above a leaf's guarantee.
    pub max_ignored_over_capacity: f64,
    /// `natural_termination_factor`: the share of its excess a leaf gives back per round.
    pub natural_termination_factor: f64,
    /// `additional_res_balance_based_on_reserved_containers`: the main selector counts
    /// reserved resources as still pending and seeks the whole excess.
    pub reserved_counts_as_pending: bool,
    /// `preemption-to-balance-queue-after-satisfied.enabled`.
    pub balance_after_satisfied: bool,
    /// `preemption-to-balance-queue-after-satisfied.max-wait-before-kill` (ms; 0 or less:
    /// `max_wait_before_kill`).
    pub balance_max_wait_before_kill_ms: i64,
    /// `conservative-drf`.
    pub conservative_drf: bool,
}

impl Default for Settings {
    /// Apache's defaults, with the monitor on.
    fn default() -> Self {
        Settings {
            monitor_enabled: true,
            observe_only: false,
            max_wait_before_kill_ms: 15_000,
            total_preemption_per_round: 0.1,
            max_ignored_over_capacity: 0.1,
            natural_termination_factor: 0.2,
            reserved_counts_as_pending: false,
            balance_after_satisfied: false,
            balance_max_wait_before_kill_ms: 300_000,
            conservative_drf: false,
        }
    }
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

/// The policy across rounds: when each container still remembered was first marked.
#[derive(Debug, Clone, Default)]
pub struct Preemption {
    marked: HashMap<ContainerRef, i64>,
}

impl Preemption {
    /// One round at time `now` (ms): the actions for the RM, in the order to apply them.
    pub fn round(&mut self, state: &State, settings: &Settings, now: i64) -> Vec<Action> {
        let calc = Calc(state.calculator());
        let cluster = state.cluster;
        let mut tqs = ideal::snapshot(state, settings);
        let leaves = leaf_order(state, 0);
        let mut sel = Selection {
            chosen: Vec::new(),
            chosen_set: Default::default(),
            allowed: mul(cluster, f64::from(settings.total_preemption_per_round)),
        };
        let mut actions = Vec::new();
        let passes: &[(bool, bool)] = if settings.balance_after_satisfied {
            &[(settings.reserved_counts_as_pending, false), (false, true)]
        } else {
            &[(settings.reserved_counts_as_pending, false)]
        };
        for &(reserved_mode, balance) in passes {
            ideal::compute(&mut tqs, calc, cluster, settings, &leaves, sel.allowed, reserved_mode, balance);
            select::deduct_selected(state, &mut tqs, calc, &sel);
            select::fifo(
                state,
                &tqs,
                calc,
                &leaves,
                settings.conservative_drf,
                settings.observe_only,
                balance,
                &mut sel,
                &mut actions,
            );
        }
        if log::log_enabled!(log::Level::Debug) {
            for &leaf in &leaves {
                let t = &tqs[leaf];
                log::debug!(
                    "preemption: {} guaranteed {} used {} pending {} ideal {} to give back {}",
                    state.queues.get(t.queue).path(),
                    t.guaranteed,
                    t.used,
                    t.pending,
                    t.ideal,
                    t.actually_to_be_preempted
                );
            }
        }
        if settings.observe_only {
            return actions;
        }
        for c in &sel.chosen {
            let wait = if c.balance && settings.balance_max_wait_before_kill_ms > 0 {
                settings.balance_max_wait_before_kill_ms
            } else {
                settings.max_wait_before_kill_ms
            };
            let action = |kind| Action { kind, app: c.container.0, container: c.container.1, node: c.reserved_on };
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
        actions
    }

    /// How many containers are remembered as marked (for reports and tests).
    pub fn marked(&self) -> usize {
        self.marked.len()
    }
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
