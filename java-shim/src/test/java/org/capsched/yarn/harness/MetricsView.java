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
 * "metrics QUEUE [user=USER] | NAME = value" facts for a side-by-side comparison; and
 * every partition's records (the partition's own, each queue's and user's there) as
 * "metrics partition=LABEL [QUEUE] [user=USER] | NAME = value". Metrics
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
    // The queues' own records first: reading one brings every gauge up to date (ours are
    // published when read), which may make a partition's records.
    for (Map.Entry<String, QueueMetrics> e : QueueMetrics.getQueueMetrics().entrySet()) {
      if (queues.contains(e.getKey())) {
        add(out, "metrics " + e.getKey(), e.getKey(), e.getValue(), users, emptyCluster);
      }
    }
    // Then every partition's records (Apache's PartitionQueueMetrics, the default
    // partition's named "default"): the partition's own as "PARTITION.", each queue's
    // there as "PARTITION.QUEUE". A label has no dot in it. A record (or a user's in it)
    // holding nothing but zeros is left out: Apache makes a queue's record in a
    // partition, and its users', the first time an allocation pass there works out one
    // of its users' headroom, ours when the queue first lists the partition; either way
    // the record reads zeros until something is pending, allocated or available there.
    Map<String, QueueMetrics> all = new TreeMap<>(QueueMetrics.getQueueMetrics());
    for (Map.Entry<String, QueueMetrics> e : all.entrySet()) {
      String name = e.getKey();
      int dot = name.indexOf('.');
      if (queues.contains(name) || dot < 0) {
        continue;
      }
      String partition = name.substring(0, dot);
      String queue = name.substring(dot + 1);
      if (!partition.equals("default") && isParent(queue, queues)) {
        // A parent's record in a labelled partition counts what its children's records
        // pass up; Apache's child record passes up only if the parent's existed when the
        // child's was made (PartitionQueueMetrics looks its parent up, it does not make
        // it), so which of a parent's containers it counts there depends on the order
        // Apache happened to make the records in. Ours pass everything up. Not compared.
        continue;
      }
      if (queue.isEmpty()) {
        // (The partition's own record carries the root's figures: the root's exceptions.)
        add(out, "metrics partition=" + partition, "root", e.getValue(), users, emptyCluster);
      } else if (queues.contains(queue)) {
        add(out, "metrics partition=" + partition + " " + queue, queue, e.getValue(), users,
            emptyCluster);
      }
    }
    return out;
  }

  /** Whether {@code queue} has children among {@code queues}. */
  private static boolean isParent(String queue, Set<String> queues) {
    return queues.stream().anyMatch(q -> q.startsWith(queue + "."));
  }

  /** A record's facts under {@code source}, and each of {@code users}' in it. */
  private static void add(Map<String, String> out, String source, String queue,
      QueueMetrics metrics, Set<String> users, boolean emptyCluster) {
    add(out, source, queue.equals("root") ? "root." : "", metrics, emptyCluster,
        source.startsWith("metrics partition="));
    for (String user : users) {
      QueueMetrics u = metrics.getUserMetrics(user);
      if (u != null) {
        add(out, source + " user=" + user, "user.", u, emptyCluster,
            source.startsWith("metrics partition="));
      }
    }
  }

  private static void add(Map<String, String> out, String source, String prefix,
      QueueMetrics metrics, boolean emptyCluster, boolean unlessAllZero) {
    Map<String, String> facts = new TreeMap<>();
    add(facts, source, prefix, metrics, emptyCluster);
    if (!unlessAllZero || facts.values().stream().anyMatch(v -> !v.matches("0(\\.0+)?"))) {
      out.putAll(facts);
    }
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
