package org.capsched.yarn;

import static org.junit.Assert.assertEquals;

import java.nio.charset.StandardCharsets;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.protocolrecords.GetApplicationReportRequest;
import org.apache.hadoop.yarn.api.protocolrecords.GetQueueInfoRequest;
import org.apache.hadoop.yarn.api.protocolrecords.GetQueueUserAclsInfoRequest;
import org.apache.hadoop.yarn.api.protocolrecords.KillApplicationRequest;
import org.apache.hadoop.yarn.api.protocolrecords.MoveApplicationAcrossQueuesRequest;
import org.apache.hadoop.yarn.api.protocolrecords.UpdateApplicationPriorityRequest;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.QueueUserACLInfo;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.capsched.yarn.harness.RmHarness;
import org.junit.Test;

/**
 * Queue ACLs and the admin ACL with {@code yarn.acl.enable}, every path a user reaches them
 * by through the RM's client service, with distinct callers (UGI {@code doAs}), against
 * Apache's CapacityScheduler and ours: submitting, killing, moving, changing a priority,
 * reading an application's report and a queue's information, and listing one's queue ACLs.
 * Each caller must be allowed or refused — with the same message — exactly as Apache's
 * scheduler decides, and learn no more than it lets them see.
 */
public class AclConformanceTest {
  private static final int GB = 1024;
  /**
   * root lets no one in; a: alice submits, bob administers; b: carol submits, nobody
   * administers; a.sub... (a is a leaf). yarn.admin.acl: admin.
   */
  private static final String XML = RmHarness.xml("root.queues", "a,b",
      "root.a.capacity", "50", "root.b.capacity", "50", "maximum-am-resource-percent", "1.0",
      "root.acl_submit_applications", " ", "root.acl_administer_queue", " ",
      "root.a.acl_submit_applications", "alice", "root.a.acl_administer_queue", "bob",
      "root.b.acl_submit_applications", "carol,dave", "root.b.acl_administer_queue", " ");
  private static final List<String> USERS = Arrays.asList("alice", "bob", "carol", "admin",
      "eve");

  @Test(timeout = 300_000)
  public void everyCallerIsAllowedOrRefusedAsApachesSchedulerDecides() throws Exception {
    List<String> apache = outcomes(CapacityScheduler.class);
    List<String> ours = outcomes(RustCapacityScheduler.class);
    assertEquals(String.join("\n", apache), String.join("\n", ours));
  }

  private List<String> outcomes(Class<? extends ResourceScheduler> type) throws Exception {
    YarnConfiguration conf = RmHarness.configuration(type, XML.getBytes(StandardCharsets.UTF_8));
    conf.setBoolean(YarnConfiguration.YARN_ACL_ENABLE, true);
    conf.set(YarnConfiguration.YARN_ADMIN_ACL, "admin");
    conf.setInt(YarnConfiguration.MAX_CLUSTER_LEVEL_APPLICATION_PRIORITY, 10);
    MockRM rm = RmHarness.start(conf);
    List<String> out = new ArrayList<>();
    try {
      MockNM nm = rm.registerNode("127.0.0.1:1234", 32 * GB, 32);
      // Submissions: to a and to b, by every caller.
      List<RMApp> inA = new ArrayList<>();
      for (String queue : new String[] {"a", "b"}) {
        for (String user : USERS) {
          RMApp app;
          try {
            app = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
                .createWithMemory(GB, rm).withQueue(queue).withUser(user)
                .withWaitForAppAcceptedState(false).build());
          } catch (Exception refused) {
            out.add("submit to " + queue + " as " + user + " -> refused: "
                + firstLine(RmHarness.reason(refused)));
            continue;
          }
          rm.drainEvents();
          String state = app.getState() == RMAppState.FAILED
              ? "refused: " + firstLine(app.getDiagnostics().toString()) : "accepted";
          out.add("submit to " + queue + " as " + user + " -> " + state);
          if (queue.equals("a") && app.getState() != RMAppState.FAILED) {
            inA.add(app);
          }
        }
      }
      nm.nodeHeartbeat(true);
      rm.drainEvents();
      ApplicationId alices = inA.get(0).getApplicationId();
      for (String user : USERS) {
        out.add("report of alice's application as " + user + " -> "
            + as(user, () -> report(rm.getClientRMService().getApplicationReport(
                GetApplicationReportRequest.newInstance(alices)).getApplicationReport())));
        out.add("queue a's information as " + user + " -> "
            + as(user, () -> rm.getClientRMService().getQueueInfo(
                GetQueueInfoRequest.newInstance("a", false, false, false)).getQueueInfo()
                .getQueueName()));
        out.add("queue ACLs of " + user + " -> " + as(user, () -> acls(rm.getClientRMService()
            .getQueueUserAcls(GetQueueUserAclsInfoRequest.newInstance()).getUserAclsInfoList())));
        out.add("priority of alice's application as " + user + " -> " + as(user, () -> rm
            .getClientRMService().updateApplicationPriority(UpdateApplicationPriorityRequest
                .newInstance(alices, Priority.newInstance(3))).getApplicationPriority()));
        out.add("move of alice's application to b as " + user + " -> " + as(user, () -> {
          rm.getClientRMService().moveApplicationAcrossQueues(
              MoveApplicationAcrossQueuesRequest.newInstance(alices, "b"));
          return "moved";
        }));
      }
      // Kills last: each caller tries to kill an application in a of its own and one of
      // alice's (applications are killed at most once).
      int next = 1;
      for (String user : USERS) {
        if (next >= inA.size()) {
          break;
        }
        ApplicationId target = inA.get(next++).getApplicationId();
        String owner = rm.getRMContext().getRMApps().get(target).getUser();
        out.add("kill of " + owner + "'s application as " + user + " -> " + as(user, () ->
            rm.getClientRMService().forceKillApplication(
                KillApplicationRequest.newInstance(target)).getIsKillCompleted() ? "killed"
                : "kill requested"));
      }
      return out;
    } finally {
      rm.stop();
    }
  }

  /** What {@code call} answers when {@code user} makes it, or why it was refused. */
  private static String as(String user, PrivilegedExceptionAction<Object> call) {
    try {
      return String.valueOf(UserGroupInformation.createRemoteUser(user).doAs(call));
    } catch (Exception e) {
      return "refused: " + firstLine(RmHarness.reason(e));
    }
  }

  /** The fields of a report a caller may or may not be shown. */
  private static String report(ApplicationReport r) {
    return "queue=" + r.getQueue() + " user=" + r.getUser() + " host=" + r.getHost()
        + " diagnostics=" + firstLine(r.getDiagnostics()).replaceAll("^\\[[^]]*\\] ", "")
        + " usage="
        + (r.getApplicationResourceUsageReport() == null ? "none" : "shown");
  }

  private static String acls(List<QueueUserACLInfo> infos) {
    TreeSet<String> out = new TreeSet<>();
    for (QueueUserACLInfo info : infos) {
      out.add(info.getQueueName() + "=" + new TreeSet<>(info.getUserAcls()));
    }
    return out.toString();
  }

  private static String firstLine(String message) {
    return message == null ? "" : message.split("\n")[0].replaceAll("_\\d{13}_", "_TS_");
  }
}
