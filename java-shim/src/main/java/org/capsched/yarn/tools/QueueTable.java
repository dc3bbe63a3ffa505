package org.capsched.yarn.tools;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Prints a ResourceManager's queues as a compact table, from its REST scheduler view
 * ({@code GET /ws/v1/cluster/scheduler}): one line per queue, indented under its parent,
 * with its state, configured capacity, share of the cluster used, resources used and
 * applications. Works against any CapacityScheduler-shaped view (Apache's or ours).
 *
 * <pre>java -cp capsched-yarn.jar:$(hadoop classpath) org.capsched.yarn.tools.QueueTable http://rm:8088</pre>
 */
public final class QueueTable {
  private QueueTable() {
  }

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: QueueTable http://RM-HOST:PORT");
      System.exit(2);
    }
    HttpURLConnection c = (HttpURLConnection) new URL(
        args[0].replaceAll("/+$", "") + "/ws/v1/cluster/scheduler").openConnection();
    c.setRequestProperty("Accept", "application/json");
    c.setConnectTimeout(5_000);
    c.setReadTimeout(30_000);
    if (c.getResponseCode() != 200) {
      System.err.println(args[0] + " answered HTTP " + c.getResponseCode()
          + " for /ws/v1/cluster/scheduler");
      System.exit(1);
    }
    JsonNode info;
    try (InputStream in = c.getInputStream()) {
      info = new ObjectMapper().readTree(in).path("scheduler").path("schedulerInfo");
    }
    print(info, System.out);
  }

  /** The table for a view's {@code schedulerInfo}. */
  static void print(JsonNode root, PrintStream out) {
    out.printf(Locale.ROOT, "%-34s %-8s %9s %9s %18s %7s %8s%n", "queue", "state", "capacity",
        "abs used", "used (MB, vcores)", "active", "pending");
    row(root, 0, out);
  }

  private static void row(JsonNode q, int depth, PrintStream out) {
    String name = q.path("queueName").asText();
    boolean leaf = q.has("numActiveApplications");
    out.printf(Locale.ROOT, "%-34s %-8s %8.1f%% %8.1f%% %18s %7s %8s%n",
        indent(depth) + name, q.path("state").asText(q.has("state") ? "" : "RUNNING"),
        q.path("capacity").asDouble(), q.path("absoluteUsedCapacity").asDouble(
            q.path("usedCapacity").asDouble()),
        q.has("resourcesUsed") ? q.path("resourcesUsed").path("memory").asLong() + ", "
            + q.path("resourcesUsed").path("vCores").asLong() : "",
        leaf ? q.path("numActiveApplications").asText() : "",
        leaf ? q.path("numPendingApplications").asText() : "");
    for (JsonNode child : q.path("queues").path("queue")) {
      row(child, depth + 1, out);
    }
  }

  private static String indent(int depth) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < depth; i++) {
      b.append("  ");
    }
    return b.toString();
  }
}
