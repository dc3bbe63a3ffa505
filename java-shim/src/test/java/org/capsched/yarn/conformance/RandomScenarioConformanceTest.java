package org.capsched.yarn.conformance;

import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.capsched.yarn.harness.ScenarioFile;
import org.junit.Test;

/**
 * Randomized side-by-side runs: seeded random scenarios (queue trees, clusters,
 * workloads) through Apache's CapacityScheduler and ours. Seeds come from
 * {@code capsched.random.seeds} ("FIRST-LAST"); every divergent scenario is saved under
 * build/reports/divergent/ as a replayable .scn file, and the report
 * (random-conformance-FIRST-LAST.txt) opens with a summary: how many agree, how many part
 * as divergences.txt explains, which diverge, and how that compares with the seeds CI
 * replays (random-seeds.txt). It ends with the coverage table: for each feature the
 * generator exercises, "coverage FEATURE SEEDS AGREEING EXPLAINED" — how many seeds
 * exercise it, how many of those agree with Apache throughout, and how many part from it
 * only as divergences.txt explains.
 */
public class RandomScenarioConformanceTest {

  @Test(timeout = 3_600_000)
  public void randomScenariosAgreeWithApache() throws Exception {
    String[] range = System.getProperty("capsched.random.seeds", "1-25").split("-");
    long first = Long.parseLong(range[0]);
    long last = Long.parseLong(range[range.length - 1]);
    Path out = Paths.get(System.getProperty("capsched.report.dir", "build/reports"), "divergent");
    Files.createDirectories(out);
    List<String> report = new ArrayList<>();
    List<Long> divergent = new ArrayList<>();
    Map<String, int[]> coverage = new TreeMap<>();
    int explained = 0;
    for (long seed = first; seed <= last; seed++) {
      RandomScenario scenario = RandomScenario.generate(seed);
      String text = scenario.text;
      String divergence;
      int before = report.size();
      try {
        divergence = ScenarioConformanceTest.compare("seed " + seed,
            ScenarioFile.parse(text, Paths.get(".")), report,
            RandomSeedsConformanceTest.REST_VIEW_EVERY);
      } catch (AssertionError | Exception e) {
        // The consistency check failing, or a step failing outright, is a divergence too.
        divergence = "seed " + seed + ": " + e;
        report.add(divergence);
        report.add(causes(e));
      }
      boolean partsAsListed =
          report.subList(before, report.size()).stream().anyMatch(l -> l.contains(" as listed in divergences.txt"));
      if (partsAsListed) {
        explained++;
      }
      Set<String> features = new TreeSet<>(scenario.features);
      String outcomePrefix = "  outcome: seed " + seed + ": ";
      for (String line : report.subList(before, report.size())) {
        if (line.startsWith(outcomePrefix)) {
          features.add("outcome:" + line.substring(outcomePrefix.length()));
        }
      }
      for (String feature : features) {
        int[] counts = coverage.computeIfAbsent(feature, k -> new int[3]);
        counts[0]++;
        if (divergence == null && !partsAsListed) {
          counts[1]++;
        } else if (divergence == null) {
          counts[2]++;
        }
      }
      Path saved = out.resolve("seed-" + seed + ".scn");
      if (divergence != null) {
        divergent.add(seed);
        Files.write(saved, text.getBytes(StandardCharsets.UTF_8));
      } else {
        Files.deleteIfExists(saved);
      }
    }
    // Against the list CI works from: open seeds that now agree can leave it; a divergent
    // seed not on it is a regression.
    RandomSeedsConformanceTest.SeedList ci = RandomSeedsConformanceTest.SeedList.load();
    List<Long> nowAgree = new ArrayList<>();
    List<Long> regressions = new ArrayList<>();
    for (long seed = first; seed <= last; seed++) {
      boolean inCi = seed >= ci.first && seed <= ci.last;
      if (inCi && ci.open.contains(seed) && !divergent.contains(seed)) {
        nowAgree.add(seed);
      } else if (inCi && !ci.open.contains(seed) && divergent.contains(seed)) {
        regressions.add(seed);
      }
    }
    long total = last - first + 1;
    report.add(0, String.format("seeds %d-%d: %d agree, %d part as divergences.txt explains, %d diverge %s;"
        + " open seeds that now agree: %s; divergent seeds CI expects to agree: %s",
        first, last, total - divergent.size() - explained, explained, divergent.size(), divergent, nowAgree, regressions));
    for (Map.Entry<String, int[]> e : coverage.entrySet()) {
      report.add("coverage " + e.getKey() + " " + e.getValue()[0] + " " + e.getValue()[1] + " " + e.getValue()[2]);
    }
    Files.write(out.getParent().resolve("random-conformance-" + first + "-" + last + ".txt"), report);
    assertTrue(divergent.size() + " of " + total + " seeds diverge: " + divergent
        + " (replay: " + out + ")", divergent.isEmpty());
  }

  /** What lies under a step's failure: each cause and where the deepest was thrown. */
  private static String causes(Throwable e) {
    StringBuilder out = new StringBuilder();
    Throwable deepest = e;
    for (Throwable c = e.getCause(); c != null && c != deepest; c = c.getCause()) {
      out.append("  caused by ").append(c).append('\n');
      deepest = c;
    }
    StackTraceElement[] where = deepest.getStackTrace();
    for (int i = 0; i < Math.min(8, where.length); i++) {
      out.append("    at ").append(where[i]).append('\n');
    }
    return out.toString().replaceAll("\n$", "");
  }
}
