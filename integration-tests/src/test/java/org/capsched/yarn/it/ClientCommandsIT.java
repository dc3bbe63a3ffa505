package org.capsched.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.security.PrivilegedExceptionAction;
import java.util.Collections;
import java.util.concurrent.Callable;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.cli.ApplicationCLI;
import org.apache.hadoop.yarn.client.cli.QueueCLI;
import org.apache.hadoop.yarn.client.cli.YarnCLI;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.capsched.yarn.ConsistencyCheck;
import org.junit.Test;

/**
 * What a user sees from the stock command-line clients against a real ResourceManager
 * running our scheduler with real NodeManagers: {@code yarn queue -status},
 * {@code mapred queue -list / -showacls}, {@code yarn application -status} of a rejected
 * submission, {@code -movetoqueue} (allowed and refused), {@code -updatePriority}, a
 * submission placed by a mapping rule, one that creates its queue, and one a mapping rule
 * places in a leaf a managed parent creates for it.
 */
public class ClientCommandsIT {

  @Test(timeout = 300_000)
  public void stockClientsWorkThroughOurScheduler() throws Exception {
    Configuration extra = new Configuration(false);
    extra.setInt(YarnConfiguration.MAX_CLUSTER_LEVEL_APPLICATION_PRIORITY, 5);
    // A placement rule for whoever runs the test: submissions naming no queue go to qa.
    String me = UserGroupInformation.getCurrentUser().getShortUserName();
    // ... and analyst's go to a leaf of their own under support, a managed parent that
    // creates it from its template (legacy auto-creation).
    extra.set("yarn.scheduler.capacity.queue-mappings",
        "u:" + me + ":qa,u:analyst:root.support.analyst");
    extra.set("yarn.scheduler.capacity.root.support.auto-create-child-queue.enabled", "true");
    extra.set("yarn.scheduler.capacity.root.support.leaf-queue-template.capacity", "50");
    extra.set("yarn.scheduler.capacity.root.support.leaf-queue-template.maximum-capacity", "80");
    // marketing creates the queues submissions name under it (one configured, by weight).
    extra.set("yarn.scheduler.capacity.root.marketing.queues", "campaigns");
    extra.set("yarn.scheduler.capacity.root.marketing.campaigns.capacity", "1w");
    extra.set("yarn.scheduler.capacity.root.marketing.auto-queue-creation-v2.enabled", "true");
    try (MiniCluster cluster = MiniCluster.start("clients", 1, MiniCluster.sampleConfiguration(),
        extra);
        YarnClient yarn = YarnClient.createYarnClient()) {
      Configuration conf = cluster.config();
      yarn.init(conf);
      yarn.start();

      // yarn queue -status development
      Output status = run(new QueueCLI(), conf, "-status", "development");
      assertEquals(status.err, 0, status.code);
      assertTrue(status.out, status.out.contains("Queue Path : root.engineering.development"));
      assertTrue(status.out, status.out.contains("State : RUNNING"));
      assertTrue(status.out, status.out.contains("Capacity : 20.00%"));
      assertTrue(status.out, status.out.contains("Maximum Capacity : 40.00%"));

      // mapred queue -list and -showacls
      Output list = runMapred(conf, "-list");
      assertEquals(list.err, 0, list.code);
      assertTrue(list.out, list.out.contains("Queue Name : development"));
      assertTrue(list.out, list.out.contains("Scheduling Info : Capacity: 20.0, MaximumCapacity: 40.0"));
      Output acls = runMapred(conf, "-showacls");
      assertEquals(acls.err, 0, acls.code);
      assertTrue(acls.out, acls.out.contains("root.engineering.qa  ADMINISTER_QUEUE,SUBMIT_APPLICATIONS"));

      // A submission to a queue that does not exist: yarn application -status says why.
      // The submitting client is told at once ...
      ApplicationId rejected = null;
      try {
        submit(yarn, "nowhere", 0);
      } catch (org.apache.hadoop.yarn.exceptions.YarnException e) {
        assertTrue(e.getMessage(), e.getMessage().contains("to unknown queue: nowhere"));
        rejected = yarn.getApplications(Collections.singleton("sleeper")).get(0).getApplicationId();
      }
      assertNotNull("the submission to an unknown queue was accepted", rejected);
      // ... and yarn application -status says the same later.
      waitForState(yarn, rejected, YarnApplicationState.FAILED);
      Output why = run(new ApplicationCLI(), conf, "application", "-status", rejected.toString());
      assertTrue(why.out + why.err, why.out.contains("submitted by user"));
      assertTrue(why.out, why.out.contains("to unknown queue: nowhere"));

      // An application waiting in development (its AM just sleeps, never registering).
      ApplicationId app = submit(yarn, "development", 1);
      waitForState(yarn, app, YarnApplicationState.ACCEPTED);
      waitUntil("its AM container is placed", () -> cluster.scheduler()
          .getQueueSnapshots().stream().anyMatch(q -> q.getPath().equals("root.engineering.development")
              && q.getUsedMemoryMb() > 0));

      // yarn application -movetoqueue: into a parent is refused with the reason ...
      Output refused = run(new ApplicationCLI(), conf, "application", "-movetoqueue", app.toString(),
          "-queue", "engineering");
      assertNotEquals(0, refused.code);
      assertTrue(refused.out + refused.err,
          (refused.out + refused.err).contains("The specified Queue: root.engineering is not a Leaf Queue."));
      // ... into a leaf it happens, and the queue's usage follows.
      Output moved = run(new ApplicationCLI(), conf, "application", "-movetoqueue", app.toString(),
          "-queue", "qa");
      assertEquals(moved.out + moved.err, 0, moved.code);
      assertEquals("root.engineering.qa", yarn.getApplicationReport(app).getQueue());
      assertTrue(yarn.getQueueInfo("qa").getCurrentCapacity() > 0);
      assertEquals(0f, yarn.getQueueInfo("development").getCurrentCapacity(), 0f);

      // yarn application -updatePriority, capped at the cluster's maximum (5).
      Output priority = run(new ApplicationCLI(), conf, "application", "-appId", app.toString(),
          "-updatePriority", "3");
      assertEquals(priority.out + priority.err, 0, priority.code);
      assertEquals(Priority.newInstance(3), yarn.getApplicationReport(app).getPriority());
      run(new ApplicationCLI(), conf, "application", "-appId", app.toString(), "-updatePriority", "9");
      assertEquals(Priority.newInstance(5), yarn.getApplicationReport(app).getPriority());

      // A submission naming no queue is placed by the mapping: the client, the RM's report
      // and yarn application -status all show the placed queue.
      ApplicationId placed = submit(yarn, "default", 0);
      waitForState(yarn, placed, YarnApplicationState.ACCEPTED);
      assertEquals("root.engineering.qa", yarn.getApplicationReport(placed).getQueue());
      Output placedStatus = run(new ApplicationCLI(), conf, "application", "-status", placed.toString());
      assertTrue(placedStatus.out, placedStatus.out.contains("Queue : root.engineering.qa"));
      yarn.killApplication(placed);

      // A submission naming a queue that does not exist yet under marketing creates it: the
      // RM's report, yarn queue -status and mapred queue -list all show it.
      ApplicationId created = submit(yarn, "root.marketing.adhoc", 0);
      waitForState(yarn, created, YarnApplicationState.ACCEPTED);
      assertEquals("root.marketing.adhoc", yarn.getApplicationReport(created).getQueue());
      Output createdStatus = run(new QueueCLI(), conf, "-status", "root.marketing.adhoc");
      assertEquals(createdStatus.err, 0, createdStatus.code);
      assertTrue(createdStatus.out, createdStatus.out.contains("Queue Path : root.marketing.adhoc"));
      // A created queue weighs 1, as Apache's do (a weight's share shows as capacity 0).
      assertTrue(createdStatus.out, createdStatus.out.contains("Weight : 1.00"));
      assertTrue(runMapred(conf, "-list").out.contains("Queue Name : adhoc"));
      yarn.killApplication(created);

      // analyst's submission naming no queue: the rule creates root.support.analyst, which
      // holds the template's half of support.
      ApplicationId managed = UserGroupInformation.createRemoteUser("analyst").doAs(
          (PrivilegedExceptionAction<ApplicationId>) () -> {
            try (YarnClient asAnalyst = YarnClient.createYarnClient()) {
              asAnalyst.init(conf);
              asAnalyst.start();
              return submit(asAnalyst, "default", 0);
            }
          });
      waitForState(yarn, managed, YarnApplicationState.ACCEPTED);
      assertEquals("root.support.analyst", yarn.getApplicationReport(managed).getQueue());
      Output managedStatus = run(new QueueCLI(), conf, "-status", "root.support.analyst");
      assertEquals(managedStatus.err, 0, managedStatus.code);
      assertTrue(managedStatus.out, managedStatus.out.contains("Capacity : 50.00%"));
      assertTrue(managedStatus.out, managedStatus.out.contains("Maximum Capacity : 80.00%"));
      yarn.killApplication(managed);

      assertTrue(ConsistencyCheck.of(cluster.scheduler()).isEmpty());
      yarn.killApplication(app);
    }
  }

  /** Submits an application whose AM container only sleeps. */
  private static ApplicationId submit(YarnClient yarn, String queue, int priority)
      throws Exception {
    return Sleeper.submit(yarn, queue, priority, 300);
  }

  private static void waitForState(YarnClient yarn, ApplicationId app,
      YarnApplicationState state) throws Exception {
    waitUntil(app + " is " + state, () -> {
      try {
        return yarn.getApplicationReport(app).getYarnApplicationState() == state;
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
  }

  private static void waitUntil(String what, java.util.function.BooleanSupplier condition)
      throws Exception {
    Wait.until(60_000, condition::getAsBoolean, () -> what);
  }

  /** A command's exit code and what it printed. */
  private static final class Output {
    int code;
    String out;
    String err;
  }

  /**
   * Runs a yarn CLI class as the yarn script does ({@code yarn application ...} passes
   * "application" as the first argument).
   */
  private static Output run(YarnCLI cli, Configuration conf, String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    cli.setSysOutPrintStream(new PrintStream(out, true, "UTF-8"));
    cli.setSysErrPrintStream(new PrintStream(err, true, "UTF-8"));
    return capture(cli, conf, out, err, () -> {
      try {
        return cli.run(args);
      } catch (Exception e) {
        // The stock clients let RM errors escape run(); the yarn script prints them.
        e.printStackTrace(new PrintStream(err, true, "UTF-8"));
        return -1;
      } finally {
        cli.stop();
      }
    });
  }

  /** {@code mapred queue ARGS}: JobQueueClient prints to the process's standard output. */
  private static Output runMapred(Configuration conf, String... args) throws Exception {
    JobConf job = new JobConf(conf);
    job.set(MRConfig.FRAMEWORK_NAME, MRConfig.YARN_FRAMEWORK_NAME);
    // The class the mapred script runs; package-private, so made through reflection.
    java.lang.reflect.Constructor<?> make = Class.forName("org.apache.hadoop.mapred.JobQueueClient")
        .getDeclaredConstructor(JobConf.class);
    make.setAccessible(true);
    Tool client = (Tool) make.newInstance(job);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream original = System.out;
    System.setOut(new PrintStream(out, true, "UTF-8"));
    try {
      return capture(client, job, out, err, () -> client.run(args));
    } finally {
      System.setOut(original);
    }
  }

  private static Output capture(Tool tool, Configuration conf, ByteArrayOutputStream out,
      ByteArrayOutputStream err, Callable<Integer> command) throws Exception {
    tool.setConf(conf);
    Output o = new Output();
    o.code = command.call();
    o.out = out.toString("UTF-8");
    o.err = err.toString("UTF-8");
    return o;
  }
}
