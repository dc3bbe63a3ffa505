package org.capsched.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeys;
import org.apache.hadoop.security.Groups;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.MemoryRMStateStore;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.capsched.yarn.harness.RmHarness;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * Placement through a real RM (MockRM), side by side: for each set of placement rules —
 * legacy user, group and application-name mappings with their placeholders, the override
 * switch, JSON rules with every policy and fallback — the same submissions go to Apache's
 * CapacityScheduler and to ours, and each must end in the same queue (as the RM records it:
 * what {@code yarn application -status} and the REST app view show), or be refused with the
 * same message. Users get their groups from a static group mapping in the RM's
 * configuration, as {@code hadoop.security.group.mapping} would give them.
 */
public class PlacementConformanceTest {
  private static final int GB = 1024;

  /** alice and bob have queues under users; alice also under ops (an ambiguous name). */
  private static final String[] TREE = {"root.queues", "default,eng,users,analysts,ops",
      "root.default.capacity", "30", "root.eng.capacity", "20", "root.users.capacity", "30",
      "root.analysts.capacity", "10", "root.ops.capacity", "10",
      "root.users.queues", "alice,bob", "root.users.alice.capacity", "50",
      "root.users.bob.capacity", "50", "root.ops.queues", "etl,alice",
      "root.ops.etl.capacity", "50", "root.ops.alice.capacity", "50",
      "maximum-am-resource-percent", "1.0"};

  /** Each user's groups, primary first; zed has none (the group mapping knows no zed). */
  private static final String GROUPS = "alice=eng,staff;bob=analysts;carol=staff,eng;"
      + "erin=staff,nope,bob;j.doe=eng";
  private static final List<String> USERS = Arrays.asList("alice", "bob", "carol", "erin",
      "j.doe", "zed");

  @BeforeClass
  public static void staticGroups() {
    // The RM's group service is one per JVM: load it with this mapping for both schedulers.
    Configuration conf = new Configuration(false);
    conf.set(CommonConfigurationKeys.HADOOP_USER_GROUP_STATIC_OVERRIDES, GROUPS);
    Groups.getUserToGroupsMappingServiceWithLoadedConfiguration(conf);
  }

  @Test(timeout = 300_000)
  public void legacyUserAndGroupMappings() throws Exception {
    sameEverywhere(new String[] {"queue-mappings",
        "u:carol:eng,g:analysts:analysts,u:%user:users.%user"});
    sameEverywhere(new String[] {"queue-mappings", "u:%user:%primary_group"});
    sameEverywhere(new String[] {"queue-mappings", "u:%user:root.users.%secondary_group"});
    sameEverywhere(new String[] {"queue-mappings", "u:j.doe:eng,u:%user:%user",
        "queue-mappings-override.enable", "true"});
    sameEverywhere(new String[] {"queue-mappings", "g:staff:users.%user"});
  }

  @Test(timeout = 300_000)
  public void applicationNameMappings() throws Exception {
    sameEverywhere(new String[0], "yarn.scheduler.queue-placement-rules.app-name",
        "nightly:etl,%application:%application");
  }

  @Test(timeout = 300_000)
  public void jsonRulesWithEveryPolicyAndFallback() throws Exception {
    sameEverywhere(json("[{\"type\":\"group\",\"matches\":\"eng\",\"policy\":\"setDefaultQueue\","
        + "\"value\":\"root.eng\"},"
        + "{\"type\":\"user\",\"matches\":\"erin\",\"policy\":\"reject\"},"
        + "{\"type\":\"user\",\"matches\":\"*\",\"policy\":\"user\",\"parentQueue\":\"root.users\"},"
        + "{\"type\":\"group\",\"matches\":\"analysts\",\"policy\":\"primaryGroup\"},"
        + "{\"type\":\"application\",\"matches\":\"nightly\",\"policy\":\"custom\","
        + "\"customPlacement\":\"root.ops.etl\"},"
        + "{\"type\":\"user\",\"matches\":\"*\",\"policy\":\"defaultQueue\"}]", false));
    sameEverywhere(json("[{\"type\":\"user\",\"matches\":\"*\",\"policy\":\"specified\","
        + "\"fallbackResult\":\"reject\"}]", true));
    sameEverywhere(json("[{\"type\":\"user\",\"matches\":\"*\",\"policy\":\"primaryGroupUser\","
        + "\"fallbackResult\":\"skip\"},"
        + "{\"type\":\"user\",\"matches\":\"*\",\"policy\":\"secondaryGroup\","
        + "\"parentQueue\":\"root.users\",\"fallbackResult\":\"placeDefault\"}]", false));
    sameEverywhere(json("[{\"type\":\"application\",\"matches\":\"nightly\","
        + "\"policy\":\"applicationName\",\"parentQueue\":\"root.ops\",\"fallbackResult\":\"skip\"},"
        + "{\"type\":\"user\",\"matches\":\"zed\",\"policy\":\"custom\",\"customPlacement\":"
        + "\"root.users.%user\",\"fallbackResult\":\"reject\"}]", false));
  }

  /**
   * With ACLs on, the submit ACL is checked on the placed queue (alice may submit only to
   * her own queue, the default queue is closed); after a work-preserving restart every
   * application is in the queue it was placed in.
   */
  @Test(timeout = 300_000)
  public void aclsApplyToThePlacedQueueAndARestartKeepsIt() throws Exception {
    String xml = RmHarness.xml(concat(TREE, new String[] {
        "queue-mappings", "u:%user:users.%user",
        "root.acl_submit_applications", " ", "root.acl_administer_queue", " ",
        "root.users.alice.acl_submit_applications", "alice",
        "root.users.bob.acl_submit_applications", "alice,bob",
        "root.eng.acl_submit_applications", "*"}));
    List<String> apache = restartOutcomes(CapacityScheduler.class, xml);
    List<String> ours = restartOutcomes(RustCapacityScheduler.class, xml);
    record("ACLs and a restart", apache);
    assertEquals(String.join("\n", apache), String.join("\n", ours));
    assertTrue(String.join("\n", apache),
        apache.contains("after the restart, alice's application is in root.users.alice"));
  }

  private List<String> restartOutcomes(Class<? extends ResourceScheduler> type, String xml)
      throws Exception {
    YarnConfiguration conf = RmHarness.configuration(type, xml.getBytes(StandardCharsets.UTF_8));
    conf.setBoolean(YarnConfiguration.YARN_ACL_ENABLE, true);
    conf.setBoolean(YarnConfiguration.RECOVERY_ENABLED, true);
    conf.setBoolean(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_ENABLED, true);
    conf.set(YarnConfiguration.RM_STORE, MemoryRMStateStore.class.getName());
    List<String> out = new ArrayList<>();
    Map<String, ApplicationId> accepted = new LinkedHashMap<>();
    MockRM rm1 = RmHarness.start(conf);
    MockRM rm2 = null;
    try {
      for (String user : USERS) {
        for (String queue : new String[] {"default", "eng"}) {
          try {
            RMApp app = MockRMAppSubmitter.submit(rm1, MockRMAppSubmissionData.Builder
                .createWithMemory(GB, rm1).withQueue(queue).withUser(user).withAppName("x")
                .withWaitForAppAcceptedState(false).build());
            rm1.drainEvents();
            if (app.getState() == RMAppState.FAILED) {
              out.add(user + " to '" + queue + "' -> refused: "
                  + app.getDiagnostics().toString().split("\n")[0]
                      .replaceAll("application_\\d+_\\d+", "APP"));
            } else {
              out.add(user + " to '" + queue + "' -> " + app.getQueue());
              accepted.put(user + "@" + queue, app.getApplicationId());
            }
          } catch (Exception refused) {
            out.add(user + " to '" + queue + "' -> refused: " + RmHarness.reason(refused)
                .replaceAll("application_\\d+_\\d+", "APP").split("\n")[0]);
          }
        }
      }
      rm2 = RmHarness.start(conf, rm1.getRMStateStore());
      rm2.drainEvents();
      for (Map.Entry<String, ApplicationId> e : accepted.entrySet()) {
        RMApp app = rm2.getRMContext().getRMApps().get(e.getValue());
        String who = e.getKey().substring(0, e.getKey().indexOf('@'));
        out.add("after the restart, " + who + "'s application"
            + (e.getKey().endsWith("@eng") ? " to eng" : "") + " is in " + app.getQueue());
      }
      return out;
    } finally {
      if (rm2 != null) {
        rm2.stop();
      }
      rm1.stop();
    }
  }

  private static String[] concat(String[] a, String[] b) {
    String[] all = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  private static String[] json(String rules, boolean override) {
    return new String[] {"mapping-rule-format", "json",
        "mapping-rule-json", "{\"rules\":" + rules + "}",
        "queue-mappings-override.enable", String.valueOf(override)};
  }

  /** The same submissions to both schedulers with these keys, the same outcomes. */
  private void sameEverywhere(String[] keys, String... rmKeys) throws Exception {
    String xml = RmHarness.xml(concat(TREE, keys));
    List<String> apache = outcomes(CapacityScheduler.class, xml, rmKeys);
    List<String> ours = outcomes(RustCapacityScheduler.class, xml, rmKeys);
    String rules = String.join(" ", keys) + " " + String.join(" ", rmKeys);
    record(rules, apache);
    assertEquals("with " + rules, String.join("\n", apache), String.join("\n", ours));
    // Not vacuous: the rules placed or refused some submission that named no queue.
    assertTrue("no submission was placed by " + rules, apache.stream().anyMatch(o ->
        o.contains("to 'default' -> ") && !o.contains("queue root.default,")));
  }

  /** Every rule set's outcomes (Apache's, which ours equal), for reading. */
  private static final StringBuilder REPORT = new StringBuilder();

  private static void record(String title, List<String> outcomes) throws Exception {
    REPORT.append("== ").append(title).append('\n').append(String.join("\n", outcomes))
        .append('\n');
    Files.write(Paths.get("build/reports/placement-conformance.txt"),
        REPORT.toString().getBytes(StandardCharsets.UTF_8));
  }

  private List<String> outcomes(Class<? extends ResourceScheduler> type, String xml,
      String... rmKeys) throws Exception {
    YarnConfiguration conf = RmHarness.configuration(type, xml.getBytes(StandardCharsets.UTF_8));
    for (int i = 0; i < rmKeys.length; i += 2) {
      conf.set(rmKeys[i], rmKeys[i + 1]);
    }
    MockRM rm = RmHarness.start(conf);
    List<String> out = new ArrayList<>();
    try {
      for (String user : USERS) {
        for (String queue : new String[] {"default", "eng", "bob"}) {
          for (String name : new String[] {"nightly", "eng"}) {
            out.add(user + " submits " + name + " to '" + queue + "' -> "
                + submit(rm, user, queue, name));
          }
        }
      }
      return out;
    } finally {
      rm.stop();
    }
  }

  private static String submit(MockRM rm, String user, String queue, String name) {
    RMApp app;
    try {
      app = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
          .createWithMemory(GB, rm).withQueue(queue).withUser(user).withAppName(name)
          .withWaitForAppAcceptedState(false).build());
    } catch (Exception refused) {
      return "refused: " + RmHarness.reason(refused);
    }
    rm.drainEvents();
    return "queue " + app.getQueue() + ", " + (app.getState() == RMAppState.FAILED
        ? "failed: " + app.getDiagnostics().toString().split("\n")[0] : app.getState());
  }
}
