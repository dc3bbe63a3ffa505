package org.capsched.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.Test;

/**
 * The Rust core logs through the ResourceManager's own logging: its records land in the
 * RM's log4j file with the RM's layout, under loggers named after the core's modules, none
 * on the process's standard output or error; and {@code yarn daemonlog -setlevel}
 * (the RM's /logLevel servlet) turns the core's DEBUG records on while the RM runs. The RM's
 * own line for each container placed ("Assigned container …", which Apache's
 * capacity-scheduler node writes) is in the log as Apache's scheduler writes it, under the
 * same logger, and goes when an operator turns that logger below INFO.
 */
public class RmLoggingIT {
  /** Apache's capacity-scheduler node's line for a container placed, in the RM's layout. */
  private static final Pattern ASSIGNED = Pattern.compile(" INFO org\\.apache\\.hadoop\\.yarn"
      + "\\.server\\.resourcemanager\\.scheduler\\.common\\.fica\\.FiCaSchedulerNode: Assigned"
      + " container container_\\S+ of capacity <memory:\\d+, vCores:\\d+> on host \\S+, which has"
      + " \\d+ containers, <memory:\\d+, vCores:\\d+> used and <memory:\\d+, vCores:\\d+>"
      + " available after allocation\n");

  @Test(timeout = 300_000)
  public void coreRecordsGoToTheRmLogAndFollowDaemonlog() throws Exception {
    try (ProcessCluster cluster = ProcessCluster.start("logging", 1, MiniCluster.sampleConfiguration());
        YarnClient yarn = YarnClient.createYarnClient()) {
      // INFO from the core at startup: the node it was told of, in log4j's layout.
      String log = waitForLine(cluster.rmLog4jFile(), " INFO org.capsched.core.scheduler.nodes: added node ");
      assertFalse(log, log.contains("DEBUG org.capsched.core"));

      // yarn daemonlog -setlevel RM org.capsched.core DEBUG
      Http.Response set = Http.get(cluster.webUrl() + "/logLevel?log=org.capsched.core&level=DEBUG",
          "text/html");
      assertEquals(set.body, 200, set.code);
      yarn.init(new YarnConfiguration(cluster.clientConf));
      yarn.start();
      // An AM container's allocation, a DEBUG record of the heartbeat. The core reads its
      // loggers' levels again within a second (NativeLog), so an allocation made before that
      // read is still logged at the old level: another sleeper is submitted every few
      // seconds until one is logged. Each sleeps briefly: the leaf's AM limit admits one AM
      // at a time, and a long sleeper would hold the next one back past the deadline.
      String allocated = " DEBUG org.capsched.core.scheduler.heartbeat: allocated ";
      Path rmLog = cluster.rmLog4jFile();
      long[] lastSubmitted = {0};
      Wait.until(60_000, () -> {
        if (Files.exists(rmLog)
            && new String(Files.readAllBytes(rmLog), StandardCharsets.UTF_8).contains(allocated)) {
          return true;
        }
        if (System.currentTimeMillis() - lastSubmitted[0] > 5_000) {
          Sleeper.submit(yarn, "development", 0, 2);
          lastSubmitted[0] = System.currentTimeMillis();
        }
        return false;
      }, () -> "a line with '" + allocated + "' is in " + rmLog);

      // The node's line for the container placed, written just after the core's record.
      Wait.until(10_000, () -> count(ASSIGNED, read(rmLog)) > 0,
          () -> "a line matching '" + ASSIGNED + "' is in " + rmLog);

      // yarn daemonlog -setlevel RM ...FiCaSchedulerNode WARN: the next placements write none.
      set = Http.get(cluster.webUrl() + "/logLevel?log=org.apache.hadoop.yarn.server"
          + ".resourcemanager.scheduler.common.fica.FiCaSchedulerNode&level=WARN", "text/html");
      assertEquals(set.body, 200, set.code);
      // An application submitted after that: its AM container, once the attempt holds it
      // (after the node booked it), has no line.
      ApplicationId quiet = Sleeper.submit(yarn, "development", 0, 2);
      ContainerId[] am = {null};
      Wait.until(60_000, () -> {
        ApplicationAttemptId attempt = yarn.getApplicationReport(quiet)
            .getCurrentApplicationAttemptId();
        am[0] = attempt == null ? null
            : yarn.getApplicationAttemptReport(attempt).getAMContainerId();
        return am[0] != null;
      }, () -> quiet + "'s attempt holds its AM container");
      String after = read(rmLog);
      assertFalse(after, after.contains("FiCaSchedulerNode: Assigned container " + am[0] + " "));

      String console = new String(Files.readAllBytes(cluster.rmConsoleFile()), StandardCharsets.UTF_8);
      assertFalse(console, console.contains("capsched::"));
      assertFalse(console, console.contains("org.capsched.core"));
    }
  }

  private static String read(Path file) throws Exception {
    return Files.exists(file) ? new String(Files.readAllBytes(file), StandardCharsets.UTF_8) : "";
  }

  private static int count(Pattern pattern, String text) {
    int n = 0;
    for (Matcher m = pattern.matcher(text); m.find();) {
      n++;
    }
    return n;
  }

  /** Waits up to a minute for {@code file} to contain {@code text}; returns the file. */
  private static String waitForLine(Path file, String text) throws Exception {
    String[] content = {""};
    Wait.until(60_000, () -> {
      if (Files.exists(file)) {
        content[0] = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
      }
      return content[0].contains(text);
    }, () -> "a line with '" + text + "' is in " + file + ":\n" + tail(content[0]));
    return content[0];
  }

  private static String tail(String content) {
    return content.length() > 4000 ? content.substring(content.length() - 4000) : content;
  }
}
