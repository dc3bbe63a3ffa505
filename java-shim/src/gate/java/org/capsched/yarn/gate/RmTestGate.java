package org.capsched.yarn.gate;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;

import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Compares two runs of Apache's ResourceManager tests — with Apache's CapacityScheduler and
 * with ours — from their JUnit XML results, and sorts every test into one class of
 * {@link Verdict}. A test that passes with Apache's scheduler and not with ours must be
 * named, with its reason, in the explanations file; otherwise the gate fails.
 *
 * <p>Arguments: Apache's results directory, ours, the explanations file, the report to write.
 */
public final class RmTestGate {
  /** What the two runs say of one test. */
  enum Verdict {
    BOTH_PASS("pass with both"),
    ONLY_APACHE_LISTED("pass only with Apache's, listed with a reason"),
    ONLY_APACHE_UNLISTED("pass only with Apache's, NOT LISTED"),
    ONLY_OURS("pass only with ours"),
    NEITHER("pass with neither (fail, skipped or absent in both)");

    final String label;

    Verdict(String label) {
      this.label = label;
    }
  }

  /** How one run ended for one test. */
  enum Outcome { PASSED, FAILED, SKIPPED, ABSENT }

  /** One run's result for a test, with the first line of its failure if it failed. */
  static final class Result {
    final Outcome outcome;
    final String message;

    Result(Outcome outcome, String message) {
      this.outcome = outcome;
      this.message = message;
    }
  }

  /** One line of the explanations file: a test, a class (every test in it) or a prefix. */
  static final class Explanation {
    final String pattern;
    final String reason;
    boolean used;

    Explanation(String pattern, String reason) {
      this.pattern = pattern;
      this.reason = reason;
    }

    /** Matches {@code Class#method}, with the class by its simple or full name. */
    boolean matches(String test) {
      String simple = simpleName(test);
      return matchesName(test) || matchesName(simple);
    }

    private boolean matchesName(String test) {
      if (pattern.endsWith("*")) {
        return test.startsWith(pattern.substring(0, pattern.length() - 1));
      }
      return test.equals(pattern) || test.startsWith(pattern + "#");
    }
  }

  private RmTestGate() {
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      throw new IllegalArgumentException(
          "usage: RmTestGate <apache results dir> <our results dir> <explanations> <report>");
    }
    Map<String, Result> apache = readResults(new File(args[0]));
    Map<String, Result> ours = readResults(new File(args[1]));
    List<Explanation> explanations = readExplanations(new File(args[2]));
    if (apache.isEmpty()) {
      throw new IllegalStateException("no test results under " + args[0]);
    }
    Map<Verdict, List<String>> byVerdict = new EnumMap<>(Verdict.class);
    String report = compare(apache, ours, explanations, byVerdict);
    File out = new File(args[3]);
    out.getParentFile().mkdirs();
    Files.write(out.toPath(), report.getBytes(StandardCharsets.UTF_8));
    System.out.print(report);
    int unlisted = byVerdict.get(Verdict.ONLY_APACHE_UNLISTED).size();
    if (unlisted > 0) {
      throw new IllegalStateException(unlisted + " tests pass with Apache's CapacityScheduler"
          + " and fail with ours without a listed reason: see " + out);
    }
  }

  /**
   * Sorts every test into {@code byVerdict} and returns the report: counts per verdict,
   * then every test not passing with both.
   */
  static String compare(Map<String, Result> apache, Map<String, Result> ours,
      List<Explanation> explanations, Map<Verdict, List<String>> byVerdict) {
    TreeSet<String> tests = new TreeSet<>(apache.keySet());
    tests.addAll(ours.keySet());
    for (Verdict v : Verdict.values()) {
      byVerdict.put(v, new ArrayList<>());
    }
    Result absent = new Result(Outcome.ABSENT, "");
    int fairVariants = 0;
    for (String test : tests) {
      if (test.endsWith("[FAIR]")) {
        // Tests parameterized over scheduler types: only the CAPACITY variant is ours to run.
        fairVariants++;
        continue;
      }
      Result a = apache.getOrDefault(test, absent);
      Result o = ours.getOrDefault(test, absent);
      boolean apachePasses = a.outcome == Outcome.PASSED;
      boolean oursPasses = o.outcome == Outcome.PASSED;
      if (apachePasses && oursPasses) {
        byVerdict.get(Verdict.BOTH_PASS).add(test);
      } else if (apachePasses) {
        Explanation e = explanationFor(test, explanations);
        if (e == null) {
          byVerdict.get(Verdict.ONLY_APACHE_UNLISTED).add(test + ": " + o.outcome + " " + o.message);
        } else {
          e.used = true;
          byVerdict.get(Verdict.ONLY_APACHE_LISTED).add(test + ": " + e.reason);
        }
      } else if (oursPasses) {
        byVerdict.get(Verdict.ONLY_OURS).add(test + ": Apache's " + a.outcome + " " + a.message);
      } else {
        byVerdict.get(Verdict.NEITHER).add(test + ": " + a.outcome + " / " + o.outcome);
      }
    }
    StringWriter text = new StringWriter();
    PrintWriter w = new PrintWriter(text);
    w.printf("Apache's ResourceManager tests, run with Apache's CapacityScheduler and with ours:"
        + " %d tests%n", tests.size() - fairVariants);
    for (Verdict v : Verdict.values()) {
      w.printf("  %s: %d%n", v.label, byVerdict.get(v).size());
    }
    if (fairVariants > 0) {
      w.printf("  (%d FairScheduler variants of parameterized tests not counted)%n", fairVariants);
    }
    for (Verdict v : Verdict.values()) {
      if (v == Verdict.BOTH_PASS || byVerdict.get(v).isEmpty()) {
        continue;
      }
      w.printf("%n%s:%n", v.label);
      for (String line : byVerdict.get(v)) {
        w.printf("  %s%n", line);
      }
    }
    List<String> stale = new ArrayList<>();
    for (Explanation e : explanations) {
      boolean ran = tests.stream().anyMatch(e::matches);
      if (ran && !e.used) {
        stale.add(e.pattern);
      }
    }
    if (!stale.isEmpty()) {
      w.printf("%nlisted, ran, and no longer passing only with Apache's (remove the line):%n");
      for (String s : stale) {
        w.printf("  %s%n", s);
      }
    }
    w.flush();
    return text.toString();
  }

  private static Explanation explanationFor(String test, List<Explanation> explanations) {
    for (Explanation e : explanations) {
      if (e.matches(test)) {
        return e;
      }
    }
    return null;
  }

  static String simpleName(String test) {
    int hash = test.indexOf('#');
    String cls = hash < 0 ? test : test.substring(0, hash);
    String simple = cls.substring(cls.lastIndexOf('.') + 1);
    return hash < 0 ? simple : simple + test.substring(hash);
  }

  /** Every test case in a directory of JUnit XML reports, keyed {@code Class#method}. */
  static Map<String, Result> readResults(File dir) throws Exception {
    Map<String, Result> results = new TreeMap<>();
    File[] files = dir.listFiles((d, name) -> name.startsWith("TEST-") && name.endsWith(".xml"));
    if (files == null) {
      return results;
    }
    DocumentBuilder parser = DocumentBuilderFactory.newInstance().newDocumentBuilder();
    for (File f : files) {
      NodeList cases = parser.parse(f).getElementsByTagName("testcase");
      for (int i = 0; i < cases.getLength(); i++) {
        Element c = (Element) cases.item(i);
        String test = c.getAttribute("classname") + "#" + c.getAttribute("name");
        results.put(test, resultOf(c));
      }
    }
    return results;
  }

  private static Result resultOf(Element testCase) {
    for (String tag : new String[] {"failure", "error"}) {
      NodeList found = testCase.getElementsByTagName(tag);
      if (found.getLength() > 0) {
        String message = ((Element) found.item(0)).getAttribute("message");
        String first = message.split("\n", 2)[0];
        return new Result(Outcome.FAILED, first.length() > 200 ? first.substring(0, 200) : first);
      }
    }
    if (testCase.getElementsByTagName("skipped").getLength() > 0) {
      return new Result(Outcome.SKIPPED, "");
    }
    return new Result(Outcome.PASSED, "");
  }

  /** {@code pattern reason...} per line; blank lines and {@code #} comments skipped. */
  static List<Explanation> readExplanations(File file) throws IOException {
    if (!file.exists()) {
      return Collections.emptyList();
    }
    List<Explanation> out = new ArrayList<>();
    Map<String, Integer> seen = new LinkedHashMap<>();
    int lineNumber = 0;
    for (String line : Files.readAllLines(file.toPath(), StandardCharsets.UTF_8)) {
      lineNumber++;
      String t = line.trim();
      if (t.isEmpty() || t.startsWith("#")) {
        continue;
      }
      String[] parts = t.split("\\s+", 2);
      if (parts.length < 2) {
        throw new IllegalArgumentException(file + ":" + lineNumber + ": '" + parts[0]
            + "' has no reason; every listed test says why it passes only with Apache's");
      }
      Integer earlier = seen.put(parts[0], lineNumber);
      if (earlier != null) {
        throw new IllegalArgumentException(file + ":" + lineNumber + ": '" + parts[0]
            + "' is listed already on line " + earlier);
      }
      out.add(new Explanation(parts[0], parts[1]));
    }
    return out;
  }
}
