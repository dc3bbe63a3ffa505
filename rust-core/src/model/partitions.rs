//! Node partitions (Apache's node labels): the labels the cluster knows, whether each is
//! exclusive, and what the live nodes in each offer. Every node is in one partition: the
//! default one (no label) or the one its label names.

use crate::resource::Resource;

/// A partition's place in [`Partitions`]; it keeps it while its label exists.
pub type PartitionId = usize;

/// The default partition: nodes without a label.
pub const DEFAULT_PARTITION: PartitionId = 0;

/// One partition.
#[derive(Debug, Clone, PartialEq)]
pub struct Partition {
    /// Its label (`""` for the default partition).
    pub name: String,
    /// An exclusive partition runs only containers that ask for it; a non-exclusive one
    /// also lends idle room to requests for the default partition.
    pub exclusive: bool,
    /// Whether the cluster has the label now (a removed label keeps its place, unused,
    /// until it is added again).
    pub live: bool,
    /// What the live nodes in it offer, in all.
    pub resource: Resource,
}

/// The cluster's partitions, the default one first.
#[derive(Debug, Clone, PartialEq)]
pub struct Partitions {
    all: Vec<Partition>,
}

impl Default for Partitions {
    fn default() -> Self {
        Partitions {
            all: vec![Partition { name: String::new(), exclusive: true, live: true, resource: Resource::ZERO }],
        }
    }
}

impl Partitions {
    /// The partition `id` stands for.
    pub fn get(&self, id: PartitionId) -> &Partition {
        &self.all[id]
    }

    /// The live partition labelled `name` (`""`: the default partition).
    pub fn find(&self, name: &str) -> Option<PartitionId> {
        self.all.iter().position(|p| p.live && p.name == name)
    }

    /// The partition labelled `name`, live or not: a label the cluster does not have takes
    /// a place of its own, offering nothing until it is added (an application may name
    /// one the cluster has since lost).
    pub fn id_of(&mut self, name: &str) -> PartitionId {
        if let Some(id) = self.all.iter().position(|p| p.name == name) {
            return id;
        }
        self.all.push(Partition { name: name.to_string(), exclusive: true, live: false, resource: Resource::ZERO });
        self.all.len() - 1
    }

    /// The labels the cluster has now, each with its place: what capacities are worked out
    /// for.
    pub fn labelled(&self) -> Vec<(PartitionId, &str)> {
        self.all.iter().enumerate().skip(1).filter(|(_, p)| p.live).map(|(id, p)| (id, p.name.as_str())).collect()
    }

    /// Whether the cluster has any label now.
    pub fn has_labels(&self) -> bool {
        self.all.iter().skip(1).any(|p| p.live)
    }

    /// What the live nodes in the default partition offer: the base of every capacity
    /// and limit there (Apache's `getResourceByLabel("")`).
    pub fn default_resource(&self) -> Resource {
        self.all[DEFAULT_PARTITION].resource
    }

    /// The cluster's labels are now `labels` (name, exclusive): new ones are added, those
    /// missing are removed, and each kept one takes its exclusivity. Returns whether any
    /// label was removed (its nodes then go back to the default partition).
    pub fn replace_labels(&mut self, labels: &[(String, bool)]) -> bool {
        let mut removed = false;
        for p in self.all.iter_mut().skip(1) {
            let wanted = labels.iter().find(|(name, _)| *name == p.name);
            removed |= p.live && wanted.is_none();
            p.live = wanted.is_some();
            if let Some(&(_, exclusive)) = wanted {
                p.exclusive = exclusive;
            }
        }
        for (name, exclusive) in labels.iter().filter(|(name, _)| !name.is_empty()) {
            self.ensure(name, *exclusive);
        }
        removed
    }

    /// The partition labelled `name`, added (or brought back) with `exclusive` if the
    /// cluster does not have it yet.
    pub fn ensure(&mut self, name: &str, exclusive: bool) -> PartitionId {
        if let Some(id) = self.find(name) {
            return id;
        }
        if let Some(id) = self.all.iter().position(|p| p.name == name) {
            self.all[id].live = true;
            self.all[id].exclusive = exclusive;
            return id;
        }
        self.all.push(Partition { name: name.to_string(), exclusive, live: true, resource: Resource::ZERO });
        self.all.len() - 1
    }

    /// Sums afresh what the nodes, each in the partition given, offer.
    pub fn recount<'a>(&mut self, nodes: impl Iterator<Item = (PartitionId, Resource)> + 'a) {
        for p in &mut self.all {
            p.resource = Resource::ZERO;
        }
        for (id, total) in nodes {
            let p = &mut self.all[id];
            p.resource = p.resource.plus(total);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_keep_their_place_and_removed_ones_are_reported() {
        let mut p = Partitions::default();
        assert!(p.labelled().is_empty());
        assert!(!p.replace_labels(&[("gpu".into(), true), ("big".into(), false)]));
        let gpu = p.find("gpu").unwrap();
        assert_eq!(p.find(""), Some(DEFAULT_PARTITION));
        assert!(!p.get(p.find("big").unwrap()).exclusive);
        assert!(p.replace_labels(&[("big".into(), true)]));
        assert_eq!(p.find("gpu"), None);
        assert!(p.get(p.find("big").unwrap()).exclusive);
        p.replace_labels(&[("gpu".into(), true)]);
        assert_eq!(p.find("gpu"), Some(gpu), "a label added again takes its old place");
        p.recount([(DEFAULT_PARTITION, Resource::new(1024, 1)), (gpu, Resource::new(2048, 2))].into_iter());
        assert_eq!(p.default_resource(), Resource::new(1024, 1));
        assert_eq!(p.get(gpu).resource, Resource::new(2048, 2));
        assert_eq!(p.labelled(), [(gpu, "gpu")]);
    }
}
