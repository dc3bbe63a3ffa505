package org.capsched.yarn.it;

import java.io.File;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity.ProportionalCapacityPreemptionPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;

/**
 * Apache's Scheduler Load Simulator (hadoop-sls 3.4.2) run on a trace, in a JVM of its own
 * ({@link SlsRun}), with Apache's CapacityScheduler or with ours through
 * {@code org.capsched.yarn.sls.SlsRustCapacityScheduler}: each run gets a configuration
 * directory as an operator's SLS installation has one (sls-runner.xml, yarn-site.xml,
 * capacity-scheduler.xml from integration-tests/sls, the ports chosen free).
 */
final class Sls {
  /** The schedulers, as yarn-site.xml names them. */
  enum Scheduler {
    // The simulator swaps in its own wrapper of Apache's scheduler, and turns its
    // preemption monitor on; ours runs its own preemption by the same keys.
    APACHE(CapacityScheduler.class.getName()),
    OURS("org.capsched.yarn.sls.SlsRustCapacityScheduler");

    final String className;

    Scheduler(String className) {
      this.className = className;
    }
  }

  /** What one run measured (see SlsRun) and the jobs' runtimes the simulator wrote. */
  static final class Result {
    final Properties summary;
    /** Each finished job's runtime, wall clock, ms. */
    final List<Long> jobRuntimesMs;
    /** From the first job's start to the last job's end, wall clock, ms. */
    final long makespanMs;
    final Path dir;

    Result(Properties summary, List<Long> jobRuntimesMs, long makespanMs, Path dir) {
      this.summary = summary;
      this.jobRuntimesMs = jobRuntimesMs;
      this.makespanMs = makespanMs;
      this.dir = dir;
    }

    double number(String key) {
      String v = summary.getProperty(key);
      return v == null ? Double.NaN : Double.parseDouble(v);
    }
  }

  private Sls() {
  }

  /** integration-tests/sls, where the traces and the configuration files are. */
  static Path inputs() {
    return Paths.get(System.getProperty("capsched.sls.dir", "sls")).toAbsolutePath();
  }

  /**
   * Runs the simulator on {@code trace} (in integration-tests/sls) with {@code scheduler}, in a new
   * directory under {@code parent}; fails if it does not end within {@code limitSeconds}.
   */
  static Result run(Scheduler scheduler, String trace, Path parent, int limitSeconds)
      throws Exception {
    Path dir = Files.createDirectories(parent).resolve(
        scheduler.name().toLowerCase(java.util.Locale.ROOT) + "-" + System.nanoTime());
    Path conf = Files.createDirectories(dir.resolve("conf"));
    Path out = Files.createDirectories(dir.resolve("output"));
    Files.copy(inputs().resolve("capacity-scheduler.xml"), conf.resolve("capacity-scheduler.xml"));
    Configuration runner = new Configuration(false);
    runner.addResource(new org.apache.hadoop.fs.Path(inputs().resolve("sls-runner.xml").toUri()));
    String[] rmAddresses = {YarnConfiguration.RM_ADDRESS, YarnConfiguration.RM_SCHEDULER_ADDRESS,
        YarnConfiguration.RM_RESOURCE_TRACKER_ADDRESS, YarnConfiguration.RM_ADMIN_ADDRESS,
        YarnConfiguration.RM_WEBAPP_ADDRESS};
    // The simulator's metrics page and the RM's addresses.
    java.util.Iterator<Integer> ports = Ports.free(1 + rmAddresses.length).iterator();
    runner.setInt("yarn.sls.metrics.web.address.port", ports.next());
    // The simulator's runner (3.4.2) reads the scheduler class from its own configuration,
    // sls-runner.xml and no yarn-site.xml, before the RM it starts reads yarn-site.xml: the
    // class goes in both.
    runner.set(YarnConfiguration.RM_SCHEDULER, scheduler.className);
    ProcessCluster.write(runner, conf.resolve("sls-runner.xml"));
    Configuration site = new Configuration(false);
    site.set(YarnConfiguration.RM_SCHEDULER, scheduler.className);
    // Preemption on for both: the simulator turns Apache's on by itself.
    site.setBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS, true);
    site.set(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES,
        ProportionalCapacityPreemptionPolicy.class.getName());
    for (String key : rmAddresses) {
      site.set(key, "localhost:" + ports.next());
    }
    site.setBoolean("hadoop.security.token.service.use_ip", false);
    ProcessCluster.write(site, conf.resolve("yarn-site.xml"));
    ProcessCluster.writeLog4j(conf, dir.resolve("rm.log"));

    List<String> cmd = new ArrayList<>();
    cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(Arrays.asList(System.getProperty("capsched.jdk.opens", "").trim().split("\\s+")));
    cmd.add("-Xmx2g");
    cmd.add("-Djava.library.path=" + System.getProperty("java.library.path", ""));
    cmd.add("-cp");
    cmd.add(conf + File.pathSeparator + System.getProperty("capsched.cluster.classpath"));
    cmd.add(SlsRun.class.getName());
    cmd.add(inputs().resolve(trace).toString());
    cmd.add(out.toString());
    cmd.add(Integer.toString(limitSeconds));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(dir.resolve("console.log").toFile()).start();
    if (!p.waitFor(limitSeconds + 120L, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("the simulator did not end within " + limitSeconds
          + " s; its logs are in " + dir);
    }
    Path summaryFile = out.resolve("summary.properties");
    if (!Files.exists(summaryFile)) {
      throw new AssertionError("the simulator exited (" + p.exitValue()
          + ") without a summary; its logs are in " + dir);
    }
    Properties summary = new Properties();
    try (InputStream in = Files.newInputStream(summaryFile)) {
      summary.load(in);
    }
    List<Long> runtimes = new ArrayList<>();
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    // JobID,real_start_time,real_end_time,simulate_start_time,simulate_end_time: the first
    // pair is the trace's times, the second what happened (the wall clock).
    for (String line : Files.readAllLines(out.resolve("jobruntime.csv"))) {
      String[] f = line.split(",");
      if (f.length < 5 || !f[3].matches("\\d+")) {
        continue;
      }
      long started = Long.parseLong(f[3]);
      long ended = Long.parseLong(f[4]);
      runtimes.add(ended - started);
      first = Math.min(first, started);
      last = Math.max(last, ended);
    }
    return new Result(summary, runtimes, runtimes.isEmpty() ? 0 : last - first, dir);
  }
}
