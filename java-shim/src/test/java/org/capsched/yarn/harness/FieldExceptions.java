package org.capsched.yarn.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A list of fields the side-by-side harness does not compare, read from a file under
 * {@code integration-tests/scenarios/} whose lines are "PATTERN  reason" ({@code #} starts
 * a comment). In a pattern, {@code *} is any run of characters, {@code []} any array
 * element and {@code [+]} any element named (a labelled partition's, not the default
 * partition's, whose name is empty). The file is read once, at the first question.
 */
final class FieldExceptions {
  private final Path file;
  private List<Pattern> patterns;
  /** Each field's answer; the same fields come up at every step. */
  private final Map<String, Boolean> answers = new HashMap<>();

  FieldExceptions(Path file) {
    this.file = file;
  }

  /** Whether {@code field} is listed. */
  synchronized boolean excepts(String field) {
    Boolean known = answers.get(field);
    if (known == null) {
      known = false;
      for (Pattern p : patterns()) {
        if (p.matcher(field).matches()) {
          known = true;
          break;
        }
      }
      answers.put(field, known);
    }
    return known;
  }

  private List<Pattern> patterns() {
    if (patterns == null) {
      List<Pattern> out = new ArrayList<>();
      try {
        for (String line : Files.readAllLines(file)) {
          String t = line.trim();
          if (!t.isEmpty() && !t.startsWith("#")) {
            out.add(glob(t.split("\\s+")[0]));
          }
        }
      } catch (IOException e) {
        throw new IllegalStateException("cannot read " + file.toAbsolutePath(), e);
      }
      patterns = out;
    }
    return patterns;
  }

  private static Pattern glob(String pattern) {
    StringBuilder re = new StringBuilder();
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == '*') {
        re.append(".*");
      } else if (c == '[' && i + 1 < pattern.length() && pattern.charAt(i + 1) == ']') {
        re.append("\\[[^\\]]*\\]");
        i++;
      } else if (pattern.startsWith("[+]", i)) {
        re.append("\\[[^\\]]+\\]");
        i += 2;
      } else {
        re.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return Pattern.compile(re.toString());
  }
}
