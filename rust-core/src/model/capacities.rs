//! Effective capacities: each queue's guarantee and maximum, as vectors and as the shares
//! Apache reports, for the cluster as it is now (Apache's legacy-mode
//! `updateClusterResource`, see docs/research/absolute-resources-3.4.2.md).

use crate::config::{CapacitySpec, MaxCapacitySpec};
use crate::ids::QueueIndex;
use crate::model::{Queue, QueueTree};
use crate::resource::{Resource, ResourceCalculator};

impl QueueTree {
    /// Recomputes every queue's effective capacities for a cluster of size `cluster`, as
    /// Apache's (legacy-mode) `updateClusterResource` does, parents first: percentages
    /// multiply down the tree and weights share their parent in proportion, each giving
    /// its guarantee and maximum as the cluster scaled by the queue's absolute shares;
    /// absolute resources give their vectors directly (see `absolute_children`). Every
    /// leaf's users' usage ratios are summed afresh against the new size.
    pub fn update_effective_capacities(&mut self, cluster: Resource, calc: ResourceCalculator) {
        if self.queues.is_empty() {
            return;
        }
        self.cluster = cluster;
        self.calculator = calc;
        for q in self.queues.iter_mut().filter(|q| q.is_leaf()) {
            q.recompute_usage_ratio(calc, cluster);
        }
        let root = &mut self.queues[0];
        root.absolute_capacity = 1.0;
        root.absolute_maximum_capacity = 1.0;
        root.effective_min = cluster;
        root.effective_max = cluster;
        root.configured_max = None;
        for p in 0..self.queues.len() {
            let children = self.queues[p].config.children.clone();
            let (parent_abs, parent_max) = (self.queues[p].absolute_capacity, self.queues[p].absolute_maximum_capacity);
            let weight_sum = self.children_weight_sum(p);
            for &c in &children {
                let q = &mut self.queues[c];
                // Apache keeps capacities as Java floats: a percentage becomes
                // `parent * (pct / 100)` in single precision, so 26% of 50 vcores is
                // 12.999999 and the guarantee 12 vcores, not 13.
                let percent_of = |parent: f64, pct: f64| f64::from(parent as f32 * (pct as f32 / 100.0));
                q.absolute_capacity = match q.config.capacity {
                    CapacitySpec::Percent(pct) => percent_of(parent_abs, pct),
                    CapacitySpec::Weight(w) if weight_sum > 1e-6 => {
                        f64::from((w as f32 / weight_sum) * parent_abs as f32)
                    }
                    CapacitySpec::Weight(_) | CapacitySpec::Absolute(_) => 0.0,
                };
                q.absolute_maximum_capacity = match q.config.maximum_capacity {
                    MaxCapacitySpec::Percent(pct) => percent_of(parent_max, pct),
                    MaxCapacitySpec::Absolute(r) => calc.ratio(r, cluster).min(parent_max),
                };
                // Like Apache, a maximum below the guarantee is kept as written: the queue
                // never grows past it.
                q.effective_min = cluster.scaled(q.absolute_capacity);
                q.effective_max = cluster.scaled(q.absolute_maximum_capacity);
                q.configured_max = None;
            }
            self.absolute_children(p, &children, cluster, calc);
        }
    }

    /// The weights of `parent`'s children, summed as Apache normalizes them: in floats, in
    /// child order, a negative weight counting as none.
    pub(crate) fn children_weight_sum(&self, parent: QueueIndex) -> f32 {
        self.queues[parent]
            .config
            .children
            .iter()
            .map(|&c| match self.queues[c].config.capacity {
                CapacitySpec::Weight(w) => (w as f32).max(0.0),
                _ => 0.0,
            })
            .fold(0.0, |sum, w| sum + w)
    }

    /// Queue `q`'s weight over its siblings' (Apache's normalized weight); 0 for a queue
    /// without a weight, or whose siblings' weights sum to nothing.
    pub(crate) fn normalized_weight(&self, q: QueueIndex) -> f32 {
        let queue = &self.queues[q];
        match (queue.config.capacity, queue.config.parent) {
            (CapacitySpec::Weight(w), Some(p)) => {
                let sum = self.children_weight_sum(p);
                if sum > 1e-6 {
                    w as f32 / sum
                } else {
                    0.0
                }
            }
            _ => 0.0,
        }
    }

    /// The children of `parent` whose capacity is an absolute resource (Apache's
    /// `deriveCapacityFromAbsoluteConfigurations`): a guarantee of the configured vector,
    /// scaled resource by resource (by the parent's guarantee over the children's sum, in
    /// floats) only when the sum exceeds the parent's guarantee as the calculator compares
    /// them; a maximum of the configured vector or, whole vector by the calculator's order,
    /// the parent's configured maximum (else its effective one) when that is smaller; and
    /// the shares Apache reports, its guarantee and maximum over the parent's.
    fn absolute_children(
        &mut self,
        parent: QueueIndex,
        children: &[QueueIndex],
        cluster: Resource,
        calc: ResourceCalculator,
    ) {
        let configured = |q: &Queue| match q.config.capacity {
            CapacitySpec::Absolute(r) => Some(r),
            _ => None,
        };
        if !children.iter().any(|&c| configured(&self.queues[c]).is_some()) {
            return;
        }
        let sum = children.iter().filter_map(|&c| configured(&self.queues[c])).fold(Resource::ZERO, Resource::plus);
        let p = &self.queues[parent];
        let (p_min, p_max, p_abs, p_abs_max) =
            (p.effective_min, p.effective_max, p.absolute_capacity, p.absolute_maximum_capacity);
        let parent_configured_max = p.configured_max;
        let inherited_max = parent_configured_max.unwrap_or(p_max);
        let scale_from = if parent == 0 {
            (!cluster.is_none() && calc.compare(cluster, cluster, sum).is_lt()).then_some(cluster)
        } else {
            calc.compare(cluster, p_min, sum).is_lt().then_some(p_min)
        };
        let scale = |configured: i64, from: i64, total: i64| -> i64 {
            if total == 0 {
                configured
            } else {
                (configured as f32 * (from as f32 / total as f32)) as i64
            }
        };
        for &c in children {
            let Some(min) = configured(&self.queues[c]) else { continue };
            let q = &mut self.queues[c];
            q.effective_min = match scale_from {
                Some(from) => Resource::new(
                    scale(min.memory_mb, from.memory_mb, sum.memory_mb),
                    scale(min.vcores, from.vcores, sum.vcores),
                ),
                None => min,
            };
            q.configured_max = match q.config.maximum_capacity {
                MaxCapacitySpec::Absolute(r) => Some(r),
                // A maximum not given as a vector is the parent's configured one, if any.
                MaxCapacitySpec::Percent(_) => parent_configured_max,
            };
            q.effective_max = match q.configured_max {
                Some(m) => calc.min(cluster, m, inherited_max),
                None => inherited_max,
            };
            let share = |a: Resource, b: Resource| {
                let d = calc.divide(cluster, a, b) as f32;
                if d.is_infinite() {
                    0.0
                } else {
                    d
                }
            };
            let shares = (share(q.effective_min, p_min), share(q.effective_max, p_max));
            q.relative_shares = Some(shares);
            q.absolute_capacity = f64::from(shares.0 * p_abs as f32);
            q.absolute_maximum_capacity = f64::from(shares.1 * p_abs_max as f32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ClusterSettings, SchedulerConfig};

    fn tree(xml: &str) -> QueueTree {
        let cfg = SchedulerConfig::from_xml(xml.as_bytes(), "t.xml", ClusterSettings::default()).unwrap();
        QueueTree::build(&cfg)
    }

    fn absolute(extra: &str) -> QueueTree {
        tree(&format!(
            "<configuration>
              <property><name>yarn.scheduler.capacity.resource-calculator</name><value>org.apache.hadoop.yarn.util.resource.DominantResourceCalculator</value></property>
              {extra}
            </configuration>"
        ))
    }

    #[test]
    fn absolute_resources_are_vectors_not_one_share_of_the_cluster() {
        let mut t = absolute(
            "<property><name>yarn.scheduler.capacity.root.queues</name><value>p,q</value></property>
             <property><name>yarn.scheduler.capacity.root.p.capacity</name><value>[memory=98304,vcores=40]</value></property>
             <property><name>yarn.scheduler.capacity.root.q.capacity</name><value>[memory=32768,vcores=24]</value></property>
             <property><name>yarn.scheduler.capacity.root.p.queues</name><value>a</value></property>
             <property><name>yarn.scheduler.capacity.root.p.a.capacity</name><value>[memory=32768,vcores=24]</value></property>
             <property><name>yarn.scheduler.capacity.root.p.a.maximum-capacity</name><value>[memory=65536,vcores=64]</value></property>",
        );
        t.update_effective_capacities(Resource::new(128 * 1024, 64), ResourceCalculator::Dominant);
        let a = t.get(t.index_of_path("root.p.a").unwrap());
        assert_eq!(a.guaranteed(), Resource::new(32768, 24));
        assert_eq!(a.maximum(), Resource::new(65536, 64), "the configured maximum is a hard cap, per resource");
        // Apache's floats: the dominant share of each vector over the parent's, times the
        // parent's share (0.375 / 0.625 of p's 0.625).
        assert!((a.absolute_capacity - 0.375).abs() < 1e-6, "{}", a.absolute_capacity);
        assert!((a.absolute_maximum_capacity - 1.0).abs() < 1e-6, "{}", a.absolute_maximum_capacity);
    }

    #[test]
    fn children_asking_more_than_the_parent_has_are_scaled_resource_by_resource() {
        // Root's child asks for [96G, 16] of a 64G / 32-vcore cluster: the dominant share
        // (1.5) is over, so each resource is scaled by its own ratio — memory by 2/3 in
        // floats, vcores by 2 (up).
        let mut t = absolute(
            "<property><name>yarn.scheduler.capacity.root.queues</name><value>a</value></property>
             <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>[memory=98304,vcores=16]</value></property>",
        );
        t.update_effective_capacities(Resource::new(64 * 1024, 32), ResourceCalculator::Dominant);
        let a = t.get(1);
        assert_eq!(a.guaranteed(), Resource::new(65536, 32));
        assert_eq!(a.maximum(), Resource::new(65536, 32), "no configured maximum: the parent's");
    }
}
