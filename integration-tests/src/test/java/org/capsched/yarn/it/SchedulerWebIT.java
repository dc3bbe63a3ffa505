package org.capsched.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.nio.file.Paths;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The operator's view through a real ResourceManager's web server, with only the
 * scheduler class set: the Scheduler page and {@code GET /ws/v1/cluster/scheduler} (JSON
 * and XML) answer 200 with the queue tree, JMX has Apache's per-queue gauges, and the other
 * scheduler-facing endpoints answer without a stack trace.
 */
public class SchedulerWebIT {

  @Test(timeout = 300_000)
  public void schedulerPageAndRestViewShowTheQueues() throws Exception {
    try (ProcessCluster cluster = ProcessCluster.start("web", 1, MiniCluster.sampleConfiguration());
        YarnClient yarn = YarnClient.createYarnClient()) {
      yarn.init(new YarnConfiguration(cluster.clientConf));
      yarn.start();
      ApplicationId app = Sleeper.submit(yarn, "development", 0, 300);
      waitUntilRunning(yarn, app);
      String base = cluster.webUrl();

      // REST, JSON: Apache's CapacityScheduler shape.
      Http.Response json = get(base + "/ws/v1/cluster/scheduler", "application/json");
      assertEquals(json.body, 200, json.code);
      JsonNode info = new ObjectMapper().readTree(json.body).path("scheduler").path("schedulerInfo");
      assertEquals(json.body, "capacityScheduler", info.path("type").asText());
      assertEquals("root", info.path("queueName").asText());
      assertEquals("root", info.path("queuePath").asText());
      // The scheduler-health block records the AM container's allocation.
      JsonNode lastAllocation = null;
      for (JsonNode op : info.path("health").path("operationsInfo")) {
        if ("last-allocation".equals(op.path("operation").asText())) {
          lastAllocation = op;
        }
      }
      assertNotNull(info.path("health").toString(), lastAllocation);
      assertTrue(lastAllocation.toString(), lastAllocation.path("containerId").asText()
          .contains(app.toString().substring("application_".length())));
      assertEquals(lastAllocation.toString(), "root.engineering.development",
          lastAllocation.path("queue").asText());
      assertTrue(info.path("health").toString(), info.path("health").path("lastrun").asLong() > 0);
      JsonNode engineering = child(info, "engineering");
      assertEquals(json.body, 60.0, engineering.path("capacity").asDouble(), 1e-3);
      JsonNode development = child(engineering, "development");
      assertEquals("capacitySchedulerLeafQueueInfo", development.path("type").asText());
      assertEquals("root.engineering.development", development.path("queuePath").asText());
      assertEquals("RUNNING", development.path("state").asText());
      assertEquals(1, development.path("numApplications").asInt());
      assertEquals(1, development.path("numActiveApplications").asInt());
      assertTrue(development.toString(), development.path("resourcesUsed").path("memory").asLong() >= 256);
      JsonNode users = development.path("users").path("user");
      assertEquals(users.toString(), 1, users.size());
      assertEquals(System.getProperty("user.name"), users.get(0).path("username").asText());
      JsonNode partition = development.path("capacities").path("queueCapacitiesByPartition").get(0);
      assertNotNull(development.toString(), partition);
      assertEquals("", partition.path("partitionName").asText());
      assertTrue(partition.toString(), partition.path("absoluteUsedCapacity").asDouble() > 0);

      // REST, XML.
      Http.Response xml = get(base + "/ws/v1/cluster/scheduler", "application/xml");
      assertEquals(xml.body, 200, xml.code);
      assertTrue(xml.body, xml.body.contains("<queuePath>root.engineering.development</queuePath>"));
      assertTrue(xml.body, xml.body.contains("capacityScheduler"));

      // The Scheduler page of the RM's own web UI.
      Http.Response page = get(base + "/cluster/scheduler", "text/html");
      assertEquals(page.body, 200, page.code);
      assertTrue(page.body, page.body.contains("id=\"q-root.engineering.development\""));
      assertTrue(page.body, page.body.contains("id=\"leaf-root.support\"")
          || page.body.contains("id=\"leaf-root.marketing\""));
      assertTrue(page.body, page.body.contains(System.getProperty("user.name")));
      assertFalse(page.body, page.body.contains("Exception"));

      // The same page in a real browser, scripts run: the queue tree, the leaf's user and
      // the RM's applications table with the application; a screenshot for the record.
      String dom = Browser.dom(base + "/cluster/scheduler");
      java.nio.file.Files.write(Paths.get("build/reports/scheduler-page.html"),
          dom.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      assertTrue(dom, dom.contains("id=\"q-root.engineering.development\""));
      assertTrue(dom, dom.contains("id=\"leaf-root.engineering.development\""));
      assertTrue(dom, dom.contains(System.getProperty("user.name")));
      assertTrue(dom, dom.contains(app.toString()));
      assertTrue(dom, dom.contains("id=\"health-operations\""));
      Browser.screenshot(base + "/cluster/scheduler",
          Paths.get("build/reports/scheduler-page.png"), 1920, 1300);

      // JMX: the leaf's record has Apache's capacity-queue gauges, published from the
      // core as the record is read, and they agree with the REST view of the same moment.
      // Hadoop's JMX adapter answers from a cache it takes afresh at most every
      // jmx_cache_ttl (10 s), and may first have taken it before the application ran: wait
      // for a fresh one.
      String leafBean = "Hadoop:service=ResourceManager,name=QueueMetrics,q0=root,q1=engineering,q2=development";
      AtomicReference<JsonNode> seen = new AtomicReference<>(jmxBean(base, leafBean));
      try {
        GenericTestUtils.waitFor(() -> {
          try {
            seen.set(jmxBean(base, leafBean));
          } catch (Exception e) {
            throw new AssertionError(e);
          }
          return seen.get().path("AppsRunning").asInt() == 1;
        }, 500, 60_000);
      } catch (java.util.concurrent.TimeoutException e) {
        // Reported by the assertions below, with the record.
      }
      JsonNode jmx = seen.get();
      JsonNode now = child(child(new ObjectMapper().readTree(get(base + "/ws/v1/cluster/scheduler",
          "application/json").body).path("scheduler").path("schedulerInfo"), "engineering"),
          "development");
      long totalMb = new ObjectMapper().readTree(get(base + "/ws/v1/cluster/metrics",
          "application/json").body).path("clusterMetrics").path("totalMB").asLong();
      assertEquals(jmx.toString(), 1, jmx.path("AppsRunning").asInt());
      assertEquals(jmx.toString(), now.path("AMResourceLimit").path("memory").asLong(),
          jmx.path("AMResourceLimitMB").asLong());
      assertEquals(jmx.toString(), now.path("usedAMResource").path("memory").asLong(),
          jmx.path("UsedAMResourceMB").asLong());
      assertTrue(jmx.toString(), jmx.path("UsedAMResourceMB").asLong() >= 256);
      assertEquals(jmx.toString(), now.path("usedCapacity").asDouble() / 100,
          jmx.path("UsedCapacity").asDouble(), 1e-3);
      assertEquals(jmx.toString(), now.path("absoluteCapacity").asDouble() / 100,
          jmx.path("GuaranteedAbsoluteCapacity").asDouble(), 1e-3);
      long guaranteed = (long) (totalMb * now.path("absoluteCapacity").asDouble() / 100);
      assertTrue(jmx + " of " + totalMb, Math.abs(jmx.path("GuaranteedMB").asLong() - guaranteed) < 1024);
      assertEquals(jmx.toString(), now.path("capacities").path("queueCapacitiesByPartition").get(0)
          .path("effectiveMinResource").path("memory").asLong()
          - now.path("resourcesUsed").path("memory").asLong(), jmx.path("AvailableMB").asLong());

      // Other scheduler-facing endpoints answer, with no stack trace.
      Http.Response apps = get(base + "/ws/v1/cluster/apps?queue=development", "application/json");
      assertEquals(apps.body, 200, apps.code);
      assertTrue(apps.body, apps.body.contains(app.toString()));
      Http.Response metrics = get(base + "/ws/v1/cluster/metrics", "application/json");
      assertEquals(metrics.body, 200, metrics.code);
      Http.Response activities = get(base + "/ws/v1/cluster/scheduler/activities", "application/json");
      assertFalse(activities.body, activities.body.contains("\tat org."));
    }
  }

  /**
   * A labelled cluster: the REST view lists the label's entry beside the default
   * partition's in the queues' capacities (the root's, and a leaf's with keys for it, at
   * its configured share) and in a leaf's resources, and the Scheduler page, in a real
   * browser, has a table for the partition.
   */
  @Test(timeout = 300_000)
  public void viewsListALabelledPartition() throws Exception {
    java.nio.file.Path xml = java.nio.file.Files.createTempFile("capsched-web-labels-", ".xml");
    java.nio.file.Files.write(xml, ("<configuration>\n"
        + "<property><name>yarn.scheduler.capacity.root.queues</name><value>work,other</value></property>\n"
        + "<property><name>yarn.scheduler.capacity.root.work.capacity</name><value>70</value></property>\n"
        + "<property><name>yarn.scheduler.capacity.root.work.accessible-node-labels</name><value>gpu</value></property>\n"
        + "<property><name>yarn.scheduler.capacity.root.work.accessible-node-labels.gpu.capacity</name><value>100</value></property>\n"
        + "<property><name>yarn.scheduler.capacity.root.other.capacity</name><value>30</value></property>\n"
        + "<property><name>yarn.scheduler.capacity.root.other.accessible-node-labels</name><value> </value></property>\n"
        + "</configuration>\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
    java.util.Map<String, String> labels = new java.util.HashMap<>();
    labels.put(YarnConfiguration.NODE_LABELS_ENABLED, "true");
    labels.put(YarnConfiguration.FS_NODE_LABELS_STORE_ROOT_DIR,
        java.nio.file.Files.createTempDirectory("capsched-web-labels-store-").toUri().toString());
    try (ProcessCluster cluster = ProcessCluster.start("web-labels", 2, xml, labels);
        YarnClient yarn = YarnClient.createYarnClient()) {
      YarnConfiguration conf = new YarnConfiguration(cluster.clientConf);
      yarn.init(conf);
      yarn.start();
      String node = yarn.getNodeReports().get(0).getNodeId().toString();
      org.apache.hadoop.yarn.client.cli.RMAdminCLI admin =
          new org.apache.hadoop.yarn.client.cli.RMAdminCLI(conf);
      assertEquals(0, admin.run(new String[] {"-addToClusterNodeLabels", "gpu"}));
      assertEquals(0, admin.run(new String[] {"-replaceLabelsOnNode", node + "=gpu"}));
      String base = cluster.webUrl();
      AtomicReference<JsonNode> info = new AtomicReference<>();
      // The label reaches the scheduler through the RM's dispatcher.
      GenericTestUtils.waitFor(() -> {
        try {
          info.set(new ObjectMapper().readTree(get(base + "/ws/v1/cluster/scheduler",
              "application/json").body).path("scheduler").path("schedulerInfo"));
          JsonNode rootGpu = partition(info.get().path("capacities"), "gpu");
          return rootGpu != null && rootGpu.path("effectiveMinResource").path("memory").asLong() > 0;
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      }, 200, 60_000);
      JsonNode work = child(info.get(), "work");
      JsonNode gpu = partition(work.path("capacities"), "gpu");
      assertNotNull(work.toString(), gpu);
      assertEquals(gpu.toString(), 100.0, gpu.path("capacity").asDouble(), 1e-3);
      assertEquals(gpu.toString(), 100.0, gpu.path("absoluteCapacity").asDouble(), 1e-3);
      assertTrue(gpu.toString(), gpu.path("effectiveMinResource").path("memory").asLong() > 0);
      assertNotNull(work.toString(), partition(work.path("capacities"), ""));
      JsonNode usage = null;
      for (JsonNode e : work.path("resources").path("resourceUsagesByPartition")) {
        if ("gpu".equals(e.path("partitionName").asText())) {
          usage = e;
        }
      }
      assertNotNull(work.toString(), usage);
      assertTrue(usage.toString(), usage.path("amLimit").path("memory").asLong() > 0);
      JsonNode other = child(info.get(), "other");
      assertEquals(other.toString(), null, partition(other.path("capacities"), "gpu"));

      String dom = Browser.dom(base + "/cluster/scheduler");
      assertTrue(dom, dom.contains("Partition: gpu"));
      assertTrue(dom, dom.contains("id=\"partition-gpu\""));
      assertFalse(dom, dom.contains("Exception"));
    }
  }

  /** A queue's (or the root's) entry for {@code label} among its capacities; null if none. */
  private static JsonNode partition(JsonNode capacities, String label) {
    for (JsonNode e : capacities.path("queueCapacitiesByPartition")) {
      if (label.equals(e.path("partitionName").asText())) {
        return e;
      }
    }
    return null;
  }

  /** The one bean the RM's JMX servlet answers for {@code name}. */
  private static JsonNode jmxBean(String base, String name) throws Exception {
    Http.Response r = get(base + "/jmx?qry=" + java.net.URLEncoder.encode(name, "UTF-8"),
        "application/json");
    assertEquals(r.body, 200, r.code);
    JsonNode beans = new ObjectMapper().readTree(r.body).path("beans");
    assertEquals(r.body, 1, beans.size());
    return beans.get(0);
  }

  /** A child of {@code parent} in the REST view, by short name. */
  private static JsonNode child(JsonNode parent, String name) {
    for (JsonNode q : parent.path("queues").path("queue")) {
      if (name.equals(q.path("queueName").asText())) {
        return q;
      }
    }
    throw new AssertionError("no queue " + name + " under " + parent.path("queueName"));
  }

  /** Waits until the application's AM container runs (a sleeping AM never registers). */
  private static void waitUntilRunning(YarnClient yarn, ApplicationId app) throws Exception {
    Wait.until(60_000, () -> yarn.getApplicationReport(app).getApplicationResourceUsageReport()
        .getNumUsedContainers() >= 1, () -> {
          try {
            return app + " starts: " + yarn.getApplicationReport(app).getDiagnostics();
          } catch (Exception e) {
            return app + " starts: " + e;
          }
        });
  }

  private static Http.Response get(String url, String accept) throws Exception {
    return Http.get(url, accept);
  }
}
