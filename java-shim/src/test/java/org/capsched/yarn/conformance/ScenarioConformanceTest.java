package org.capsched.yarn.conformance;

import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.capsched.yarn.RustCapacityScheduler;
import org.capsched.yarn.harness.ScenarioDriver;
import org.capsched.yarn.harness.ScenarioFile;
import org.capsched.yarn.harness.ScenarioFile.ScenarioLine;
import org.junit.AfterClass;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;
import org.junit.runners.Parameterized.Parameters;

/**
 * Side by side: every scenario in integration-tests/scenarios runs through a real RM with
 * Apache's CapacityScheduler and again with ours; after every step the RM's own objects
 * must agree (queue and user metrics, each queue's state, capacities, limits and users as
 * the schedulers report them, containers per application, reservations, application
 * states, headroom, refresh outcomes). A divergence fails the scenario, naming every
 * differing step. With
 * ours, the Rust core's own containers and usage must also equal the RM's objects after
 * every step (the consistency check).
 */
@RunWith(Parameterized.class)
public class ScenarioConformanceTest {
  private static final List<String> REPORT = new ArrayList<>();

  @Parameters(name = "{0}")
  public static Collection<Object[]> scenarios() {
    File dir = new File(System.getProperty("capsched.scenario.dir", "../integration-tests/scenarios"));
    File[] files = dir.listFiles((d, n) -> n.endsWith(".scn"));
    assertTrue("no scenarios in " + dir.getAbsolutePath(), files != null && files.length > 0);
    Arrays.sort(files);
    List<Object[]> out = new ArrayList<>();
    for (File f : files) {
      out.add(new Object[] {f.getName(), f.toPath()});
    }
    return out;
  }

  private final String name;
  private final Path file;

  public ScenarioConformanceTest(String name, Path file) {
    this.name = name;
    this.file = file;
  }

  @Test(timeout = 300_000)
  public void oursAgreesWithApacheAfterEveryStep() throws Exception {
    String divergence = compare(name, ScenarioFile.read(file), REPORT);
    if (divergence != null) {
      throw new AssertionError(divergence);
    }
  }

  /**
   * Runs {@code lines} with Apache's scheduler and with ours, both to the end; returns every
   * differing step (null when they agree throughout, or part first where divergences.txt
   * says why — the states have parted by then, so later steps are not compared), and notes
   * the outcome in {@code report}.
   */
  static String compare(String name, List<ScenarioLine> lines, List<String> report)
      throws Exception {
    return compare(name, lines, report, 1);
  }

  /**
   * The same, comparing the REST scheduler view after every {@code restEvery}-th step only
   * (building and writing both documents costs more than the rest of a step; the random
   * seeds' runs take every fifth).
   */
  static String compare(String name, List<ScenarioLine> lines, List<String> report, int restEvery)
      throws Exception {
    List<Map<String, String>> apache = run(CapacityScheduler.class, lines, report, restEvery);
    List<Map<String, String>> ours = run(RustCapacityScheduler.class, lines, report, restEvery);
    dumpFacts(name, "apache", lines, apache);
    dumpFacts(name, "ours", lines, ours);
    for (String outcome : outcomes(apache)) {
      report.add("  outcome: " + name + ": " + outcome);
    }
    List<String> steps = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      List<String> diff = diff(apache.get(i), ours.get(i));
      String expected = apache.get(i).get("expect");
      if (expected != null && expected.equals(ours.get(i).get("expect")) && !"holds".equals(expected)) {
        // An expect line both RMs answer alike, against the line: the line states what the
        // core's scenario runner, which models the RM, makes of the step; a real RM can
        // differ (containers the driver never launches on their NodeManagers do not
        // survive an AM's failure there, say). Both schedulers agreeing is what this
        // comparison asks; the note shows where the runner's model and the RM part.
        report.add("  note: " + name + " line " + lines.get(i).number + " (" + lines.get(i).text
            + ") " + expected + " with both schedulers");
      }
      if (diff.isEmpty()) {
        continue;
      }
      String where = "after line " + lines.get(i).number + " (" + lines.get(i).text + ")";
      if (steps.isEmpty()) {
        String known = KnownDivergences.load().explain(apache.get(i), ours.get(i));
        if (known != null) {
          report.add(name + " diverges " + where + " as listed in divergences.txt, " + known + "\n  "
              + String.join("\n  ", diff));
          return null;
        }
      }
      steps.add(where + ":\n  " + String.join("\n  ", diff));
    }
    if (steps.isEmpty()) {
      report.add(name + ": agrees after all " + lines.size() + " steps");
      return null;
    }
    String message = name + " diverges at " + steps.size() + " of " + lines.size() + " steps, first "
        + String.join("\n" + name + " diverges ", steps);
    report.add(message);
    return message;
  }

  /**
   * With {@code -PfactsDir=DIR} (system property {@code capsched.facts.dir}), writes every
   * fact of every step one scheduler's run produced to {@code DIR/NAME.SIDE.facts}, so that
   * runs can be compared with each other (a timing-dependent step shows as a difference
   * between two runs of the same side), not only with the other scheduler.
   */
  private static void dumpFacts(String name, String side, List<ScenarioLine> lines,
      List<Map<String, String>> snapshots) throws IOException {
    String dir = System.getProperty("capsched.facts.dir", "");
    if (dir.isEmpty()) {
      return;
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < snapshots.size(); i++) {
      out.append("== line ").append(lines.get(i).number).append(" (").append(lines.get(i).text).append(")\n");
      for (Map.Entry<String, String> e : snapshots.get(i).entrySet()) {
        out.append(e.getKey()).append(" = ").append(e.getValue()).append('\n');
      }
    }
    Files.createDirectories(Paths.get(dir));
    Files.write(Paths.get(dir, name + "." + side + ".facts"), out.toString().getBytes(StandardCharsets.UTF_8));
  }

  /**
   * What happened with Apache's scheduler that a scenario's lines do not say by themselves
   * (for the random seeds' coverage): containers marked for preemption, marked killable
   * (lazy preemption), and preempted.
   */
  static List<String> outcomes(List<Map<String, String>> snapshots) {
    boolean marked = false;
    boolean killable = false;
    boolean killed = false;
    Set<String> selectors = new TreeSet<>();
    for (Map<String, String> facts : snapshots) {
      for (Map.Entry<String, String> e : facts.entrySet()) {
        marked |= e.getKey().startsWith("app ") && e.getValue().contains("told-preempted=");
        killed |= e.getKey().startsWith("preempted ");
        killable |= e.getKey().startsWith("node ") && e.getValue().contains(" killable=");
      }
      String chose = facts.get("preemption-selectors");
      if (chose != null) {
        selectors.addAll(Arrays.asList(chose.split(",")));
      }
    }
    List<String> out = new ArrayList<>();
    for (String selector : selectors) {
      out.add("preemption-chosen-by-" + selector);
    }
    if (marked) {
      out.add("preemption-marked");
    }
    if (killable) {
      out.add("preemption-marked-killable");
    }
    if (killed) {
      out.add("preemption-killed");
    }
    return out;
  }

  private static List<Map<String, String>> run(Class<? extends ResourceScheduler> scheduler,
      List<ScenarioLine> lines, List<String> report, int restEvery) throws Exception {
    String config = lines.stream().filter(l -> "config".equals(l.words.get(0)))
        .findFirst().orElseThrow(() -> new IllegalArgumentException("no config")).block;
    Map<String, String> cluster = lines.stream().filter(l -> "cluster".equals(l.words.get(0)))
        .findFirst().map(l -> l.named).orElse(Collections.<String, String>emptyMap());
    List<Map<String, String>> snapshots = new ArrayList<>();
    try (ScenarioDriver driver = new ScenarioDriver(scheduler, config, cluster)) {
      for (ScenarioLine line : lines) {
        long start = System.nanoTime();
        driver.step(line.words, line.named, line.block);
        long ms = (System.nanoTime() - start) / 1_000_000;
        if (ms > 2000) {
          report.add(String.format("  (%s: line %d took %d ms)", scheduler.getSimpleName(), line.number, ms));
        }
        List<String> inconsistent = driver.consistency();
        if (!inconsistent.isEmpty()) {
          throw new AssertionError("the Rust core and the RM's objects disagree after line "
              + line.number + " (" + line.text + "):\n  " + String.join("\n  ", inconsistent));
        }
        snapshots.add(driver.snapshot(snapshots.size() % restEvery == 0));
      }
    }
    report.add("  final state with " + scheduler.getSimpleName() + ": " + snapshots.get(snapshots.size() - 1));
    return snapshots;
  }

  private static List<String> diff(Map<String, String> apache, Map<String, String> ours) {
    List<String> out = new ArrayList<>();
    TreeSet<String> keys = new TreeSet<>(apache.keySet());
    keys.addAll(ours.keySet());
    for (String k : keys) {
      if (k.equals("preemption-selectors") || k.equals("preemption-tie-order-mattered")
          || k.startsWith("queue-active-count ")
          || k.startsWith("queue-active-users ")) {
        // Read by the coverage report (which of Apache's selectors chose) and by
        // divergences.txt's checks (whether our preemption round hung on the order of tied
        // queues, the users a leaf's limit is shared among, and Apache's
        // count of active users), not compared: Apache's forgetting a user still counted
        // active (miscounted-user) is compared by its consequences - the limits, headroom
        // and REST view - so that a scenario is compared on for as long as it has none.
        continue;
      }
      if (k.startsWith("queue-runnable ")) {
        // Internal books (what max-parallel-apps counts per queue), not shown to anyone:
        // compared by their consequences, read by divergences.txt's checks.
        continue;
      }
      String a = apache.get(k);
      String o = ours.get(k);
      if (a == null ? o != null : !a.equals(o)) {
        out.add(k + ": apache " + a + " | ours " + o);
      }
    }
    return out;
  }

  @AfterClass
  public static void writeReport() throws IOException {
    Path dir = Paths.get(System.getProperty("capsched.report.dir", "build/reports"));
    Files.createDirectories(dir);
    Files.write(dir.resolve("scenario-conformance.txt"), REPORT);
  }
}
