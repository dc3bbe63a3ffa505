package org.capsched.yarn;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;

import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.slf4j.event.Level;

/**
 * Memory over a long life: application lifecycles (submitted, attempt started, two
 * containers asked for and placed by a node heartbeat, attempt and application ended)
 * through a real RM's scheduler, ours and then Apache's in the same JVM, with a window of
 * applications alive at once. Every tenth of the run it measures the Java heap after
 * collection, the core's native heap (its counting allocator) and the process's resident
 * set, and at the end each one's growth per 100,000 lifecycles after the first tenth
 * (which holds the warm-up). Anything that grows with the count of lifecycles is a leak.
 *
 * <p>{@code gradle :java-shim:memorySoak [-Plifecycles=1000000]}; the report goes to
 * build/reports/memory-soak.md, and into BENCHMARKS.md by hand.
 */
public final class MemorySoak {
  /** Applications alive at once. */
  private static final int WINDOW = 64;

  private MemorySoak() {
  }

  /** One measurement. */
  private static final class Point {
    final long lifecycles;
    final double heapMib;
    final double nativeMib;
    final double rssMib;
    final double seconds;
    final long containers;

    Point(long lifecycles, double heapMib, double nativeMib, double rssMib, double seconds,
        long containers) {
      this.lifecycles = lifecycles;
      this.heapMib = heapMib;
      this.nativeMib = nativeMib;
      this.rssMib = rssMib;
      this.seconds = seconds;
      this.containers = containers;
    }
  }

  public static void main(String[] args) throws Exception {
    GenericTestUtils.setRootLogLevel(Level.WARN);
    long lifecycles = Long.getLong("capsched.soak.lifecycles", 1_000_000L);
    StringBuilder report = new StringBuilder();
    report.append(String.format(Locale.ROOT, "# Memory over %,d application lifecycles%n%n",
        lifecycles));
    report.append(String.format(Locale.ROOT, "%s; JVM %s, heap %d MiB; %d applications alive "
        + "at once, each asking for two 1 GB containers, on 4 nodes of 32 GB in 8 leaves.%n%n",
        System.getProperty("os.name") + " " + System.getProperty("os.arch"),
        System.getProperty("java.version"), Runtime.getRuntime().maxMemory() >> 20, WINDOW));
    for (Class<? extends ResourceScheduler> type : List.of(RustCapacityScheduler.class,
        CapacityScheduler.class)) {
      List<Point> points = soak(type, lifecycles);
      report.append(table(type.getSimpleName(), points));
      System.out.print(table(type.getSimpleName(), points));
      System.out.flush();
    }
    Path out = Paths.get(System.getProperty("capsched.report.dir", "build/reports"),
        "memory-soak.md");
    Files.createDirectories(out.getParent());
    Files.write(out, report.toString().getBytes(StandardCharsets.UTF_8));
    System.out.println("report: " + out);
  }

  private static List<Point> soak(Class<? extends ResourceScheduler> type, long lifecycles)
      throws Exception {
    SideBySideBenchmark.Shape shape = new SideBySideBenchmark.Shape(4, 2, 4, 0, 32);
    List<Point> points = new ArrayList<>();
    long step = Math.max(1, lifecycles / 10);
    try (SideBySideBenchmark.Cluster c = new SideBySideBenchmark.Cluster(type,
        SideBySideBenchmark.config(shape,
        "org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator", 0, 0), shape)) {
      Deque<ApplicationAttemptId> alive = new ArrayDeque<>();
      long start = System.nanoTime();
      points.add(measure(c, 0, start));
      for (long i = 0; i < lifecycles; i++) {
        int leaf = (int) (i % shape.queues());
        String queue = "root.p" + (leaf / shape.leavesPerParent) + ".l"
            + (leaf % shape.leavesPerParent);
        // Application ids run past the int range of their sequence number: wrap it.
        ApplicationAttemptId a = c.addApp((int) (i % 1_000_000_000L), queue, "u" + (i % 10));
        c.ask(a, 2);
        c.heartbeat(c.nodes.get((int) (i % c.nodes.size())));
        alive.addLast(a);
        if (alive.size() > WINDOW) {
          c.removeApp(alive.removeFirst());
        }
        if ((i + 1) % step == 0) {
          points.add(measure(c, i + 1, start));
        }
      }
    }
    return points;
  }

  private static Point measure(SideBySideBenchmark.Cluster c, long lifecycles, long start)
      throws Exception {
    c.rm.drainEvents();
    double seconds = (System.nanoTime() - start) / 1e9;
    double heap = SideBySideBenchmark.usedHeapAfterGc() / 1048576.0;
    double nativeMib = NativeScheduler.nativeHeapBytes() / 1048576.0;
    long containers = c.scheduler.getRootQueueMetrics().getAggregateAllocatedContainers();
    return new Point(lifecycles, heap, nativeMib, rssMib(), seconds, containers);
  }

  /** The process's resident set (VmRSS), MiB. */
  private static double rssMib() throws IOException {
    for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
      }
    }
    return Double.NaN;
  }

  private static String table(String scheduler, List<Point> points) {
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "## %s%n%n"
        + "| lifecycles | containers placed | seconds | Java heap after GC (MiB) "
        + "| native heap (MiB) | RSS (MiB) |%n|---:|---:|---:|---:|---:|---:|%n", scheduler));
    for (Point p : points) {
      b.append(String.format(Locale.ROOT, "| %,d | %,d | %.1f | %.1f | %.2f | %.0f |%n",
          p.lifecycles, p.containers, p.seconds, p.heapMib, p.nativeMib, p.rssMib));
    }
    // Growth per 100,000 lifecycles, from the end of the first tenth to the end.
    Point from = points.get(Math.min(1, points.size() - 1));
    Point to = points.get(points.size() - 1);
    double per = to.lifecycles == from.lifecycles ? 0
        : 100_000.0 / (to.lifecycles - from.lifecycles);
    b.append(String.format(Locale.ROOT, "%nGrowth per 100,000 lifecycles after the first tenth:"
        + " Java heap %+.2f MiB, native heap %+.3f MiB, RSS %+.1f MiB; %,.0f lifecycles/s.%n%n",
        (to.heapMib - from.heapMib) * per, (to.nativeMib - from.nativeMib) * per,
        (to.rssMib - from.rssMib) * per, to.lifecycles / Math.max(1e-9, to.seconds)));
    return b.toString();
  }
}
