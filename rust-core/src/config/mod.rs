//! The capacity scheduler's configuration: `capacity-scheduler.xml` read with Hadoop's rules
//! into typed, validated settings. Loading is a pure function of the file's bytes; nothing
//! here touches scheduler state, so a refresh can build and check a whole new configuration
//! before anything is swapped in.

pub mod acl;
pub mod autoqueue;
pub mod capacity;
pub mod error;
pub mod mapping;
pub mod preemption;
pub mod priority_acl;
pub mod queue;
pub mod validate;
pub mod xml;

pub use acl::AccessControlList;
pub use autoqueue::{DynamicKind, DynamicQueue};
pub use capacity::{CapacitySpec, MaxCapacitySpec};
pub use error::{ConfigError, ConfigErrors};
pub use mapping::{Action, Fallback, MappingRule, Matcher, PlacementRules};
pub use preemption::{IntraQueueOrder, PreemptionSettings};
pub use queue::{LabelAccess, LabelCapacity, OrderingPolicy, QueueConfig, QueueOrdering, QueueState, ANY_LABEL};
pub use xml::Properties;

use crate::resource::{Resource, ResourceCalculator};
use capacity::parse_java_float;
use serde::Serialize;
use std::collections::BTreeMap;

/// Every capacity scheduler key starts with this.
pub const PREFIX: &str = "yarn.scheduler.capacity.";

/// The full name of a scheduler-wide key.
pub fn global_key(suffix: &str) -> String {
    let mut key = String::with_capacity(PREFIX.len() + suffix.len());
    key.push_str(PREFIX);
    key.push_str(suffix);
    key
}

/// Scheduler-wide settings (keys directly under `yarn.scheduler.capacity.`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GlobalSettings {
    /// `maximum-applications`: applications pending or running, cluster-wide.
    pub maximum_applications: i64,
    /// `global-queue-max-application`: each leaf's default `maximum-applications` (when
    /// positive), in place of the cluster-wide maximum scaled by its capacity.
    pub global_queue_max_applications: Option<i64>,
    /// `maximum-am-resource-percent`: default share of a queue for ApplicationMasters (0..1).
    pub maximum_am_resource_percent: f64,
    /// `resource-calculator`.
    pub resource_calculator: ResourceCalculator,
    /// `node-locality-delay`: scheduling opportunities missed before rack-local is accepted.
    pub node_locality_delay: i64,
    /// `rack-locality-additional-delay`: further opportunities before off-switch (-1: derived).
    pub rack_locality_additional_delay: i64,
    /// `rack-locality-full-reset`.
    pub rack_locality_full_reset: bool,
    /// `per-node-heartbeat.multiple-assignments-enabled`.
    pub multiple_assignments_enabled: bool,
    /// `per-node-heartbeat.maximum-container-assignments` (-1: unlimited).
    pub max_container_assignments: i64,
    /// `per-node-heartbeat.maximum-offswitch-assignments`.
    pub max_offswitch_assignments: i64,
    /// `reservations-continue-look-all-nodes`.
    pub reservations_continue_look_all_nodes: bool,
    /// `max-parallel-apps`: default limit for every queue (None: unlimited).
    pub max_parallel_apps: Option<i64>,
    /// `user.max-parallel-apps`: default limit for every user (None: unlimited).
    pub user_max_parallel_apps: Option<i64>,
    /// `user.<name>.max-parallel-apps`: one user's limit, over the default.
    pub max_parallel_apps_by_user: BTreeMap<String, i64>,
    /// The placement rules (`queue-mappings` and the application-name rules, or the JSON
    /// rules) and `queue-mappings-override.enable`.
    pub placement: PlacementRules,
    /// `user-metrics.enable`: QueueMetrics per user in each queue (for JMX and the web UI).
    pub user_metrics_enabled: bool,
    /// The capacity preemption policy's settings (see [`preemption`]).
    pub preemption: PreemptionSettings,
    /// `auto-queue-creation-v2.queue-expiration-time`: seconds an idle created queue
    /// stays before the deletion policy may delete it.
    pub auto_queue_expiration_secs: i64,
    /// `capsched.bench.floor` (benchmark builds only): place the first pending ask that fits
    /// on the heartbeating node, deciding nothing else — the floor the side-by-side
    /// benchmark measures ours against (see `Scheduler::place_first_fit`).
    #[cfg(feature = "diagnostics")]
    pub bench_floor: bool,
}

impl GlobalSettings {
    /// The most applications `user` may run at once, across queues:
    /// `user.<name>.max-parallel-apps`, else `user.max-parallel-apps` (None: unlimited).
    pub fn max_parallel_apps_for(&self, user: &str) -> Option<i64> {
        self.max_parallel_apps_by_user.get(user).copied().or(self.user_max_parallel_apps)
    }
}

impl Default for GlobalSettings {
    fn default() -> Self {
        GlobalSettings {
            maximum_applications: 10_000,
            global_queue_max_applications: None,
            maximum_am_resource_percent: 0.1,
            resource_calculator: ResourceCalculator::Memory,
            node_locality_delay: 40,
            rack_locality_additional_delay: -1,
            rack_locality_full_reset: true,
            multiple_assignments_enabled: true,
            max_container_assignments: 100,
            max_offswitch_assignments: 1,
            reservations_continue_look_all_nodes: true,
            max_parallel_apps: None,
            user_max_parallel_apps: None,
            max_parallel_apps_by_user: BTreeMap::new(),
            placement: PlacementRules::default(),
            user_metrics_enabled: false,
            preemption: PreemptionSettings::default(),
            auto_queue_expiration_secs: autoqueue::DEFAULT_EXPIRATION_SECS,
            #[cfg(feature = "diagnostics")]
            bench_floor: false,
        }
    }
}

/// Settings that come from yarn-site.xml rather than capacity-scheduler.xml; the
/// ResourceManager hands them over when the scheduler starts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ClusterSettings {
    /// `yarn.scheduler.minimum-allocation-mb/-vcores`.
    pub minimum_allocation: Resource,
    /// `yarn.scheduler.maximum-allocation-mb/-vcores`.
    pub maximum_allocation: Resource,
    /// `yarn.acl.enable`: queue ACLs are enforced only when this is true, as in Apache.
    pub acl_enabled: bool,
    /// `yarn.resourcemanager.node-labels.am.allow-non-exclusive-allocation`: whether an
    /// ApplicationMaster container may be placed on a non-exclusive node lent to the
    /// default partition.
    pub am_non_exclusive: bool,
}

impl Default for ClusterSettings {
    fn default() -> Self {
        ClusterSettings {
            minimum_allocation: Resource::new(1024, 1),
            maximum_allocation: Resource::new(8192, 4),
            acl_enabled: false,
            am_non_exclusive: false,
        }
    }
}

/// A complete, validated capacity scheduler configuration.
#[derive(Debug, Clone, Serialize)]
pub struct SchedulerConfig {
    /// Scheduler-wide settings.
    pub global: GlobalSettings,
    /// Allocation bounds from yarn-site.xml.
    pub cluster: ClusterSettings,
    /// The queue tree, root first, each parent before its children.
    pub queues: Vec<QueueConfig>,
    /// Every queue path the file sets `state` STOPPED for, in the tree or not: a refresh
    /// may remove a queue the new file marks STOPPED (Apache's rule).
    pub stopped_in_file: std::collections::BTreeSet<String>,
    /// Things worth telling the operator that do not stop the file from loading.
    pub warnings: Vec<ConfigError>,
    /// The queues created at run time that this configuration holds, in creation order.
    pub dynamic: Vec<DynamicQueue>,
    /// The file's properties, kept so queues can be created from its templates.
    #[serde(skip)]
    pub properties: std::sync::Arc<Properties>,
}

impl SchedulerConfig {
    /// Reads, types and validates a configuration from XML bytes. `source` names the file in
    /// messages.
    pub fn from_xml(xml: &[u8], source: &str, cluster: ClusterSettings) -> Result<Self, ConfigErrors> {
        let props = Properties::from_xml(xml, source)?;
        Self::from_properties(&props, cluster)
    }

    /// Types and validates a configuration from already-read properties.
    pub fn from_properties(props: &Properties, cluster: ClusterSettings) -> Result<Self, ConfigErrors> {
        Self::with_dynamic(std::sync::Arc::new(props.clone()), cluster, Vec::new())
    }

    /// The configuration `props` gives with the queues in `dynamic` created in it (each
    /// after its parent's configured children, configured by its parent's templates).
    pub fn with_dynamic(
        props: std::sync::Arc<Properties>,
        cluster: ClusterSettings,
        dynamic: Vec<DynamicQueue>,
    ) -> Result<Self, ConfigErrors> {
        Self::read(props, cluster, dynamic, true)
    }

    /// Reads `props` with the queues in `dynamic` created; `check_rules`: the placement
    /// rules are checked against the tree, as at a load or a refresh (Apache checks them
    /// then, not when a queue is created or deleted).
    fn read(
        props: std::sync::Arc<Properties>,
        cluster: ClusterSettings,
        dynamic: Vec<DynamicQueue>,
        check_rules: bool,
    ) -> Result<Self, ConfigErrors> {
        let overlaid;
        let read_from = if dynamic.is_empty() {
            &*props
        } else {
            overlaid = autoqueue::with_dynamic_queues(&props, &dynamic);
            &overlaid
        };
        let mut reader = KeyReader { props: read_from, errors: Vec::new(), warnings: Vec::new() };
        let global = read_global(&mut reader);
        let queues = queue::read_queue_tree(&mut reader, &global, &cluster, &dynamic);
        let KeyReader { mut errors, mut warnings, .. } = reader;
        for name in props.final_overrides() {
            warnings.push(ConfigError::at_key(name.clone(), "is final; a later definition was ignored"));
        }
        if errors.is_empty() {
            errors.extend(validate::validate(&queues, &cluster, global.resource_calculator));
        }
        if errors.is_empty() && check_rules {
            errors.extend(mapping::validate(&global.placement.rules, &mapping::ConfiguredQueues::new(&queues)));
        }
        if !errors.is_empty() {
            return Err(ConfigErrors(errors));
        }
        let stopped_in_file = props
            .names_with_prefix(PREFIX)
            .filter_map(|name| {
                let path = name.strip_prefix(PREFIX)?.strip_suffix(".state")?;
                let stopped = props.get(name)?.trim().eq_ignore_ascii_case("STOPPED");
                (path.starts_with("root") && stopped).then(|| path.to_string())
            })
            .collect();
        Ok(SchedulerConfig { global, cluster, queues, stopped_in_file, warnings, dynamic, properties: props })
    }

    /// This configuration with `created` added to its run-time queues.
    pub fn with_created(&self, created: &[DynamicQueue]) -> Result<Self, ConfigErrors> {
        let mut dynamic = self.dynamic.clone();
        dynamic.extend(created.iter().cloned());
        self.rebuilt_with(dynamic)
    }

    /// This configuration without the run-time queue at `path`.
    pub fn without_dynamic(&self, path: &str) -> Result<Self, ConfigErrors> {
        self.rebuilt_with(self.dynamic.iter().filter(|d| d.path != path).cloned().collect())
    }

    /// The same file read again with other run-time queues, keeping what the scheduler
    /// decided when it took the file (the resource calculator it runs with).
    pub fn rebuilt_with(&self, dynamic: Vec<DynamicQueue>) -> Result<Self, ConfigErrors> {
        let mut new = Self::read(self.properties.clone(), self.cluster, dynamic, false)?;
        new.global.resource_calculator = self.global.resource_calculator;
        Ok(new)
    }

    /// Whether [`SchedulerConfig::refreshed_keeping_dynamic`] would change `new`: this
    /// configuration has run-time queues, and `new` (a file just read) none of its own.
    pub fn keeps_dynamic_queues_in(&self, new: &SchedulerConfig) -> bool {
        !self.dynamic.is_empty() && new.dynamic.is_empty()
    }

    /// `new` (a refreshed file) with this configuration's run-time queues kept where Apache
    /// keeps them: those the new file now configures become configured queues, and those
    /// whose parent is gone go with it.
    pub fn refreshed_keeping_dynamic(&self, new: SchedulerConfig) -> Result<Self, ConfigErrors> {
        if !self.keeps_dynamic_queues_in(&new) {
            return Ok(new);
        }
        let mut kept: Vec<DynamicQueue> = Vec::new();
        let mut kept_paths: std::collections::HashSet<&str> = std::collections::HashSet::new();
        for d in &self.dynamic {
            let parent = d.path.rsplit_once('.').map_or("", |(p, _)| p);
            if new.queue_index(&d.path).is_some() {
                continue;
            }
            let parent_exists =
                new.queue_index(parent).is_some_and(|i| !new.queues[i].is_leaf()) || kept_paths.contains(parent);
            if let DynamicKind::Managed { .. } = d.kind {
                // A managed parent keeps its leaves while it stays managed; each starts
                // the refreshed configuration without a guarantee.
                if new.queue_index(parent).is_some_and(|i| new.queues[i].auto_create_child_queue) {
                    kept.push(DynamicQueue { path: d.path.clone(), kind: DynamicKind::Managed { active: false } });
                }
            } else if parent_exists {
                kept_paths.insert(&d.path);
                kept.push(d.clone());
            }
        }
        Self::with_dynamic(new.properties.clone(), new.cluster, kept)
    }

    /// The index of the queue with this full path.
    pub fn queue_index(&self, path: &str) -> Option<usize> {
        self.queues.iter().position(|q| q.path == path)
    }
}

/// Reads typed values and collects every problem instead of stopping at the first.
pub(crate) struct KeyReader<'a> {
    pub props: &'a Properties,
    pub errors: Vec<ConfigError>,
    pub warnings: Vec<ConfigError>,
}

impl KeyReader<'_> {
    /// The trimmed, expanded value of `key`, or None when unset.
    pub fn string(&self, key: &str) -> Option<String> {
        self.props.get(key)
    }

    /// A float key (`Configuration.getFloat`): unset or empty gives the default, anything
    /// else must parse.
    pub fn float(&mut self, queue: Option<&str>, key: &str, default: f64) -> f64 {
        match self.string(key) {
            None => default,
            Some(v) if v.is_empty() => default,
            Some(v) => parse_java_float(&v).unwrap_or_else(|| {
                self.error(queue, key, format!("'{v}' is not a number"));
                default
            }),
        }
    }

    /// An integer key (`Configuration.getInt`/`getLong`), decimal or 0x-hex.
    pub fn int(&mut self, queue: Option<&str>, key: &str, default: i64) -> i64 {
        self.opt_int(queue, key).unwrap_or(default)
    }

    /// An integer key with no default.
    pub fn opt_int(&mut self, queue: Option<&str>, key: &str) -> Option<i64> {
        let v = self.string(key).filter(|v| !v.is_empty())?;
        let parsed = match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
            Some(hex) => i64::from_str_radix(hex, 16).ok(),
            None => v.parse::<i64>().ok(),
        };
        if parsed.is_none() {
            self.error(queue, key, format!("'{v}' is not a whole number"));
        }
        parsed
    }

    /// A boolean key. Hadoop silently uses the default for anything but true/false; we do
    /// the same, but say so.
    pub fn boolean(&mut self, queue: Option<&str>, key: &str, default: bool) -> bool {
        match self.string(key) {
            None => default,
            Some(v) if v.eq_ignore_ascii_case("true") => true,
            Some(v) if v.eq_ignore_ascii_case("false") => false,
            Some(v) => {
                let msg = format!("'{v}' is not true or false; using the default, {default}");
                match queue {
                    Some(q) => self.warnings.push(ConfigError::at_queue(q, key, msg)),
                    None => self.warnings.push(ConfigError::at_key(key, msg)),
                }
                default
            }
        }
    }

    /// A boolean key with no default: None when unset or not true/false (said, as for
    /// [`KeyReader::boolean`]), so the caller can inherit.
    pub fn opt_boolean(&mut self, queue: Option<&str>, key: &str) -> Option<bool> {
        self.string(key)?;
        match (self.boolean(queue, key, false), self.boolean_is_valid(key)) {
            (v, true) => Some(v),
            (_, false) => None,
        }
    }

    fn boolean_is_valid(&self, key: &str) -> bool {
        self.string(key).is_some_and(|v| v.eq_ignore_ascii_case("true") || v.eq_ignore_ascii_case("false"))
    }

    /// Records an error against a key.
    pub fn error(&mut self, queue: Option<&str>, key: &str, message: String) {
        self.errors.push(match queue {
            Some(q) => ConfigError::at_queue(q, key, message),
            None => ConfigError::at_key(key, message),
        });
    }
}

fn read_global(r: &mut KeyReader<'_>) -> GlobalSettings {
    let d = GlobalSettings::default();
    let key = global_key;
    let calculator_key = key("resource-calculator");
    let resource_calculator = match r.string(&calculator_key) {
        None => d.resource_calculator,
        Some(name) => ResourceCalculator::from_class_name(&name).unwrap_or_else(|| {
            r.error(None, &calculator_key, format!(
                "'{name}' is not a resource calculator class: use org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator (memory only) or org.apache.hadoop.yarn.util.resource.DominantResourceCalculator (memory and vcores)"
            ));
            d.resource_calculator
        }),
    };
    let am_key = key("maximum-am-resource-percent");
    let maximum_am_resource_percent = r.float(None, &am_key, d.maximum_am_resource_percent);
    if !(0.0..=1.0).contains(&maximum_am_resource_percent) {
        // Apache accepts any value here; say what it means.
        r.warnings.push(ConfigError::at_key(
            &am_key,
            format!("{maximum_am_resource_percent} is outside [0, 1]: this key is a fraction (0.1 = 10%)"),
        ));
    }
    let legacy_mode_key = key("legacy-queue-mode.enabled");
    if !r.boolean(None, &legacy_mode_key, true) {
        r.warnings.push(ConfigError::at_key(
            &legacy_mode_key,
            "false asks for Apache's capacity-vector queue mode, which this scheduler does not model: capacities, limits and auto-created queues are worked out as in the legacy queue mode (the default)".to_string(),
        ));
    }
    let max_apps_key = key("maximum-applications");
    let maximum_applications = r.int(None, &max_apps_key, d.maximum_applications);
    if maximum_applications < 0 {
        r.error(None, &max_apps_key, format!("{maximum_applications} is negative"));
    }
    GlobalSettings {
        maximum_applications,
        global_queue_max_applications: r.opt_int(None, &key("global-queue-max-application")).filter(|&n| n > 0),
        maximum_am_resource_percent,
        resource_calculator,
        node_locality_delay: r.int(None, &key("node-locality-delay"), d.node_locality_delay),
        rack_locality_additional_delay: r.int(
            None,
            &key("rack-locality-additional-delay"),
            d.rack_locality_additional_delay,
        ),
        rack_locality_full_reset: r.boolean(None, &key("rack-locality-full-reset"), d.rack_locality_full_reset),
        multiple_assignments_enabled: r.boolean(
            None,
            &key("per-node-heartbeat.multiple-assignments-enabled"),
            d.multiple_assignments_enabled,
        ),
        max_container_assignments: r.int(
            None,
            &key("per-node-heartbeat.maximum-container-assignments"),
            d.max_container_assignments,
        ),
        max_offswitch_assignments: r.int(
            None,
            &key("per-node-heartbeat.maximum-offswitch-assignments"),
            d.max_offswitch_assignments,
        ),
        reservations_continue_look_all_nodes: r.boolean(
            None,
            &key("reservations-continue-look-all-nodes"),
            d.reservations_continue_look_all_nodes,
        ),
        max_parallel_apps: r.opt_int(None, &key("max-parallel-apps")),
        user_max_parallel_apps: r.opt_int(None, &key("user.max-parallel-apps")),
        max_parallel_apps_by_user: {
            let (prefix, suffix) = (key("user."), ".max-parallel-apps");
            let keys: Vec<String> = r
                .props
                .names_with_prefix(&prefix)
                .filter(|k| k.len() > prefix.len() + suffix.len() && k.ends_with(suffix))
                .map(str::to_string)
                .collect();
            keys.iter()
                .filter_map(|k| Some((k[prefix.len()..k.len() - suffix.len()].to_string(), r.opt_int(None, k)?)))
                .collect()
        },
        placement: mapping::read(r),
        user_metrics_enabled: r.boolean(None, &key("user-metrics.enable"), d.user_metrics_enabled),
        preemption: PreemptionSettings::read(r),
        auto_queue_expiration_secs: r.int(
            None,
            &key("auto-queue-creation-v2.queue-expiration-time"),
            d.auto_queue_expiration_secs,
        ),
        #[cfg(feature = "diagnostics")]
        bench_floor: r.boolean(None, "capsched.bench.floor", false),
    }
}
