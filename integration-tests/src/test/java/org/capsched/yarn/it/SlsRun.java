package org.capsched.yarn.it;

import java.io.OutputStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import com.codahale.metrics.Snapshot;
import com.codahale.metrics.Timer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.ToolRunner;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEventType;
import org.apache.hadoop.yarn.sls.SLSRunner;
import org.apache.hadoop.yarn.sls.scheduler.SchedulerMetrics;
import org.apache.hadoop.yarn.sls.scheduler.SchedulerWrapper;

/**
 * One Scheduler Load Simulator run in this JVM, as {@code slsrun.sh} starts it (the
 * scheduler named by the yarn-site.xml first on the classpath, beside sls-runner.xml and
 * capacity-scheduler.xml), with one difference: instead of exiting when the last
 * application ends, it writes what the run measured to {@code summary.properties} in the
 * output directory, then exits.
 *
 * <p>Arguments: the trace (the simulator's synthetic workload format, {@code -tracetype
 * SYNTH}: the jobs drawn from its distributions with its seed, the nodes it names), the
 * output directory, the longest the run may take in seconds.
 */
public final class SlsRun {
  private SlsRun() {
  }

  public static void main(String[] args) throws Exception {
    Path out = Paths.get(args[1]);
    long limitMs = TimeUnit.SECONDS.toMillis(Long.parseLong(args[2]));
    SLSRunner sls = new SLSRunner();
    long cpuBefore = processCpuNanos();
    long start = System.nanoTime();
    ToolRunner.run(new Configuration(), sls, new String[] {"-tracetype", "SYNTH",
        "-tracelocation", args[0], "-output", out.toString()});
    try {
      Wait.until(limitMs, () -> sls.getRemainingApps() == 0,
          () -> "every application ended (" + sls.getRemainingApps() + " left)");
    } catch (AssertionError timedOut) {
      // Written to the summary as remaining.apps, which the caller checks.
    }
    long wallNanos = System.nanoTime() - start;
    Properties summary = new Properties();
    summary.setProperty("remaining.apps", Integer.toString(sls.getRemainingApps()));
    summary.setProperty("wall.ms", Long.toString(wallNanos / 1_000_000));
    summary.setProperty("cpu.ms", Long.toString((processCpuNanos() - cpuBefore) / 1_000_000));
    long gcMs = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      gcMs += Math.max(0, gc.getCollectionTime());
    }
    summary.setProperty("gc.ms", Long.toString(gcMs));
    summary.setProperty("rss.peak.kb", Long.toString(peakRssKb()));
    ResourceManager rm = resourceManager(sls);
    QueueMetrics root = rm.getResourceScheduler().getRootQueueMetrics();
    summary.setProperty("containers.allocated", Long.toString(root.getAggregateAllocatedContainers()));
    summary.setProperty("scheduler", rm.getResourceScheduler().getClass().getName());
    SchedulerMetrics metrics = ((SchedulerWrapper) rm.getResourceScheduler()).getSchedulerMetrics();
    timer(summary, "allocate", (Timer) call(metrics, "getSchedulerAllocateTimer"));
    timer(summary, "handle", (Timer) call(metrics, "getSchedulerHandleTimer"));
    for (SchedulerEventType type : SchedulerEventType.values()) {
      timer(summary, "handle." + type, (Timer) call(metrics, "getSchedulerHandleTimer", type));
    }
    try (OutputStream o = Files.newOutputStream(out.resolve("summary.properties"))) {
      summary.store(o, "SlsRun");
    }
    System.exit(0);
  }

  /** A timer's count and its samples' mean, median, 99th percentile and maximum, in µs. */
  private static void timer(Properties summary, String name, Timer timer) {
    if (timer == null || timer.getCount() == 0) {
      return;
    }
    Snapshot s = timer.getSnapshot();
    summary.setProperty(name + ".count", Long.toString(timer.getCount()));
    summary.setProperty(name + ".mean.us", micros(s.getMean()));
    summary.setProperty(name + ".p50.us", micros(s.getMedian()));
    summary.setProperty(name + ".p99.us", micros(s.get99thPercentile()));
    summary.setProperty(name + ".max.us", micros(s.getMax()));
  }

  private static String micros(double nanos) {
    return String.format(java.util.Locale.ROOT, "%.1f", nanos / 1000);
  }

  /** The simulator keeps its RM and its timers to itself; they are read, not changed. */
  private static ResourceManager resourceManager(SLSRunner sls) throws Exception {
    Field runner = SLSRunner.class.getDeclaredField("rmRunner");
    runner.setAccessible(true);
    Object rmRunner = runner.get(sls);
    return (ResourceManager) rmRunner.getClass().getMethod("getRm").invoke(rmRunner);
  }

  private static Object call(Object target, String name, Object... args) throws Exception {
    Class<?>[] types = new Class<?>[args.length];
    for (int i = 0; i < args.length; i++) {
      types[i] = args[i].getClass();
    }
    Method m = SchedulerMetrics.class.getDeclaredMethod(name, types);
    m.setAccessible(true);
    return m.invoke(target, args);
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** The process's peak resident set (VmHWM), in kB; 0 where /proc does not say. */
  private static long peakRssKb() throws Exception {
    Path status = Paths.get("/proc/self/status");
    if (!Files.exists(status)) {
      return 0;
    }
    List<String> lines = Files.readAllLines(status);
    for (String line : lines) {
      if (line.startsWith("VmHWM:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return 0;
  }
}
