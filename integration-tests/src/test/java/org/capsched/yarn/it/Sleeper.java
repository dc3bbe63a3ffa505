package org.capsched.yarn.it;

import java.util.Collections;

import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.api.YarnClientApplication;

/**
 * An application whose AM is a shell sleeping for a while: it holds one 256 MB container
 * and never registers, which is all a test of queues and pages needs.
 */
final class Sleeper {
  private Sleeper() {
  }

  /** Submits a sleeper of {@code seconds} to {@code queue} at {@code priority}. */
  static ApplicationId submit(YarnClient yarn, String queue, int priority, int seconds)
      throws Exception {
    YarnClientApplication created = yarn.createApplication();
    ApplicationSubmissionContext context = created.getApplicationSubmissionContext();
    context.setApplicationName("sleeper");
    context.setApplicationType("sleeper");
    context.setQueue(queue);
    context.setPriority(Priority.newInstance(priority));
    context.setResource(Resource.newInstance(256, 1));
    context.setAMContainerSpec(ContainerLaunchContext.newInstance(
        Collections.emptyMap(), Collections.emptyMap(),
        Collections.singletonList("sleep " + seconds), null, null, null));
    return yarn.submitApplication(context);
  }
}
