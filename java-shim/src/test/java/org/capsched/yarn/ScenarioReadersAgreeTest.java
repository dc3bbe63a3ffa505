package org.capsched.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.capsched.yarn.harness.ScenarioFile;
import org.capsched.yarn.harness.ScenarioFile.ScenarioLine;
import org.junit.Test;

/**
 * The scenario format is read twice: by the Rust core's reader (for {@code cargo test} and
 * {@code capsched simulate}) and by the side-by-side harness's {@link ScenarioFile}. Every
 * repository scenario must read the same in both: the same initial configuration, the same
 * steps on the same lines, the same configuration for each refresh.
 */
public class ScenarioReadersAgreeTest {

  @Test
  public void everyScenarioReadsTheSameInRustAndInJava() throws Exception {
    Path dir = Paths.get(System.getProperty("capsched.scenario.dir"));
    List<Path> files;
    try (Stream<Path> listing = Files.list(dir)) {
      files = listing.filter(p -> p.toString().endsWith(".scn")).sorted()
          .collect(Collectors.toList());
    }
    assertTrue("no scenario files in " + dir, files.size() >= 10);
    for (Path file : files) {
      String text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
      List<String> rust = Arrays.asList(
          NativeScheduler.scenarioOutline(text, file.getParent().toString()));
      assertEquals(file.getFileName() + " reads differently", rust, javaOutline(file));
    }
  }

  /** The Java reader's outline, in the form {@link NativeScheduler#scenarioOutline} gives. */
  private static List<String> javaOutline(Path file) throws Exception {
    List<String> out = new ArrayList<>();
    out.add("");
    for (ScenarioLine line : ScenarioFile.read(file)) {
      String verb = line.words.get(0);
      if (verb.equals("config")) {
        out.set(0, line.block.trim());
      } else if (!verb.equals("cluster")) {
        out.add(line.number + " " + verb
            + (verb.equals("refresh") ? "\n" + line.block.trim() : ""));
      }
    }
    return out;
  }
}
