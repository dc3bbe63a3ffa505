//! The capacity preemption policy's settings: `yarn.resourcemanager.monitor.capacity.preemption.*`
//! and the monitor switch. Apache's policy reads them from the scheduler's configuration —
//! yarn-site.xml with capacity-scheduler.xml over it — so they may sit in either file; the
//! RM hands the core its own keys with the capacity ones. A value Hadoop cannot parse
//! makes every one of Apache's rounds fail; here it is reported and the default used.

use super::KeyReader;
use serde::Serialize;

/// The policy's keys start with this.
pub const PREFIX: &str = "yarn.resourcemanager.monitor.capacity.preemption.";

/// `yarn.resourcemanager.scheduler.monitor.enable`.
pub const MONITOR_ENABLE: &str = "yarn.resourcemanager.scheduler.monitor.enable";

/// What the policy is told.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PreemptionSettings {
    /// `yarn.resourcemanager.scheduler.monitor.enable`: off, every queue counts as
    /// preemption-disabled (as in Apache, whatever runs the policy).
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
    /// `select_based_on_reserved_containers`: before the others, a selector takes back
    /// containers on nodes where that makes room for the node's reservation.
    pub select_for_reservations: bool,
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
    /// `intra-queue-preemption.enabled`: containers are also taken from applications of a
    /// queue for others in it (a higher priority, or a user under its limit).
    pub intra_queue_enabled: bool,
    /// `intra-queue-preemption.minimum-threshold`: a queue is looked inside only once it
    /// uses at least this share of its guarantee.
    pub intra_queue_minimum_threshold: f32,
    /// `intra-queue-preemption.max-allowable-limit`: the share of a queue's guarantee that
    /// may be taken inside it in one round, less what it gives other queues.
    pub intra_queue_max_allowable_limit: f32,
    /// `intra-queue-preemption.preemption-order-policy`.
    pub intra_queue_order: IntraQueueOrder,
    /// `intra-queue-preemption.conservative-drf`.
    pub intra_queue_conservative_drf: bool,
    /// `yarn.scheduler.capacity.lazy-preemption-enabled`: a container whose kill wait is
    /// over is only marked killable; it runs on until a queue below its guarantee needs its
    /// room on its node, or an ancestor of its own queue goes over its maximum.
    pub lazy: bool,
    /// `yarn.scheduler.capacity.ordering-policy.priority-utilization.underutilized-preemption.enabled`:
    /// first of all, a reservation of a queue below its guarantee takes the room it needs
    /// on its node from queues of lower priority (under `priority-utilization` parents).
    pub under_utilized_enabled: bool,
    /// `…underutilized-preemption.reserved-container-delay-ms`: how long a reservation
    /// waits before it may take room that way (wall-clock time, as Apache's).
    pub under_utilized_delay_ms: i64,
    /// `…underutilized-preemption.allow-move-reservation`: a reservation that cannot get
    /// room on its node that way moves to a node where it could.
    pub under_utilized_move_reservation: bool,
}

/// Which imbalance inside a queue intra-queue preemption corrects first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum IntraQueueOrder {
    /// `userlimit_first`: a user is never taken below its user limit, and a user under its
    /// limit may take from another user over it at the same priority.
    UserLimitFirst,
    /// `priority_first`: a higher-priority application takes from lower ones whatever the
    /// users' limits.
    PriorityFirst,
}

impl Default for PreemptionSettings {
    /// Apache's defaults (the monitor off).
    fn default() -> Self {
        PreemptionSettings {
            monitor_enabled: false,
            observe_only: false,
            max_wait_before_kill_ms: 15_000,
            total_preemption_per_round: 0.1,
            max_ignored_over_capacity: 0.1,
            natural_termination_factor: 0.2,
            select_for_reservations: false,
            reserved_counts_as_pending: false,
            balance_after_satisfied: false,
            balance_max_wait_before_kill_ms: 300_000,
            conservative_drf: false,
            intra_queue_enabled: false,
            intra_queue_minimum_threshold: 0.5,
            intra_queue_max_allowable_limit: 0.2,
            intra_queue_order: IntraQueueOrder::UserLimitFirst,
            intra_queue_conservative_drf: true,
            lazy: false,
            under_utilized_enabled: false,
            under_utilized_delay_ms: 60_000,
            under_utilized_move_reservation: false,
        }
    }
}

/// `yarn.scheduler.capacity.lazy-preemption-enabled`.
pub const LAZY: &str = "yarn.scheduler.capacity.lazy-preemption-enabled";

/// The keys of preemption for under-utilized queues of higher priority start with this.
const UNDER_UTILIZED: &str = "yarn.scheduler.capacity.ordering-policy.priority-utilization.underutilized-preemption.";

impl PreemptionSettings {
    /// Reads the settings.
    pub(super) fn read(r: &mut KeyReader<'_>) -> Self {
        let d = PreemptionSettings::default();
        let key = |suffix: &str| format!("{PREFIX}{suffix}");
        PreemptionSettings {
            monitor_enabled: r.boolean(None, MONITOR_ENABLE, d.monitor_enabled),
            observe_only: r.boolean(None, &key("observe_only"), d.observe_only),
            lazy: r.boolean(None, LAZY, d.lazy),
            max_wait_before_kill_ms: lenient_int(r, &key("max_wait_before_kill"), d.max_wait_before_kill_ms),
            total_preemption_per_round: lenient_float(
                r,
                &key("total_preemption_per_round"),
                f64::from(d.total_preemption_per_round),
            ) as f32,
            max_ignored_over_capacity: lenient_float(r, &key("max_ignored_over_capacity"), d.max_ignored_over_capacity),
            natural_termination_factor: lenient_float(
                r,
                &key("natural_termination_factor"),
                d.natural_termination_factor,
            ),
            select_for_reservations: r.boolean(
                None,
                &key("select_based_on_reserved_containers"),
                d.select_for_reservations,
            ),
            reserved_counts_as_pending: r.boolean(
                None,
                &key("additional_res_balance_based_on_reserved_containers"),
                d.reserved_counts_as_pending,
            ),
            balance_after_satisfied: r.boolean(
                None,
                &key("preemption-to-balance-queue-after-satisfied.enabled"),
                d.balance_after_satisfied,
            ),
            balance_max_wait_before_kill_ms: lenient_int(
                r,
                &key("preemption-to-balance-queue-after-satisfied.max-wait-before-kill"),
                d.balance_max_wait_before_kill_ms,
            ),
            conservative_drf: r.boolean(None, &key("conservative-drf"), d.conservative_drf),
            intra_queue_enabled: r.boolean(None, &key("intra-queue-preemption.enabled"), d.intra_queue_enabled),
            intra_queue_minimum_threshold: lenient_float(
                r,
                &key("intra-queue-preemption.minimum-threshold"),
                f64::from(d.intra_queue_minimum_threshold),
            ) as f32,
            intra_queue_max_allowable_limit: lenient_float(
                r,
                &key("intra-queue-preemption.max-allowable-limit"),
                f64::from(d.intra_queue_max_allowable_limit),
            ) as f32,
            intra_queue_order: intra_queue_order(r, &key("intra-queue-preemption.preemption-order-policy")),
            intra_queue_conservative_drf: r.boolean(
                None,
                &key("intra-queue-preemption.conservative-drf"),
                d.intra_queue_conservative_drf,
            ),
            under_utilized_enabled: r.boolean(None, &format!("{UNDER_UTILIZED}enabled"), d.under_utilized_enabled),
            under_utilized_delay_ms: lenient_int(
                r,
                &format!("{UNDER_UTILIZED}reserved-container-delay-ms"),
                d.under_utilized_delay_ms,
            ),
            under_utilized_move_reservation: r.boolean(
                None,
                &format!("{UNDER_UTILIZED}allow-move-reservation"),
                d.under_utilized_move_reservation,
            ),
        }
    }
}

/// The order policy, by Apache's enum names in any case; anything else is a warning and
/// the default, `userlimit_first` (Apache's rounds fail on it, every one of them).
fn intra_queue_order(r: &mut KeyReader<'_>, key: &str) -> IntraQueueOrder {
    let Some(value) = r.string(key) else { return IntraQueueOrder::UserLimitFirst };
    match value.to_ascii_uppercase().as_str() {
        "USERLIMIT_FIRST" => IntraQueueOrder::UserLimitFirst,
        "PRIORITY_FIRST" => IntraQueueOrder::PriorityFirst,
        _ => {
            r.warnings.push(super::ConfigError::at_key(
                key,
                format!(
                    "'{value}' is not an intra-queue preemption order (userlimit_first or priority_first); \
                     capacity preemption uses userlimit_first"
                ),
            ));
            IntraQueueOrder::UserLimitFirst
        }
    }
}

/// A whole-number key whose bad value is a warning (the default is used), not an error.
fn lenient_int(r: &mut KeyReader<'_>, key: &str, default: i64) -> i64 {
    lenient(r, key, default, |r, k| r.opt_int(None, k))
}

/// A number key whose bad value is a warning (the default is used), not an error.
fn lenient_float(r: &mut KeyReader<'_>, key: &str, default: f64) -> f64 {
    lenient(r, key, default, |r, k| Some(r.float(None, k, default)))
}

fn lenient<T: std::fmt::Display + Copy>(
    r: &mut KeyReader<'_>,
    key: &str,
    default: T,
    read: impl FnOnce(&mut KeyReader<'_>, &str) -> Option<T>,
) -> T {
    let errors = r.errors.len();
    let value = read(r, key);
    if r.errors.len() > errors {
        let problems: Vec<_> = r.errors.drain(errors..).collect();
        for p in problems {
            r.warnings.push(super::ConfigError::at_key(
                key,
                format!("{}; capacity preemption uses the default, {default}", p.message),
            ));
        }
        return default;
    }
    value.unwrap_or(default)
}

#[cfg(test)]
mod tests {
    use crate::config::{ClusterSettings, SchedulerConfig};

    fn read(props: &str) -> SchedulerConfig {
        let xml = format!(
            "<configuration>
              <property><name>yarn.scheduler.capacity.root.queues</name><value>a</value></property>
              <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>100</value></property>
              {props}
            </configuration>"
        );
        SchedulerConfig::from_xml(xml.as_bytes(), "t.xml", ClusterSettings::default()).unwrap()
    }

    #[test]
    fn keys_are_read_and_bad_values_fall_back_to_the_default_with_a_warning() {
        let c = read(
            "<property><name>yarn.resourcemanager.scheduler.monitor.enable</name><value>true</value></property>
             <property><name>yarn.resourcemanager.monitor.capacity.preemption.natural_termination_factor</name><value> 1.0 </value></property>
             <property><name>yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill</name><value>soon</value></property>
             <property><name>yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.enabled</name><value>true</value></property>
             <property><name>yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.preemption-order-policy</name><value>Priority_First</value></property>
             <property><name>yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.max-allowable-limit</name><value>0.3</value></property>
             <property><name>yarn.resourcemanager.monitor.capacity.preemption.select_based_on_reserved_containers</name><value>true</value></property>
             <property><name>yarn.scheduler.capacity.lazy-preemption-enabled</name><value>true</value></property>
             <property><name>yarn.scheduler.capacity.ordering-policy.priority-utilization.underutilized-preemption.enabled</name><value>true</value></property>
             <property><name>yarn.scheduler.capacity.ordering-policy.priority-utilization.underutilized-preemption.reserved-container-delay-ms</name><value>500</value></property>
             <property><name>yarn.scheduler.capacity.ordering-policy.priority-utilization.underutilized-preemption.allow-move-reservation</name><value>true</value></property>",
        );
        let p = &c.global.preemption;
        assert!(p.monitor_enabled);
        assert_eq!(p.natural_termination_factor, 1.0);
        assert_eq!(p.max_wait_before_kill_ms, 15_000);
        let warnings: Vec<String> = c.warnings.iter().map(|w| w.to_string()).collect();
        assert!(
            warnings.iter().any(|w| w.contains("max_wait_before_kill") && w.contains("default, 15000")),
            "{warnings:?}"
        );
        assert!(p.intra_queue_enabled);
        assert_eq!(p.intra_queue_order, super::IntraQueueOrder::PriorityFirst);
        assert_eq!(p.intra_queue_max_allowable_limit, 0.3);
        assert!(p.intra_queue_conservative_drf);
        assert!(p.select_for_reservations);
        assert!(!warnings.iter().any(|w| w.contains("intra-queue") || w.contains("reserved")), "{warnings:?}");
        assert!(p.lazy);
        assert!(!warnings.iter().any(|w| w.contains("lazy")), "{warnings:?}");
        assert!(p.under_utilized_enabled);
        assert_eq!(p.under_utilized_delay_ms, 500);
        assert!(p.under_utilized_move_reservation);
        assert!(!warnings.iter().any(|w| w.contains("allow-move-reservation")), "{warnings:?}");
        assert!(!warnings.iter().any(|w| w.contains("underutilized-preemption.enabled")), "{warnings:?}");
    }
}
