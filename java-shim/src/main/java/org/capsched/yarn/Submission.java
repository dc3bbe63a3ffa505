package org.capsched.yarn;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.placement.ApplicationPlacementContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAddedSchedulerEvent;

/**
 * What the core is told about an APP_ADDED: the event's fields, the user's groups (for the
 * ACL check, when ACLs are on) and the ApplicationMaster's size (what the AM limits count).
 */
final class Submission {
  final ApplicationId id;
  final String queue;
  final String user;
  final String[] groups;
  final Priority priority;
  final Resource am;
  /** The partition the AM's request names ("" for the default one), whose AM limits count it. */
  final String amLabel;
  final boolean recovering;
  final boolean unmanagedAM;
  /** A placement rule chose the queue (the RM's placement context). */
  final boolean placed;

  private Submission(AppAddedSchedulerEvent e, String[] groups, Resource am, String amLabel) {
    this.id = e.getApplicationId();
    this.queue = queueOf(e);
    this.user = e.getUser();
    this.groups = groups;
    this.priority = e.getApplicatonPriority() == null
        ? Priority.newInstance(0) : e.getApplicatonPriority();
    this.am = am;
    this.amLabel = amLabel;
    this.recovering = e.getIsAppRecovering();
    this.unmanagedAM = e.isUnmanagedAM();
    this.placed = e.getPlacementContext() != null;
  }

  /**
   * The queue the application goes to: where a placement rule put it, by its full path (as
   * Apache's scheduler takes it from the placement context: the RM writes the placed path
   * into the submission only when its leaf name differs from what was asked), else the
   * queue the submitter named.
   */
  private static String queueOf(AppAddedSchedulerEvent e) {
    ApplicationPlacementContext placed = e.getPlacementContext();
    if (placed == null || placed.getQueue() == null) {
      return e.getQueue();
    }
    return placed.hasParentQueue()
        ? placed.getParentQueue() + "." + placed.getQueue() : placed.getQueue();
  }

  /**
   * The submission {@code e} describes; an AM without a recorded request counts as
   * {@code minimum} (the RM's own AM requests are normalised to at least that).
   */
  static Submission of(AppAddedSchedulerEvent e, RMContext rmContext, Configuration conf,
      Resource minimum) {
    String[] groups = YarnConfiguration.isAclEnabled(conf)
        ? UserGroupInformation.createRemoteUser(e.getUser()).getGroupNames() : new String[0];
    return new Submission(e, groups, amResource(e, rmContext, minimum), amLabel(e, rmContext));
  }

  /**
   * The partition the ApplicationMaster's request names, as the RM filled it in (its queue's
   * default label expression when the submission named none); the default partition for an
   * unmanaged AM, as Apache's FiCaSchedulerApp takes it.
   */
  private static String amLabel(AppAddedSchedulerEvent e, RMContext rmContext) {
    RMApp app = rmContext == null ? null : rmContext.getRMApps().get(e.getApplicationId());
    if (app == null || app.getAMResourceRequests() == null
        || app.getAMResourceRequests().isEmpty()) {
      return "";
    }
    String label = app.getAMResourceRequests().get(0).getNodeLabelExpression();
    return label == null ? "" : label;
  }

  /**
   * The ApplicationMaster's size as submitted, which the AM limits count: the minimum
   * allocation when the submission carries no AM request (an unmanaged AM), as Apache's
   * FiCaSchedulerApp counts it.
   */
  private static Resource amResource(AppAddedSchedulerEvent e, RMContext rmContext,
      Resource minimum) {
    if (rmContext == null) {
      return minimum;
    }
    RMApp app = rmContext.getRMApps().get(e.getApplicationId());
    if (app == null || app.getAMResourceRequests() == null
        || app.getAMResourceRequests().isEmpty()) {
      return minimum;
    }
    return app.getAMResourceRequests().get(0).getCapability();
  }
}
