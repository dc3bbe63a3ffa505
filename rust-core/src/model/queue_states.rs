//! Queue states at run time, as Apache's `QueueStateHelper` keeps them. A queue is created
//! in the state its configuration gives, or else its parent's as the file alone would make
//! it (Apache builds each refresh's queues from the file before grafting the new ones into
//! the running tree). After that a refresh changes a queue's state only when the file
//! asks for the other one: RUNNING → STOPPED stops the queue and everything under it
//! (draining what still has applications), STOPPED → RUNNING needs a running parent. A
//! queue whose file says nothing keeps its state — so the leaves of a parent stopped and
//! restarted stay stopped until their own state says RUNNING. A draining queue stops when
//! its last application ends.

use super::queue::{Correspondence, QueueTree};
use crate::config::{ConfigError, QueueState};
use crate::ids::QueueIndex;

/// A queue's state as the RM reports it (YARN's `QueueState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuntimeState {
    /// Accepting and scheduling applications.
    Running,
    /// Stopped, with nothing left running in it.
    Stopped,
    /// Stopped, with applications still running to completion.
    Draining,
}

impl RuntimeState {
    /// YARN's name for it.
    pub fn as_str(self) -> &'static str {
        match self {
            RuntimeState::Running => "RUNNING",
            RuntimeState::Stopped => "STOPPED",
            RuntimeState::Draining => "DRAINING",
        }
    }
}

impl From<QueueState> for RuntimeState {
    fn from(s: QueueState) -> Self {
        match s {
            QueueState::Running => RuntimeState::Running,
            QueueState::Stopped => RuntimeState::Stopped,
        }
    }
}

impl QueueTree {
    /// Gives every queue its state: from its configuration and its parent's (`before`:
    /// none) or, for a refresh, from the state it had in `before` and what the new file
    /// asks. Applications are counted in `before` (a new queue has none). On a rule broken
    /// (a queue to run under a parent that does not), the errors, each naming the queue.
    pub fn set_states(&mut self, before: Option<&QueueTree>) -> Result<(), Vec<ConfigError>> {
        match before {
            Some(b) => {
                let matched = Correspondence::between(b, self);
                self.set_states_from(Some((b, &matched)))
            }
            None => self.set_states_from(None),
        }
    }

    /// [`QueueTree::set_states`] with `before`'s queues already matched with this tree's.
    pub fn set_states_from(&mut self, before: Option<(&QueueTree, &Correspondence)>) -> Result<(), Vec<ConfigError>> {
        // Where each queue was in `before`, if it was there.
        let was = |i: QueueIndex| before.and_then(|(_, m)| m.old_of_new[i]);
        let before = before.map(|(b, _)| b);
        let stopped_for = |j: QueueIndex| {
            if before.is_some_and(|b| b.apps_under(j) > 0) {
                RuntimeState::Draining
            } else {
                RuntimeState::Stopped
            }
        };
        // What each existing queue's state is as this pass reaches it, by its place in
        // `before`: a parent stopped here has already stopped its existing descendants.
        let mut previous: Vec<RuntimeState> =
            before.map(|b| b.queues.iter().map(|q| q.state).collect()).unwrap_or_default();
        // The state each queue would have if the RM started on this file. Apache builds a
        // whole new tree from the file on every refresh, where each queue takes its
        // configured state or its parent's; a queue new to the running tree keeps the
        // state it got there, whatever its running parent's is (a leaf added under a
        // parent that was stopped by an earlier file runs if this file leaves it unsaid).
        let mut fresh: Vec<RuntimeState> = Vec::with_capacity(self.queues.len());
        let mut errors = Vec::new();
        for i in 0..self.queues.len() {
            let q = &self.queues[i];
            let configured = q.config.state_set.then_some(RuntimeState::from(q.config.state));
            let parent = q.config.parent;
            fresh.push(match (configured, parent) {
                (Some(s), _) => s,
                (None, Some(p)) => fresh[p],
                (None, None) => RuntimeState::Running,
            });
            // A leaf turned parent or a parent turned leaf is a new queue to Apache (the
            // queue built from the file replaces the running one).
            let kept = was(i).filter(|&j| before.is_some_and(|b| b.queues[j].is_leaf() == q.is_leaf()));
            let state = match kept.map(|j| (j, previous[j])) {
                None => {
                    if let (Some(RuntimeState::Running), Some(p)) = (configured, parent) {
                        if fresh[p] != RuntimeState::Running {
                            errors.push(ConfigError::queue(q.path(), format!(
                                "is set RUNNING but its parent {} is {}: a queue cannot run under a parent that does not",
                                self.queues[p].path(),
                                fresh[p].as_str()
                            )));
                        }
                    }
                    fresh[i]
                }
                Some((j, RuntimeState::Running)) if configured == Some(RuntimeState::Stopped) => {
                    for d in self.descendants(i) {
                        if let Some(k) = was(d) {
                            previous[k] = stopped_for(k);
                        }
                    }
                    stopped_for(j)
                }
                Some((_, prev)) if prev != RuntimeState::Running && configured == Some(RuntimeState::Running) => {
                    match parent.map(|p| (self.queues[p].path(), self.queues[p].state)) {
                        Some((parent_path, s)) if s != RuntimeState::Running => {
                            errors.push(ConfigError::queue(
                                q.path(),
                                format!(
                                    "cannot be set RUNNING: its parent {parent_path} is {}; run the parent first",
                                    s.as_str()
                                ),
                            ));
                            prev
                        }
                        _ => RuntimeState::Running,
                    }
                }
                Some((_, prev)) => prev,
            };
            self.queues[i].state = state;
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// After an application left `leaf` (or was moved out of it): each draining queue on
    /// its path with no application left stops.
    pub fn settle_draining(&mut self, leaf: QueueIndex) {
        let path: Vec<QueueIndex> = self.ancestors_inclusive(leaf).collect();
        for i in path {
            if self.queues[i].state == RuntimeState::Draining && self.apps_under(i) == 0 {
                self.queues[i].state = RuntimeState::Stopped;
            }
        }
    }

    /// An application recovered after a restart into a STOPPED leaf: the leaf was DRAINING
    /// before the restart, and so were its STOPPED ancestors up to the first that is not
    /// (Apache's `recoverDrainingState`).
    pub fn recover_draining(&mut self, leaf: QueueIndex) {
        if self.queues[leaf].state != RuntimeState::Stopped {
            return;
        }
        let path: Vec<QueueIndex> = self.ancestors_inclusive(leaf).collect();
        for i in path {
            if self.queues[i].state != RuntimeState::Stopped {
                break;
            }
            self.queues[i].state = RuntimeState::Draining;
        }
    }

    /// Applications in `index` and its descendants.
    pub fn apps_under(&self, index: QueueIndex) -> usize {
        let q = &self.queues[index];
        if q.is_leaf() {
            q.apps.len()
        } else {
            q.config.children.iter().map(|&c| self.apps_under(c)).sum()
        }
    }

    /// Every queue under `index`, parents before their children.
    pub fn descendants(&self, index: QueueIndex) -> Vec<QueueIndex> {
        let mut out = Vec::new();
        let mut stack: Vec<QueueIndex> = self.queues[index].config.children.iter().rev().copied().collect();
        while let Some(q) = stack.pop() {
            out.push(q);
            stack.extend(self.queues[q].config.children.iter().rev().copied());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ClusterSettings, SchedulerConfig};

    fn tree(extra: &str) -> QueueTree {
        let xml = format!(
            "<configuration>
              <property><name>yarn.scheduler.capacity.root.queues</name><value>p</value></property>
              <property><name>yarn.scheduler.capacity.root.p.capacity</name><value>100</value></property>
              <property><name>yarn.scheduler.capacity.root.p.queues</name><value>a,b</value></property>
              <property><name>yarn.scheduler.capacity.root.p.a.capacity</name><value>50</value></property>
              <property><name>yarn.scheduler.capacity.root.p.b.capacity</name><value>50</value></property>
              {extra}
            </configuration>"
        );
        QueueTree::build(&SchedulerConfig::from_xml(xml.as_bytes(), "t.xml", ClusterSettings::default()).unwrap())
    }

    fn state(t: &QueueTree, path: &str) -> RuntimeState {
        t.queues[t.index_of_path(path).unwrap()].state
    }

    const P_STOPPED: &str =
        "<property><name>yarn.scheduler.capacity.root.p.state</name><value>STOPPED</value></property>";

    #[test]
    fn children_of_a_stopped_parent_start_stopped_and_stay_so_when_it_runs_again() {
        let t = tree(P_STOPPED);
        assert_eq!(state(&t, "root.p.a"), RuntimeState::Stopped);
        let mut unsaid = tree("");
        unsaid.set_states(Some(&t)).unwrap();
        assert_eq!(state(&unsaid, "root.p"), RuntimeState::Stopped, "a file that says nothing changes nothing");
        const P_RUNNING: &str =
            "<property><name>yarn.scheduler.capacity.root.p.state</name><value>RUNNING</value></property>";
        let mut again = tree(P_RUNNING);
        again.set_states(Some(&t)).unwrap();
        assert_eq!(state(&again, "root.p"), RuntimeState::Running);
        assert_eq!(state(&again, "root.p.a"), RuntimeState::Stopped, "its own state says nothing");
        let mut both = tree(&format!(
            "{P_RUNNING}<property><name>yarn.scheduler.capacity.root.p.a.state</name><value>RUNNING</value></property>"
        ));
        both.set_states(Some(&t)).unwrap();
        assert_eq!(state(&both, "root.p.a"), RuntimeState::Running);
        assert_eq!(state(&both, "root.p.b"), RuntimeState::Stopped);
    }

    #[test]
    fn a_queue_added_under_a_parent_stopped_by_an_earlier_file_runs_if_this_file_says_nothing() {
        let stopped = tree(P_STOPPED);
        let mut unsaid = tree("");
        unsaid.set_states(Some(&stopped)).unwrap();
        const WITH_C: &str =
            "<property><name>yarn.scheduler.capacity.root.p.queues</name><value>a,b,c</value></property>
             <property><name>yarn.scheduler.capacity.root.p.c.capacity</name><value>0</value></property>";
        let mut added = tree(WITH_C);
        added.set_states(Some(&unsaid)).unwrap();
        assert_eq!(state(&added, "root.p"), RuntimeState::Stopped, "the running parent stays stopped");
        assert_eq!(state(&added, "root.p.a"), RuntimeState::Stopped);
        assert_eq!(state(&added, "root.p.c"), RuntimeState::Running, "as Apache, from the file alone");
        // While the file stops the parent, a new child starts stopped with it.
        let mut added_stopped = tree(&format!("{WITH_C}{P_STOPPED}"));
        added_stopped.set_states(Some(&stopped)).unwrap();
        assert_eq!(state(&added_stopped, "root.p.c"), RuntimeState::Stopped);
    }

    #[test]
    fn a_queue_cannot_be_set_running_under_a_stopped_parent() {
        let stopped = tree(P_STOPPED);
        // Restarting a leaf under a parent that stays stopped is refused...
        let mut t =
            tree("<property><name>yarn.scheduler.capacity.root.p.a.state</name><value>RUNNING</value></property>");
        let err = t.set_states(Some(&stopped)).unwrap_err();
        assert!(err[0].to_string().contains("root.p.a"), "{err:?}");
        // ... and so is a file that starts one so.
        let xml = format!(
            "<configuration>
              <property><name>yarn.scheduler.capacity.root.queues</name><value>p</value></property>
              <property><name>yarn.scheduler.capacity.root.p.queues</name><value>a</value></property>
              {P_STOPPED}
              <property><name>yarn.scheduler.capacity.root.p.a.state</name><value>RUNNING</value></property>
            </configuration>"
        );
        let refused = SchedulerConfig::from_xml(xml.as_bytes(), "t.xml", ClusterSettings::default()).unwrap_err();
        assert!(refused.to_string().contains("is set RUNNING but its parent root.p starts STOPPED"), "{refused}");
    }

    #[test]
    fn a_stopped_queue_with_applications_drains_then_stops() {
        let mut running = tree("");
        let a = running.index_of_path("root.p.a").unwrap();
        running.queues[a].apps.push(7);
        let mut t = tree(P_STOPPED);
        t.set_states(Some(&running)).unwrap();
        assert_eq!(state(&t, "root.p"), RuntimeState::Draining);
        assert_eq!(state(&t, "root.p.a"), RuntimeState::Draining);
        assert_eq!(state(&t, "root.p.b"), RuntimeState::Stopped);
        t.queues[a].apps.push(7);
        t.settle_draining(a);
        assert_eq!(state(&t, "root.p.a"), RuntimeState::Draining, "its application is still there");
        t.queues[a].apps.clear();
        t.settle_draining(a);
        assert_eq!(state(&t, "root.p.a"), RuntimeState::Stopped);
        assert_eq!(state(&t, "root.p"), RuntimeState::Stopped);
    }
}
