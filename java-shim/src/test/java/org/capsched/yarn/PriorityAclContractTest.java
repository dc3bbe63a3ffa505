package org.capsched.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.capsched.yarn.harness.RmHarness;
import org.junit.After;
import org.junit.Test;

/**
 * {@code acl_application_max_priority} through a real RM with Apache's CapacityScheduler and
 * with ours: the priority each caller gets when asking for none (its group's default, else
 * the queue's), the highest it may ask for, and Apache's refusal for more — on the
 * scheduler's answer to the RM and on a real submission.
 */
public class PriorityAclContractTest {
  private static final String XML = RmHarness.xml("root.queues", "a,b",
      "root.a.capacity", "50", "root.b.capacity", "50",
      "root.a.default-application-priority", "1",
      "root.a.acl_application_max_priority",
      "[user=alice max_priority=3 default_priority=2] [user=bob,carol group=ops max_priority=8 default_priority=5]");

  private final List<MockRM> rms = new ArrayList<>();

  @After
  public void stop() {
    for (MockRM rm : rms) {
      rm.stop();
    }
  }

  private static UserGroupInformation user(String name, String... groups) {
    return UserGroupInformation.createUserForTesting(name, groups);
  }

  /** The priority the scheduler gives, or the refusal's message. */
  private static String answer(ResourceScheduler s, Integer requested, UserGroupInformation u,
      String queue) {
    try {
      Priority p = s.checkAndGetApplicationPriority(
          requested == null ? null : Priority.newInstance(requested), u, queue,
          ApplicationId.newInstance(1, 1));
      return Integer.toString(p.getPriority());
    } catch (YarnException e) {
      return "refused: " + e.getMessage();
    }
  }

  @Test(timeout = 120_000)
  public void priorityAclsGiveDefaultsCapAndRefuseAsWithApache() throws Exception {
    UserGroupInformation alice = user("alice");
    UserGroupInformation bob = user("bob");
    UserGroupInformation erin = user("erin", "ops");
    UserGroupInformation dave = user("dave", "staff");
    List<String> answers = new ArrayList<>();
    for (Class<? extends ResourceScheduler> scheduler : Arrays.asList(
        CapacityScheduler.class, RustCapacityScheduler.class)) {
      YarnConfiguration conf = RmHarness.configuration(scheduler, XML.getBytes(StandardCharsets.UTF_8));
      conf.setBoolean(YarnConfiguration.YARN_ACL_ENABLE, true);
      conf.setInt(YarnConfiguration.MAX_CLUSTER_LEVEL_APPLICATION_PRIORITY, 10);
      MockRM rm = RmHarness.start(conf);
      rms.add(rm);
      ResourceScheduler s = rm.getResourceScheduler();
      String who = scheduler.getSimpleName();
      // Each caller's default: its (lowest) group's, else the queue's.
      assertEquals(who, "2", answer(s, null, alice, "a"));
      assertEquals(who, "5", answer(s, null, bob, "root.a"));
      assertEquals(who, "5", answer(s, null, erin, "a"));
      // Up to the group's maximum, and no further.
      assertEquals(who, "3", answer(s, 3, alice, "a"));
      assertEquals(who, "8", answer(s, 8, erin, "a"));
      String refused = answer(s, 4, alice, "a");
      assertTrue(who + ": " + refused, refused.contains("User alice (auth:SIMPLE) does not have "
          + "permission to submit/update application_1_0001 for 4"));
      assertTrue(who, answer(s, 9, bob, "a").startsWith("refused: "));
      // In no group: refused even at the queue's default.
      assertTrue(who, answer(s, null, dave, "a").startsWith("refused: "));
      // A queue without priority ACLs: anyone, up to the cluster's maximum.
      assertEquals(who, "10", answer(s, 12, dave, "b"));
      answers.add(String.join(",", answer(s, null, alice, "a"), answer(s, 9, bob, "a")
          .replaceAll("application_\\d+_\\d+", "APP")));

      // A real submission asking for more than the group allows is refused with the reason.
      try {
        MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder.createWithMemory(1024, rm)
            .withQueue("a").withUser("alice").withAppPriority(Priority.newInstance(4))
            .withWaitForAppAcceptedState(false).build());
        fail(who + " accepted priority 4 from alice");
      } catch (Exception e) {
        String reason = RmHarness.reason(e);
        assertTrue(who + ": " + reason, reason.contains("does not have permission to submit/update"));
      }
    }
    assertEquals("both schedulers answer alike", answers.get(0), answers.get(1));
  }
}
