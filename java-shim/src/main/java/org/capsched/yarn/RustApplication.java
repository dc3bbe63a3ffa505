package org.capsched.yarn;

import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;

/** An application as the RM tracks it, with the compact key the Rust core gave it. */
final class RustApplication extends SchedulerApplication<RustAppAttempt> {
  private final ApplicationId applicationId;
  private final int key;

  RustApplication(ApplicationId applicationId, int key, RustQueue queue, String user,
      Priority priority, boolean unmanagedAM) {
    super(queue, user, priority, unmanagedAM);
    this.applicationId = applicationId;
    this.key = key;
  }

  ApplicationId getApplicationId() {
    return applicationId;
  }

  /** The core's key for this application. */
  int key() {
    return key;
  }
}
