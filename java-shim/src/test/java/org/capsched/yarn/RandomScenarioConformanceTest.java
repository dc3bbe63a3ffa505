package org.capsched.yarn;

import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import org.junit.Test;

/**
 * Randomized side-by-side runs: seeded random scenarios (queue trees, clusters,
 * workloads) through Apache's CapacityScheduler and ours. Seeds come from
 * {@code capsched.random.seeds} ("FIRST-LAST"); every divergent scenario is saved under
 * build/reports/divergent/ as a replayable .scn file, and the seeds are listed.
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
    for (long seed = first; seed <= last; seed++) {
      String text = RandomScenario.generate(seed);
      String divergence;
      try {
        divergence = ScenarioConformanceTest.compare("seed " + seed,
            ScenarioDriver.parse(text, Paths.get(".")), report);
      } catch (AssertionError | Exception e) {
        // The consistency check failing, or a step failing outright, is a divergence too.
        divergence = "seed " + seed + ": " + e;
        report.add(divergence);
      }
      if (divergence != null) {
        divergent.add(seed);
        Files.write(out.resolve("seed-" + seed + ".scn"), text.getBytes(StandardCharsets.UTF_8));
      }
    }
    Files.write(out.getParent().resolve("random-conformance.txt"), report);
    assertTrue(divergent.size() + " of " + (last - first + 1) + " seeds diverge: " + divergent
        + " (replay: " + out + ")", divergent.isEmpty());
  }
}
