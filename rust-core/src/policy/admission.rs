//! Who may enter a queue: new applications (APP_ADDED), applications moved from another
//! queue (`yarn application -movetoqueue`), and the priority an application runs at.
//!
//! Pure functions of the scheduler's state; `Scheduler` applies what they decide. The
//! texts of the rejections are what the user sees (`yarn application -status`, the
//! exception the move command prints), worded as Apache's CapacityScheduler words them
//! where it has a message, clearer where it has none.

use crate::config::{CapacitySpec, GlobalSettings, QueueConfig};
use crate::ids::{application_name, AppKey, QueueIndex};
use crate::model::{ResolveError, State};
use crate::resource::Resource;

/// An application submission, as APP_ADDED carries it.
#[derive(Debug, Clone)]
pub struct Submission {
    /// `(cluster timestamp, sequence number)` of the ApplicationId.
    pub app_id: (i64, i32),
    /// The queue named at submission (full path or short leaf name).
    pub queue: String,
    /// The submitting user.
    pub user: String,
    /// The user's groups, for ACL checks.
    pub groups: Vec<String>,
    /// Application priority.
    pub priority: i64,
    /// True when the RM is recovering this application after a restart: it was admitted
    /// once already, so only the queue's existence is checked.
    pub recovering: bool,
    /// The ApplicationMaster's size; zero for an unmanaged AM.
    pub am_resource: Resource,
    /// The partition the ApplicationMaster's request names (`""`: the default one), as
    /// the RM filled it in (the queue's default label expression when it named none): its
    /// AM counts against the queue's AM limit there.
    pub am_label: String,
    /// A placement rule chose the queue (the RM's placement context): a queue that cannot
    /// be created is then refused with the reason, as Apache does.
    pub placed: bool,
}

impl Submission {
    /// A plain submission of `(1, id)`: no groups, priority 0, not recovering.
    pub fn new(id: i32, queue: &str, user: &str, am_resource: Resource) -> Self {
        Submission {
            app_id: (1, id),
            queue: queue.into(),
            user: user.into(),
            groups: Vec::new(),
            priority: 0,
            recovering: false,
            am_resource,
            am_label: String::new(),
            placed: false,
        }
    }
}

/// The two queue ACLs (YARN's `QueueACL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueAcl {
    /// `acl_submit_applications`.
    SubmitApplications,
    /// `acl_administer_queue`.
    AdministerQueue,
}

/// Why an application was not accepted (or not moved). The text is shown to the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection(pub String);

/// Why an application may not move where it was asked to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveRefusal {
    /// The target names no leaf queue (unknown, ambiguous, a parent), or the application
    /// is unknown.
    NoSuchLeaf(String),
    /// The leaf exists but does not admit the application (stopped, full): what Apache
    /// reports as an access-control failure.
    NotAdmitted(Rejection),
    /// The leaf may not access a partition the application's current attempt has asked
    /// for (Apache's `checkQueuePartition`, a plain refusal).
    Partitions(String),
}

impl MoveRefusal {
    /// The text shown to the user.
    pub fn reason(&self) -> &str {
        match self {
            MoveRefusal::NoSuchLeaf(r) | MoveRefusal::NotAdmitted(Rejection(r)) | MoveRefusal::Partitions(r) => r,
        }
    }
}

/// Whether `user` holds `acl` on `queue`: granted when the queue or any ancestor grants
/// it, as Apache's authorizer walks up the tree. Each ACL stands alone (the RM's
/// `getQueueUserAcls` lists them so); the checks that accept either — a submission, a
/// move's target — ask for both ([`may_submit`]).
pub fn check_access(state: &State, queue: QueueIndex, acl: QueueAcl, user: &str, groups: &[String]) -> bool {
    state.queues.ancestors_inclusive(queue).any(|i| {
        let c = &state.queues.get(i).config;
        match acl {
            QueueAcl::SubmitApplications => c.acl_submit_applications.allows(user, groups),
            QueueAcl::AdministerQueue => c.acl_administer_queue.allows(user, groups),
        }
    })
}

/// Whether `user` may submit to `queue`: it holds the submit or the administer ACL there
/// (Apache's leaf checks both).
pub fn may_submit(state: &State, queue: QueueIndex, user: &str, groups: &[String]) -> bool {
    check_access(state, queue, QueueAcl::SubmitApplications, user, groups)
        || check_access(state, queue, QueueAcl::AdministerQueue, user, groups)
}

/// APP_ADDED: the leaf that takes the application, or why none does. Checks, in Apache's
/// order and with its texts: the system-wide application limit, the queue exists and is a
/// leaf (a plan queue sends applications to its `-default` child), the submit ACL, then
/// the leaf's own checks — its state and application limits, which Apache reports as the
/// `AccessControlException` its queue throws. An ambiguous short name gets a clearer text
/// than Apache's: the paths it could mean.
pub fn admit(state: &State, sub: &Submission) -> Result<QueueIndex, Rejection> {
    let app = application_name(sub.app_id);
    if !sub.recovering && state.apps.len() as i64 >= state.config.global.maximum_applications {
        // Apache's text, its missing space included: tools match on it.
        return Err(Rejection(format!(
            "Maximum system application limit reached,cannot accept submission of application: {app}"
        )));
    }
    let queue = match state.queues.resolve(&sub.queue) {
        Ok(q) => q,
        Err(ResolveError::Unknown) => {
            return Err(Rejection(format!(
                "Application {app} submitted by user {} to unknown queue: {}",
                sub.user, sub.queue
            )))
        }
        Err(ResolveError::Ambiguous(paths)) => {
            return Err(Rejection(format!(
                "Application {app} submitted by user {} to ambiguous queue: {}; use the full path, one of {}",
                sub.user,
                sub.queue,
                paths.join(", ")
            )))
        }
    };
    let queue = plan_default_child(state, queue);
    let q = state.queues.get(queue);
    if !q.is_leaf() {
        return Err(Rejection(format!(
            "Application {app} submitted by user : {} to non-leaf queue : {}",
            sub.user, sub.queue
        )));
    }
    if sub.recovering {
        return Ok(queue);
    }
    let allowed = !state.config.cluster.acl_enabled || may_submit(state, queue, &sub.user, &sub.groups);
    if !allowed {
        return Err(Rejection(format!(
            "User {} does not have permission to submit {app} to queue {}",
            sub.user,
            q.path()
        )));
    }
    if q.config.managed_leaf && !sub.placed {
        // Apache lets applications into a managed parent's leaves through its placement
        // rules only (a submission naming a missing one creates it all the same).
        return Err(Rejection(format!(
            "Application {app} submission by user : {} to specified queue : {}  is prohibited. Verify automatic queue mapping for user exists in yarn.scheduler.capacity.queue-mappings",
            sub.user, sub.queue
        )));
    }
    check_running(state, queue, &app)
        .and_then(|()| check_limits(state, queue, &sub.user, &app))
        .map_err(|Rejection(text)| Rejection(format!("{QUEUE_REFUSED}{text}")))?;
    Ok(queue)
}

/// The leaf whose own checks of a submission reach its user's applications — where Apache
/// adds the user, even when it then refuses the submission by the per-user limit: the
/// submission passed the system limit, names a running leaf the user may submit to, and
/// the leaf is under its own maximum-applications.
pub fn leaf_that_sees_user(state: &State, sub: &Submission) -> Option<QueueIndex> {
    if sub.recovering || state.apps.len() as i64 >= state.config.global.maximum_applications {
        return None;
    }
    let queue = plan_default_child(state, state.queues.resolve(&sub.queue).ok()?);
    let q = state.queues.get(queue);
    let allowed = !state.config.cluster.acl_enabled || may_submit(state, queue, &sub.user, &sub.groups);
    let under_limit = q.config.managed_leaf || (q.apps.len() as i64) < maximum_applications(state, queue);
    let prohibited = q.config.managed_leaf && !sub.placed;
    (q.is_leaf() && allowed && !prohibited && !state.queues.is_stopped(queue) && under_limit).then_some(queue)
}

/// How Apache's scheduler prefixes a leaf's refusal of a submission (the exception's
/// `toString()`).
const QUEUE_REFUSED: &str = "org.apache.hadoop.security.AccessControlException: ";

/// `preValidateMoveApplication` / `moveApplication`: the leaf `target` names, if `app`
/// may move there. The target must be a RUNNING leaf (or a plan queue, which takes it in
/// its `-default` child) with room for one more application of the app's user. Moving to
/// the queue the application is already in is allowed and changes nothing.
#[cfg(test)]
pub fn admit_move(state: &State, app: AppKey, target: &str) -> Result<QueueIndex, MoveRefusal> {
    let queue = move_target(state, app, target)?;
    admit_move_to(state, app, queue)
}

/// The first half of [`admit_move`]: the leaf `target` names, or why there is none.
pub fn move_target(state: &State, app: AppKey, target: &str) -> Result<QueueIndex, MoveRefusal> {
    if !state.apps.contains_key(&app) {
        return Err(MoveRefusal::NoSuchLeaf(format!("App to be moved (key {app}) not found.")));
    }
    let queue = match state.queues.resolve(target) {
        Ok(q) => q,
        Err(ResolveError::Unknown) => {
            return Err(MoveRefusal::NoSuchLeaf(format!("The specified Queue: {target} doesn't exist")))
        }
        Err(ResolveError::Ambiguous(paths)) => {
            return Err(MoveRefusal::NoSuchLeaf(format!(
                "The specified Queue: {target} is ambiguous; use the full path, one of {}",
                paths.join(", ")
            )))
        }
    };
    let queue = plan_default_child(state, queue);
    if !state.queues.get(queue).is_leaf() {
        return Err(MoveRefusal::NoSuchLeaf(format!(
            "The specified Queue: {} is not a Leaf Queue.",
            state.queues.get(queue).path()
        )));
    }
    Ok(queue)
}

/// The second half of [`admit_move`]: whether `app` may move to the leaf `queue`. Between
/// the two halves Apache's partition check forgets that the attempt asked in the default
/// partition (see `App::forget_default_partition_request`).
pub fn admit_move_to(state: &State, app: AppKey, queue: QueueIndex) -> Result<QueueIndex, MoveRefusal> {
    let a = &state.apps[&app];
    let name = application_name(a.app_id);
    if a.attempt.is_some() {
        check_partitions(state, queue, a)?;
    }
    // As Apache, a move to the queue the application is in is checked like any other (a
    // STOPPED queue, or one at its limits, refuses it); what it then does is nothing.
    check_running(state, queue, &name).map_err(MoveRefusal::NotAdmitted)?;
    check_limits(state, queue, &a.user, &name).map_err(MoveRefusal::NotAdmitted)?;
    Ok(queue)
}

/// The leaf must be able to access every labelled partition the application's attempt has
/// asked for.
fn check_partitions(state: &State, queue: QueueIndex, app: &crate::model::App) -> Result<(), MoveRefusal> {
    let access = &state.queues.get(queue).config.accessible_node_labels;
    let missing: Vec<&str> =
        app.requested_partitions.iter().map(String::as_str).filter(|p| !access.allows(p)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    // Apache prints both as Java hash sets.
    let as_java_set = |labels: &[&str]| {
        let order = crate::java_order::hash_map_order(labels, labels.len());
        format!("[{}]", order.iter().map(|&i| labels[i]).collect::<Vec<_>>().join(", "))
    };
    Err(MoveRefusal::Partitions(format!(
        "Specified queue={} can't satisfy following apps label expressions ={} accessible node labels ={}",
        state.queues.get(queue).path(),
        as_java_set(&missing),
        as_java_set(&access.names())
    )))
}

/// The queue and its ancestors must be RUNNING (under a STOPPED parent, Apache's leaf
/// counts as STOPPED itself).
fn check_running(state: &State, queue: QueueIndex, app: &str) -> Result<(), Rejection> {
    match state.queues.stopped_on_path(queue) {
        Some(stopped) => Err(Rejection(format!(
            "Queue {} is STOPPED. Cannot accept submission of application: {app}",
            state.queues.get(stopped).path()
        ))),
        None => Ok(()),
    }
}

/// Fewer than `maximum-applications` in the leaf, and fewer than the per-user limit from
/// `user`.
fn check_limits(state: &State, queue: QueueIndex, user: &str, app: &str) -> Result<(), Rejection> {
    let q = state.queues.get(queue);
    if q.config.managed_leaf {
        // Apache's managed leaves work their limits out but do not hold submissions to them.
        return Ok(());
    }
    let in_queue = q.apps.len() as i64;
    if in_queue >= maximum_applications(state, queue) {
        return Err(Rejection(format!(
            "Queue {} already has {in_queue} applications, cannot accept submission of application: {app}",
            q.path()
        )));
    }
    let user_apps = q.users.get(user).map_or(0, |u| u.active_apps + u.pending_apps) as i64;
    if user_apps >= maximum_applications_per_user(state, queue) {
        return Err(Rejection(format!(
            "Queue {} already has {user_apps} applications from user {user} cannot accept submission of application: {app}",
            q.path()
        )));
    }
    Ok(())
}

/// `<q>.maximum-applications`; else `global-queue-max-application` (within the
/// system-wide maximum) for a queue whose capacity is not an absolute resource; else the
/// system-wide maximum (or `global-queue-max-application`, if smaller) scaled by the
/// queue's absolute capacity — in Java floats, as Apache's `updateMaximumApplications`
/// works it out.
pub fn maximum_applications(state: &State, queue: QueueIndex) -> i64 {
    let q = state.queues.get(queue);
    // Apache takes the largest over the partitions the queue is configured for.
    let largest = q
        .config
        .node_labels
        .keys()
        .map(|label| state.queues.configured_label_share(queue, label, state.partitions.find(label)))
        .fold(q.absolute_capacity, f64::max);
    maximum_applications_of(&state.config.global, &q.config, largest)
}

/// [`maximum_applications`] for a queue configured as `q` with `absolute_capacity`.
pub fn maximum_applications_of(global: &GlobalSettings, q: &QueueConfig, absolute_capacity: f64) -> i64 {
    if let Some(n) = q.maximum_applications {
        return n;
    }
    let system = global.maximum_applications;
    match global.global_queue_max_applications {
        Some(per_queue) if !matches!(q.capacity, CapacitySpec::Absolute(_)) => per_queue.min(system),
        per_queue => {
            let base = per_queue.map_or(system, |p| p.min(system));
            (base as f32 * absolute_capacity as f32) as i64
        }
    }
}

/// Apache's `maxApplicationsPerUser`: the queue's maximum scaled by
/// `minimum-user-limit-percent` and `user-limit-factor` (no scaling when the factor is -1),
/// in Java floats.
pub fn maximum_applications_per_user(state: &State, queue: QueueIndex) -> i64 {
    let queue_max = maximum_applications(state, queue);
    let c = &state.queues.get(queue).config;
    if c.user_limit_factor == -1.0 {
        queue_max
    } else {
        let scaled = queue_max as f32 * (c.minimum_user_limit_percent as f32 / 100.0) * c.user_limit_factor as f32;
        queue_max.min(scaled as i64)
    }
}

/// A plan (reservable) queue runs applications without a reservation in its
/// `<q>-default` child, as Apache does.
fn plan_default_child(state: &State, queue: QueueIndex) -> QueueIndex {
    let c = &state.queues.get(queue).config;
    if c.reservable {
        c.children[0]
    } else {
        queue
    }
}

/// Who asks for a priority: a user and its groups, as the RM's caller is known.
pub struct Caller<'a> {
    pub user: &'a str,
    pub groups: &'a [String],
}

/// Apache's `checkAndGetApplicationPriority`: the priority asked for, or when none was, the
/// caller's `default_priority` in the leaf's `acl_application_max_priority` (when ACLs are
/// on), else the queue's `default-application-priority` (0 for a queue that does not exist
/// yet); never above the cluster's `yarn.cluster.max-application-priority`. With ACLs on and
/// priority ACLs on the leaf, a caller in no group allowed that priority is refused:
/// `Err` carries the priority refused. Without a caller (an RM-internal call), no ACL applies.
pub fn application_priority(
    state: &State,
    requested: Option<i64>,
    queue: &str,
    cluster_max: i64,
    caller: Option<&Caller<'_>>,
) -> Result<i64, i64> {
    let index = state.queues.resolve(queue).ok();
    let acls = match (index, caller) {
        (Some(q), Some(_)) if state.config.cluster.acl_enabled => state.queues.get(q).config.priority_acls.as_slice(),
        _ => &[],
    };
    let admits =
        |acl: &&crate::config::priority_acl::PriorityAcl| caller.is_some_and(|c| acl.acl.allows(c.user, c.groups));
    let wanted = requested.unwrap_or_else(|| {
        // Apache takes the last group (the lowest max_priority) the caller belongs to.
        acls.iter().rfind(admits).and_then(|acl| acl.default_priority).unwrap_or_else(|| {
            index
                .map(|q| state.queues.get(plan_default_child(state, q)).config.default_application_priority)
                .unwrap_or(0)
        })
    });
    let priority = wanted.min(cluster_max);
    if acls.is_empty() || acls.iter().filter(admits).any(|acl| priority <= acl.max_priority.min(cluster_max)) {
        Ok(priority)
    } else {
        Err(priority)
    }
}

/// Apache's `checkAndGetApplicationLifetime`: for a leaf named by full path or unambiguous
/// short name, the lifetime (seconds) an application submitted there gets — the one asked
/// for, the queue's default when none was, never above its maximum; for anything else
/// (a parent, an unknown or ambiguous name) the one asked for.
pub fn application_lifetime(state: &State, queue: &str, requested: i64) -> i64 {
    match state.queues.resolve(queue).ok().map(|q| state.queues.get(q)) {
        Some(q) if q.is_leaf() => q.config.lifetime.for_request(requested),
        _ => requested,
    }
}

/// Apache's `getMaximumApplicationLifetime`: the leaf's maximum lifetime in seconds (0 or
/// less: none); -1 for a name that is not a leaf.
pub fn maximum_application_lifetime(state: &State, queue: &str) -> i64 {
    match state.queues.resolve(queue).ok().map(|q| state.queues.get(q)) {
        Some(q) if q.is_leaf() => q.config.lifetime.maximum,
        _ => {
            log::error!(
                "Unknown, ambiguous or parent queue reference: {queue} (its maximum application lifetime is asked)"
            );
            -1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ClusterSettings, Properties, SchedulerConfig};
    use crate::scheduler::Scheduler;

    fn scheduler(extra: &str) -> Scheduler {
        scheduler_with(extra, ClusterSettings::default())
    }

    fn scheduler_with(extra: &str, cluster: ClusterSettings) -> Scheduler {
        let xml = format!(
            "<configuration>
            <property><name>yarn.scheduler.capacity.root.queues</name><value>a,b,plan</value></property>
            <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>50</value></property>
            <property><name>yarn.scheduler.capacity.root.b.capacity</name><value>40</value></property>
            <property><name>yarn.scheduler.capacity.root.plan.capacity</name><value>10</value></property>
            <property><name>yarn.scheduler.capacity.root.plan.reservable</name><value>true</value></property>
            <property><name>yarn.scheduler.capacity.root.b.default-application-priority</name><value>3</value></property>
            {extra}</configuration>"
        );
        let mut p = Properties::new();
        p.load_xml(xml.as_bytes(), "test").unwrap();
        let mut s = Scheduler::new(SchedulerConfig::from_properties(&p, cluster).unwrap(), 0);
        s.add_node("h1:1", "h1", "/default-rack", Resource::new(100 * 1024, 100));
        s
    }

    fn submit(s: &mut Scheduler, id: i32, queue: &str, user: &str) -> AppKey {
        s.submit(&Submission::new(id, queue, user, Resource::new(1024, 1))).expect("admitted").0
    }

    #[test]
    fn each_acl_stands_alone_and_a_submission_takes_either() {
        let acls =
            "<property><name>yarn.scheduler.capacity.root.acl_submit_applications</name><value> </value></property>
            <property><name>yarn.scheduler.capacity.root.acl_administer_queue</name><value> </value></property>
            <property><name>yarn.scheduler.capacity.root.a.acl_submit_applications</name><value>alice</value></property>
            <property><name>yarn.scheduler.capacity.root.a.acl_administer_queue</name><value>bob</value></property>";
        let mut s = scheduler_with(acls, ClusterSettings { acl_enabled: true, ..ClusterSettings::default() });
        let a = s.state().queues.resolve("a").unwrap();
        let none: [String; 0] = [];
        let holds = |s: &Scheduler, acl, user| check_access(s.state(), a, acl, user, &none);
        assert!(holds(&s, QueueAcl::SubmitApplications, "alice"));
        assert!(!holds(&s, QueueAcl::AdministerQueue, "alice"));
        // bob administers a: that is not the submit ACL (the RM lists the two apart) ...
        assert!(holds(&s, QueueAcl::AdministerQueue, "bob"));
        assert!(!holds(&s, QueueAcl::SubmitApplications, "bob"));
        // ... but a submission takes either.
        submit(&mut s, 1, "a", "bob");
        submit(&mut s, 2, "a", "alice");
        assert!(s.submit(&Submission::new(3, "a", "carol", Resource::new(1024, 1))).is_err());
    }

    #[test]
    fn priority_acls_give_defaults_and_refuse_as_apache_does() {
        let acl =
            "[user=alice max_priority=3 default_priority=2] [user=bob group=ops max_priority=8 default_priority=5]";
        let property = format!(
            "<property><name>yarn.scheduler.capacity.root.a.acl_application_max_priority</name><value>{acl}</value></property>"
        );
        let off = scheduler(&property);
        let s = scheduler_with(&property, ClusterSettings { acl_enabled: true, ..ClusterSettings::default() });
        let none: Vec<String> = Vec::new();
        let ops = vec!["ops".to_string()];
        let alice = Caller { user: "alice", groups: &none };
        let erin = Caller { user: "erin", groups: &ops };
        let dave = Caller { user: "dave", groups: &none };
        // ACLs off: nothing applies.
        assert_eq!(off.application_priority(Some(9), "a", 10, Some(&alice)), Ok(9));
        assert_eq!(s.application_priority(None, "a", 10, Some(&alice)), Ok(2));
        assert_eq!(s.application_priority(Some(3), "a", 10, Some(&alice)), Ok(3));
        assert_eq!(s.application_priority(Some(4), "a", 10, Some(&alice)), Err(4));
        assert_eq!(s.application_priority(None, "root.a", 10, Some(&erin)), Ok(5));
        assert_eq!(s.application_priority(Some(8), "a", 6, Some(&erin)), Ok(6), "capped by the cluster first");
        assert_eq!(s.application_priority(None, "a", 10, Some(&dave)), Err(0), "in no group");
        assert_eq!(s.application_priority(Some(9), "b", 10, Some(&dave)), Ok(9), "b has no priority ACLs");
        assert_eq!(s.application_priority(Some(9), "a", 10, None), Ok(9), "no caller: no ACL");
    }

    #[test]
    fn lifetimes_are_inherited_defaulted_and_capped_as_apache_does() {
        let prop = |k: &str, v: &str| {
            format!("<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>")
        };
        let s = scheduler(
            &[
                prop("root.maximum-application-lifetime", "900"),
                prop("root.default-application-lifetime", "300"),
                prop("root.a.maximum-application-lifetime", "100"),
                prop("root.b.maximum-application-lifetime", "0"),
            ]
            .concat(),
        );
        // a: its own maximum; no default of its own, so the smaller of root's and its maximum.
        assert_eq!(s.maximum_application_lifetime("a"), 100);
        assert_eq!(s.application_lifetime("a", 0), 100);
        assert_eq!(s.application_lifetime("root.a", 5000), 100);
        assert_eq!(s.application_lifetime("a", 30), 30);
        // b: 0 overrides root's maximum (none), and Apache's inherited default is the
        // smaller of root's and that 0: none either.
        assert_eq!(s.maximum_application_lifetime("b"), 0);
        assert_eq!(s.application_lifetime("b", -1), 0);
        assert_eq!(s.application_lifetime("b", 5000), 5000);
        // Not a leaf, or no queue: what was asked, and no maximum.
        assert_eq!(s.application_lifetime("root", 7), 7);
        assert_eq!(s.application_lifetime("nowhere", 7), 7);
        assert_eq!(s.maximum_application_lifetime("root"), -1);
    }

    #[test]
    fn a_move_needs_a_running_leaf_with_room() {
        let mut s = scheduler(
            "<property><name>yarn.scheduler.capacity.root.b.maximum-applications</name><value>1</value></property>",
        );
        let app = submit(&mut s, 1, "a", "alice");
        let st = s.state();
        let err = |t: &str| admit_move(st, app, t).unwrap_err().reason().to_string();
        assert_eq!(err("nowhere"), "The specified Queue: nowhere doesn't exist");
        assert_eq!(err("root"), "The specified Queue: root is not a Leaf Queue.");
        assert_eq!(admit_move(st, app, "b"), Ok(2));
        assert_eq!(admit_move(st, app, "a"), Ok(1), "moving to its own queue is a no-op");
        // A plan queue takes it in its default child.
        let plan_default = st.queues.index_of_path("root.plan.plan-default").unwrap();
        assert_eq!(admit_move(st, app, "plan"), Ok(plan_default));

        let bobs = submit(&mut s, 2, "b", "bob");
        assert!(
            admit_move(s.state(), bobs, "b").is_err(),
            "a move to its own queue is checked as any other: b is at its limit"
        );
        assert_eq!(
            admit_move(s.state(), app, "b"),
            Err(MoveRefusal::NotAdmitted(Rejection(
                "Queue root.b already has 1 applications, cannot accept submission of application: application_1_0001"
                    .into()
            )))
        );
    }

    #[test]
    fn a_stopped_target_refuses_moves() {
        let s = {
            let mut s = scheduler(
                "<property><name>yarn.scheduler.capacity.root.b.state</name><value>STOPPED</value></property>",
            );
            submit(&mut s, 1, "a", "alice");
            s
        };
        assert_eq!(
            admit_move(s.state(), 0, "root.b").unwrap_err().reason(),
            "Queue root.b is STOPPED. Cannot accept submission of application: application_1_0001"
        );
    }

    #[test]
    fn priority_defaults_to_the_queue_and_is_capped_by_the_cluster() {
        let s = scheduler("");
        let st = s.state();
        assert_eq!(application_priority(st, None, "b", 10, None), Ok(3));
        assert_eq!(application_priority(st, None, "root.a", 10, None), Ok(0));
        assert_eq!(application_priority(st, None, "unknown", 10, None), Ok(0));
        assert_eq!(application_priority(st, Some(7), "a", 5, None), Ok(5));
        assert_eq!(application_priority(st, None, "b", 2, None), Ok(2));
    }
}
