//! Effective capacities: each queue's guarantee and maximum, as vectors and as the shares
//! Apache reports, for the cluster as it is now (Apache's legacy-mode
//! `updateClusterResource`, see docs/research/absolute-resources-3.4.2.md).

use crate::config::{CapacitySpec, LabelCapacity, MaxCapacitySpec};
use crate::ids::QueueIndex;
use crate::model::{PartitionId, QueueTree};
use crate::resource::{Resource, ResourceCalculator};

/// A parent's capacities as [`derive_absolute`] reads them, from a queue (its default
/// partition's) or a [`PartitionShare`](crate::model::queue::PartitionShare): the two keep
/// the same fields.
macro_rules! derived_of {
    ($p:expr) => {{
        let p = $p;
        Derived {
            effective_min: p.effective_min,
            effective_max: p.effective_max,
            absolute_capacity: p.absolute_capacity,
            absolute_maximum_capacity: p.absolute_maximum_capacity,
            configured_max: p.configured_max,
            relative_shares: None,
        }
    }};
}

/// Writes what [`derive_absolute`] worked out for a child into the queue or partition share
/// that holds it.
macro_rules! write_derived {
    ($target:expr, $d:expr) => {{
        let (t, d) = (&mut $target, $d);
        t.effective_min = d.effective_min;
        t.effective_max = d.effective_max;
        t.configured_max = d.configured_max;
        t.relative_shares = d.relative_shares;
        t.absolute_capacity = d.absolute_capacity;
        t.absolute_maximum_capacity = d.absolute_maximum_capacity;
    }};
}

impl QueueTree {
    /// Recomputes every queue's effective capacities for a cluster of size `cluster`, as
    /// Apache's (legacy-mode) `updateClusterResource` does, parents first: percentages
    /// multiply down the tree and weights share their parent in proportion, each giving
    /// its guarantee and maximum as the cluster scaled by the queue's absolute shares;
    /// absolute resources give their vectors directly (see `absolute_children`). Every
    /// leaf's users' usage ratios are summed afresh against the new size.
    pub fn update_effective_capacities(&mut self, cluster: Resource, calc: ResourceCalculator) {
        self.update_effective_capacities_in(cluster, cluster, calc);
    }

    /// [`QueueTree::update_effective_capacities`] for a default partition of `cluster` in
    /// a cluster of `whole` (nodes with labels included): absolute resources are compared
    /// and divided as Apache's calculators do for the whole cluster.
    pub fn update_effective_capacities_in(&mut self, cluster: Resource, whole: Resource, calc: ResourceCalculator) {
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
            self.absolute_children(p, &children, cluster, whole, calc);
        }
    }

    /// The weights of `parent`'s children, summed as Apache normalizes them (see
    /// [`weights_summed`]).
    pub(crate) fn children_weight_sum(&self, parent: QueueIndex) -> f32 {
        weights_summed(self.queues[parent].config.children.iter().map(|&c| self.queues[c].config.capacity))
    }

    /// The weights `parent`'s children configured for partition `label` give there (those
    /// without keys for the label take no part), summed as Apache normalizes them.
    pub(crate) fn label_weight_sum(&self, parent: QueueIndex, label: &str) -> f32 {
        let children = self.queues[parent].config.children.iter();
        weights_summed(children.filter_map(|&c| self.queues[c].config.node_labels.get(label).map(|k| k.capacity)))
    }

    /// Queue `q`'s weight over its siblings' (Apache's normalized weight); 0 for a queue
    /// without a weight, or whose siblings' weights sum to nothing.
    pub(crate) fn normalized_weight(&self, q: QueueIndex) -> f32 {
        let queue = &self.queues[q];
        match (queue.config.capacity, queue.config.parent) {
            (CapacitySpec::Weight(w), Some(p)) => over_weight_sum(w as f32, self.children_weight_sum(p)),
            _ => 0.0,
        }
    }

    /// The children of `parent` whose capacity is an absolute resource (Apache's
    /// `deriveCapacityFromAbsoluteConfigurations`), in the default partition: see
    /// [`derive_absolute`].
    fn absolute_children(
        &mut self,
        parent: QueueIndex,
        children: &[QueueIndex],
        cluster: Resource,
        whole: Resource,
        calc: ResourceCalculator,
    ) {
        let configured: Vec<Option<(Resource, MaxCapacitySpec)>> = children
            .iter()
            .map(|&c| match self.queues[c].config.capacity {
                CapacitySpec::Absolute(r) => Some((r, self.queues[c].config.maximum_capacity)),
                _ => None,
            })
            .collect();
        if configured.iter().all(Option::is_none) {
            return;
        }
        let from = derived_of!(&self.queues[parent]);
        let derived = derive_absolute(&from, parent == 0, &configured, cluster, whole, calc);
        for (&c, d) in children.iter().zip(derived) {
            if let Some(d) = d {
                write_derived!(self.queues[c], d);
            }
        }
    }

    /// The children of `parent` given an absolute resource in the labelled partition `id`
    /// (`label`, whose nodes offer `total`), as [`QueueTree::absolute_children`] does in the
    /// default partition: Apache's `updateEffectiveResources` for each configured label.
    pub(crate) fn absolute_label_children(
        &mut self,
        parent: QueueIndex,
        children: &[QueueIndex],
        id: PartitionId,
        label: &str,
        total: Resource,
        cluster: Resource,
    ) {
        let configured: Vec<Option<(Resource, MaxCapacitySpec)>> = children
            .iter()
            .map(|&c| match self.queues[c].config.node_labels.get(label) {
                Some(LabelCapacity { capacity: CapacitySpec::Absolute(r), maximum_capacity, .. }) => {
                    Some((*r, *maximum_capacity))
                }
                _ => None,
            })
            .collect();
        if configured.iter().all(Option::is_none) {
            return;
        }
        let from = derived_of!(&self.queues[parent].labelled.get(&id).copied().unwrap_or_default());
        let derived = derive_absolute(&from, parent == 0, &configured, total, cluster, self.calculator);
        for (&c, d) in children.iter().zip(derived) {
            if let Some(d) = d {
                write_derived!(*self.queues[c].labelled.entry(id).or_default(), d);
            }
        }
    }
}

/// Capacities summed as Apache sums weights to normalize them: in floats, in child order,
/// a negative weight or another mode counting as none.
fn weights_summed(capacities: impl Iterator<Item = CapacitySpec>) -> f32 {
    capacities
        .map(|c| match c {
            CapacitySpec::Weight(w) => (w as f32).max(0.0),
            _ => 0.0,
        })
        .fold(0.0, |sum, w| sum + w)
}

/// `weight` over the siblings' `sum`, or 0 where the weights sum to nothing (Apache leaves
/// the normalized weight unset then).
pub(crate) fn over_weight_sum(weight: f32, sum: f32) -> f32 {
    if sum > 1e-6 {
        weight / sum
    } else {
        0.0
    }
}

/// A queue's capacities in one partition, as absolute resources derive them.
#[derive(Debug, Clone, Copy)]
struct Derived {
    effective_min: Resource,
    effective_max: Resource,
    absolute_capacity: f64,
    absolute_maximum_capacity: f64,
    configured_max: Option<Resource>,
    relative_shares: Option<(f32, f32)>,
}

/// The capacities of the children of a parent (`parent`, the root when `root`) given an
/// absolute resource (`configured`: the vector and the maximum, None for a child in
/// another mode) in a partition whose nodes offer `total`, compared as `calc` compares for
/// the whole `cluster`: a guarantee of the configured vector, scaled resource by resource
/// (by the parent's guarantee over the children's sum, in floats) only when the sum
/// exceeds the parent's guarantee; a maximum of the configured vector or, whole vector by
/// the calculator's order, the parent's configured maximum (else its effective one) when
/// that is smaller; and the shares Apache reports, its guarantee and maximum over the
/// parent's.
fn derive_absolute(
    parent: &Derived,
    root: bool,
    configured: &[Option<(Resource, MaxCapacitySpec)>],
    total: Resource,
    cluster: Resource,
    calc: ResourceCalculator,
) -> Vec<Option<Derived>> {
    let sum = configured.iter().flatten().fold(Resource::ZERO, |acc, (min, _)| acc.plus(*min));
    let inherited_max = parent.configured_max.unwrap_or(parent.effective_max);
    let scale_from = if root {
        (!total.is_none() && calc.compare(cluster, total, sum).is_lt()).then_some(total)
    } else {
        calc.compare(cluster, parent.effective_min, sum).is_lt().then_some(parent.effective_min)
    };
    let scale = |configured: i64, from: i64, total: i64| -> i64 {
        if total == 0 {
            configured
        } else {
            (configured as f32 * (from as f32 / total as f32)) as i64
        }
    };
    // Apache's floats: infinity (nothing over a parent with nothing) counts as 0, NaN (0
    // over 0 under the Dominant calculator) stays.
    let share = |a: Resource, b: Resource| {
        let d = calc.divide_as_java(cluster, a, b);
        if d.is_infinite() {
            0.0
        } else {
            d
        }
    };
    configured
        .iter()
        .map(|c| {
            let (min, maximum) = (*c)?;
            let effective_min = match scale_from {
                Some(from) => Resource::new(
                    scale(min.memory_mb, from.memory_mb, sum.memory_mb),
                    scale(min.vcores, from.vcores, sum.vcores),
                ),
                None => min,
            };
            let configured_max = match maximum {
                MaxCapacitySpec::Absolute(r) => Some(r),
                // A maximum not given as a vector is the parent's configured one, if any.
                MaxCapacitySpec::Percent(_) => parent.configured_max,
            };
            let effective_max = match configured_max {
                Some(m) => calc.min(total, m, inherited_max),
                None => inherited_max,
            };
            let shares = (share(effective_min, parent.effective_min), share(effective_max, parent.effective_max));
            Some(Derived {
                effective_min,
                effective_max,
                absolute_capacity: f64::from(shares.0 * parent.absolute_capacity as f32),
                absolute_maximum_capacity: f64::from(shares.1 * parent.absolute_maximum_capacity as f32),
                configured_max,
                relative_shares: Some(shares),
            })
        })
        .collect()
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

    #[test]
    fn a_partition_shares_weights_among_the_siblings_configured_for_it() {
        let mut t = tree(
            "<configuration>
              <property><name>yarn.scheduler.capacity.root.queues</name><value>a,b,c</value></property>
              <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>1w</value></property>
              <property><name>yarn.scheduler.capacity.root.b.capacity</name><value>1w</value></property>
              <property><name>yarn.scheduler.capacity.root.c.capacity</name><value>2w</value></property>
              <property><name>yarn.scheduler.capacity.root.a.accessible-node-labels.gpu.capacity</name><value>3w</value></property>
              <property><name>yarn.scheduler.capacity.root.b.accessible-node-labels.gpu.capacity</name><value>1w</value></property>
              <property><name>yarn.scheduler.capacity.root.b.accessible-node-labels.gpu.maximum-capacity</name><value>50</value></property>
            </configuration>",
        );
        let gpu = Resource::new(8192, 8);
        t.update_partition_capacities(&[(1, "gpu", gpu)], Resource::new(16384, 16));
        let share = |path: &str| t.get(t.index_of_path(path).unwrap()).labelled[&1];
        assert_eq!((share("root.a").absolute_capacity, share("root.a").effective_min), (0.75, Resource::new(6144, 6)));
        assert_eq!(share("root.b").effective_min, Resource::new(2048, 2));
        assert_eq!(share("root.b").effective_max, Resource::new(4096, 4), "a percentage of the parent's maximum");
        assert_eq!(share("root.c").effective_min, Resource::ZERO, "no keys for the label: no share of it");
    }

    #[test]
    fn absolute_label_capacities_are_vectors_scaled_to_the_partition() {
        let mut t = absolute(
            "<property><name>yarn.scheduler.capacity.root.queues</name><value>p</value></property>
             <property><name>yarn.scheduler.capacity.root.p.capacity</name><value>[memory=8192,vcores=8]</value></property>
             <property><name>yarn.scheduler.capacity.root.p.accessible-node-labels.gpu.capacity</name><value>[memory=8192,vcores=8]</value></property>
             <property><name>yarn.scheduler.capacity.root.p.queues</name><value>x,y</value></property>
             <property><name>yarn.scheduler.capacity.root.p.x.capacity</name><value>[memory=4096,vcores=4]</value></property>
             <property><name>yarn.scheduler.capacity.root.p.y.capacity</name><value>[memory=4096,vcores=4]</value></property>
             <property><name>yarn.scheduler.capacity.root.p.x.accessible-node-labels.gpu.capacity</name><value>[memory=6144,vcores=6]</value></property>
             <property><name>yarn.scheduler.capacity.root.p.x.accessible-node-labels.gpu.maximum-capacity</name><value>[memory=6144,vcores=8]</value></property>
             <property><name>yarn.scheduler.capacity.root.p.y.accessible-node-labels.gpu.capacity</name><value>[memory=2048,vcores=2]</value></property>",
        );
        let cluster = Resource::new(32768, 32);
        t.update_effective_capacities(Resource::new(28672, 28), ResourceCalculator::Dominant);
        // The partition has half what p asks for there: p is scaled down to it, and its
        // children are scaled to p's, resource by resource.
        t.update_partition_capacities(&[(1, "gpu", Resource::new(4096, 4))], cluster);
        let share = |path: &str| t.get(t.index_of_path(path).unwrap()).labelled[&1];
        assert_eq!(share("root.p").effective_min, Resource::new(4096, 4));
        assert_eq!(share("root.p").effective_max, Resource::new(4096, 4), "no maximum: the root's");
        assert_eq!(share("root.p.x").effective_min, Resource::new(3072, 3));
        assert_eq!(share("root.p.y").effective_min, Resource::new(1024, 1));
        assert_eq!(share("root.p.x").effective_max, Resource::new(4096, 4), "its maximum, within p's");
        assert_eq!(share("root.p.x").relative_shares, Some((0.75, 1.0)));
        assert!((share("root.p.x").absolute_capacity - 0.75).abs() < 1e-6);
        // The default partition is untouched by the label's vectors.
        assert_eq!(t.get(t.index_of_path("root.p.x").unwrap()).guaranteed(), Resource::new(4096, 4));
    }
}
