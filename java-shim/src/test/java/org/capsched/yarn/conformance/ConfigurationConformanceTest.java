package org.capsched.yarn.conformance;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CSQueue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.capsched.yarn.QueueSnapshot;
import org.capsched.yarn.RustCapacityScheduler;
import org.capsched.yarn.harness.RmHarness;
import org.junit.AfterClass;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;
import org.junit.runners.Parameterized.Parameters;

/**
 * Every capacity-scheduler.xml in integration-tests/configs/real-configs is loaded by Apache's
 * CapacityScheduler and by ours, each inside a real ResourceManager with the same node.
 * Both must accept or both must refuse the file; when accepted, every queue's capacity,
 * maximum capacity and their absolute (cluster-wide) forms must agree to 1e-4.
 */
@RunWith(Parameterized.class)
public class ConfigurationConformanceTest {
  private static final double TOLERANCE = 1e-4;
  private static final List<String> REPORT = new ArrayList<>();

  /**
   * The real-world corpus (integration-tests/configs/real-configs), plus synthetic files in
   * src/test/resources/conformance for modes the corpus lacks (weights, absolute
   * resources, deeper trees, node labels).
   */
  @Parameters(name = "{0}")
  public static Collection<Object[]> files() throws IOException {
    List<Object[]> out = new ArrayList<>();
    addAll(new File(System.getProperty("capsched.compat.dir", "../integration-tests/configs/real-configs")), out);
    addAll(new File(System.getProperty("capsched.conformance.dir", "src/test/resources/conformance")), out);
    return out;
  }

  private static void addAll(File dir, List<Object[]> out) {
    File[] xml = dir.listFiles((d, name) -> name.endsWith(".xml"));
    assertTrue("no configurations found in " + dir.getAbsolutePath(), xml != null && xml.length > 0);
    Arrays.sort(xml);
    for (File f : xml) {
      out.add(new Object[] {f.getName(), f.toPath()});
    }
  }

  private final String name;
  private final Path file;

  public ConfigurationConformanceTest(String name, Path file) {
    this.name = name;
    this.file = file;
  }

  @Test
  public void acceptedOrRefusedAsApacheDoesWithTheSameCapacities() throws Exception {
    byte[] xml = Files.readAllBytes(file);
    Outcome apache = load(CapacityScheduler.class, xml);
    Outcome ours = load(RustCapacityScheduler.class, xml);
    REPORT.add(String.format("%-60s apache: %-8s ours: %-8s%s", name,
        apache.verdict(), ours.verdict(),
        apache.accepted() ? "" : "\n    apache: " + apache.failure + "\n    ours:   " + ours.failure));
    assertEquals(name + ": Apache " + apache.describe() + " but ours " + ours.describe(),
        apache.accepted(), ours.accepted());
    if (!apache.accepted()) {
      return;
    }
    for (Map.Entry<String, double[]> e : apache.queues.entrySet()) {
      REPORT.add(String.format("    %-40s apache %s ours %s", e.getKey(), Arrays.toString(e.getValue()),
          Arrays.toString(ours.queues.get(e.getKey()))));
    }
    assertEquals(name + ": queue paths", apache.queues.keySet(), ours.queues.keySet());
    for (Map.Entry<String, double[]> e : apache.queues.entrySet()) {
      double[] a = e.getValue();
      double[] o = ours.queues.get(e.getKey());
      String[] what = {"capacity", "maximum-capacity", "absolute capacity", "absolute maximum capacity"};
      for (int i = 0; i < a.length; i++) {
        assertEquals(name + ": " + e.getKey() + " " + what[i], a[i], o[i], TOLERANCE);
      }
    }
  }

  @AfterClass
  public static void writeReport() throws IOException {
    Path dir = Paths.get(System.getProperty("capsched.report.dir", "build/reports"));
    Files.createDirectories(dir);
    Files.write(dir.resolve("configuration-conformance.txt"), REPORT);
  }

  /** What one scheduler made of one file. */
  private static final class Outcome {
    String failure;
    final Map<String, double[]> queues = new LinkedHashMap<>();

    boolean accepted() {
      return failure == null;
    }

    String verdict() {
      return accepted() ? "accepts" : "refuses";
    }

    String describe() {
      return accepted() ? "accepts it" : "refuses it (" + failure + ")";
    }
  }

  private static Outcome load(Class<? extends ResourceScheduler> scheduler, byte[] xml)
      throws Exception {
    Outcome out = new Outcome();
    MockRM rm;
    try {
      rm = RmHarness.start(RmHarness.configuration(scheduler, xml));
    } catch (Exception e) {
      out.failure = RmHarness.reason(e);
      return out;
    }
    try {
      // One node, so absolute-resource capacities resolve against a real cluster size.
      rm.registerNode("node1:1234", 100 * 1024, 100);
      rm.drainEvents();
      Object s = rm.getResourceScheduler();
      if (s instanceof CapacityScheduler) {
        collect(((CapacityScheduler) s).getRootQueue(), out.queues);
      } else {
        for (QueueSnapshot q : ((RustCapacityScheduler) s).getQueueSnapshots()) {
          out.queues.put(q.getPath(), new double[] {q.getCapacity(), q.getMaximumCapacity(),
              q.getAbsoluteCapacity(), q.getAbsoluteMaximumCapacity()});
        }
      }
    } finally {
      rm.stop();
    }
    return out;
  }

  private static void collect(CSQueue q, Map<String, double[]> out) {
    out.put(q.getQueuePath(), new double[] {q.getCapacity(), q.getMaximumCapacity(),
        q.getAbsoluteCapacity(), q.getAbsoluteMaximumCapacity()});
    if (q.getChildQueues() != null) {
      for (CSQueue c : q.getChildQueues()) {
        collect(c, out);
      }
    }
  }
}
