package org.capsched.yarn;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where a process's CPU went, from CPU samples of every thread with Java and native frames
 * together (async-profiler's collapsed stacks with thread names, as {@link
 * ConcurrentWorkload} records them over its window): each sample is put in one {@link Part}
 * by its thread and its frames.
 *
 * <p>A sample is the scheduler's when any frame on its stack is one of the scheduler's own
 * classes or of the attempt classes every capacity scheduler shares ({@code fica}). Below
 * its deepest own frame, the scheduler either runs its own code (with the JDK's and
 * Hadoop's arithmetic on {@code Resource}s, in Java or in our native core) or calls into
 * the ResourceManager's own classes that every scheduler keeps in step for each container
 * (the RM container and its transitions, the request table, the queue metrics, the node,
 * the attempt's tokens, the base class's node update): {@link Part#RM_BOOKKEEPING}. What is
 * not below a scheduler frame is the RM's and the load's own: the AMs' calls into the
 * ApplicationMasterService outside the scheduler, the NodeManagers' heartbeats through the
 * resource tracker, the RM's dispatcher, the client reads. The collector and the JIT
 * compiler are apart: neither can be put on one caller.
 */
final class CpuSplit {
  /** What a sample was doing. */
  enum Part {
    /** The scheduler's own code, in Java. */
    SCHEDULER,
    /** The scheduler's own code in our native core. */
    CORE,
    /** The RM's own classes the scheduler keeps in step for each container. */
    RM_BOOKKEEPING,
    /** An ApplicationMaster thread, outside the scheduler. */
    AM,
    /** A NodeManager thread, outside the scheduler. */
    NM,
    /** The RM's event dispatcher threads, outside the scheduler. */
    DISPATCHER,
    /** The client reading queue information and the REST view, outside the scheduler. */
    CLIENT,
    /** The collector's threads, its concurrent refinement and the VM thread's operations. */
    GC,
    /** The JIT compiler's threads. */
    JIT,
    /** Anything else (timers, the RM's other services, the harness's own main thread). */
    OTHER;

    /** Its column in the workload's result line and report: microseconds a container. */
    String column() {
      return "cpu_us_" + name().toLowerCase(Locale.ROOT);
    }
  }

  private static final String RM = "org/apache/hadoop/yarn/server/resourcemanager/scheduler/";

  /**
   * The packages whose frames are the scheduler's own, by the workload's scheduler names:
   * Apache's attempt classes ({@code fica}) are its own; ours' attempt extends them, and what
   * it calls there is the RM's bookkeeping that every scheduler keeps.
   */
  private static final Map<String, List<String>> OWN = Map.of(
      "apache", List.of(RM + "capacity/", RM + "common/fica/"),
      "fair", List.of(RM + "fair/"),
      "ours", List.of("org/capsched/"));

  /** The attempt classes both capacity schedulers' attempts are. */
  private static final String SHARED_ATTEMPT = RM + "common/fica/";

  /** The ResourceManager's own classes (and its dispatcher's), below a scheduler's frame. */
  private static final List<String> RM_CLASSES = List.of(
      "org/apache/hadoop/yarn/server/resourcemanager/", "org/apache/hadoop/yarn/event/");

  /** Our package's bench and test classes: the load, not the scheduler. */
  private static final List<String> NOT_OURS = List.of(
      "org/capsched/yarn/ConcurrentWorkload", "org/capsched/yarn/TimedSchedulers",
      "org/capsched/yarn/harness/");

  private final long[] samples = new long[Part.values().length];

  private CpuSplit() {
  }

  /** The split of {@code collapsed} (one stack a line, its thread first, its count last). */
  static CpuSplit of(Path collapsed, String scheduler) throws IOException {
    List<String> own = OWN.get(scheduler);
    if (own == null) {
      throw new IllegalArgumentException("no scheduler named " + scheduler);
    }
    CpuSplit split = new CpuSplit();
    try (BufferedReader in = Files.newBufferedReader(collapsed, StandardCharsets.UTF_8)) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        int space = line.lastIndexOf(' ');
        if (space < 0) {
          continue;
        }
        long count = Long.parseLong(line.substring(space + 1));
        String[] frames = line.substring(0, space).split(";");
        Part part = classify(frames, own);
        split.samples[part.ordinal()] += count;
      }
    }
    return split;
  }

  private static Part classify(String[] frames, List<String> own) {
    String thread = frames[0];
    if (thread.startsWith("[C1 CompilerThre") || thread.startsWith("[C2 CompilerThre")) {
      return Part.JIT;
    }
    if (thread.startsWith("[GC Thread") || thread.startsWith("[G1 ") || thread.startsWith("[VM Thread")
        || Arrays.stream(frames).anyMatch(f -> f.startsWith("ConcurrentGCThread::")
            || f.startsWith("G1ConcurrentRefineThread::"))) {
      return Part.GC;
    }
    int deepestOwn = -1;
    boolean sharedAttempt = false;
    for (int i = 1; i < frames.length; i++) {
      if (ownFrame(frames[i], own)) {
        deepestOwn = i;
      }
      sharedAttempt |= frames[i].startsWith(SHARED_ATTEMPT);
    }
    if (deepestOwn >= 0 || sharedAttempt) {
      if (Arrays.stream(frames).anyMatch(f -> f.startsWith("Java_org_capsched_")
          || f.startsWith("capsched::") || f.startsWith("<capsched::"))) {
        return Part.CORE;
      }
      // What the scheduler's deepest own frame called, if anything.
      String callee = deepestOwn >= 0 && deepestOwn + 1 < frames.length ? frames[deepestOwn + 1] : "";
      boolean rm = deepestOwn < 0 || RM_CLASSES.stream().anyMatch(callee::startsWith);
      return rm ? Part.RM_BOOKKEEPING : Part.SCHEDULER;
    }
    if (thread.startsWith("[workload-am-")) {
      return Part.AM;
    }
    if (thread.startsWith("[workload-nm-")) {
      return Part.NM;
    }
    if (thread.startsWith("[workload-client-")) {
      return Part.CLIENT;
    }
    if (thread.startsWith("[AsyncDispatcher") || thread.contains("Event Processor")) {
      return Part.DISPATCHER;
    }
    return Part.OTHER;
  }

  private static boolean ownFrame(String frame, List<String> own) {
    return own.stream().anyMatch(frame::startsWith) && NOT_OURS.stream().noneMatch(frame::startsWith);
  }

  /** Each part's share of {@code cpuMicros}, in the parts' order. */
  Map<Part, Double> apportion(double cpuMicros) {
    long total = total();
    Map<Part, Double> out = new EnumMap<>(Part.class);
    for (Part p : Part.values()) {
      out.put(p, total == 0 ? 0 : cpuMicros * samples[p.ordinal()] / total);
    }
    return out;
  }

  /** How many samples there were. */
  long total() {
    return Arrays.stream(samples).sum();
  }
}
