package org.capsched.yarn.harness;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads scenario files (docs/scenario-format.md) into lines a {@link ScenarioDriver} steps
 * through: each line's words and name=value arguments, with the configuration a
 * {@code config} or {@code refresh} line carries attached.
 */
public final class ScenarioFile {
  private ScenarioFile() {
  }

  /** A scenario file's lines, with inline blocks (config/refresh ... end) attached. */
  public static List<ScenarioLine> read(Path file) throws Exception {
    return parse(new String(Files.readAllBytes(file), StandardCharsets.UTF_8), file.getParent());
  }

  /** Parses scenario text; {@code base} resolves {@code config FILE} lines. */
  public static List<ScenarioLine> parse(String text, Path base) throws Exception {
    List<String> lines = Arrays.asList(text.split("\n", -1));
    List<ScenarioLine> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).trim();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      ScenarioLine s = new ScenarioLine(i + 1, line);
      boolean takesBlock = ("config".equals(s.words.get(0)) && s.words.size() == 1)
          || "refresh".equals(s.words.get(0));
      if (takesBlock) {
        StringBuilder block = new StringBuilder();
        while (!lines.get(++i).trim().equals("end")) {
          block.append(lines.get(i)).append('\n');
        }
        s.block = block.toString();
      } else if ("config".equals(s.words.get(0))) {
        s.block = new String(Files.readAllBytes(base.resolve(s.words.get(1))),
            StandardCharsets.UTF_8);
      }
      out.add(s);
    }
    return out;
  }

  /** One scenario line: positional words and name=value arguments. */
  public static final class ScenarioLine {
    /** The line's number in the file, from 1. */
    public final int number;
    /** The line as written, trimmed. */
    public final String text;
    /** The positional words, the verb first. */
    public final List<String> words = new ArrayList<>();
    /** The name=value arguments. */
    public final Map<String, String> named = new HashMap<>();
    /** The configuration a config or refresh line carries (inline or from its file), else null. */
    public String block;

    ScenarioLine(int number, String text) {
      this.number = number;
      this.text = text;
      for (String w : text.split("\\s+")) {
        int eq = w.indexOf('=');
        if (eq > 0 && !w.startsWith("\"")) {
          named.put(w.substring(0, eq), w.substring(eq + 1));
        } else {
          words.add(w);
        }
      }
    }
  }
}
