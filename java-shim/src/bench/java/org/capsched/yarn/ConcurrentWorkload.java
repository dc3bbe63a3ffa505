package org.capsched.yarn;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

import one.profiler.AsyncProfiler;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.protocolrecords.GetQueueInfoRequest;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairSchedulerConfiguration;
import org.capsched.yarn.harness.RestView;
import org.capsched.yarn.harness.RmHarness;

/**
 * One scheduler under a real ResourceManager's concurrent load, as a production RM sees it
 * (issue 21): the RM's own services in one process - NodeManagers heartbeating through the
 * resource tracker and reporting containers that finish continuously, many threads of
 * ApplicationMasters calling the real {@code ApplicationMasterService.allocate} (asks of
 * mixed sizes, half with node and rack preferences; releases; pulls), and a client reading
 * queue information and the REST scheduler view all the while. Each run is one scheduler in
 * its own JVM (the {@code workload} task takes turns across schedulers and repetitions) and
 * prints one result line; {@code report} turns the result files into a Markdown table.
 *
 * <p>Measured over a window after a warm-up: containers per second handed to the AMs;
 * ask-to-allocation latency (from the allocate() that asked to the one that returned the
 * container) p50/p99/max; allocate() latency p50/p99/max; process CPU per container; JVM
 * garbage collection; the resident set at the end.
 *
 * <p>ApplicationMasters are unmanaged (their attempts need no AM container), so the load is
 * the tasks' containers alone. The CPU figure is the whole process's: the load generator's
 * threads (the same code for every scheduler) included.
 */
public final class ConcurrentWorkload {
  private static final int GB = 1024;
  private static final int USERS = 20;

  private final String scheduler;
  private final boolean atBest;
  /**
   * The refresh mode: Apache's default settings, 1,000 queues, and a refresh of every
   * queue's settings every {@code refreshEveryMs} (the scheduler reinitialized as the admin service does it).
   */
  private final boolean refreshing;
  private final int queues;
  private final int refreshEveryMs = Integer.getInteger("capsched.workload.refresh-every-ms", 2000);
  private final int nodes = Integer.getInteger("capsched.workload.nodes", 500);
  private final int nodeGb = Integer.getInteger("capsched.workload.node-gb", 16);
  private final int apps = Integer.getInteger("capsched.workload.apps", 1000);
  private final int amThreads = Integer.getInteger("capsched.workload.am-threads", 16);
  private final int nmThreads = Integer.getInteger("capsched.workload.nm-threads", 4);
  private final int readers = Integer.getInteger("capsched.workload.readers", 1);
  private final int heartbeatMs = Integer.getInteger("capsched.workload.heartbeat-ms", 1000);
  private final int outstanding = Integer.getInteger("capsched.workload.outstanding", 4);
  private final int warmupS = Integer.getInteger("capsched.workload.warmup-s", 10);
  private final int windowS = Integer.getInteger("capsched.workload.window-s", 20);
  /**
   * Where to write CPU samples of every thread over the window (async-profiler's collapsed
   * stacks), whose split by {@link CpuSplit} the result line then carries; none by default.
   */
  private final String cpuProfile = System.getProperty("capsched.workload.cpu-profile");

  private volatile boolean running = true;
  private volatile boolean measuring;
  private final AtomicLong placed = new AtomicLong();
  private final List<long[]> askLatencies = Collections.synchronizedList(new ArrayList<>());
  private final List<long[]> allocateLatencies = Collections.synchronizedList(new ArrayList<>());
  private final AtomicLong clientReads = new AtomicLong();

  private ConcurrentWorkload(String scheduler, String mode) {
    this.scheduler = scheduler;
    this.atBest = mode.equals("at-best");
    this.refreshing = mode.equals("refresh");
    this.queues = Integer.getInteger("capsched.workload.queues", refreshing ? 1000 : 10);
  }

  /** A container an AM holds, due to be reported finished by its node. */
  private static final class Due {
    final ContainerId id;
    final long at;

    Due(ContainerId id, long at) {
      this.id = id;
      this.at = at;
    }
  }

  /** An application: its AM, its container size, whether it prefers nodes, its open asks. */
  private static final class Job {
    final MockAM am;
    final Resource size;
    final boolean local;
    /** When each container still asked for was asked for (oldest first). */
    final ArrayDeque<Long> asked = new ArrayDeque<>();
    final List<ContainerId> release = new ArrayList<>();

    Job(MockAM am, Resource size, boolean local) {
      this.am = am;
      this.size = size;
      this.local = local;
    }
  }

  /**
   * {@code run SCHEDULER MODE OUT}: one measured run (SCHEDULER apache, ours or fair, MODE default,
   * at-best or refresh, which FairScheduler has no part in), its result line appended to OUT. {@code report DIR OUT}: the Markdown table
   * of every result in DIR.
   */
  public static void main(String[] args) throws Exception {
    if (args.length == 3 && args[0].equals("report")) {
      report(Paths.get(args[1]), Paths.get(args[2]));
      return;
    }
    if (args.length != 4 || !args[0].equals("run")
        || !Arrays.asList("default", "at-best", "refresh").contains(args[2])
        || (args[2].equals("refresh") && args[1].equals("fair"))) {
      throw new IllegalArgumentException(
          "usage: run apache|ours|fair default|at-best OUT | run apache|ours refresh OUT | report DIR OUT");
    }
    ConcurrentWorkload w = new ConcurrentWorkload(args[1], args[2]);
    String line = w.run();
    System.out.println(line);
    Files.write(Paths.get(args[3]), (line + "\n").getBytes(StandardCharsets.UTF_8),
        java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    System.exit(0);
  }

  /**
   * The queues' file; {@code generation} changes every queue's ApplicationMaster share, for
   * the refresh mode's refreshes.
   */
  private String capacitySchedulerXml(int generation) {
    List<String> pairs = new ArrayList<>();
    StringBuilder names = new StringBuilder();
    String share = String.format(Locale.ROOT, "%.4f", 100.0 / queues);
    for (int q = 0; q < queues; q++) {
      names.append(q == 0 ? "" : ",").append("q").append(q);
      pairs.addAll(Arrays.asList("root.q" + q + ".capacity", share,
          "root.q" + q + ".maximum-capacity", "100",
          "root.q" + q + ".user-limit-factor", "10",
          "root.q" + q + ".minimum-user-limit-percent", "25"));
      if (refreshing) {
        pairs.addAll(Arrays.asList("root.q" + q + ".maximum-am-resource-percent",
            generation % 2 == 0 ? "0.5" : "0.6"));
      }
    }
    pairs.addAll(Arrays.asList("root.queues", names.toString(),
        "maximum-applications", "100000"));
    if (atBest) {
      // Apache at its best: scheduling in its own thread, not on the heartbeat, and many
      // off-switch containers a heartbeat. Ours reads the same file (and the off-switch
      // limit; it has no asynchronous mode).
      pairs.addAll(Arrays.asList("schedule-asynchronously.enable", "true",
          "schedule-asynchronously.maximum-threads", "1",
          "per-node-heartbeat.maximum-offswitch-assignments", "16"));
    }
    return RmHarness.xml(pairs.toArray(new String[0]));
  }

  /**
   * FairScheduler's allocation file for the same queues: leaves of equal weight (it has
   * no user-limit-factor or minimum user limit; every application may run).
   */
  private String fairSchedulerXml() {
    StringBuilder b = new StringBuilder("<?xml version=\"1.0\"?><allocations>");
    for (int q = 0; q < queues; q++) {
      b.append("<queue name=\"q").append(q).append("\"><weight>1.0</weight></queue>");
    }
    return b.append("</allocations>").toString();
  }

  private String run() throws Exception {
    Class<? extends ResourceScheduler> type = scheduler.equals("apache")
        ? (refreshing ? TimedSchedulers.Apache.class : CapacityScheduler.class)
        : scheduler.equals("fair") ? FairScheduler.class
        : (refreshing ? TimedSchedulers.Ours.class : RustCapacityScheduler.class);
    YarnConfiguration conf = RmHarness.configuration(type,
        capacitySchedulerXml(0).getBytes(StandardCharsets.UTF_8));
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, GB);
    if (type == FairScheduler.class) {
      Path allocations = Files.createTempFile("capsched-fair-", ".xml");
      allocations.toFile().deleteOnExit();
      Files.write(allocations, fairSchedulerXml().getBytes(StandardCharsets.UTF_8));
      conf.set(FairSchedulerConfiguration.ALLOCATION_FILE, allocations.toString());
      if (atBest) {
        // FairScheduler at its best: many containers a heartbeat (its continuous scheduling
        // thread is deprecated and left off).
        conf.setBoolean(FairSchedulerConfiguration.ASSIGN_MULTIPLE, true);
        conf.setBoolean(FairSchedulerConfiguration.DYNAMIC_MAX_ASSIGN, false);
        conf.setInt(FairSchedulerConfiguration.MAX_ASSIGN, 16);
      }
    }
    MockRM rm = RmHarness.start(conf);
    try {
      return measure(rm, conf);
    } finally {
      running = false;
      rm.stop();
    }
  }

  /** The run, on an RM started with {@code conf}. */
  private String measure(MockRM rm, YarnConfiguration conf) throws Exception {
    Random random = new Random(42);
    List<MockNM> nms = new ArrayList<>();
    for (int n = 0; n < nodes; n++) {
      // IP addresses: the RM resolves a node's host at every heartbeat, and a made-up
      // name would wait on the resolver each time.
      nms.add(rm.registerNode("127.3." + (n / 250) + "." + (n % 250 + 1) + ":1234", nodeGb * GB,
          nodeGb));
    }
    List<Job> jobs = new ArrayList<>();
    for (int a = 0; a < apps; a++) {
      MockRMAppSubmissionData data = MockRMAppSubmissionData.Builder
          .createWithResource(Resource.newInstance(GB, 1), rm)
          .withQueue("q" + (a % queues))
          .withUser("u" + (a % USERS))
          .withAppName("job" + a)
          .withUnmanagedAM(true)
          .withWaitForAppAcceptedState(false)
          .build();
      RMApp app = MockRMAppSubmitter.submit(rm, data);
      RMAppAttempt attempt = launched(app);
      MockAM am = new MockAM(rm.getRMContext(), rm.getApplicationMasterService(),
          attempt.getAppAttemptId());
      am.registerAppAttempt(false);
      int gb = new int[] {1, 1, 2, 4}[random.nextInt(4)];
      jobs.add(new Job(am, Resource.newInstance(gb * GB, 1), a % 2 == 0));
    }

    List<ConcurrentLinkedQueue<Due>> finishing = new ArrayList<>();
    for (int n = 0; n < nodes; n++) {
      finishing.add(new ConcurrentLinkedQueue<>());
    }
    Map<String, Integer> nodeOf = new java.util.HashMap<>();
    for (int n = 0; n < nodes; n++) {
      nodeOf.put(nms.get(n).getNodeId().getHost(), n);
    }
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    for (int t = 0; t < nmThreads; t++) {
      final int first = t;
      threads.add(loop("nm-" + t, failures, () -> {
        long started = System.nanoTime();
        // Each thread's nodes heartbeat spread over the period, as a cluster's NodeManagers,
        // started at different times, do (not all at once).
        int mine = (nodes - first + nmThreads - 1) / nmThreads;
        int k = 0;
        for (int n = first; n < nodes && running; n += nmThreads) {
          pace(started, (int) ((long) heartbeatMs * k++ / mine));
          List<ContainerStatus> done = new ArrayList<>();
          long now = System.currentTimeMillis();
          ConcurrentLinkedQueue<Due> queue = finishing.get(n);
          for (java.util.Iterator<Due> it = queue.iterator(); it.hasNext();) {
            Due d = it.next();
            if (d.at <= now) {
              done.add(ContainerStatus.newInstance(d.id, ContainerState.COMPLETE, "done", 0));
              it.remove();
            }
          }
          nms.get(n).nodeHeartbeat(done, true);
        }
        pace(started, heartbeatMs);
      }));
    }
    for (int t = 0; t < amThreads; t++) {
      final int first = t;
      final Random r = new Random(7 + t);
      threads.add(loop("am-" + t, failures, () -> {
        long started = System.nanoTime();
        for (int j = first; j < jobs.size() && running; j += amThreads) {
          allocate(jobs.get(j), r, nms, nodeOf, finishing);
        }
        pace(started, heartbeatMs);
      }));
    }
    for (int t = 0; t < readers; t++) {
      threads.add(loop("client-" + t, failures, () -> {
        rm.getClientRMService().getQueueInfo(GetQueueInfoRequest.newInstance("root", true, true, true));
        RestView.json(rm.getResourceScheduler());
        clientReads.incrementAndGet();
        Thread.sleep(200);
      }));
    }
    if (refreshing) {
      Path file = Paths.get(conf.getResource(YarnConfiguration.CS_CONFIGURATION_FILE).toURI());
      int[] generation = {0};
      threads.add(loop("refresh", failures, () -> {
        Thread.sleep(refreshEveryMs);
        generation[0]++;
        // Written beside it and moved into place: the RM may read the file at any time.
        Path next = file.resolveSibling(file.getFileName() + ".next");
        Files.write(next, capacitySchedulerXml(generation[0]).getBytes(StandardCharsets.UTF_8));
        Files.move(next, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
            java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        // As the admin service's refreshQueues calls it, with the RM's configuration (which
        // names the file).
        rm.getResourceScheduler().reinitialize(new YarnConfiguration(conf), rm.getRMContext());
      }));
    }
    for (Thread t : threads) {
      t.start();
    }
    Thread.sleep(warmupS * 1000L);
    // Loaded before the window: its library's extraction is not the load's CPU.
    AsyncProfiler profiler = cpuProfile == null ? null : AsyncProfiler.getInstance();
    long cpu0 = processCpuNanos();
    long gc0 = gcMillis();
    long jit0 = jitMillis();
    long reads0 = clientReads.get();
    placed.set(0);
    if (profiler != null) {
      // Every thread's CPU, Java and native frames together, sampled each millisecond of
      // CPU it uses (perf_events where the kernel allows, else a CPU timer).
      profiler.execute("start,event=cpu,interval=1ms,threads");
    }
    measuring = true;
    TimedSchedulers.recording = true;
    long t0 = System.nanoTime();
    Thread.sleep(windowS * 1000L);
    TimedSchedulers.recording = false;
    measuring = false;
    double seconds = (System.nanoTime() - t0) / 1e9;
    long cpu = processCpuNanos() - cpu0;
    long gc = gcMillis() - gc0;
    long jit = jitMillis() - jit0;
    long reads = clientReads.get() - reads0;
    if (profiler != null) {
      // Stopped (and written) after the window's CPU was read: the writing is not the load's.
      profiler.execute("stop,collapsed,file=" + cpuProfile);
    }
    running = false;
    for (Thread t : threads) {
      t.join(30_000);
    }
    if (!failures.isEmpty()) {
      throw new IllegalStateException("a workload thread failed", failures.get(0));
    }
    long n = placed.get();
    long[] ask = merged(askLatencies);
    long[] alloc = merged(allocateLatencies);
    Map<String, String> out = new LinkedHashMap<>();
    out.put("scheduler", scheduler);
    out.put("mode", atBest ? "at-best" : refreshing ? "refresh" : "default");
    out.put("containers_per_s", fmt(n / seconds));
    out.put("ask_p50_ms", fmt(percentile(ask, 0.5) / 1e6));
    out.put("ask_p99_ms", fmt(percentile(ask, 0.99) / 1e6));
    out.put("ask_max_ms", fmt(percentile(ask, 1.0) / 1e6));
    out.put("allocate_p50_us", fmt(percentile(alloc, 0.5) / 1e3));
    out.put("allocate_p99_us", fmt(percentile(alloc, 0.99) / 1e3));
    out.put("allocate_max_ms", fmt(percentile(alloc, 1.0) / 1e6));
    out.put("cpu_us_per_container", fmt(n == 0 ? 0 : cpu / 1e3 / n));
    out.put("gc_ms", String.valueOf(gc));
    out.put("jit_ms", String.valueOf(jit));
    out.put("rss_mib", String.valueOf(rssMib()));
    out.put("client_reads_per_s", fmt(reads / seconds));
    out.put("allocate_calls", String.valueOf(alloc.length));
    if (cpuProfile != null && n > 0) {
      CpuSplit split = CpuSplit.of(Paths.get(cpuProfile), scheduler);
      out.put("cpu_samples", String.valueOf(split.total()));
      split.apportion(cpu / 1e3 / n).forEach((part, us) -> out.put(part.column(), fmt(us)));
    }
    if (refreshing) {
      refreshFigures(out);
    }
    StringBuilder line = new StringBuilder("RESULT");
    out.forEach((k, v) -> line.append(' ').append(k).append('=').append(v));
    return line.toString();
  }

  /**
   * The refresh mode's figures: how long the refreshes took and held the scheduler's lock
   * (median and longest), and the longest node heartbeat that ran at any moment of a refresh
   * against the longest at any other time.
   */
  private void refreshFigures(Map<String, String> out) {
    List<long[]> refreshes;
    List<long[]> heartbeats;
    synchronized (TimedSchedulers.REFRESHES) {
      refreshes = new ArrayList<>(TimedSchedulers.REFRESHES);
    }
    synchronized (TimedSchedulers.HEARTBEATS) {
      heartbeats = new ArrayList<>(TimedSchedulers.HEARTBEATS);
    }
    if (refreshes.isEmpty()) {
      throw new IllegalStateException("no refresh ran in the window");
    }
    long[] took = refreshes.stream().mapToLong(r -> r[1] - r[0]).sorted().toArray();
    long[] held = refreshes.stream().mapToLong(r -> r[2]).sorted().toArray();
    long during = 0;
    long otherwise = 0;
    long[] all = new long[heartbeats.size()];
    int i = 0;
    for (long[] h : heartbeats) {
      long length = h[1] - h[0];
      all[i++] = length;
      boolean overlaps = refreshes.stream().anyMatch(r -> h[0] < r[1] && h[1] > r[0]);
      if (overlaps) {
        during = Math.max(during, length);
      } else {
        otherwise = Math.max(otherwise, length);
      }
    }
    Arrays.sort(all);
    out.put("refreshes", String.valueOf(refreshes.size()));
    out.put("refresh_ms", fmt(percentile(took, 0.5) / 1e6));
    out.put("refresh_max_ms", fmt(percentile(took, 1.0) / 1e6));
    out.put("held_ms", fmt3(percentile(held, 0.5) / 1e6));
    out.put("held_max_ms", fmt3(percentile(held, 1.0) / 1e6));
    out.put("heartbeat_p50_us", fmt(percentile(all, 0.5) / 1e3));
    out.put("heartbeat_p99_us", fmt(percentile(all, 0.99) / 1e3));
    out.put("heartbeat_during_refresh_max_ms", fmt3(during / 1e6));
    out.put("heartbeat_otherwise_max_ms", fmt3(otherwise / 1e6));
  }

  /** One AM heartbeat of {@code job}: tops its asks up, takes what it was given. */
  private void allocate(Job job, Random r, List<MockNM> nms, Map<String, Integer> nodeOf,
      List<ConcurrentLinkedQueue<Due>> finishing) throws Exception {
    long now = System.nanoTime();
    int fresh = outstanding - job.asked.size();
    List<ResourceRequest> asks = new ArrayList<>();
    Priority priority = Priority.newInstance(1);
    if (fresh > 0) {
      for (int i = 0; i < fresh; i++) {
        job.asked.addLast(now);
      }
      if (job.local) {
        // A preferred node and its rack for the new containers; anywhere for all of them.
        String host = nms.get(r.nextInt(nms.size())).getNodeId().getHost();
        asks.add(ResourceRequest.newInstance(priority, host, job.size, fresh, true));
        asks.add(ResourceRequest.newInstance(priority, "/default-rack", job.size, fresh, true));
      }
      asks.add(ResourceRequest.newInstance(priority, ResourceRequest.ANY, job.size,
          job.asked.size(), true));
    }
    List<ContainerId> release = new ArrayList<>(job.release);
    job.release.clear();
    long t = System.nanoTime();
    AllocateResponse response = job.am.allocate(asks, release);
    long took = System.nanoTime() - t;
    long received = System.nanoTime();
    List<Container> got = response.getAllocatedContainers();
    long[] latencies = new long[got.size()];
    int wanted = 0;
    for (Container c : got) {
      Long askedAt = job.asked.pollFirst();
      if (askedAt == null) {
        // More than the AM still wanted: the ask it sent counted containers the RM had
        // placed but not yet handed over (every AM's race; AMRMClient's too). Given back.
        job.release.add(c.getId());
        continue;
      }
      latencies[wanted++] = received - askedAt;
      if (r.nextInt(20) == 0) {
        // One in twenty is not wanted after all: released at the next heartbeat.
        job.release.add(c.getId());
      } else {
        long lifetime = 1000 + r.nextInt(4000);
        finishing.get(nodeOf.get(c.getNodeId().getHost()))
            .add(new Due(c.getId(), System.currentTimeMillis() + lifetime));
      }
    }
    if (measuring) {
      placed.addAndGet(wanted);
      askLatencies.add(Arrays.copyOf(latencies, wanted));
      allocateLatencies.add(new long[] {took});
    }
  }

  private interface Step {
    void run() throws Exception;
  }

  private Thread loop(String name, List<Throwable> failures, Step step) {
    Thread t = new Thread(() -> {
      try {
        while (running) {
          step.run();
        }
      } catch (Throwable e) {
        if (running) {
          failures.add(e);
          running = false;
        }
      }
    }, "workload-" + name);
    t.setDaemon(true);
    return t;
  }

  /** Sleeps out the rest of a period that began at {@code startedNanos}. */
  private static void pace(long startedNanos, int periodMs) throws InterruptedException {
    long left = periodMs - (System.nanoTime() - startedNanos) / 1_000_000;
    if (left > 0) {
      Thread.sleep(left);
    }
  }

  /** The application's attempt once the RM has launched it (an unmanaged AM: at once). */
  private static RMAppAttempt launched(RMApp app) throws Exception {
    RMAppAttempt[] launched = new RMAppAttempt[1];
    org.apache.hadoop.test.GenericTestUtils.waitFor(() -> {
      RMAppAttempt attempt = app.getCurrentAppAttempt();
      launched[0] = attempt;
      return attempt != null && attempt.getAppAttemptState() == RMAppAttemptState.LAUNCHED;
    }, 1, 60_000);
    return launched[0];
  }

  private static long[] merged(List<long[]> parts) {
    synchronized (parts) {
      long[] out = new long[parts.stream().mapToInt(p -> p.length).sum()];
      int i = 0;
      for (long[] p : parts) {
        System.arraycopy(p, 0, out, i, p.length);
        i += p.length;
      }
      Arrays.sort(out);
      return out;
    }
  }

  private static double percentile(long[] sorted, double q) {
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank))];
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static long gcMillis() {
    long sum = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      sum += Math.max(0, gc.getCollectionTime());
    }
    return sum;
  }

  /**
   * The JIT compilers' time so far (ms, all their threads): spent inside the window, it says
   * the JVM was still warming up, and it is part of the CPU a container counts.
   */
  private static long jitMillis() {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    return jit != null && jit.isCompilationTimeMonitoringSupported()
        ? jit.getTotalCompilationTime() : -1;
  }

  private static long rssMib() throws IOException {
    for (String l : Files.readAllLines(Paths.get("/proc/self/status"))) {
      if (l.startsWith("VmRSS:")) {
        return Long.parseLong(l.replaceAll("[^0-9]", "")) / 1024;
      }
    }
    return -1;
  }

  private static String fmt(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }

  /** A figure of the report: three decimals below 10, one above. */
  private static String figure(double v) {
    return Math.abs(v) < 10 ? fmt3(v) : fmt(v);
  }

  private static String fmt3(double v) {
    return String.format(Locale.ROOT, "%.3f", v);
  }

  /** The Markdown table of every result line in the files of {@code dir}: median (min-max). */
  private static void report(Path dir, Path out) throws IOException {
    Map<String, List<Map<String, String>>> runs = new TreeMap<>();
    try (java.util.stream.Stream<Path> files = Files.list(dir)) {
      for (Path f : (Iterable<Path>) files.sorted()::iterator) {
        if (!f.getFileName().toString().endsWith(".txt")) {
          continue; // the CPU samples beside the results
        }
        for (String l : Files.readAllLines(f)) {
          if (!l.startsWith("RESULT ")) {
            continue;
          }
          Map<String, String> r = new LinkedHashMap<>();
          for (String kv : l.substring(7).split(" ")) {
            r.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
          }
          runs.computeIfAbsent(r.get("mode") + " " + r.get("scheduler"), k -> new ArrayList<>()).add(r);
        }
      }
    }
    StringBuilder md = new StringBuilder();
    table(md, runs, "containers_per_s", "ask_p50_ms", "ask_p99_ms", "ask_max_ms",
        "allocate_p50_us", "allocate_p99_us", "allocate_max_ms", "cpu_us_per_container", "gc_ms",
        "jit_ms", "rss_mib", "client_reads_per_s");
    Map<String, List<Map<String, String>>> profiledRuns = carrying(runs, "cpu_samples");
    if (!profiledRuns.isEmpty()) {
      // Where each container's CPU went (CpuSplit): microseconds of it in each part.
      md.append('\n');
      List<String> columns = new ArrayList<>();
      columns.add("cpu_us_per_container");
      Arrays.stream(CpuSplit.Part.values()).map(CpuSplit.Part::column).forEach(columns::add);
      columns.add("cpu_samples");
      table(md, profiledRuns, columns.toArray(new String[0]));
    }
    Map<String, List<Map<String, String>>> refreshRuns = carrying(runs, "refreshes");
    if (!refreshRuns.isEmpty()) {
      md.append('\n');
      table(md, refreshRuns, "refreshes", "refresh_ms", "refresh_max_ms", "held_ms", "held_max_ms",
          "heartbeat_p50_us", "heartbeat_p99_us", "heartbeat_during_refresh_max_ms", "heartbeat_otherwise_max_ms");
    }
    Files.write(out, md.toString().getBytes(StandardCharsets.UTF_8));
    System.out.print(md);
  }

  /** The rows of {@code runs} whose results carry {@code key}. */
  private static Map<String, List<Map<String, String>>> carrying(
      Map<String, List<Map<String, String>>> runs, String key) {
    Map<String, List<Map<String, String>>> out = new TreeMap<>();
    runs.forEach((k, v) -> {
      if (v.get(0).containsKey(key)) {
        out.put(k, v);
      }
    });
    return out;
  }

  /** One Markdown table of {@code runs}: each column's median (min-max) over a row's runs. */
  private static void table(StringBuilder md, Map<String, List<Map<String, String>>> runs,
      String... columns) {
    md.append("| mode, scheduler | runs |");
    for (String c : columns) {
      md.append(' ').append(c).append(" |");
    }
    md.append("\n|---|---|").append(String.join("", Collections.nCopies(columns.length, "---|")))
        .append('\n');
    for (Map.Entry<String, List<Map<String, String>>> e : runs.entrySet()) {
      md.append("| ").append(e.getKey()).append(" | ").append(e.getValue().size()).append(" |");
      for (String c : columns) {
        double[] v = e.getValue().stream().mapToDouble(r -> Double.parseDouble(r.get(c))).sorted().toArray();
        md.append(' ').append(figure(v[v.length / 2])).append(" (").append(figure(v[0])).append('–')
            .append(figure(v[v.length - 1])).append(") |");
      }
      md.append('\n');
    }
  }
}
