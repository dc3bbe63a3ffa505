//! Delay scheduling: at which locality level one request group may use a node now
//! (Apache's `assignContainersOnNode` and `canAssign`), and the level a reserved node is
//! tried at. Node-local first; rack-local once the node-locality delay has passed;
//! off-switch once the rack-locality wait has; `relaxLocality` and node-locality caps as
//! Apache reads them.

use crate::ids::{Locality, SchedulerKey, ANY};
use crate::model::{App, Node, RequestGroup, State};
use crate::resource::Resource;

/// How one request group fares on a node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GroupResult {
    /// A container of this size fits here at this locality.
    Placed(Locality, Resource),
    /// No request of this group can use this node at all.
    Skipped,
    /// Waiting for a more local node.
    Delayed,
    /// Allowed here at this locality but the node lacks room for this size.
    NoRoom(Locality, Resource),
}

/// Apache's `assignContainersOnNode` + `canAssign` for one request group on one node,
/// from the most local level after `after` (all levels when `None`): the caller comes
/// back with the level it could not use (Apache's LOCALITY_SKIPPED) to try the next.
pub fn try_group(
    state: &State,
    app: &App,
    key: SchedulerKey,
    group: &RequestGroup,
    node: &Node,
    after: Option<Locality>,
) -> GroupResult {
    // A container larger than the whole node can never be placed here; do not hold the
    // node for it.
    // Both questions in the resources the calculator schedules: under the Default
    // calculator vcores do not stop a container.
    let calc = state.calculator();
    if !calc.fits(group.capability(), node.total) {
        return GroupResult::Skipped;
    }
    // A container is placed at the size asked at its locality level; one the node could
    // never hold skips that level (Apache's LOCALITY_SKIPPED).
    let at = |locality: Locality, name: &str| {
        let size = group.capability_at(name);
        if !calc.fits(size, node.total) {
            None
        } else if calc.fits(size, node.available()) {
            Some(GroupResult::Placed(locality, size))
        } else {
            Some(GroupResult::NoRoom(locality, size))
        }
    };
    let nodes = state.nodes.len() as u64;
    // The opportunity this node represents counts too.
    let missed = app.missed(key) + 1;
    let g = &state.config.global;
    let mut delayed = false;
    let node_level = after.is_none();
    let rack_level = after.is_none_or(|l| l == Locality::NodeLocal);
    if node_level && group.count(&node.host) > 0 {
        if group.count(&node.rack) > 0 {
            if let Some(r) = at(Locality::NodeLocal, &node.host) {
                return r;
            }
        }
        delayed = true;
    }
    if rack_level && group.count(&node.rack) > 0 {
        if !group.relaxes(&node.rack) {
            return GroupResult::Skipped;
        }
        if state.node_locality_delay() < missed {
            if let Some(r) = at(Locality::RackLocal, &node.rack) {
                return r;
            }
        }
        delayed = true;
    }
    if group.count(ANY) > 0 {
        if !group.relaxes(ANY) || !group.relaxes(&node.rack) {
            return GroupResult::Skipped;
        }
        let uniq = group.unique_locations();
        let can = if uniq <= 1 {
            true
        } else if g.rack_locality_additional_delay > -1 {
            missed > nodes.min((g.node_locality_delay + g.rack_locality_additional_delay).max(0) as u64)
        } else {
            let wait_factor = ((uniq - 1) as f64 / nodes.max(1) as f64).min(1.0);
            (nodes as f64).min(group.count(ANY) as f64 * wait_factor) < missed as f64
        };
        if can {
            return at(Locality::OffSwitch, ANY).unwrap_or(GroupResult::Skipped);
        }
        return GroupResult::Delayed;
    }
    if delayed {
        GroupResult::Delayed
    } else {
        GroupResult::Skipped
    }
}

/// The level Apache tries a reserved node at (`assignContainersOnNode` with the reserved
/// container): node-local while both the host and its rack are asked for, rack-local
/// while the rack is and the node-locality delay has passed, off-switch otherwise. Returns
/// that level and the size asked at it, which decides whether the node can take it now.
pub fn reserved_node_level(state: &State, app: &App, key: SchedulerKey, node: &Node) -> Option<(Locality, Resource)> {
    let group = app.requests.get(&key)?;
    let (locality, level) = if group.count(&node.host) > 0 && group.count(&node.rack) > 0 {
        (Locality::NodeLocal, node.host.as_str())
    } else if group.count(&node.rack) > 0 && state.node_locality_delay() < app.missed(key) {
        (Locality::RackLocal, node.rack.as_str())
    } else {
        (Locality::OffSwitch, ANY)
    };
    Some((locality, group.capability_at(level)))
}
