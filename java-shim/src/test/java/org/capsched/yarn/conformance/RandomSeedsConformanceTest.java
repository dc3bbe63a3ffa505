package org.capsched.yarn.conformance;

import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

import org.capsched.yarn.harness.ScenarioFile;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;
import org.junit.runners.Parameterized.Parameters;

/**
 * The randomized side-by-side seeds that run on every change: every seed in the range
 * integration-tests/scenarios/random-seeds.txt gives must agree with Apache's
 * CapacityScheduler after every step (or part from it only as divergences.txt explains),
 * except the seeds that file lists as still open — divergences not yet understood and
 * fixed, which {@code gradle :java-shim:randomConformance} works through.
 */
@RunWith(Parameterized.class)
public class RandomSeedsConformanceTest {
  /**
   * The REST scheduler view is compared after every fifth step of a seed (every step of
   * the repository scenarios): the documents cost more than the rest of a step to build.
   */
  static final int REST_VIEW_EVERY = 5;

  /** The replayed seeds: the range, less the open seeds. */
  @Parameters(name = "seed {0}")
  public static Collection<Object[]> seeds() throws IOException {
    SeedList list = SeedList.load();
    List<Object[]> out = new ArrayList<>();
    for (long seed = list.first; seed <= list.last; seed++) {
      if (!list.open.contains(seed)) {
        out.add(new Object[] {seed});
      }
    }
    return out;
  }

  /** The seeds CI replays, as random-seeds.txt gives them. */
  static final class SeedList {
    final long first;
    final long last;
    final TreeSet<Long> open = new TreeSet<>();

    private SeedList(long first, long last) {
      this.first = first;
      this.last = last;
    }

    static SeedList load() throws IOException {
      Path file = Paths.get(System.getProperty("capsched.random.seeds.file",
          "../integration-tests/scenarios/random-seeds.txt"));
      Long first = null;
      Long last = null;
      TreeSet<Long> open = new TreeSet<>();
      int number = 0;
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        number++;
        String text = line.replaceAll("#.*", "").trim();
        if (text.isEmpty()) {
          continue;
        }
        String[] words = text.split("\\s+");
        if (words[0].equals("range") && words.length == 2 && words[1].matches("\\d+-\\d+")) {
          String[] ends = words[1].split("-");
          first = Long.parseLong(ends[0]);
          last = Long.parseLong(ends[1]);
        } else if (words[0].equals("open")) {
          for (int i = 1; i < words.length; i++) {
            open.add(Long.parseLong(words[i]));
          }
        } else {
          throw new IllegalArgumentException(file + ":" + number
              + ": expected 'range FIRST-LAST' or 'open SEED...', found '" + text + "'");
        }
      }
      if (first == null) {
        throw new IllegalArgumentException(file + ": no 'range FIRST-LAST' line");
      }
      SeedList list = new SeedList(first, last);
      list.open.addAll(open);
      return list;
    }
  }

  private final long seed;

  public RandomSeedsConformanceTest(long seed) {
    this.seed = seed;
  }

  @Test(timeout = 300_000)
  public void agreesWithApache() throws Exception {
    List<String> report = new ArrayList<>();
    String divergence = ScenarioConformanceTest.compare("seed " + seed,
        ScenarioFile.parse(RandomScenario.generate(seed).text, Paths.get(".")), report,
        REST_VIEW_EVERY);
    assertTrue(divergence + "\n(replay: gradle :java-shim:randomConformance -Pseeds=" + seed + "-" + seed
        + ", then build/reports/divergent/seed-" + seed + ".scn)", divergence == null);
  }
}
