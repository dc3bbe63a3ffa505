package org.capsched.yarn;

import java.io.IOException;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.Groups;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.placement.ApplicationPlacementContext;
import org.apache.hadoop.yarn.server.resourcemanager.placement.PlacementRule;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The capacity scheduler's placement rules (queue-mappings, the application-name rules or
 * the JSON mapping rules) in the RM's PlacementManager, where the RM asks where a submitted
 * application goes before it records the application: so the placed queue is what
 * {@code yarn application -status}, the REST application view and the state store show, and
 * what the submit ACL is checked against. The core evaluates the rules over its live queue
 * tree; this class only gathers the submitter's groups with the RM's own group mapping
 * ({@code hadoop.security.group.mapping}) and turns the answer into the RM's objects.
 */
final class RustPlacementRule extends PlacementRule {
  private static final Logger LOG = LoggerFactory.getLogger(RustPlacementRule.class);

  private final NativeScheduler core;
  private final Groups groups;

  RustPlacementRule(NativeScheduler core, Configuration conf) {
    this.core = core;
    // The RM's shared group service, as Apache's rule uses.
    this.groups = Groups.getUserToGroupsMappingService(conf);
  }

  @Override
  public boolean initialize(ResourceScheduler scheduler) {
    return true;
  }

  @Override
  public String getName() {
    return "RustCapacityScheduler mapping rules";
  }

  @Override
  public ApplicationPlacementContext getPlacementForApp(ApplicationSubmissionContext asc,
      String user) throws YarnException {
    return getPlacementForApp(asc, user, false);
  }

  @Override
  public ApplicationPlacementContext getPlacementForApp(ApplicationSubmissionContext asc,
      String user, boolean recovery) throws YarnException {
    String[] answer = core.place(user, groupsOf(user), asc.getQueue() == null ? "" : asc.getQueue(),
        asc.getApplicationName(), recovery);
    String how = String.join("; ", java.util.Arrays.asList(answer).subList(2, answer.length));
    switch (answer[0]) {
      case "placed":
        LOG.info("Placement of {} by {} (submitted to '{}'): {}", asc.getApplicationId(), user,
            asc.getQueue(), how);
        return contextFor(answer[1]);
      case "rejected":
        // The submitter is told the core's words (Apache's); the details go to the log only.
        LOG.info("Rejecting {} by {}: {}", asc.getApplicationId(), user, how);
        throw new YarnException(answer[1]);
      default:
        LOG.debug("No placement for {} by {}: {}", asc.getApplicationId(), user, how);
        return null;
    }
  }

  /** The user's groups, primary first; none when the group mapping knows none. */
  private String[] groupsOf(String user) {
    try {
      Set<String> set = groups.getGroupsSet(user);
      return set.toArray(new String[0]);
    } catch (IOException e) {
      LOG.warn("Unable to setup groups: {}", e.getMessage());
      return new String[0];
    }
  }

  /** The RM's placement context for a full queue path: its leaf and the leaf's parent. */
  private static ApplicationPlacementContext contextFor(String path) {
    int dot = path.lastIndexOf('.');
    return dot < 0 ? new ApplicationPlacementContext(path)
        : new ApplicationPlacementContext(path.substring(dot + 1), path.substring(0, dot));
  }
}
