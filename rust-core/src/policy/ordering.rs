//! The order things are offered a node in: a parent's children (Apache's
//! `PriorityUtilizationQueueOrderingPolicy`) and a leaf's applications (FIFO or fair).

use crate::config::{CapacitySpec, OrderingPolicy, QueueOrdering};
use crate::ids::{AppKey, QueueIndex};
use crate::model::{App, PartitionId, State, DEFAULT_PARTITION};
use crate::resource::Resource;
use std::cmp::Ordering;

/// Children in the order a parent offers them a node (Apache's
/// `PriorityUtilizationQueueOrderingPolicy`): queues with a guarantee before queues
/// without; then the least used relative to its guarantee (absolute usage between two
/// queues without a guarantee); with `priority-utilization`, the higher `<q>.priority`
/// first when both are under, or both over, their guarantee; ties go to the larger
/// configured capacity, then to configuration order.
pub fn ordered_children(state: &State, parent: QueueIndex) -> Vec<QueueIndex> {
    children_in_order(state, parent, DEFAULT_PARTITION).collect()
}

/// [`ordered_children`] for a node in `partition`, worked out as far as it is read: each
/// child's shares and usage there, and, in a labelled partition, children that may access
/// it first (Apache's `compareQueueAccessToPartition`). A parent's first child takes
/// the node on most heartbeats, and finding it is one pass over the children, where
/// sorting them all is several. The rest are sorted when the second is asked for.
///
/// Without `priority-utilization` the comparison is a total order (ties go to
/// configuration order), so the first child found so and the rest sorted after it are
/// exactly what one stable sort gives. With it, the comparison is not transitive (two
/// children on the same side of their guarantee compare by priority, on opposite sides
/// by usage), and any other way of sorting could put them otherwise than Apache's sort
/// does: those parents are sorted whole at once, as before.
pub fn children_in_order(state: &State, parent: QueueIndex, partition_id: PartitionId) -> ChildrenInOrder {
    let respect_priority = state.queues.get(parent).config.queue_ordering == QueueOrdering::PriorityUtilization;
    let mut keys = child_keys(state, parent, partition_id, respect_priority);
    if respect_priority {
        keys.sort_by(compare_children);
    }
    ChildrenInOrder { keys, next: 0, sorted: respect_priority }
}

/// A parent's children in the order it offers them a node (see [`children_in_order`]).
pub struct ChildrenInOrder {
    keys: Vec<ChildKey>,
    /// How many have been handed out (the first `next` keys, in order).
    next: usize,
    /// Whether `keys[next..]` is in order already.
    sorted: bool,
}

impl Iterator for ChildrenInOrder {
    type Item = QueueIndex;

    fn next(&mut self) -> Option<QueueIndex> {
        let rest = self.keys.get_mut(self.next..).filter(|rest| !rest.is_empty())?;
        if !self.sorted {
            if self.next == 0 {
                // The first in order: the earliest of the least (what a stable sort puts
                // first), moved to the front with the others' order kept.
                let mut first = 0;
                for i in 1..rest.len() {
                    if compare_children(&rest[i], &rest[first]).is_lt() {
                        first = i;
                    }
                }
                rest[..=first].rotate_right(1);
            } else {
                rest.sort_by(compare_children);
                self.sorted = true;
            }
        }
        let index = self.keys[self.next].index;
        self.next += 1;
        Some(index)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.keys.len() - self.next;
        (left, Some(left))
    }
}

/// What a parent orders one child by.
struct ChildKey {
    index: QueueIndex,
    abs: f64,
    used: f64,
    abs_used: f64,
    accessible: bool,
    priority: i64,
    min_resource: Resource,
}

fn child_keys(state: &State, parent: QueueIndex, partition_id: PartitionId, respect_priority: bool) -> Vec<ChildKey> {
    let calc = state.calculator();
    let min = state.minimum_allocation();
    let labelled = partition_id != DEFAULT_PARTITION;
    let partition = state.partitions.get(partition_id).resource;
    let label = state.partitions.get(partition_id).name.as_str();
    state
        .queues
        .get(parent)
        .config
        .children
        .iter()
        .map(|&c| {
            let q = state.queues.get(c);
            if labelled {
                let used = q.used_in(partition_id);
                let guaranteed = calc.max(partition, state.guaranteed_in(c, partition_id), min);
                let ratio =
                    |x: Resource, of: Resource| if partition.is_none() { 0.0 } else { calc.divide(partition, x, of) };
                return ChildKey {
                    index: c,
                    abs: q.shares_in(partition_id).0 as f32 as f64,
                    used: ratio(used, guaranteed) as f32 as f64,
                    abs_used: ratio(used, partition) as f32 as f64,
                    accessible: q.config.accessible_node_labels.allows(label),
                    priority: if respect_priority { q.config.priority } else { 0 },
                    min_resource: Resource::ZERO,
                };
            }
            ChildKey {
                index: c,
                abs: q.absolute_capacity as f32 as f64,
                used: q.used_capacity(calc, partition, min) as f32 as f64,
                abs_used: q.absolute_used_capacity(calc, partition) as f32 as f64,
                accessible: true,
                priority: if respect_priority { q.config.priority } else { 0 },
                min_resource: match q.config.capacity {
                    CapacitySpec::Absolute(r) => r,
                    _ => Resource::ZERO,
                },
            }
        })
        .collect()
}

/// Apache's `PriorityUtilizationQueueOrderingPolicy` comparator.
fn compare_children(a: &ChildKey, b: &ChildKey) -> Ordering {
    let by_usage = |u1: f64, u2: f64, p1: i64, p2: i64| -> Ordering {
        if p1 == p2 || !((u1 < 1.0 && u2 < 1.0) || (u1 >= 1.0 && u2 >= 1.0)) {
            u1.total_cmp(&u2)
        } else {
            p2.cmp(&p1)
        }
    };
    match (a.accessible, b.accessible) {
        (true, false) => return Ordering::Less,
        (false, true) => return Ordering::Greater,
        _ => {}
    }
    let first = match (a.abs > 0.0, b.abs > 0.0) {
        (true, false) => return Ordering::Less,
        (false, true) => return Ordering::Greater,
        (false, false) => by_usage(a.abs_used, b.abs_used, a.priority, b.priority),
        (true, true) => by_usage(a.used, b.used, a.priority, b.priority),
    };
    first.then_with(|| {
        if !a.min_resource.is_none() || !b.min_resource.is_none() {
            b.min_resource
                .memory_mb
                .cmp(&a.min_resource.memory_mb)
                .then(b.min_resource.vcores.cmp(&a.min_resource.vcores))
        } else {
            b.abs.total_cmp(&a.abs)
        }
    })
}

/// Activated applications of a leaf in the order the leaf keeps them: FIFO order
/// (priority, then submission), so FIFO needs no sort.
pub fn active_apps(state: &State, queue: QueueIndex) -> impl Iterator<Item = (AppKey, &App)> {
    state.queues.get(queue).apps.iter().filter_map(|&k| state.app(k).map(|a| (k, a))).filter(|(_, a)| a.active)
}

/// Activated applications of a leaf in the order its ordering policy serves them.
pub fn ordered_apps(state: &State, queue: QueueIndex) -> Vec<(AppKey, &App)> {
    let q = state.queues.get(queue);
    let active = active_apps(state, queue);
    if q.config.ordering_policy != OrderingPolicy::Fair {
        return active.collect();
    }
    // Each application's magnitude once, not once per comparison (with size-based weight
    // it sums the application's asks).
    let size_based = q.config.fair_size_based_weight;
    let mut keyed: Vec<(FairKey, AppKey, &App)> = active.map(|(k, a)| (FairKey::of(a, size_based), k, a)).collect();
    keyed.sort_by_key(|&(key, _, _)| key);
    keyed.into_iter().map(|(_, k, a)| (k, a)).collect()
}

/// Where Apache's fair ordering policy puts an application, smallest first: its
/// FairComparator, then its FifoComparator — the magnitude, the attempt's start, an
/// application that asks before one that does not, the application id.
#[derive(Debug, Clone, Copy)]
pub struct FairKey {
    magnitude: f64,
    attempt_seq: u64,
    asks_nothing: bool,
    app_id: (i64, i32),
}

impl FairKey {
    /// The application's key, from what the policy cached of it.
    pub fn of(app: &App, size_based_weight: bool) -> Self {
        let (used, pending) = app.fair_usage();
        FairKey {
            magnitude: fair_magnitude(used, pending, size_based_weight),
            attempt_seq: app.attempt_seq,
            asks_nothing: used.plus(pending).memory_mb == 0,
            app_id: app.app_id,
        }
    }
}

impl Ord for FairKey {
    /// The policy's comparison.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.magnitude
            .total_cmp(&other.magnitude)
            .then(self.attempt_seq.cmp(&other.attempt_seq))
            .then(self.asks_nothing.cmp(&other.asks_nothing))
            .then(self.app_id.cmp(&other.app_id))
    }
}

impl PartialOrd for FairKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for FairKey {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for FairKey {}

/// What Apache's `FairOrderingPolicy` orders applications by, smallest first: the memory
/// they use (MB); with size-based weight, divided by `log2(1 + demand)`, demand being what
/// they use plus what they still ask for (MB), so larger applications are not starved.
/// Both figures as the policy cached them (see [`App::fair_usage`]).
pub fn fair_magnitude(used: Resource, pending: Resource, size_based_weight: bool) -> f64 {
    let demand = (used.memory_mb + pending.memory_mb) as f64;
    let used = used.memory_mb as f64;
    if !size_based_weight || used == 0.0 {
        return used;
    }
    let weight = demand.ln_1p() / std::f64::consts::LN_2;
    if weight == 0.0 {
        used
    } else {
        used / weight
    }
}

/// The FIFO position of an application: higher priority first, then earlier submission.
pub fn fifo_key(app: &App) -> (std::cmp::Reverse<i64>, (i64, i32)) {
    (std::cmp::Reverse(app.priority), app.app_id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ClusterSettings, SchedulerConfig};
    use crate::model::State;
    use crate::scheduler::Scheduler;

    fn scheduler(extra: &str) -> Scheduler {
        let xml = format!(
            "<configuration>
              <property><name>yarn.scheduler.capacity.root.queues</name><value>a,b,c,z</value></property>
              <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>20</value></property>
              <property><name>yarn.scheduler.capacity.root.b.capacity</name><value>30</value></property>
              <property><name>yarn.scheduler.capacity.root.c.capacity</name><value>50</value></property>
              <property><name>yarn.scheduler.capacity.root.z.capacity</name><value>0</value></property>
              {extra}
            </configuration>"
        );
        let cfg = SchedulerConfig::from_xml(xml.as_bytes(), "t.xml", ClusterSettings::default()).unwrap();
        let mut s = Scheduler::new(cfg, 0);
        s.add_node("n:1", "n", "/r", Resource::new(100 * 1024, 100));
        s
    }

    fn names(s: &Scheduler) -> Vec<String> {
        ordered_children(s.state(), 0).iter().map(|&i| s.state().queues.get(i).config.name.clone()).collect()
    }

    #[test]
    fn idle_children_go_larger_guarantee_first_and_unguaranteed_last() {
        assert_eq!(names(&scheduler("")), ["c", "b", "a", "z"]);
    }

    #[test]
    fn the_least_used_relative_to_its_guarantee_goes_first() {
        let mut s = scheduler("");
        let st = s.state().clone();
        let c = st.queues.resolve("c").unwrap();
        let a = st.queues.resolve("a").unwrap();
        // c uses 40% of its guarantee, a 50%: c first, then the idle b, then a.
        let mut tree = st.queues.clone();
        tree.charge(c, Resource::new(20 * 1024, 20));
        tree.charge(a, Resource::new(10 * 1024, 10));
        s = Scheduler::from_state_for_tests(State { queues: tree, ..st });
        assert_eq!(names(&s), ["b", "c", "a", "z"]);
    }

    #[test]
    fn priority_utilization_prefers_priority_among_queues_on_the_same_side_of_their_guarantee() {
        let extra = "<property><name>yarn.scheduler.capacity.root.ordering-policy</name><value>priority-utilization</value></property>
                     <property><name>yarn.scheduler.capacity.root.a.priority</name><value>5</value></property>";
        let s = scheduler(extra);
        // All idle (under their guarantee): a's priority wins.
        assert_eq!(names(&s)[0], "a");
    }

    /// Six children with tied shares and tied usage (and an unguaranteed one), each case
    /// charged differently: the lazy order is the one sort gives, element for element.
    fn tied_children(charges: &[u8]) -> Scheduler {
        let xml = "<configuration>
              <property><name>yarn.scheduler.capacity.root.queues</name><value>a,b,c,d,e,z</value></property>
              <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>10</value></property>
              <property><name>yarn.scheduler.capacity.root.b.capacity</name><value>20</value></property>
              <property><name>yarn.scheduler.capacity.root.c.capacity</name><value>20</value></property>
              <property><name>yarn.scheduler.capacity.root.d.capacity</name><value>25</value></property>
              <property><name>yarn.scheduler.capacity.root.e.capacity</name><value>25</value></property>
              <property><name>yarn.scheduler.capacity.root.z.capacity</name><value>0</value></property>
            </configuration>";
        let cfg = SchedulerConfig::from_xml(xml.as_bytes(), "t.xml", ClusterSettings::default()).unwrap();
        let mut s = Scheduler::new(cfg, 0);
        s.add_node("n:1", "n", "/r", Resource::new(100 * 1024, 100));
        let st = s.state().clone();
        let mut tree = st.queues.clone();
        for (name, gb) in ["a", "b", "c", "d", "e", "z"].iter().zip(charges) {
            let q = st.queues.resolve(name).unwrap();
            tree.charge(q, Resource::new(i64::from(*gb) * 1024, i64::from(*gb)));
        }
        Scheduler::from_state_for_tests(State { queues: tree, ..st })
    }

    proptest::proptest! {
        #[test]
        fn the_lazy_order_is_the_sorted_order(charges in proptest::collection::vec(0u8..6, 6), take in 0usize..7) {
            let s = tied_children(&charges);
            let mut whole = child_keys(s.state(), 0, DEFAULT_PARTITION, false);
            whole.sort_by(compare_children);
            let whole: Vec<QueueIndex> = whole.iter().map(|k| k.index).collect();
            let lazy: Vec<QueueIndex> = children_in_order(s.state(), 0, DEFAULT_PARTITION).collect();
            proptest::prop_assert_eq!(&lazy, &whole);
            // Read partly (the first child takes the node), the same prefix.
            let part: Vec<QueueIndex> = children_in_order(s.state(), 0, DEFAULT_PARTITION).take(take).collect();
            proptest::prop_assert_eq!(&part[..], &whole[..take.min(whole.len())]);
        }
    }
}
