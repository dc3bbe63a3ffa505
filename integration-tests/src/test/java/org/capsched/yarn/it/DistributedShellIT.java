package org.capsched.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.EnumSet;
import java.util.List;

import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.applications.distributedshell.Client;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.junit.Test;

/**
 * A real DistributedShell application runs to completion on a real ResourceManager whose
 * scheduler is ours, with containers on two real NodeManagers.
 */
public class DistributedShellIT {

  @Test(timeout = 300_000)
  public void distributedShellFinishesThroughTheRustScheduler() throws Exception {
    try (MiniCluster cluster = MiniCluster.start("ds", 2, MiniCluster.sampleConfiguration())) {
      String[] args = MiniCluster.distributedShell("development", 4, "echo",
          "hello-from-a-rust-scheduled-container", 512, 256);
      Client client = new Client(cluster.config());
      assertTrue("DistributedShell client rejected its arguments", client.init(args));
      assertTrue("DistributedShell did not finish successfully", client.run());

      try (YarnClient yarn = YarnClient.createYarnClient()) {
        yarn.init(cluster.config());
        yarn.start();
        List<ApplicationReport> apps =
            yarn.getApplications(EnumSet.of(YarnApplicationState.FINISHED));
        assertEquals(1, apps.size());
        ApplicationReport report = apps.get(0);
        assertEquals(FinalApplicationStatus.SUCCEEDED, report.getFinalApplicationStatus());
        assertTrue("ran in " + report.getQueue(), report.getQueue().endsWith("development"));

        // Everything is returned: the RM removes the finished attempt (and kills what is
        // left of it) asynchronously, after the client sees FINISHED.
        GenericTestUtils.waitFor(() -> {
          try {
            QueueInfo development = yarn.getQueueInfo("development");
            return development.getCurrentCapacity() == 0f;
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }, 100, 30_000);
      }
      // The AM plus four shell containers were allocated through the scheduler.
      QueueMetrics metrics = cluster.scheduler().getRootQueueMetrics();
      assertTrue("expected at least 5 allocations, saw " + metrics.getAggegatedReleasedContainers(),
          metrics.getAggegatedReleasedContainers() >= 5);
      assertEquals(0, metrics.getAllocatedContainers());
    }
  }
}
