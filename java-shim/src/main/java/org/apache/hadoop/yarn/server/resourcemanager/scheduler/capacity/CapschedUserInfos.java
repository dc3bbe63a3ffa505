package org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity;

import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceUsage;

/**
 * Builds the RM's {@link UserInfo} (a leaf's user in the REST scheduler view) for
 * RustCapacityScheduler. UserInfo's constructor is package-private in Hadoop 3.4, so this
 * one factory lives in UserInfo's package inside capsched's jar; it holds no logic.
 */
public final class CapschedUserInfos {
  private CapschedUserInfos() {
  }

  /** One user of one leaf, as Apache's UsersManager reports it. */
  public static UserInfo of(String name, Resource used, int activeApplications,
      int pendingApplications, Resource amUsed, Resource limit, ResourceUsage usage,
      float weight, boolean active) {
    return new UserInfo(name, used, activeApplications, pendingApplications, amUsed, limit,
        usage, weight, active);
  }
}
