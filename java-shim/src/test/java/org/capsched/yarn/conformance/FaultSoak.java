package org.capsched.yarn.conformance;

import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.SchedulingRequest;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.capsched.yarn.ConsistencyCheck;
import org.capsched.yarn.RustCapacityScheduler;
import org.capsched.yarn.harness.ScenarioDriver;
import org.capsched.yarn.harness.ScenarioFile;
import org.capsched.yarn.harness.ScenarioFile.ScenarioLine;

/**
 * A long random workload with faults, through a real ResourceManager whose scheduler is
 * ours alone: the random generator's clusters, configurations and steps (submissions of
 * every kind, asks, heartbeats, releases, containers ending on their NodeManagers, AM
 * failures and retries with and without keep-containers, kills, unregistrations, moves,
 * priority changes, blacklists, nodes lost, re-added and resized, refreshes accepted and
 * refused, preemption rounds) and faults of its own — AM liveness expiries, container
 * allocation expiries, NodeManager restarts that keep their containers, nodes lost and then
 * heard from again with the containers they still run, and work-preserving RM restarts — in
 * segments of 1,500 steps each, until the scheduler has handled the events asked for.
 *
 * <p>After every step the core and the RM's objects agree (the consistency check) and no
 * exception escaped; at the end of each segment the cluster's usage is exactly what its
 * live containers hold. Any failure stops the run with the segment's seed and step.
 *
 * <p>A short run is {@code FaultSoakTest}, in the test command; the long one is
 * {@code gradle :java-shim:soak [-Pevents=1000000]}, whose report goes to
 * build/reports/fault-soak.md.
 */
public final class FaultSoak {
  /** Steps per segment: one RM's life. */
  static final int SEGMENT_STEPS = 1500;

  private FaultSoak() {
  }

  /** Counts every scheduler event by type and every allocate() call, across RMs. */
  public static final class CountingScheduler extends RustCapacityScheduler {
    static final Map<String, AtomicLong> EVENTS = new ConcurrentHashMap<>();

    @Override
    public void handle(SchedulerEvent event) {
      EVENTS.computeIfAbsent(event.getType().name(), k -> new AtomicLong()).incrementAndGet();
      super.handle(event);
    }

    @Override
    public Allocation allocate(ApplicationAttemptId attemptId, List<ResourceRequest> ask,
        List<SchedulingRequest> schedulingRequests, List<ContainerId> release,
        List<String> blacklistAdditions, List<String> blacklistRemovals,
        ContainerUpdates updateRequests) {
      EVENTS.computeIfAbsent("ALLOCATE", k -> new AtomicLong()).incrementAndGet();
      return super.allocate(attemptId, ask, schedulingRequests, release, blacklistAdditions,
          blacklistRemovals, updateRequests);
    }

    static long total() {
      return EVENTS.values().stream().mapToLong(AtomicLong::get).sum();
    }
  }

  /** What a run did. */
  static final class Result {
    long events;
    long steps;
    int segments;
    /** Containers the RM took back from lost nodes that came back. */
    long recoveredFromReturns;
    /** Containers restarted RMs recovered from their NodeManagers' reports. */
    long recoveredAfterRestarts;
    double seconds;
    final Map<String, Long> stepKinds = new TreeMap<>();
    final Map<String, Long> eventKinds = new TreeMap<>();

    String describe() {
      StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
          "%,d scheduler events (and allocate() calls) in %,d steps over %d segments, %.0f s;"
          + " the consistency check held after every step and every usage was accounted for"
          + " at the end of every segment. Lost nodes that came back had %,d of their"
          + " containers recovered; restarted RMs recovered %,d.%n%nSteps by kind:%n", events,
          steps, segments, seconds, recoveredFromReturns, recoveredAfterRestarts));
      stepKinds.forEach((k, v) -> b.append(String.format(Locale.ROOT, "- %s: %,d%n", k, v)));
      b.append(String.format("%nScheduler events by kind:%n"));
      eventKinds.forEach((k, v) -> b.append(String.format(Locale.ROOT, "- %s: %,d%n", k, v)));
      return b.toString();
    }
  }

  /**
   * Runs segments from {@code firstSeed} on until the scheduler has handled {@code events}
   * events; throws an AssertionError naming the seed and step at the first failure.
   */
  static Result run(long events, long firstSeed) throws Exception {
    CountingScheduler.EVENTS.clear();
    Result result = new Result();
    long start = System.nanoTime();
    for (long seed = firstSeed; CountingScheduler.total() < events; seed++) {
      RandomScenario scenario = RandomScenario.generateSoak(seed, SEGMENT_STEPS);
      List<ScenarioLine> lines = ScenarioFile.parse(scenario.text, Paths.get("."));
      segment(seed, lines, result);
      result.segments++;
    }
    result.seconds = (System.nanoTime() - start) / 1e9;
    result.events = CountingScheduler.total();
    CountingScheduler.EVENTS.forEach((k, v) -> result.eventKinds.put(k, v.get()));
    return result;
  }

  private static void segment(long seed, List<ScenarioLine> lines, Result result)
      throws Exception {
    String config = lines.stream().filter(l -> "config".equals(l.words.get(0)))
        .findFirst().orElseThrow(() -> new IllegalArgumentException("no config")).block;
    Map<String, String> cluster = lines.stream().filter(l -> "cluster".equals(l.words.get(0)))
        .findFirst().map(l -> l.named).orElse(Collections.<String, String>emptyMap());
    try (ScenarioDriver driver = new ScenarioDriver(CountingScheduler.class, config, cluster)) {
      for (ScenarioLine line : lines) {
        String verb = line.words.get(0);
        try {
          driver.step(line.words, line.named, line.block);
        } catch (Exception | AssertionError e) {
          throw new AssertionError(String.format("soak seed %d, line %d (%s): %s", seed,
              line.number, line.text, e), e);
        }
        List<String> inconsistent = driver.consistency();
        if (!inconsistent.isEmpty()) {
          throw new AssertionError(String.format("soak seed %d, line %d (%s): the core and"
              + " the RM disagree:%n  %s", seed, line.number, line.text,
              String.join("\n  ", inconsistent)));
        }
        result.steps++;
        result.stepKinds.merge(verb, 1L, Long::sum);
      }
      result.recoveredFromReturns += driver.recoveredFromReturns();
      result.recoveredAfterRestarts += driver.recoveredAfterRestarts();
      List<String> unaccounted = unaccounted((RustCapacityScheduler) driver.rmScheduler());
      if (!unaccounted.isEmpty()) {
        throw new AssertionError(String.format("soak seed %d, at its end: %s", seed,
            unaccounted));
      }
    }
  }

  /**
   * The cluster's usage against its live containers: the root queue's and each node's
   * allocated resources are exactly the sum of the containers the RM's applications hold.
   */
  static List<String> unaccounted(RustCapacityScheduler scheduler) {
    long memory = 0;
    long vcores = 0;
    for (SchedulerApplication<?> app : scheduler.getSchedulerApplications().values()) {
      SchedulerApplicationAttempt attempt = app.getCurrentAppAttempt();
      if (attempt == null) {
        continue;
      }
      for (RMContainer c : attempt.getLiveContainers()) {
        memory += c.getContainer().getResource().getMemorySize();
        vcores += c.getContainer().getResource().getVirtualCores();
      }
    }
    List<String> out = new ArrayList<>(ConsistencyCheck.of(scheduler));
    long rootMemory = scheduler.getRootQueueMetrics().getAllocatedMB();
    long rootVcores = scheduler.getRootQueueMetrics().getAllocatedVirtualCores();
    if (rootMemory != memory || rootVcores != vcores) {
      out.add(String.format("root queue uses %d MB/%d vcores; live containers hold %d MB/%d"
          + " vcores", rootMemory, rootVcores, memory, vcores));
    }
    return out;
  }
}
