package org.capsched.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;

import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.cli.RMAdminCLI;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.junit.Test;

/**
 * `yarn rmadmin -refreshQueues` against a running ResourceManager reaches the Rust core:
 * a valid edit (a new queue, a changed capacity) shows in YarnClient.getQueueInfo, and an
 * invalid one fails with the reason while the old queues keep running.
 */
public class RefreshQueuesIT {

  private static final String PREFIX = "yarn.scheduler.capacity.";

  @Test(timeout = 300_000)
  public void refreshAddsQueuesChangesCapacitiesAndRejectsInvalidFiles() throws Exception {
    try (MiniCluster cluster = MiniCluster.start("refresh", 1, MiniCluster.sampleConfiguration());
        YarnClient yarn = YarnClient.createYarnClient()) {
      yarn.init(cluster.config());
      yarn.start();
      assertEquals(0.10f, yarn.getQueueInfo("support").getCapacity(), 1e-6f);
      assertUnknown(yarn, "research");

      String sample = new String(Files.readAllBytes(MiniCluster.sampleConfiguration()), "UTF-8");
      String edited = sample
          .replace("<value>engineering,support,marketing</value>",
              "<value>engineering,support,marketing,research</value>")
          .replace(capacity("root.support", "10"), capacity("root.support", "5")
              + capacity("root.research", "5"));
      assertNotEquals("the edit applies to the sample file", sample, edited);
      cluster.writeCapacityScheduler(edited);
      assertEquals(0, refresh(cluster, new ByteArrayOutputStream()));

      QueueInfo research = yarn.getQueueInfo("research");
      assertEquals("research", research.getQueueName());
      assertEquals(0.05f, research.getCapacity(), 1e-6f);
      assertEquals(0.05f, yarn.getQueueInfo("support").getCapacity(), 1e-6f);

      // Capacities that no longer sum to 100: the command fails and says why.
      cluster.writeCapacityScheduler(edited.replace(capacity("root.research", "5"),
          capacity("root.research", "15")));
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      assertNotEquals(0, refresh(cluster, err));
      String message = err.toString("UTF-8");
      assertTrue(message, message.contains("queue root: children's capacities sum to 110%"));
      assertTrue(message, message.contains("research=15%"));
      // ... and the running configuration is untouched.
      assertEquals(0.05f, yarn.getQueueInfo("research").getCapacity(), 1e-6f);

      // Removing a RUNNING queue is refused too.
      cluster.writeCapacityScheduler(sample);
      err.reset();
      assertNotEquals(0, refresh(cluster, err));
      assertTrue(err.toString("UTF-8"),
          err.toString("UTF-8").contains("queue root.research: cannot be removed"));
      assertEquals(0.05f, yarn.getQueueInfo("support").getCapacity(), 1e-6f);
    }
  }

  private static String capacity(String queue, String value) {
    return "<name>" + PREFIX + queue + ".capacity</name>\n    <value>" + value + "</value>\n"
        + "  </property>\n  <property>\n    ";
  }

  private static int refresh(MiniCluster cluster, ByteArrayOutputStream err) throws Exception {
    // The stock admin client prints a failed command's reason on System.err.
    PrintStream original = System.err;
    System.setErr(new PrintStream(err, true, "UTF-8"));
    try {
      return new RMAdminCLI(cluster.config()).run(new String[] {"-refreshQueues"});
    } finally {
      System.setErr(original);
    }
  }

  private static void assertUnknown(YarnClient yarn, String queue) throws IOException {
    try {
      QueueInfo info = yarn.getQueueInfo(queue);
      if (info != null) {
        fail("queue " + queue + " should not exist yet");
      }
    } catch (YarnException | IOException expected) {
      // The RM reports an unknown queue as an error.
    }
  }
}
