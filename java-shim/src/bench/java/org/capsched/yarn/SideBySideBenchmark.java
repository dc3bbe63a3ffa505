package org.capsched.yarn;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.ListenerNotFoundException;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockNodes;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeUpdateSchedulerEvent;
import org.apache.hadoop.yarn.server.utils.BuilderUtils;
import org.apache.hadoop.yarn.util.Records;
import org.capsched.yarn.harness.RmHarness;
import org.slf4j.event.Level;

/**
 * Performance of Apache's CapacityScheduler and ours, side by side in one JVM and one run,
 * on identical inputs through the RM's own objects: a real ResourceManager (MockRM), nodes
 * as the RM's RMNode objects, applications added with APP_ADDED / APP_ATTEMPT_ADDED, asks
 * through {@code allocate()}, and NODE_UPDATE events timed one by one — the way Apache's
 * own TestCapacitySchedulerPerf drives its scheduler. Applications and attempts are
 * stand-ins that answer what a scheduler asks of them (Apache's test uses mocks for the
 * same purpose), so no time goes into AM launches.
 *
 * <p>Measures (a) allocation throughput while a backlog is placed, (b) heartbeats per
 * second when every user is at its limit, (c) heartbeat latency percentiles, (d) heap and
 * native memory with the cluster full, (e) refresh time with 1,000 queues, the longest
 * heartbeat stall a refresh causes and how long ours holds the scheduler's lock (which
 * Apache's holds for the whole refresh). Each figure is the median of several repetitions after
 * a warm-up run; (f) times one capacity preemption round with the cluster full, Apache's
 * policy on Apache's scheduler against ours, and the longest heartbeat stall it causes.
 * Writes a Markdown report to {@code capsched.report.dir}/benchmark.md.
 *
 * <p>Run: {@code gradle :java-shim:benchmark [-Pscale=small]}.
 */
public final class SideBySideBenchmark {
  private static final int GB = 1024;
  private static final String DRF =
      "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator";
  private static final String MEMORY =
      "org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator";

  private SideBySideBenchmark() {
  }

  /**
   * A {@code perf record --control=fifo:CTL,ACK} session to sample the timed part of the
   * throughput runs alone ({@code -Dcapsched.bench.perf-control=CTL,ACK}; no-op without).
   */
  static final class PerfControl {
    private final String[] fifos;
    // Held open for the JVM's life: perf reads its control fifo as a stream.
    private java.io.OutputStream control;
    private java.io.InputStream ack;

    PerfControl(String spec) {
      fifos = spec == null ? new String[0] : spec.split(",");
    }

    void enable() throws IOException {
      send("enable");
    }

    void disable() throws IOException {
      send("disable");
    }

    private void send(String command) throws IOException {
      if (fifos.length != 2) {
        return;
      }
      if (control == null) {
        control = Files.newOutputStream(Paths.get(fifos[0]));
        ack = Files.newInputStream(Paths.get(fifos[1]));
      }
      control.write((command + "\n").getBytes(StandardCharsets.US_ASCII));
      control.flush();
      // perf answers "ack\n" once it has done it.
      byte[] answer = new byte[4];
      int got = 0;
      while (got < answer.length) {
        int r = ack.read(answer, got, answer.length - got);
        if (r < 0) {
          throw new IOException("perf closed its ack fifo");
        }
        got += r;
      }
    }
  }

  static final PerfControl PERF = new PerfControl(System.getProperty("capsched.bench.perf-control"));

  /** One cluster size. */
  static final class Shape {
    final int nodes;
    final int parents;
    final int leavesPerParent;
    final int apps;
    final int nodeGb;

    Shape(int nodes, int parents, int leavesPerParent, int apps, int nodeGb) {
      this.nodes = nodes;
      this.parents = parents;
      this.leavesPerParent = leavesPerParent;
      this.apps = apps;
      this.nodeGb = nodeGb;
    }

    int queues() {
      return parents * leavesPerParent;
    }

    /** 1 GB containers the cluster holds: every application asks for its share. */
    int slots() {
      return nodes * nodeGb;
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%,d nodes, %,d queues, %,d apps", nodes, queues(), apps);
    }
  }

  /**
   * capacity-scheduler.xml: {@code parents} parents of {@code leaves} leaves, equal shares.
   * With {@code idleShare} > 0 a further leaf "idle" takes that percentage and the others
   * hold each user to a tenth of their guarantee (user-limit-factor 0.1): every user at its
   * limit and still asking while the cluster has room. Otherwise users may take the whole cluster. Each
   * {@code version} sets a different maximum-am-resource-percent, so that successive
   * refreshes change something in every queue.
   */
  static String config(Shape s, String calculator, double idleShare, int version) {
    StringBuilder b = new StringBuilder("<configuration>");
    prop(b, "resource-calculator", calculator);
    prop(b, "maximum-am-resource-percent", version % 2 == 0 ? "1.0" : "0.99");
    // High enough that no per-queue or per-user application limit refuses an application.
    prop(b, "maximum-applications", "1000000");
    // Containers a heartbeat may place (Apache's default 1): -PoffSwitch raises it for all.
    prop(b, "per-node-heartbeat.maximum-offswitch-assignments",
        Integer.toString(Integer.getInteger("capsched.bench.offswitch", 1)));
    List<String> top = new ArrayList<>();
    for (int p = 0; p < s.parents; p++) {
      top.add("p" + p);
    }
    if (idleShare > 0) {
      top.add("idle");
      prop(b, "root.idle.capacity", fmt(idleShare));
    }
    prop(b, "root.queues", String.join(",", top));
    double parentShare = (100 - idleShare) / s.parents;
    for (int p = 0; p < s.parents; p++) {
      String parent = "root.p" + p;
      prop(b, parent + ".capacity", fmt(parentShare));
      List<String> leaves = new ArrayList<>();
      for (int l = 0; l < s.leavesPerParent; l++) {
        leaves.add("l" + l);
      }
      prop(b, parent + ".queues", String.join(",", leaves));
      for (int l = 0; l < s.leavesPerParent; l++) {
        String leaf = parent + ".l" + l;
        prop(b, leaf + ".capacity", fmt(100.0 / s.leavesPerParent));
        // Held: each user to a tenth of the leaf's guarantee (asks are twice that).
        prop(b, leaf + ".user-limit-factor", idleShare > 0 ? "0.1" : "100");
      }
    }
    return b.append("</configuration>").toString();
  }

  private static void prop(StringBuilder b, String name, String value) {
    b.append("<property><name>yarn.scheduler.capacity.").append(name).append("</name><value>")
        .append(value).append("</value></property>");
  }

  private static String fmt(double v) {
    return String.format(Locale.ROOT, "%.6f", v);
  }

  /** A running RM with one scheduler, its nodes and applications. */
  static final class Cluster implements AutoCloseable {
    final MockRM rm;
    final YarnConfiguration conf;
    final AbstractYarnScheduler<?, ?> scheduler;
    final List<RMNode> nodes = new ArrayList<>();
    final List<ApplicationAttemptId> attempts = new ArrayList<>();

    Cluster(Class<? extends ResourceScheduler> type, String xml, Shape s) throws Exception {
      if (type == FloorScheduler.class) {
        xml = xml.replace("<configuration>", "<configuration><property><name>"
            + FloorScheduler.FLOOR_KEY + "</name><value>true</value></property>");
      }
      conf = RmHarness.configuration(type, xml.getBytes(StandardCharsets.UTF_8));
      rm = RmHarness.start(conf);
      scheduler = (AbstractYarnScheduler<?, ?>) rm.getResourceScheduler();
      for (int i = 0; i < s.nodes; i++) {
        RMNode node = MockNodes.newNodeInfo(i / 40, Resource.newInstance(s.nodeGb * GB, s.nodeGb),
            i, "10." + (i / 65536) + "." + (i / 256 % 256) + "." + (i % 256));
        nodes.add(node);
        scheduler.handle(new NodeAddedSchedulerEvent(node));
      }
      int leaves = s.queues();
      for (int i = 0; i < s.apps; i++) {
        int leaf = i % leaves;
        String queue = "root.p" + (leaf / s.leavesPerParent) + ".l" + (leaf % s.leavesPerParent);
        // Ten users per leaf, as in a shared cluster.
        String user = "u" + (i / leaves % 10);
        attempts.add(addApp(i, queue, user));
      }
      rm.drainEvents();
    }

    ApplicationAttemptId addApp(int i, String queue, String user) {
      ApplicationId id = BuilderUtils.newApplicationId(100, i + 1);
      ApplicationAttemptId attemptId = BuilderUtils.newApplicationAttemptId(id, 1);
      RMAppAttempt attempt = standIn(RMAppAttempt.class, attemptStandIn(attemptId));
      rm.getRMContext().getRMApps().put(id, standIn(RMApp.class, appStandIn(id, attempt)));
      scheduler.handle(new AppAddedSchedulerEvent(id, queue, user));
      scheduler.handle(new AppAttemptAddedSchedulerEvent(attemptId, false));
      return attemptId;
    }

    private Map<String, Object> attemptStandIn(ApplicationAttemptId attemptId) {
      Map<String, Object> answers = new LinkedHashMap<>();
      // The AM is running: its container exists (the scheduler does not place it here).
      Container am = BuilderUtils.newContainer(ContainerId.newContainerId(attemptId, 0),
          null, null, Resource.newInstance(GB, 1), Priority.newInstance(0), null);
      answers.put("getMasterContainer", am);
      answers.put("getAppAttemptId", attemptId);
      answers.put("getRMAppAttemptMetrics", new RMAppAttemptMetrics(attemptId, rm.getRMContext()));
      answers.put("getSubmissionContext", Records.newRecord(ApplicationSubmissionContext.class));
      return answers;
    }

    private Map<String, Object> appStandIn(ApplicationId id, RMAppAttempt attempt) {
      Map<String, Object> answers = new LinkedHashMap<>();
      answers.put("getApplicationId", id);
      answers.put("getCurrentAppAttempt", attempt);
      answers.put("getRMAppAttempt", attempt);
      answers.put("getAMResourceRequests", Collections.singletonList(ResourceRequest.newInstance(
          Priority.newInstance(0), ResourceRequest.ANY, Resource.newInstance(GB, 1), 1)));
      answers.put("getApplicationSubmissionContext",
          Records.newRecord(ApplicationSubmissionContext.class));
      return answers;
    }

    /**
     * The application's attempt finishes and the application is removed, as the RM ends
     * them: the scheduler returns whatever it still held.
     */
    void removeApp(ApplicationAttemptId a) {
      scheduler.handle(new AppAttemptRemovedSchedulerEvent(a, RMAppAttemptState.FINISHED, false));
      scheduler.handle(new AppRemovedSchedulerEvent(a.getApplicationId(), RMAppState.FINISHED));
      rm.getRMContext().getRMApps().remove(a.getApplicationId());
    }

    /** Each application asks for {@code count} containers of 1 GB, 1 vcore. */
    void askAll(int count) {
      for (ApplicationAttemptId a : attempts) {
        ask(a, count);
      }
    }

    /** The application asks for {@code count} containers of 1 GB, 1 vcore. */
    void ask(ApplicationAttemptId a, int count) {
      ResourceRequest any = ResourceRequest.newInstance(Priority.newInstance(1),
          ResourceRequest.ANY, Resource.newInstance(GB, 1), count);
      scheduler.allocate(a, new ArrayList<>(Collections.singletonList(any)),
          Collections.emptyList(), Collections.<ContainerId>emptyList(), null, null,
          new ContainerUpdates());
    }

    long allocatedContainers() {
      return scheduler.getRootQueueMetrics().getAllocatedContainers();
    }

    /** One NODE_UPDATE, as the RM delivers it; returns its duration in nanoseconds. */
    long heartbeat(RMNode node) {
      long t0 = System.nanoTime();
      scheduler.handle(new NodeUpdateSchedulerEvent(node));
      return System.nanoTime() - t0;
    }

    @Override
    public void close() {
      rm.stop();
    }
  }

  /** A stand-in for an RM interface: named answers, and defaults for everything else. */
  @SuppressWarnings("unchecked")
  static <T> T standIn(Class<T> type, Map<String, Object> answers) {
    return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
        (proxy, method, args) -> {
          if (answers.containsKey(method.getName())) {
            return answers.get(method.getName());
          }
          switch (method.getName()) {
          case "hashCode":
            return System.identityHashCode(proxy);
          case "equals":
            return proxy == args[0];
          case "toString":
            return type.getSimpleName() + answers.values().iterator().next();
          default:
            Class<?> r = method.getReturnType();
            if (r == Map.class) {
              return Collections.emptyMap();
            }
            if (r == List.class) {
              return Collections.emptyList();
            }
            if (r == Set.class) {
              return Collections.emptySet();
            }
            // A primitive's default is what a fresh one-element array of it holds.
            return r.isPrimitive() && r != void.class
                ? java.lang.reflect.Array.get(java.lang.reflect.Array.newInstance(r, 1), 0) : null;
          }
        });
  }

  // ----- measurements ---------------------------------------------------------------------

  /** What one throughput run measured. */
  static final class Throughput {
    long containers;
    double seconds;
    long heartbeats;
    long[] latencies;
    long heapBytes;
    long nativeBytes;

    double perSecond() {
      return containers / seconds;
    }
  }

  /**
   * (a), (c), (d): every application asks for its share of the cluster; all nodes heartbeat
   * in rounds until a round places nothing. Times every heartbeat; then measures memory
   * with the cluster full.
   */
  static Throughput throughput(Class<? extends ResourceScheduler> type, Shape s, String calc,
      boolean measureMemory) throws Exception {
    long heapBefore = usedHeapAfterGc();
    long nativeBefore = NativeScheduler.nativeHeapBytes();
    Throughput t = new Throughput();
    try (Cluster c = new Cluster(type, config(s, calc, 0, 0), s)) {
      c.askAll(Math.max(1, s.slots() / s.apps));
      long[] latencies = new long[s.nodes * (s.slots() / s.nodes + 4) * 2];
      int n = 0;
      PERF.enable();
      long start = System.nanoTime();
      long placed = c.allocatedContainers();
      while (true) {
        long before = placed;
        for (RMNode node : c.nodes) {
          long dt = c.heartbeat(node);
          if (n < latencies.length) {
            latencies[n++] = dt;
          }
        }
        placed = c.allocatedContainers();
        if (placed == before) {
          break;
        }
      }
      t.seconds = (System.nanoTime() - start) / 1e9;
      PERF.disable();
      t.containers = placed;
      t.heartbeats = n;
      t.latencies = Arrays.copyOf(latencies, n);
      if (measureMemory) {
        c.rm.drainEvents();
        t.heapBytes = usedHeapAfterGc() - heapBefore;
        t.nativeBytes = NativeScheduler.nativeHeapBytes() - nativeBefore;
      }
    }
    return t;
  }

  /**
   * (b): leaves hold their users to their guarantee and an idle leaf keeps half the cluster
   * free, so after a fill every heartbeat walks the tree and places nothing. Returns
   * heartbeats per second over {@code rounds} rounds of all nodes.
   */
  static double noOpHeartbeats(Class<? extends ResourceScheduler> type, Shape s, String calc,
      int rounds) throws Exception {
    try (Cluster c = new Cluster(type, config(s, calc, 50, 0), s)) {
      c.askAll(Math.max(1, s.slots() / s.apps));
      long placed = -1;
      while (placed != c.allocatedContainers()) {
        placed = c.allocatedContainers();
        for (RMNode node : c.nodes) {
          c.heartbeat(node);
        }
      }
      long pendingMb = c.scheduler.getRootQueueMetrics().getPendingMB();
      if (placed > s.slots() * 3 / 4 || pendingMb == 0) {
        throw new IllegalStateException(String.format(Locale.ROOT,
            "%s: the fill should leave room and asks (placed %d of %d, pending %d MB)",
            type.getSimpleName(), placed, s.slots(), pendingMb));
      }
      long total = 0;
      for (int r = 0; r < rounds; r++) {
        for (RMNode node : c.nodes) {
          total += c.heartbeat(node);
        }
      }
      if (c.allocatedContainers() != placed) {
        throw new IllegalStateException(type.getSimpleName() + " placed containers in the no-op phase");
      }
      return (double) rounds * c.nodes.size() / (total / 1e9);
    }
  }

  /**
   * (e): refresh time, the longest heartbeat while refreshes run and otherwise, the JVM's
   * collection time during refreshes, ours' lock hold (median, longest) and the longest
   * collection pause while the heartbeats ran.
   */
  static double[] refresh(Class<? extends ResourceScheduler> type, Shape s, String calc,
      int refreshes) throws Exception {
    try (Cluster c = new Cluster(type, config(s, calc, 50, 0), s)) {
      c.askAll(Math.max(1, s.slots() / s.apps));
      for (int r = 0; r < 3; r++) {
        for (RMNode node : c.nodes) {
          c.heartbeat(node);
        }
      }
      HeartbeatWatch watch = new HeartbeatWatch(c);
      URL file = c.conf.getClassLoader().getResource(YarnConfiguration.CS_CONFIGURATION_FILE);
      Path path = Paths.get(file.toURI());
      long[] times = new long[refreshes];
      long[] held = new long[refreshes];
      long gcDuring = 0;
      for (int r = 0; r < refreshes; r++) {
        Files.write(path, config(s, calc, 50, r + 1).getBytes(StandardCharsets.UTF_8));
        long gc0 = gcMillis();
        watch.begin();
        long t0 = System.nanoTime();
        c.scheduler.reinitialize(new YarnConfiguration(c.conf), c.rm.getRMContext());
        times[r] = System.nanoTime() - t0;
        watch.end();
        if (c.scheduler instanceof RustCapacityScheduler) {
          held[r] = ((RustCapacityScheduler) c.scheduler).refreshHeldNanos();
        }
        gcDuring += gcMillis() - gc0;
        Thread.sleep(100);
      }
      watch.close();
      Arrays.sort(times);
      Arrays.sort(held);
      return new double[] {times[refreshes / 2] / 1e6, times[refreshes - 1] / 1e6,
          watch.longestDuring.get() / 1e6, gcDuring, watch.longestOtherwise.get() / 1e6,
          held[refreshes / 2] / 1e6, held[refreshes - 1] / 1e6, watch.longestCollection.get()};
    }
  }

  /**
   * Heartbeats of every node in turn on a thread of their own while timed operations (a
   * refresh, a preemption round) run between {@link #begin} and {@link #end}: the longest
   * heartbeat that overlapped one, and the longest otherwise; and the longest pause of the
   * JVM's collectors meanwhile, which holds every thread up (a heartbeat longer than any
   * operation and any scheduler lock is one).
   */
  static final class HeartbeatWatch {
    /** Operations' starts and ends: odd while one runs. */
    private final AtomicLong edges = new AtomicLong();
    private final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong longestDuring = new AtomicLong();
    final AtomicLong longestOtherwise = new AtomicLong();
    /** The longest collection the JVM reported while the heartbeats ran, in ms. */
    final AtomicLong longestCollection = new AtomicLong();
    private final NotificationListener collections = (notification, handback) -> {
      if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
          notification.getType())) {
        long ms = GarbageCollectionNotificationInfo.from(
            (CompositeData) notification.getUserData()).getGcInfo().getDuration();
        longestCollection.accumulateAndGet(ms, Math::max);
      }
    };
    private final Thread thread;

    /**
     * Starts the heartbeats, and lets them run half a second before anything is timed. The
     * heap is collected first, so that the garbage of the runs before (the previous
     * scheduler's whole cluster among it) is not collected in this one's window.
     */
    HeartbeatWatch(Cluster c) throws InterruptedException {
      usedHeapAfterGc();
      // G1's young and full collections (JDK 17 reports no concurrent phases here): each
      // is a pause of every Java thread.
      for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
        ((NotificationEmitter) gc).addNotificationListener(collections, null, null);
      }
      thread = new Thread(() -> {
        int i = 0;
        while (!stop.get()) {
          long before = edges.get();
          long dt = c.heartbeat(c.nodes.get(i++ % c.nodes.size()));
          // A heartbeat an operation held up ends after it: it counts as during one if one
          // ran at any moment of the heartbeat.
          boolean overlapped = before % 2 == 1 || edges.get() != before;
          (overlapped ? longestDuring : longestOtherwise).accumulateAndGet(dt, Math::max);
        }
      }, "heartbeats");
      thread.start();
      Thread.sleep(500);
    }

    void begin() {
      edges.incrementAndGet();
    }

    void end() {
      edges.incrementAndGet();
    }

    /** Stops the heartbeats. */
    void close() throws InterruptedException {
      stop.set(true);
      thread.join();
      for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
        try {
          ((NotificationEmitter) gc).removeNotificationListener(collections);
        } catch (ListenerNotFoundException e) {
          throw new IllegalStateException(e);
        }
      }
    }
  }

  /** Time the JVM's collectors have spent so far, in milliseconds. */
  static long gcMillis() {
    long total = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      total += Math.max(0, gc.getCollectionTime());
    }
    return total;
  }

  static long usedHeapAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static long percentile(long[] sorted, double p) {
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
  }

  private static double median(double[] v) {
    double[] c = v.clone();
    Arrays.sort(c);
    return c[c.length / 2];
  }

  // ----- the run --------------------------------------------------------------------------

  public static void main(String[] args) throws Exception {
    // The RM leaves non-daemon threads behind: end the JVM whatever happens.
    int status = 1;
    try {
      run();
      status = 0;
    } catch (Throwable t) {
      t.printStackTrace();
    } finally {
      System.exit(status);
    }
  }

  private static void run() throws Exception {
    boolean small = "small".equals(System.getProperty("capsched.bench.scale", "full"));
    String parts = System.getProperty("capsched.bench.parts", "abcdef");
    int reps = Integer.getInteger("capsched.bench.reps", small ? 1 : 5);
    // Apache takes minutes to register 5,000 nodes under 1,000 queues; each no-op figure
    // is already an average over every node's heartbeat.
    int largeNoOpReps = Integer.getInteger("capsched.bench.large-noop-reps", 1);
    // The calculators (a) and (b) run, by the names the report gives them; both unless told.
    List<String> calculators = new ArrayList<>();
    for (String name : System.getProperty("capsched.bench.calculators", "memory,drf").split(",")) {
      calculators.add(Arrays.asList(MEMORY, DRF).stream()
          .filter(calc -> shortName(calc).equalsIgnoreCase(name.trim())).findFirst()
          .orElseThrow(() -> new IllegalArgumentException("capsched.bench.calculators: '"
              + name + "' is not a calculator of the benchmark (memory, drf)")));
    }
    GenericTestUtils.setRootLogLevel(Level.ERROR);
    List<Shape> shapes = small
        ? Arrays.asList(new Shape(100, 2, 5, 100, 20), new Shape(200, 10, 10, 400, 20))
        : Arrays.asList(new Shape(1000, 10, 10, 1000, 20), new Shape(5000, 10, 100, 10000, 20));
    Shape largest = shapes.get(shapes.size() - 1);
    Report report = new Report(Paths.get(System.getProperty("capsched.report.dir", "build/reports")));

    if (Boolean.getBoolean("capsched.bench.profile")) {
      // One scheduler alone (ours unless -PprofileScheduler names another of the report's
      // columns), repeatedly, for a profiler attached to this JVM; at the first cluster
      // size, or the largest with -PprofileShape=largest.
      int runs = Integer.getInteger("capsched.bench.profile-runs", 5);
      Class<? extends ResourceScheduler> profiled =
          ALL.get(NAMES.indexOf(System.getProperty("capsched.bench.profile-scheduler", "ours")));
      Shape profiledShape =
          "largest".equals(System.getProperty("capsched.bench.profile-shape")) ? largest : shapes.get(0);
      for (int r = 0; r < runs; r++) {
        Throughput t = throughput(profiled, profiledShape, MEMORY, false);
        System.out.printf(Locale.ROOT, "  profile run %d: %,.0f containers/s%n", r, t.perSecond());
      }
      return;
    }

    // The JIT takes several runs of the first shape to settle (a run's rate rose from 24k
    // to 55k containers/s over its first ten in ours): each scheduler runs it that often
    // under both calculators before anything is measured.
    int warmRuns = Integer.getInteger("capsched.bench.warmup-runs", small ? 1 : 10);
    System.out.println("warming up both schedulers (" + warmRuns + " runs each)");
    Shape warm = new Shape(200, 4, 5, 200, 20);
    for (Class<? extends ResourceScheduler> type : ALL) {
      for (int r = 0; r < warmRuns; r++) {
        for (String calc : calculators) {
          throughput(type, shapes.get(0), calc, false);
        }
      }
      if (BOTH.contains(type)) {
        noOpHeartbeats(type, warm, MEMORY, 5);
      }
    }

    if (parts.contains("a")) {
      report.section("(a) allocation throughput, containers per second (median of " + reps
          + "; the floor decides nothing, see FloorScheduler; the stock floor places as the"
          + " floor does on Apache's objects, see StockFloorScheduler)",
          "| cluster | calculator | Apache | ours | floor | stock floor | ours/Apache"
              + " | floor/ours | floor's time / stock floor's |",
          "|---|---|---|---|---|---|---|---|---|");
      for (Shape s : shapes) {
        for (String calc : calculators) {
          double[][] runs = new double[ALL.size()][reps];
          // The schedulers take turns within each repetition, so that drift in the
          // machine's speed falls on all three alike.
          for (int r = 0; r < reps; r++) {
            for (int k = 0; k < ALL.size(); k++) {
              Throughput t = throughput(ALL.get(k), s, calc, false);
              runs[k][r] = t.perSecond();
              System.out.printf(Locale.ROOT, "  %s %s %s: %,d containers in %.2f s%n",
                  ALL.get(k).getSimpleName(), s, shortName(calc), t.containers, t.seconds);
            }
          }
          double[] rate = new double[ALL.size()];
          for (int k = 0; k < ALL.size(); k++) {
            rate[k] = median(runs[k]);
          }
          report.row(String.format(Locale.ROOT,
              "| %s | %s | %s | %s | %s | %s | %.2f× | %.2f× | %.2f× |", s, shortName(calc),
              spread(runs[0]), spread(runs[1]), spread(runs[2]), spread(runs[3]),
              rate[1] / rate[0], rate[2] / rate[1], rate[3] / rate[2]));
        }
      }
    }

    if (parts.contains("b")) {
      report.section("(b) heartbeats per second when every user is at its limit"
          + " (median (min–max) of " + reps + "; " + largeNoOpReps
          + " at the largest size; the two taking turns)",
          "| cluster | calculator | Apache | ours | ratio |", "|---|---|---|---|---|");
      for (Shape s : shapes) {
        int n = s == largest && !small ? largeNoOpReps : reps;
        for (String calc : calculators) {
          double[][] runs = new double[2][n];
          // The two take turns within each repetition, as in (a), so that drift in the
          // machine's speed falls on both alike.
          for (int r = 0; r < n; r++) {
            for (int k = 0; k < 2; k++) {
              runs[k][r] = noOpHeartbeats(BOTH.get(k), s, calc, small ? 3 : 1);
              System.out.printf(Locale.ROOT, "  %s %s %s: %,.0f no-op heartbeats/s%n",
                  BOTH.get(k).getSimpleName(), s, shortName(calc), runs[k][r]);
            }
          }
          report.row(String.format(Locale.ROOT, "| %s | %s | %s | %s | %.1f× |", s,
              shortName(calc), spread(runs[0]), spread(runs[1]),
              median(runs[1]) / median(runs[0])));
        }
      }
    }

    if (parts.contains("c") || parts.contains("d")) {
      Throughput[] t = new Throughput[ALL.size()];
      for (int k = 0; k < ALL.size(); k++) {
        t[k] = throughput(ALL.get(k), largest, MEMORY, true);
      }
      report.section("(c) heartbeat latency while the backlog is placed (" + largest
          + ", memory), microseconds", "| | p50 | p99 | max |", "|---|---|---|---|");
      long[][] pct = new long[ALL.size()][];
      for (int k = 0; k < ALL.size(); k++) {
        long[] l = t[k].latencies.clone();
        Arrays.sort(l);
        pct[k] = new long[] {percentile(l, 0.5), percentile(l, 0.99), l[l.length - 1]};
        report.row(String.format(Locale.ROOT, "| %s | %.1f | %.1f | %,.0f |",
            NAMES.get(k), pct[k][0] / 1e3, pct[k][1] / 1e3, pct[k][2] / 1e3));
      }
      report.row(String.format(Locale.ROOT, "| ratio (Apache / ours) | %.1f× | %.1f× | %.1f× |",
          (double) pct[0][0] / pct[1][0], (double) pct[0][1] / pct[1][1],
          (double) pct[0][2] / pct[1][2]));
      report.row(String.format(Locale.ROOT, "| ratio (ours / floor) | %.2f× | %.2f× | %.2f× |",
          (double) pct[1][0] / pct[2][0], (double) pct[1][1] / pct[2][1],
          (double) pct[1][2] / pct[2][2]));
      report.row(String.format(Locale.ROOT,
          "| ratio (floor / stock floor) | %.2f× | %.2f× | %.2f× |",
          (double) pct[2][0] / pct[3][0], (double) pct[2][1] / pct[3][1],
          (double) pct[2][2] / pct[3][2]));

      report.section(String.format(Locale.ROOT,
          "(d) memory with the cluster full (%s, %,d running containers), MiB", largest,
          t[0].containers), "| | JVM heap | native | total |", "|---|---|---|---|");
      report.row(String.format(Locale.ROOT, "| Apache | %,.0f | 0 | %,.0f |",
          mib(t[0].heapBytes), mib(t[0].heapBytes)));
      report.row(String.format(Locale.ROOT, "| ours | %,.0f | %,.0f | %,.0f |",
          mib(t[1].heapBytes), mib(t[1].nativeBytes), mib(t[1].heapBytes + t[1].nativeBytes)));
      report.row(String.format(Locale.ROOT, "| ratio (Apache / ours) | | | %.2f× |",
          (double) t[0].heapBytes / (t[1].heapBytes + t[1].nativeBytes)));
    }

    if (parts.contains("e")) {
      report.section("(e) refresh with " + largest.queues() + " queues (5 refreshes), milliseconds",
          "| | refresh (median) | longest refresh | longest heartbeat during refreshes"
              + " | JVM garbage collection during refreshes | longest heartbeat otherwise"
              + " | longest collection pause | the scheduler's lock held (median, longest) |",
          "|---|---|---|---|---|---|---|---|");
      for (int k = 0; k < 2; k++) {
        double[] r = refresh(BOTH.get(k), largest, MEMORY, 5);
        // Apache's reinitialize holds its scheduler's write lock from start to end.
        report.row(String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.0f | %.1f | %.0f | %s |",
            k == 0 ? "Apache" : "ours", r[0], r[1], r[2], r[3], r[4], r[7],
            k == 0 ? "the whole refresh" : String.format(Locale.ROOT, "%.2f, %.2f", r[5], r[6])));
      }
    }
    if (parts.contains("f")) {
      report.section("(f) one capacity preemption round with the cluster full (" + largest
          + "; half the leaves at twice their guarantee, the others asking), milliseconds",
          "| | round (median of 5) | longest round | containers marked | longest heartbeat"
              + " during rounds | longest heartbeat otherwise | longest collection pause |",
          "|---|---|---|---|---|---|---|");
      for (int k = 0; k < 2; k++) {
        double[] r = preemption(BOTH.get(k), largest, MEMORY, 5);
        report.row(String.format(Locale.ROOT, "| %s | %.1f | %.1f | %,.0f | %.1f | %.1f | %.0f |",
            k == 0 ? "Apache" : "ours", r[0], r[1], r[2], r[3], r[4], r[5]));
      }
    }
    System.out.println();
    System.out.println(report.text);
  }

  /**
   * (f): the even-numbered leaves' applications fill the cluster (twice their leaves'
   * guarantee), then the odd-numbered ones ask for their share; one preemption round
   * ({@code rounds} times, with heartbeats running meanwhile) of Apache's policy on Apache's
   * scheduler, or ours on ours, on a clock that stands still (so nothing is killed).
   * Returns the median and longest round (ms), the containers marked in the first round,
   * the longest heartbeat during rounds and otherwise (ms), and the longest collection
   * pause while the heartbeats ran (ms).
   */
  static double[] preemption(Class<? extends ResourceScheduler> type, Shape s, String calc,
      int rounds) throws Exception {
    String xml = config(s, calc, 0, 0).replace("</configuration>",
        "<property><name>yarn.resourcemanager.scheduler.monitor.enable</name>"
            + "<value>true</value></property></configuration>");
    try (Cluster c = new Cluster(type, xml, s)) {
      int leaves = s.queues();
      int share = Math.max(1, s.slots() / s.apps);
      for (int i = 0; i < c.attempts.size(); i++) {
        int ask = (i % leaves) % 2 == 0 ? 2 * share : 0;
        c.ask(c.attempts.get(i), ask);
      }
      long placed = -1;
      while (placed != c.allocatedContainers()) {
        placed = c.allocatedContainers();
        for (RMNode node : c.nodes) {
          c.heartbeat(node);
        }
      }
      for (int i = 0; i < c.attempts.size(); i++) {
        if ((i % leaves) % 2 == 1) {
          c.ask(c.attempts.get(i), share);
        }
      }
      org.apache.hadoop.yarn.util.ControlledClock clock =
          new org.apache.hadoop.yarn.util.ControlledClock();
      clock.setTime(1_000_000L);
      org.apache.hadoop.yarn.server.resourcemanager.monitor.SchedulingEditPolicy policy;
      if (c.scheduler instanceof CapacityScheduler) {
        policy = new org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity
            .ProportionalCapacityPreemptionPolicy(c.rm.getRMContext(),
                (CapacityScheduler) c.scheduler, clock);
      } else {
        policy = new RustPreemptionPolicy(clock);
        policy.init(c.conf, c.rm.getRMContext(), c.scheduler);
      }
      HeartbeatWatch watch = new HeartbeatWatch(c);
      double[] times = new double[rounds];
      long marked = 0;
      for (int r = 0; r < rounds; r++) {
        watch.begin();
        long t0 = System.nanoTime();
        policy.editSchedule();
        times[r] = (System.nanoTime() - t0) / 1e6;
        watch.end();
        if (r == 0) {
          c.rm.drainEvents();
          for (ApplicationAttemptId a : c.attempts) {
            marked += c.scheduler.getApplicationAttempt(a) == null ? 0
                : ((org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica
                    .FiCaSchedulerApp) c.scheduler.getApplicationAttempt(a))
                    .getAllocation(c.scheduler.getResourceCalculator(),
                        c.scheduler.getClusterResource(), c.scheduler.getMinimumResourceCapability())
                    .getContainerPreemptions().size();
          }
        }
        Thread.sleep(200);
      }
      watch.close();
      double[] sorted = times.clone();
      Arrays.sort(sorted);
      return new double[] {median(times), sorted[sorted.length - 1], marked,
          watch.longestDuring.get() / 1e6, watch.longestOtherwise.get() / 1e6,
          watch.longestCollection.get()};
    }
  }

  private static final List<Class<? extends ResourceScheduler>> BOTH =
      Arrays.asList(CapacityScheduler.class, RustCapacityScheduler.class);
  /** Apache's, ours, the floor and the stock floor, in the order of the report's columns. */
  private static final List<Class<? extends ResourceScheduler>> ALL =
      Arrays.asList(CapacityScheduler.class, RustCapacityScheduler.class, FloorScheduler.class,
          StockFloorScheduler.class);
  private static final List<String> NAMES =
      Arrays.asList("Apache", "ours", "floor", "stock floor");

  /** A median with the spread of the runs: "median (min–max)". */
  private static String spread(double[] runs) {
    double[] sorted = runs.clone();
    Arrays.sort(sorted);
    return sorted.length == 1 ? String.format(Locale.ROOT, "%,.0f", sorted[0])
        : String.format(Locale.ROOT, "%,.0f (%,.0f–%,.0f)", median(sorted), sorted[0],
            sorted[sorted.length - 1]);
  }

  /** The Markdown report, written out after every row so a long run loses nothing. */
  private static final class Report {
    final Path file;
    final StringBuilder text = new StringBuilder();

    Report(Path dir) throws IOException {
      Files.createDirectories(dir);
      file = dir.resolve("benchmark.md");
    }

    void section(String title, String header, String rule) throws IOException {
      text.append(text.length() == 0 ? "" : "\n").append("### ").append(title).append("\n\n")
          .append(header).append('\n').append(rule).append('\n');
      flush();
    }

    void row(String line) throws IOException {
      text.append(line).append('\n');
      System.out.println(line);
      flush();
    }

    private void flush() throws IOException {
      Files.write(file, text.toString().getBytes(StandardCharsets.UTF_8));
    }
  }

  private static String shortName(String calculator) {
    return calculator.equals(DRF) ? "DRF" : "memory";
  }

  private static double mib(long bytes) {
    return bytes / (1024.0 * 1024.0);
  }
}
