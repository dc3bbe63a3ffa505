package org.capsched.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.cli.RMAdminCLI;
import org.apache.hadoop.yarn.client.cli.SchedConfCLI;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.webapp.util.WebAppUtils;
import org.capsched.yarn.harness.CapacitySchedulerXmlLoader;
import org.junit.Test;

/**
 * Mutable scheduler configuration (yarn.scheduler.configuration.store.class=memory) on a
 * running ResourceManager with our scheduler: the store is seeded from
 * capacity-scheduler.xml, GET and PUT on /ws/v1/cluster/scheduler-conf and
 * {@code yarn schedulerconf} change the queues live, a change the core refuses comes back
 * as 400 with the reason and changes nothing, and {@code yarn rmadmin -refreshQueues} is
 * refused as Apache refuses it.
 */
public class SchedulerConfIT {
  private static final String PREFIX = "yarn.scheduler.capacity.";

  @Test(timeout = 300_000)
  public void queuesChangeThroughTheRestApiAndSchedconf() throws Exception {
    Configuration extra = new Configuration(false);
    extra.set(YarnConfiguration.SCHEDULER_CONFIGURATION_STORE_CLASS,
        YarnConfiguration.MEMORY_CONFIGURATION_STORE);
    // The store seeds itself from the capacity-scheduler.xml on the starting thread's
    // class path: the sample one. No NodeManager: in one JVM, the last web app started
    // (a NodeManager's) would answer the RM's web services' requests too (Guice's filter
    // is static).
    Thread thread = Thread.currentThread();
    ClassLoader original = thread.getContextClassLoader();
    thread.setContextClassLoader(new CapacitySchedulerXmlLoader(original,
        MiniCluster.sampleConfiguration().toUri().toURL()));
    MiniCluster started;
    try {
      started = MiniCluster.start("schedconf", 0, MiniCluster.sampleConfiguration(), extra);
    } finally {
      thread.setContextClassLoader(original);
    }
    try (MiniCluster cluster = started; YarnClient yarn = YarnClient.createYarnClient()) {
      yarn.init(cluster.config());
      yarn.start();
      assertTrue(cluster.scheduler().isConfigurationMutable());
      String rest = WebAppUtils.getRMWebAppURLWithScheme(cluster.config())
          + "/ws/v1/cluster/scheduler-conf";
      String user = UserGroupInformation.getCurrentUser().getShortUserName();

      // The store holds the sample configuration.
      Response got = call("GET", rest, null);
      assertEquals(got.body, 200, got.status);
      assertTrue(got.body, got.body.contains(PREFIX + "root.support.capacity"));

      // A new queue, taken from support's share: applied live.
      Response put = call("PUT", rest + "?user.name=" + user, "<sched-conf>"
          + "<add-queue><queue-name>root.research</queue-name><params>"
          + entry("capacity", "5") + "</params></add-queue>"
          + "<update-queue><queue-name>root.support</queue-name><params>"
          + entry("capacity", "5") + "</params></update-queue></sched-conf>");
      assertEquals(put.body, 200, put.status);
      assertEquals(0.05f, yarn.getQueueInfo("research").getCapacity(), 1e-6f);
      assertEquals(0.05f, yarn.getQueueInfo("support").getCapacity(), 1e-6f);

      // Capacities that no longer sum to 100: refused with the core's reason, not kept.
      Response refused = call("PUT", rest + "?user.name=" + user, "<sched-conf>"
          + "<update-queue><queue-name>root.research</queue-name><params>"
          + entry("capacity", "15") + "</params></update-queue></sched-conf>");
      assertEquals(refused.body, 400, refused.status);
      assertTrue(refused.body, refused.body.contains("children's capacities sum to 110%"));
      assertEquals(0.05f, yarn.getQueueInfo("research").getCapacity(), 1e-6f);
      assertTrue(call("GET", rest, null).body.contains("<name>" + PREFIX
          + "root.research.capacity</name><value>5</value>"));

      // yarn schedulerconf, the operator's command for the same API.
      SchedConfCLI schedconf = new SchedConfCLI();
      schedconf.setConf(cluster.config());
      int code = schedconf.run(new String[] {"-update", "root.marketing:maximum-capacity=50"});
      assertEquals(0, code);
      assertEquals(0.5f, yarn.getQueueInfo("marketing").getMaximumCapacity(), 1e-6f);

      // With the configuration in a store, refreshing it from the file is refused.
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      PrintStream originalErr = System.err;
      System.setErr(new PrintStream(err, true, "UTF-8"));
      try {
        assertNotEquals(0, new RMAdminCLI(cluster.config()).run(new String[] {"-refreshQueues"}));
      } finally {
        System.setErr(originalErr);
      }
      assertTrue(err.toString("UTF-8"), err.toString("UTF-8").contains(
          "Scheduler configuration is mutable. refreshQueues is not allowed in this scenario."));
    }
  }

  private static String entry(String key, String value) {
    return "<entry><key>" + key + "</key><value>" + value + "</value></entry>";
  }

  /** An HTTP exchange's status and body. */
  private static final class Response {
    final int status;
    final String body;

    Response(int status, String body) {
      this.status = status;
      this.body = body;
    }
  }

  private static Response call(String method, String url, String xmlBody) throws Exception {
    HttpURLConnection c = (HttpURLConnection) new URL(url).openConnection();
    c.setRequestMethod(method);
    c.setRequestProperty("Accept", "application/xml");
    if (xmlBody != null) {
      c.setDoOutput(true);
      c.setRequestProperty("Content-Type", "application/xml");
      try (OutputStream out = c.getOutputStream()) {
        out.write(xmlBody.getBytes(StandardCharsets.UTF_8));
      }
    }
    int status = c.getResponseCode();
    InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream();
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    if (in != null) {
      try (InputStream stream = in) {
        byte[] buf = new byte[8192];
        int n;
        while ((n = stream.read(buf)) > 0) {
          body.write(buf, 0, n);
        }
      }
    }
    return new Response(status, body.toString("UTF-8"));
  }
}
