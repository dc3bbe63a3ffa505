package org.capsched.yarn;

import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URL;
import java.net.URLEncoder;
import java.security.PrivilegedExceptionAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.protocolrecords.GetApplicationsRequest;
import org.apache.hadoop.yarn.api.protocolrecords.GetQueueInfoRequest;
import org.apache.hadoop.yarn.api.protocolrecords.MoveApplicationAcrossQueuesRequest;
import org.apache.hadoop.yarn.api.protocolrecords.UpdateApplicationPriorityRequest;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.ClientRMService;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.capsched.yarn.harness.RmHarness;
import org.junit.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The RM's REST API with {@code yarn.acl.enable}, through a real RM's web server, as
 * distinct users ({@code ?user.name=}, the simple authentication a non-secure RM sets up),
 * against Apache's CapacityScheduler and ours: submitting to each queue, reading an
 * application, its queue and its priority, changing its priority, moving it and killing it,
 * listing a queue's applications and reading the scheduler view — and, as an administrator,
 * every one of those with bad parameters (unknown, parent and empty queues, priorities out of
 * range, sizes past the maximum or below zero, unknown states and ids), and the same through
 * the client service as yarn's CLI sends them. Every answer — its
 * status code, and the exception and message of a refusal, or the fields a caller is shown —
 * must be Apache's, and what a refused call would have changed must stay as it was.
 */
public class RestConformanceTest {
  private static final int GB = 1024;
  /**
   * As AclConformanceTest's (a: alice submits, bob administers; b: carol and dave submit),
   * with c, whose ApplicationMasters may hold little, for alice.
   */
  private static final String XML = RmHarness.xml("root.queues", "a,b,c",
      "root.a.capacity", "40", "root.b.capacity", "40", "maximum-am-resource-percent", "1.0",
      "root.c.capacity", "20", "root.c.maximum-am-resource-percent", "0.05",
      "root.c.acl_submit_applications", "alice",
      "root.acl_submit_applications", " ", "root.acl_administer_queue", " ",
      "root.a.acl_submit_applications", "alice", "root.a.acl_administer_queue", "bob",
      "root.b.acl_submit_applications", "carol,dave", "root.b.acl_administer_queue", " ");
  private static final List<String> USERS = Arrays.asList("alice", "bob", "carol", "admin",
      "eve");
  /** The application fields compared, where the RM shows them. */
  private static final List<String> APP_FIELDS = Arrays.asList("user", "queue", "state",
      "finalStatus", "priority", "diagnostics", "allocatedMB", "runningContainers",
      "amHostHttpAddress", "trackingUI");
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test(timeout = 300_000)
  public void everyRestCallIsAnsweredAsApachesSchedulerAnswersIt() throws Exception {
    List<String> apache = outcomes(CapacityScheduler.class);
    List<String> ours = outcomes(RustCapacityScheduler.class);
    Path report = Paths.get(System.getProperty("capsched.report.dir", "build/reports"),
        "rest-conformance.txt");
    Files.createDirectories(report.getParent());
    Files.write(report, apache);
    assertTrue("the answers differ:\n" + String.join("\n", differing(apache, ours)),
        apache.equals(ours));
  }

  private List<String> outcomes(Class<? extends ResourceScheduler> type) throws Exception {
    YarnConfiguration conf = RmHarness.configuration(type, XML.getBytes(StandardCharsets.UTF_8));
    conf.setBoolean(YarnConfiguration.YARN_ACL_ENABLE, true);
    conf.set(YarnConfiguration.YARN_ADMIN_ACL, "admin");
    conf.setInt(YarnConfiguration.MAX_CLUSTER_LEVEL_APPLICATION_PRIORITY, 10);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, 8 * GB);
    conf.setBoolean("mockrm.webapp.enabled", true);
    conf.set(YarnConfiguration.RM_WEBAPP_ADDRESS, "localhost:" + freePort());
    MockRM rm = RmHarness.start(conf);
    List<String> out = new ArrayList<>();
    try {
      Rest rest = new Rest("http://" + conf.get(YarnConfiguration.RM_WEBAPP_ADDRESS)
          + "/ws/v1/cluster");
      // What an application is told while it waits for its AM: before any NodeManager
      // registers, then once one has, then held back by its queue's AM limit.
      String first = rest.newApplication("alice");
      rest.submit("alice", first, "c", GB, 1, 0);
      rm.drainEvents();
      out.add("submitted before any node -> " + rest.appFields("admin", first, "diagnostics"));
      MockNM nm = rm.registerNode("127.0.0.1:1234", 32 * GB, 32);
      rm.drainEvents();
      out.add("once a node registered -> " + rest.appFields("admin", first, "diagnostics"));
      for (int i = 0; i < 3; i++) {
        String id = rest.newApplication("alice");
        rest.submit("alice", id, "c", GB, 1, 0);
        rm.drainEvents();
        out.add("another to c -> " + rest.appFields("admin", id, "diagnostics"));
      }

      // Submissions by every caller to each queue.
      List<String> inA = new ArrayList<>();
      for (String queue : new String[] {"a", "b"}) {
        for (String user : USERS) {
          String id = rest.newApplication(user);
          String answer = rest.submit(user, id, queue, GB, 1, 0);
          rm.drainEvents();
          out.add("submit to " + queue + " as " + user + " -> " + answer + "; "
              + rest.appFields("admin", id, "state", "queue", "diagnostics"));
          if (queue.equals("a") && answer.startsWith("202")) {
            inA.add(id);
          }
        }
      }
      nm.nodeHeartbeat(true);
      rm.drainEvents();

      // Reading and changing alice's first application, as every caller.
      String alices = inA.get(0);
      for (String user : USERS) {
        out.add("application as " + user + " -> " + rest.appFields(user, alices,
            APP_FIELDS.toArray(new String[0])));
        out.add("its queue as " + user + " -> " + rest.call("GET", user, "/apps/" + alices
            + "/queue", null));
        out.add("its priority as " + user + " -> " + rest.call("GET", user, "/apps/" + alices
            + "/priority", null));
        out.add("priority 3 as " + user + " -> " + rest.call("PUT", user, "/apps/" + alices
            + "/priority", "{\"priority\":3}"));
        out.add("move to b as " + user + " -> " + rest.call("PUT", user, "/apps/" + alices
            + "/queue", "{\"queue\":\"b\"}"));
        rm.drainEvents();
        out.add("applications of a as " + user + " -> " + rest.appsOf(user, "a"));
        out.add("scheduler view as " + user + " -> " + rest.schedulerQueues(user));
      }

      // Bad parameters, as the administrator: each refused as Apache refuses it, and the
      // application and the queues as they were.
      String target = inA.get(1);
      for (String body : new String[] {"{\"priority\":-1}", "{\"priority\":99}",
          "{\"priority\":\"high\"}", "{}", "not json"}) {
        out.add("priority " + body + " -> " + rest.call("PUT", "admin", "/apps/" + target
            + "/priority", body));
      }
      for (String queue : new String[] {"nosuch", "root", "", "root.a", "a.b", "b"}) {
        out.add("move to '" + queue + "' -> " + rest.call("PUT", "admin", "/apps/" + target
            + "/queue", "{\"queue\":\"" + queue + "\"}"));
        rm.drainEvents();
      }
      out.add("state BOGUS -> " + rest.call("PUT", "admin", "/apps/" + target + "/state",
          "{\"state\":\"BOGUS\"}"));
      out.add("state RUNNING -> " + rest.call("PUT", "admin", "/apps/" + target + "/state",
          "{\"state\":\"RUNNING\"}"));
      for (String id : new String[] {"application_0_0000", "application_1_99999", "nonsense"}) {
        out.add("application " + id + " -> " + rest.call("GET", "admin", "/apps/" + id, null));
        out.add("priority of " + id + " -> " + rest.call("PUT", "admin", "/apps/" + id
            + "/priority", "{\"priority\":1}"));
        out.add("move of " + id + " -> " + rest.call("PUT", "admin", "/apps/" + id + "/queue",
            "{\"queue\":\"b\"}"));
      }
      for (String queue : new String[] {"nosuch", "root", "root.a", ""}) {
        out.add("applications of '" + queue + "' -> " + rest.appsOf("admin", queue));
      }
      out.add("applications in state BOGUS -> " + rest.call("GET", "admin",
          "/apps?states=BOGUS", null));
      // Submissions that must be refused (or fail) without leaving anything behind.
      String[][] bad = {{"nosuch", "1024", "1", "0"}, {"root", "1024", "1", "0"},
          {"", "1024", "1", "0"}, {"a", "999999", "1", "0"}, {"a", "-1", "1", "0"},
          {"a", "1024", "0", "0"}, {"a", "1024", "99", "0"}, {"a", "1024", "1", "99"},
          {"a", "1024", "1", "-5"}};
      for (String[] s : bad) {
        String id = rest.newApplication("alice");
        String answer = rest.submit("alice", id, s[0], Integer.parseInt(s[1]),
            Integer.parseInt(s[2]), Integer.parseInt(s[3]));
        rm.drainEvents();
        out.add("submit " + String.join("/", s) + " -> " + answer + "; "
            + rest.appFields("admin", id, "state", "queue", "priority", "diagnostics"));
      }
      // The same bad parameters through the client service, as yarn's CLI sends them
      // (yarn queue -status, yarn application -movetoqueue / -updatePriority / -list).
      ClientRMService client = rm.getClientRMService();
      ApplicationId targetId = ApplicationId.fromString(target);
      for (String queue : new String[] {"nosuch", "", "root.nosuch", "a.b"}) {
        out.add("client: queue status of '" + queue + "' -> " + asAdmin(() -> client
            .getQueueInfo(GetQueueInfoRequest.newInstance(queue, false, false, false))
            .getQueueInfo().getQueueName()));
        out.add("client: move to '" + queue + "' -> " + asAdmin(() -> client
            .moveApplicationAcrossQueues(MoveApplicationAcrossQueuesRequest.newInstance(
                targetId, queue)).toString()));
        out.add("client: applications of '" + queue + "' -> " + asAdmin(() -> client
            .getApplications(GetApplicationsRequest.newInstance()).getApplicationList().stream()
            .filter(r -> r.getQueue().equals(queue)).count()));
      }
      for (int priority : new int[] {-1, 99}) {
        out.add("client: priority " + priority + " -> " + asAdmin(() -> client
            .updateApplicationPriority(UpdateApplicationPriorityRequest.newInstance(targetId,
                Priority.newInstance(priority))).getApplicationPriority()));
      }
      rm.drainEvents();
      out.add("after the bad calls: " + rest.appFields("admin", target,
          APP_FIELDS.toArray(new String[0])) + "; " + rest.schedulerQueues("admin"));

      // Kills: every caller tries one of the applications in a.
      int next = 2;
      for (String user : USERS) {
        if (next >= inA.size()) {
          break;
        }
        String victim = inA.get(next++);
        out.add("kill as " + user + " -> " + rest.call("PUT", user, "/apps/" + victim
            + "/state", "{\"state\":\"KILLED\"}"));
        rm.drainEvents();
      }
      out.add("in the end: " + rest.schedulerQueues("admin"));
      return out;
    } finally {
      rm.stop();
    }
  }

  /** What {@code call} answers when the administrator makes it, or why it was refused. */
  private static String asAdmin(PrivilegedExceptionAction<Object> call) {
    try {
      return String.valueOf(UserGroupInformation.createRemoteUser("admin").doAs(call));
    } catch (Exception e) {
      return "refused: " + normalise(firstLine(RmHarness.reason(e)), null);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** Calls on the RM's REST API as a named user, answers made comparable. */
  private static final class Rest {
    private final String base;

    Rest(String base) {
      this.base = base;
    }

    String newApplication(String user) throws IOException {
      Answer a = send("POST", user, "/apps/new-application", "");
      return JSON.readTree(a.body).path("application-id").asText();
    }

    String submit(String user, String id, String queue, int memory, int vcores, int priority)
        throws IOException {
      String body = "{\"application-id\":\"" + id + "\",\"application-name\":\"rest\","
          + "\"queue\":\"" + queue + "\",\"priority\":" + priority + ","
          + "\"am-container-spec\":{\"commands\":{\"command\":\"sleep 60\"}},"
          + "\"resource\":{\"memory\":" + memory + ",\"vCores\":" + vcores + "},"
          + "\"application-type\":\"YARN\",\"max-app-attempts\":1}";
      return describe(send("POST", user, "/apps", body), id);
    }

    /** The status code, and what a refusal says or the answer's body. */
    String call(String method, String user, String path, String body) throws IOException {
      return describe(send(method, user, path, body), null);
    }

    /** Chosen fields of an application as {@code user} is shown it. */
    String appFields(String user, String id, String... fields) throws IOException {
      Answer a = send("GET", user, "/apps/" + id, null);
      if (a.code != 200) {
        return describe(a, id);
      }
      JsonNode app = JSON.readTree(a.body).path("app");
      Map<String, String> shown = new TreeMap<>();
      for (String f : fields) {
        if (app.has(f)) {
          shown.put(f, normalise(firstLine(app.get(f).asText()), id));
        }
      }
      return shown.toString();
    }

    /** The applications of a queue, by name and state, as {@code user} lists them. */
    String appsOf(String user, String queue) throws IOException {
      Answer a = send("GET", user, "/apps?queue=" + URLEncoder.encode(queue, "UTF-8"), null);
      if (a.code != 200) {
        return describe(a, null);
      }
      List<String> apps = new ArrayList<>();
      for (JsonNode app : JSON.readTree(a.body).path("apps").path("app")) {
        apps.add(app.path("user").asText() + ":" + app.path("state").asText() + ":"
            + app.path("queue").asText());
      }
      apps.sort(null);
      return apps.toString();
    }

    /** Each queue's name, applications and used memory in the scheduler view. */
    String schedulerQueues(String user) throws IOException {
      Answer a = send("GET", user, "/scheduler", null);
      if (a.code != 200) {
        return describe(a, null);
      }
      JsonNode info = JSON.readTree(a.body).path("scheduler").path("schedulerInfo");
      List<String> queues = new ArrayList<>();
      for (JsonNode q : info.path("queues").path("queue")) {
        queues.add(q.path("queueName").asText() + " apps=" + q.path("numApplications").asText()
            + " used=" + q.path("resourcesUsed").path("memory").asText());
      }
      return info.path("type").asText() + " " + queues;
    }

    private static String describe(Answer a, String id) throws IOException {
      if (a.code < 400) {
        return a.code + (a.body.isEmpty() || a.body.startsWith("{\"app") ? ""
            : " " + normalise(a.body, id));
      }
      try {
        JsonNode e = JSON.readTree(a.body).path("RemoteException");
        if (!e.isMissingNode()) {
          return a.code + " " + e.path("exception").asText() + ": "
              + normalise(firstLine(e.path("message").asText()), id);
        }
      } catch (IOException notJson) {
        // A servlet container's page: its status code is the answer.
      }
      return a.code + "";
    }

    private Answer send(String method, String user, String path, String body)
        throws IOException {
      String sep = path.contains("?") ? "&" : "?";
      HttpURLConnection c = (HttpURLConnection) new URL(base + path + sep + "user.name="
          + user).openConnection();
      c.setRequestMethod(method);
      c.setConnectTimeout(5_000);
      c.setReadTimeout(30_000);
      c.setRequestProperty("Accept", "application/json");
      if (body != null) {
        c.setDoOutput(true);
        c.setRequestProperty("Content-Type", "application/json");
        try (OutputStream os = c.getOutputStream()) {
          os.write(body.getBytes(StandardCharsets.UTF_8));
        }
      }
      int code = c.getResponseCode();
      InputStream in = code >= 400 ? c.getErrorStream() : c.getInputStream();
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      if (in != null) {
        try (InputStream stream = in) {
          byte[] buf = new byte[8192];
          for (int n; (n = stream.read(buf)) > 0; ) {
            bytes.write(buf, 0, n);
          }
        }
      }
      return new Answer(code, new String(bytes.toByteArray(), StandardCharsets.UTF_8));
    }
  }

  private static final class Answer {
    final int code;
    final String body;

    Answer(int code, String body) {
      this.code = code;
      this.body = body;
    }
  }

  /** Without the run's application ids and timestamps. */
  private static String normalise(String text, String id) {
    String out = id == null || id.isEmpty() ? text : text.replace(id, "APP");
    return out.replaceAll("application_\\d+_\\d+", "application_N")
        .replaceAll("appattempt_\\d+_\\d+_\\d+", "appattempt_N")
        .replaceAll("\\d{13}", "T")
        .replaceAll("\\[\\w{3} \\w{3} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d [+-]\\d{4} \\d{4}\\]", "[T]");
  }

  private static String firstLine(String message) {
    return message == null ? "" : message.split("\n")[0];
  }

  /** The lines that differ, for the failure's reader. */
  static List<String> differing(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>();
    Iterator<String> i = a.iterator();
    Iterator<String> j = b.iterator();
    while (i.hasNext() || j.hasNext()) {
      String x = i.hasNext() ? i.next() : "";
      String y = j.hasNext() ? j.next() : "";
      if (!x.equals(y)) {
        out.add("apache: " + x + "\nours:   " + y);
      }
    }
    return out;
  }
}
