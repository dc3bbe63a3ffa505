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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ClusterSettings, SchedulerConfig};
    use crate::model::Ask;
    use crate::policy::admission::Submission;
    use crate::scheduler::Scheduler;

    const KEY: SchedulerKey = SchedulerKey { priority: 1, allocation_request_id: 0 };

    /// Four 4 GB nodes on two racks, one application asking for 1 GB containers: one on
    /// `h1` (rack `/r1`), eight anywhere, with `relax` at every level; `node-locality-delay` 2.
    fn asking_for_h1(relax: bool) -> (Scheduler, crate::ids::AppKey) {
        let xml = "<configuration>
          <property><name>yarn.scheduler.capacity.root.queues</name><value>a</value></property>
          <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>100</value></property>
          <property><name>yarn.scheduler.capacity.node-locality-delay</name><value>2</value></property>
        </configuration>";
        let mut s =
            Scheduler::new(SchedulerConfig::from_xml(xml.as_bytes(), "t", ClusterSettings::default()).unwrap(), 0);
        for (host, rack) in [("h1", "/r1"), ("h2", "/r1"), ("h3", "/r2"), ("h4", "/r2")] {
            s.add_node(&format!("{host}:1"), host, rack, Resource::new(4096, 4));
        }
        let (app, _) = s.submit(&Submission::new(1, "a", "u", Resource::ZERO)).unwrap();
        s.add_attempt(app, 1, false);
        let ask = |name: &str| Ask {
            key: KEY,
            resource_name: name.into(),
            capability: Resource::new(1024, 1),
            count: if name == ANY { 8 } else { 1 },
            relax_locality: relax || name == "h1",
        };
        s.update_requests(app, &[ask("h1"), ask("/r1"), ask(ANY)]);
        (s, app)
    }

    fn on(s: &Scheduler, app: crate::ids::AppKey, host: &str) -> GroupResult {
        let st = s.state();
        let a = &st.apps[&app];
        let node = st.nodes.values().find(|n| n.host == host).unwrap();
        try_group(st, a, KEY, &a.requests[&KEY], node, None)
    }

    #[test]
    fn the_host_asked_for_is_served_at_once_and_others_wait_out_the_delays() {
        let (s, app) = asking_for_h1(true);
        assert_eq!(on(&s, app, "h1"), GroupResult::Placed(Locality::NodeLocal, Resource::new(1024, 1)));
        assert_eq!(on(&s, app, "h2"), GroupResult::Delayed, "same rack, before the node-locality delay");
        assert_eq!(on(&s, app, "h3"), GroupResult::Delayed, "another rack, before the rack wait");
    }

    #[test]
    fn missed_opportunities_open_the_rack_then_anywhere() {
        let (mut s, app) = asking_for_h1(true);
        for _ in 0..2 {
            s.state_for_tests().apps.get_mut(&app).unwrap().count_opportunity(KEY);
        }
        assert_eq!(on(&s, app, "h2"), GroupResult::Placed(Locality::RackLocal, Resource::new(1024, 1)));
        // Off-switch waits min(nodes, 8 asked x (3 locations - 1) / 4 nodes) = 4 opportunities.
        assert_eq!(on(&s, app, "h3"), GroupResult::Delayed);
        for _ in 0..2 {
            s.state_for_tests().apps.get_mut(&app).unwrap().count_opportunity(KEY);
        }
        assert_eq!(on(&s, app, "h3"), GroupResult::Placed(Locality::OffSwitch, Resource::new(1024, 1)));
    }

    #[test]
    fn a_request_that_does_not_relax_never_leaves_its_host() {
        let (mut s, app) = asking_for_h1(false);
        for _ in 0..10 {
            s.state_for_tests().apps.get_mut(&app).unwrap().count_opportunity(KEY);
        }
        assert_eq!(on(&s, app, "h2"), GroupResult::Skipped);
        assert_eq!(on(&s, app, "h3"), GroupResult::Skipped);
    }

    #[test]
    fn a_reserved_node_is_tried_at_the_most_local_level_still_asked_for() {
        let (s, app) = asking_for_h1(true);
        let st = s.state();
        let node = |host: &str| st.nodes.values().find(|n| n.host == host).unwrap();
        let level = |host| reserved_node_level(st, &st.apps[&app], KEY, node(host)).map(|(l, _)| l);
        assert_eq!(level("h1"), Some(Locality::NodeLocal));
        assert_eq!(level("h2"), Some(Locality::OffSwitch), "the rack only once the delay has passed");
        assert_eq!(level("h3"), Some(Locality::OffSwitch));
    }
}
