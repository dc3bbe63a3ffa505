package org.capsched.yarn.harness;

import java.nio.file.Paths;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.apache.hadoop.metrics2.AbstractMetric;
import org.apache.hadoop.metrics2.MetricsRecord;
import org.apache.hadoop.metrics2.impl.MetricsCollectorImpl;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;

/**
 * Every queue's and user's metrics record as JMX and the metrics sinks read it (through
 * the record's {@code getMetrics}, not its Java getters), flattened to
 * "metrics QUEUE [user=USER] | NAME = value" facts for a side-by-side comparison. Metrics
 * that cannot match are listed with the reason in
 * {@code integration-tests/scenarios/metrics-exceptions.txt}, and left out.
 */
final class MetricsView {
  /**
   * Metric names left out, with the reason in the file: a queue's as "NAME", the root's
   * as "root.NAME" (besides "NAME"), a user's as "user.NAME".
   */
  private static final FieldExceptions EXCEPTIONS = new FieldExceptions(Paths.get(
      System.getProperty("capsched.metrics.exceptions",
          "../integration-tests/scenarios/metrics-exceptions.txt")));

  /** The share metrics, not compared on an empty cluster (as in RestView). */
  private static final Set<String> SHARES = new java.util.HashSet<>(java.util.Arrays.asList(
      "UsedCapacity", "AbsoluteUsedCapacity", "GuaranteedCapacity",
      "GuaranteedAbsoluteCapacity", "MaxCapacity", "MaxAbsoluteCapacity"));

  private MetricsView() {
  }

  /**
   * The facts of the queues named in {@code queues}, and of {@code users} in each; without
   * shares when {@code emptyCluster} (Apache's absolute-resource queues then report 0 or
   * their configured ratio where ours report 0, as in the REST view).
   */
  static Map<String, String> facts(Set<String> queues, Set<String> users, boolean emptyCluster) {
    Map<String, String> out = new TreeMap<>();
    for (Map.Entry<String, QueueMetrics> e : QueueMetrics.getQueueMetrics().entrySet()) {
      if (!queues.contains(e.getKey())) {
        continue;
      }
      QueueMetrics queue = e.getValue();
      add(out, "metrics " + e.getKey(), e.getKey().equals("root") ? "root." : "", queue,
          emptyCluster);
      for (String user : users) {
        QueueMetrics u = queue.getUserMetrics(user);
        if (u != null) {
          add(out, "metrics " + e.getKey() + " user=" + user, "user.", u, emptyCluster);
        }
      }
    }
    return out;
  }

  private static void add(Map<String, String> out, String source, String prefix,
      QueueMetrics metrics, boolean emptyCluster) {
    MetricsCollectorImpl collector = new MetricsCollectorImpl();
    metrics.getMetrics(collector, true);
    for (MetricsRecord record : collector.getRecords()) {
      for (AbstractMetric m : record.metrics()) {
        if (!excepted(prefix, m.name()) && !(emptyCluster && SHARES.contains(m.name()))) {
          out.put(source + " | " + m.name(), value(m.value()));
        }
      }
    }
  }

  /** Whether the file lists the metric: by name, or for the root or a user, prefixed. */
  private static boolean excepted(String prefix, String name) {
    if (prefix.equals("user.")) {
      return EXCEPTIONS.excepts(prefix + name);
    }
    return EXCEPTIONS.excepts(name) || !prefix.isEmpty() && EXCEPTIONS.excepts(prefix + name);
  }

  private static String value(Number n) {
    if (n instanceof Float || n instanceof Double) {
      return String.format(java.util.Locale.ROOT, "%.4f", n.doubleValue());
    }
    return n.toString();
  }
}
