package org.capsched.yarn.it;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The Scheduler Load Simulator on Apache's CapacityScheduler and on ours, the same trace,
 * each run in a JVM of its own, the two alternating (which goes first changes every
 * repetition): {@code gradle :integration-tests:sls [-Preps=3] [-Ptrace=trace.json]}. The
 * report (median and min–max of the repetitions, with ours/Apache) goes to
 * build/reports/sls.md, and into BENCHMARKS.md by hand.
 *
 * <p>The simulator runs in real time: a run lasts as long as its trace (about two minutes
 * for trace.json). The timings are the simulator's own (its timers around every
 * {@code allocate()} and every scheduler event, kept whole by sls-runner.xml's window).
 */
public final class SlsComparison {
  private SlsComparison() {
  }

  public static void main(String[] args) throws Exception {
    int reps = Integer.parseInt(System.getProperty("capsched.sls.reps", "5"));
    String trace = System.getProperty("capsched.sls.trace", "trace.json");
    Path reports = Paths.get(System.getProperty("capsched.report.dir", "build/reports"));
    Path runs = reports.resolve("sls-runs");
    Map<Sls.Scheduler, List<Sls.Result>> results = new EnumMap<>(Sls.Scheduler.class);
    for (int r = 0; r < reps; r++) {
      List<Sls.Scheduler> order = new ArrayList<>(Arrays.asList(Sls.Scheduler.values()));
      if (r % 2 == 1) {
        java.util.Collections.reverse(order);
      }
      for (Sls.Scheduler s : order) {
        Sls.Result result = Sls.run(s, trace, runs, 1800);
        System.out.printf(Locale.ROOT, "repetition %d, %s: %d jobs, %.0f containers, makespan %.1f s%n",
            r + 1, s, result.jobRuntimesMs.size(), result.number("containers.allocated"),
            result.makespanMs / 1000.0);
        results.computeIfAbsent(s, k -> new ArrayList<>()).add(result);
      }
    }
    StringBuilder md = new StringBuilder();
    md.append("SLS (hadoop-sls 3.4.2), trace ").append(trace).append(", ").append(reps)
        .append(" repetitions each, alternating; median (min–max)\n\n")
        .append("| | Apache's CapacityScheduler | ours | ours/Apache |\n|---|---|---|---|\n");
    row(md, results, "jobs ended", r -> r.jobRuntimesMs.size(), "%.0f");
    row(md, results, "containers allocated", r -> r.number("containers.allocated"), "%.0f");
    row(md, results, "makespan, s", r -> r.makespanMs / 1000.0, "%.1f");
    row(md, results, "mean job runtime, s",
        r -> r.jobRuntimesMs.stream().mapToLong(Long::longValue).average().orElse(Double.NaN) / 1000, "%.2f");
    for (String timer : new String[] {"allocate", "handle.NODE_UPDATE", "handle"}) {
      String name = timer.equals("allocate") ? "allocate()"
          : timer.equals("handle") ? "every scheduler event" : "NODE_UPDATE";
      row(md, results, name + ", calls", r -> r.number(timer + ".count"), "%.0f");
      for (String stat : new String[] {"p50", "p99", "max"}) {
        row(md, results, name + ", " + stat + " µs", r -> r.number(timer + "." + stat + ".us"), "%.1f");
      }
    }
    row(md, results, "process CPU, s", r -> r.number("cpu.ms") / 1000, "%.1f");
    row(md, results, "process CPU per container, ms",
        r -> r.number("cpu.ms") / r.number("containers.allocated"), "%.2f");
    row(md, results, "GC time, ms", r -> r.number("gc.ms"), "%.0f");
    row(md, results, "peak RSS, MiB", r -> r.number("rss.peak.kb") / 1024, "%.0f");
    md.append("\nThe runs' directories (configuration, logs, the simulator's output): ")
        .append(runs.toAbsolutePath()).append('\n');
    Files.createDirectories(reports);
    Files.write(reports.resolve("sls.md"), md.toString().getBytes(StandardCharsets.UTF_8));
    System.out.print(md);
  }

  private static void row(StringBuilder md, Map<Sls.Scheduler, List<Sls.Result>> results,
      String name, ToDoubleFunction<Sls.Result> figure, String format) {
    double[] apache = figures(results.get(Sls.Scheduler.APACHE), figure);
    double[] ours = figures(results.get(Sls.Scheduler.OURS), figure);
    md.append("| ").append(name).append(" | ").append(spread(apache, format)).append(" | ")
        .append(spread(ours, format)).append(" | ")
        .append(String.format(Locale.ROOT, "%.2f", median(ours) / median(apache))).append(" |\n");
  }

  private static double[] figures(List<Sls.Result> runs, ToDoubleFunction<Sls.Result> figure) {
    return runs.stream().mapToDouble(figure).sorted().toArray();
  }

  private static double median(double[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  private static String spread(double[] sorted, String format) {
    return String.format(Locale.ROOT, format + " (" + format + "–" + format + ")",
        median(sorted), sorted[0], sorted[sorted.length - 1]);
  }
}
