package org.capsched.yarn.conformance;

import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.capsched.yarn.harness.ScenarioFile;
import org.capsched.yarn.harness.ScenarioFile.ScenarioLine;
import org.junit.Test;

/**
 * The fault soak's workloads side by side: each seed's soak scenario — the random
 * generator's steps with the soak's faults among them (AM liveness and container allocation
 * expiries, NodeManager restarts, nodes lost and heard from again with what they still run,
 * work-preserving RM restarts) — through a real RM with Apache's CapacityScheduler and
 * again with ours, compared after every step as the repository's scenarios are.
 *
 * <p>Seeds come from {@code capsched.soak.compare.seeds} ("FIRST-LAST", 1-8 in the test
 * command), each {@code capsched.soak.compare.steps} steps long (200). A scenario may part
 * from Apache where divergences.txt says why; the comparison of that seed stops there, so
 * the report (soak-conformance.txt) counts the fault steps compared alike, by kind, and the
 * test fails unless every kind was compared and no seed diverges otherwise. Divergent
 * scenarios are saved under build/reports/divergent/ to replay.
 */
public class SoakConformanceTest {
  /** The steps only the soak takes. */
  static final List<String> FAULTS = Arrays.asList("expire-am", "expire-container",
      "restart-node", "lose-node", "return-node", "restart-rm");
  private static final Pattern LISTED_AT =
      Pattern.compile("diverges after line (\\d+) .* as listed in divergences.txt");

  @Test(timeout = 3_600_000)
  public void theSoaksFaultsAgreeWithApache() throws Exception {
    String[] range = System.getProperty("capsched.soak.compare.seeds", "1-8").split("-");
    long first = Long.parseLong(range[0]);
    long last = Long.parseLong(range[range.length - 1]);
    int steps = Integer.getInteger("capsched.soak.compare.steps", 200);
    Path out = Paths.get(System.getProperty("capsched.report.dir", "build/reports"));
    Files.createDirectories(out.resolve("divergent"));
    List<String> report = new ArrayList<>();
    List<Long> divergent = new ArrayList<>();
    int listed = 0;
    Map<String, Integer> comparedAlike = new TreeMap<>();
    for (String kind : FAULTS) {
      comparedAlike.put(kind, 0);
    }
    for (long seed = first; seed <= last; seed++) {
      RandomScenario scenario = RandomScenario.generateSoak(seed, steps);
      List<ScenarioLine> lines = ScenarioFile.parse(scenario.text, Paths.get("."));
      int before = report.size();
      String divergence;
      try {
        divergence = ScenarioConformanceTest.compare("soak seed " + seed, lines, report,
            RandomSeedsConformanceTest.REST_VIEW_EVERY);
      } catch (AssertionError | Exception e) {
        divergence = "soak seed " + seed + ": " + e;
        report.add(divergence);
      }
      Path saved = out.resolve("divergent").resolve("soak-seed-" + seed + ".scn");
      if (divergence != null) {
        divergent.add(seed);
        Files.write(saved, scenario.text.getBytes(StandardCharsets.UTF_8));
        continue;
      }
      Files.deleteIfExists(saved);
      // Compared alike up to the end, or up to the step where it parts as listed.
      int lastAlike = Integer.MAX_VALUE;
      for (String line : report.subList(before, report.size())) {
        Matcher m = LISTED_AT.matcher(line);
        if (m.find()) {
          lastAlike = Integer.parseInt(m.group(1)) - 1;
          listed++;
        }
      }
      for (ScenarioLine line : lines) {
        if (line.number <= lastAlike && FAULTS.contains(line.words.get(0))) {
          comparedAlike.merge(line.words.get(0), 1, Integer::sum);
        }
      }
    }
    long total = last - first + 1;
    report.add(0, String.format("soak seeds %d-%d, %d steps each: %d agree, %d part as"
        + " divergences.txt explains, %d diverge %s; fault steps compared alike: %s", first,
        last, steps, total - divergent.size() - listed, listed, divergent.size(), divergent,
        comparedAlike));
    Files.write(out.resolve("soak-conformance.txt"), report);
    assertTrue(report.get(0) + " (replay: " + out.resolve("divergent") + ")",
        divergent.isEmpty());
    for (Map.Entry<String, Integer> e : comparedAlike.entrySet()) {
      assertTrue("no " + e.getKey() + " step was compared: " + report.get(0), e.getValue() > 0);
    }
  }
}
