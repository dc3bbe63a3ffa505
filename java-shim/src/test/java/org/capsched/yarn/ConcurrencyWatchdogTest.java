package org.capsched.yarn;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.apache.hadoop.util.ExitUtil;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.protocolrecords.MoveApplicationAcrossQueuesRequest;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.capsched.yarn.harness.RestView;
import org.capsched.yarn.harness.RmHarness;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Every caller a real ResourceManager has, at once, through the RM's own services:
 * ApplicationMasters calling {@code allocate()} on their own threads (as the RM's IPC
 * handlers do), NodeManagers heartbeating (NODE_UPDATEs on the scheduler's dispatcher
 * thread), {@code -refreshQueues} (accepted and refused), moves between queues, and readers
 * of queue information, the REST scheduler view and the queue metrics.
 *
 * <p>A watchdog times every call: one that runs past its deadline, or threads the JVM finds
 * deadlocked, fail the run with a dump of every thread; the longest call of each kind goes
 * to build/reports/concurrency.md. Readers check that what they see is one moment's state
 * (a parent's usage is its children's, in the queue information and in the REST view; a
 * leaf's, its users'). At the end the core and the RM's
 * objects agree (the consistency check), and every kind of call ran many times, so the run
 * cannot pass without exercising each.
 */
public class ConcurrencyWatchdogTest {
  private static final int GB = 1024;
  /** How long the callers run together. */
  private static final long LOAD_MS = 15_000;
  /** The longest any one call may take: a blocked call never returns; a slow one is seconds. */
  private static final long DEADLINE_MS = 30_000;

  private static final String FIRST = RmHarness.xml("root.queues", "a,b",
      "root.a.capacity", "50", "root.b.capacity", "50", "root.a.maximum-capacity", "100",
      "root.b.maximum-capacity", "100", "maximum-am-resource-percent", "1.0",
      "root.a.user-limit-factor", "4", "root.b.user-limit-factor", "4");
  private static final String SECOND = FIRST.replace("<value>50</value>", "<value>XX</value>")
      .replaceFirst("XX", "30").replaceFirst("XX", "70");
  /** Capacities summing to 110%: refused, and nothing may change. */
  private static final String REFUSED = FIRST.replaceFirst("<value>50</value>",
      "<value>60</value>");

  private MockRM rm;
  private final Watchdog watchdog = new Watchdog();
  private final ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
  private final Map<String, AtomicLong> calls = new ConcurrentHashMap<>();
  /** The longest call of each kind, in microseconds. */
  private final Map<String, AtomicLong> longest = new ConcurrentHashMap<>();
  private volatile boolean stop;

  @Before
  public void noExit() {
    ExitUtil.disableSystemExit();
    ExitUtil.resetFirstExitException();
  }

  @After
  public void stopRm() {
    stop = true;
    watchdog.close();
    if (rm != null) {
      rm.stop();
    }
  }

  @Test(timeout = 300_000)
  public void everyCallerAtOnceNeitherBlocksNorSeesAHalfDoneChange() throws Exception {
    YarnConfiguration conf = RmHarness.configuration(RustCapacityScheduler.class,
        FIRST.getBytes(StandardCharsets.UTF_8));
    rm = RmHarness.start(conf);
    RustCapacityScheduler scheduler = (RustCapacityScheduler) rm.getResourceScheduler();
    // The ApplicationMasters start on the first node; the others join after.
    List<MockNM> nodes = new ArrayList<>();
    nodes.add(rm.registerNode("h0:1234", 32 * GB, 32));
    List<MockAM> ams = new ArrayList<>();
    List<RMApp> apps = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      RMApp app = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
          .createWithMemory(GB, rm).withQueue(i % 2 == 0 ? "a" : "b").withUser("u" + (i % 3))
          .build());
      apps.add(app);
      ams.add(MockRM.launchAndRegisterAM(app, rm, nodes.get(0)));
    }
    for (int i = 1; i < 6; i++) {
      nodes.add(rm.registerNode("h" + i + ":1234", 16 * GB, 16));
    }

    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < ams.size(); i++) {
      MockAM am = ams.get(i);
      long seed = i;
      threads.add(caller("am-" + i, () -> applicationMaster(am, new Random(seed))));
    }
    for (int t = 0; t < 2; t++) {
      int first = t;
      threads.add(caller("nm-" + t, () -> {
        for (int n = first; n < nodes.size(); n += 2) {
          MockNM nm = nodes.get(n);
          call("node heartbeat", () -> nm.nodeHeartbeat(true));
        }
      }));
    }
    URL file = conf.getClassLoader().getResource(YarnConfiguration.CS_CONFIGURATION_FILE);
    String[] configs = {SECOND, REFUSED, FIRST};
    AtomicLong refreshes = new AtomicLong();
    threads.add(caller("refresher", () -> {
      String xml = configs[(int) (refreshes.getAndIncrement() % configs.length)];
      Files.write(Paths.get(file.toURI()), xml.getBytes(StandardCharsets.UTF_8));
      try {
        call("refresh", () -> {
          scheduler.reinitialize(new YarnConfiguration(conf), rm.getRMContext());
          return xml;
        });
        assertFalse("a refresh summing to 110% was accepted", xml.equals(REFUSED));
      } catch (java.io.IOException refused) {
        assertTrue(RmHarness.reason(refused), xml.equals(REFUSED));
        count("refused refresh");
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
    }));
    Random moves = new Random(7);
    threads.add(caller("mover", () -> {
      ApplicationId app = apps.get(moves.nextInt(apps.size())).getApplicationId();
      String target = moves.nextBoolean() ? "a" : "b";
      try {
        call("move", () -> rm.getClientRMService().moveApplicationAcrossQueues(
            MoveApplicationAcrossQueuesRequest.newInstance(app, target)));
      } catch (YarnException refused) {
        count("refused move");
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
    }));
    for (int t = 0; t < 2; t++) {
      threads.add(caller("reader-" + t, () -> {
        QueueInfo root = call("queue info", () -> scheduler.getQueueInfo("root", true, true));
        assertWhole(root);
        call("queue ACLs", () -> scheduler.getQueueUserAclInfo());
        String json = call("REST scheduler view", () -> RestView.json(scheduler));
        assertTrue(json, json.contains("\"queueName\":\"a\""));
        assertWholeView(VIEW.readTree(json).path("scheduler").path("schedulerInfo"), json);
        call("queue metrics", () -> QueueMetrics.getQueueMetrics().get("root").getAllocatedMB());
      }));
    }

    threads.forEach(Thread::start);
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LOAD_MS);
    while (System.nanoTime() < end && !stop && unexpected.isEmpty()) {
      watchdog.awaitFailure(end);
    }
    stop = true;
    for (Thread t : threads) {
      t.join(DEADLINE_MS);
    }
    if (watchdog.failure != null) {
      fail(watchdog.failure);
    }
    if (!unexpected.isEmpty()) {
      AssertionError e = new AssertionError("a caller failed: " + unexpected.peek(),
          unexpected.peek());
      unexpected.stream().skip(1).forEach(e::addSuppressed);
      throw e;
    }
    rm.drainEvents();
    List<String> differences = ConsistencyCheck.of(scheduler);
    assertTrue("the core and the RM disagree after the run:\n" + String.join("\n", differences),
        differences.isEmpty());
    assertFalse("the RM was stopped", ExitUtil.terminateCalled());
    String counts = new TreeMap<>(calls).toString();
    StringBuilder report = new StringBuilder(String.format(
        "# Every caller at once, %d ms%n%nCalls by kind: %s%n%nThe longest call of each kind:%n",
        LOAD_MS, counts));
    new TreeMap<>(longest).forEach((kind, micros) -> report.append(String.format(
        Locale.ROOT, "- %s: %.1f ms%n", kind, micros.get() / 1000.0)));
    System.out.print(report);
    Path out = Paths.get(System.getProperty("capsched.report.dir",
        "build/reports"), "concurrency.md");
    Files.createDirectories(out.getParent());
    Files.write(out, report.toString().getBytes(StandardCharsets.UTF_8));
    for (String kind : new String[] {"allocate", "node heartbeat", "queue info",
        "REST scheduler view", "queue metrics", "queue ACLs"}) {
      assertTrue(kind + " ran too few times: " + counts, count(kind, 0) >= 50);
    }
    assertTrue("containers allocated: " + counts, count("container allocated", 0) >= 100);
    assertTrue("refreshes: " + counts, count("refresh", 0) >= 10);
    assertTrue("refused refreshes: " + counts, count("refused refresh", 0) >= 3);
    assertTrue("moves: " + counts, count("move", 0) + count("refused move", 0) >= 20);
  }

  /** One AM heartbeat: asks for a few containers, releases some of those it holds. */
  private void applicationMaster(MockAM am, Random random) throws Exception {
    List<ContainerId> held = heldBy.computeIfAbsent(am, k -> new ArrayList<>());
    List<ContainerId> released = new ArrayList<>();
    for (int i = held.size() - 1; i >= 0; i--) {
      if (random.nextInt(3) == 0) {
        released.add(held.remove(i));
      }
    }
    List<ResourceRequest> asks = random.nextBoolean()
        ? Collections.singletonList(am.createResourceReq(ResourceRequest.ANY,
            GB * (1 + random.nextInt(2)), 1, 1 + random.nextInt(4)))
        : Collections.emptyList();
    AllocateResponse response = call("allocate", () -> am.allocate(asks, released));
    for (Container c : response.getAllocatedContainers()) {
      held.add(c.getId());
      count("container allocated");
    }
    for (ContainerStatus done : response.getCompletedContainersStatuses()) {
      held.remove(done.getContainerId());
    }
  }

  private final Map<MockAM, List<ContainerId>> heldBy = new ConcurrentHashMap<>();

  /** A parent's usage is the sum of its children's, in one reading (not a torn one). */
  private static void assertWhole(QueueInfo parent) {
    if (parent.getChildQueues().isEmpty()) {
      return;
    }
    double children = 0;
    for (QueueInfo child : parent.getChildQueues()) {
      children += child.getCurrentCapacity() * child.getCapacity();
      assertWhole(child);
    }
    double own = parent.getCurrentCapacity() * parent.getCapacity();
    assertTrue(parent.getQueuePath() + " uses " + own + " of its parent; its children "
        + children, Math.abs(own - children) < 1e-4);
  }

  private static final ObjectMapper VIEW = new ObjectMapper();

  /**
   * The REST scheduler view is one reading, not a torn one: a parent's used memory, vcores
   * and applications are its children's sums, a leaf's applications are its active and
   * pending ones, and its users' usage adds up to its own.
   */
  private static void assertWholeView(JsonNode queue, String json) {
    JsonNode children = queue.path("queues").path("queue");
    String name = queue.path("queuePath").asText(queue.path("queueName").asText());
    long memory = queue.path("resourcesUsed").path("memory").asLong();
    long vcores = queue.path("resourcesUsed").path("vCores").asLong();
    if (children.size() > 0) {
      long childMemory = 0;
      long childVcores = 0;
      long childApps = 0;
      for (JsonNode child : children) {
        childMemory += child.path("resourcesUsed").path("memory").asLong();
        childVcores += child.path("resourcesUsed").path("vCores").asLong();
        childApps += child.path("numApplications").asLong();
        assertWholeView(child, json);
      }
      // (The root's part of the document carries no usage of its own.)
      assertTrue(name + " uses " + memory + " MB/" + vcores + " vcores; its children "
          + childMemory + "/" + childVcores + ": " + json, !queue.has("resourcesUsed")
          || memory == childMemory && vcores == childVcores);
      if (queue.has("numApplications")) {
        assertTrue(name + " has " + queue.path("numApplications") + " applications; its"
            + " children " + childApps + ": " + json,
            queue.path("numApplications").asLong() == childApps);
      }
      return;
    }
    long apps = queue.path("numApplications").asLong();
    long activeAndPending = queue.path("numActiveApplications").asLong()
        + queue.path("numPendingApplications").asLong();
    assertTrue(name + " has " + apps + " applications, " + activeAndPending
        + " active or pending: " + json, apps == activeAndPending);
    long usersMemory = 0;
    for (JsonNode user : queue.path("users").path("user")) {
      usersMemory += user.path("resourcesUsed").path("memory").asLong();
    }
    assertTrue(name + " uses " + memory + " MB; its users " + usersMemory + ": " + json,
        memory == usersMemory);
  }

  // ----- callers and the watchdog --------------------------------------------------------

  private interface Step {
    void run() throws Exception;
  }

  private interface Call<T> {
    T call() throws Exception;
  }

  /** A thread that repeats {@code step} until the run stops, keeping what it throws. */
  private Thread caller(String name, Step step) {
    Thread t = new Thread(() -> {
      try {
        while (!stop) {
          step.run();
        }
      } catch (Throwable e) {
        unexpected.add(new AssertionError(name + ": " + e, e));
        stop = true;
      }
    }, "capsched-" + name);
    t.setDaemon(true);
    return t;
  }

  /** Runs one call under the watchdog's eye, and counts it. */
  private <T> T call(String what, Call<T> call) throws Exception {
    watchdog.enter(what);
    long start = System.nanoTime();
    try {
      T result = call.call();
      count(what);
      return result;
    } finally {
      watchdog.leave();
      long micros = (System.nanoTime() - start) / 1000;
      longest.computeIfAbsent(what, k -> new AtomicLong()).accumulateAndGet(micros, Math::max);
    }
  }

  private void count(String what) {
    calls.computeIfAbsent(what, k -> new AtomicLong()).incrementAndGet();
  }

  private long count(String what, long none) {
    AtomicLong n = calls.get(what);
    return n == null ? none : n.get();
  }

  /**
   * Watches the calls in flight: a call older than {@link #DEADLINE_MS}, or a deadlock
   * the JVM finds, is a failure, described with every thread's stack and the locks held.
   */
  private final class Watchdog implements AutoCloseable {
    private final Map<Thread, long[]> started = new ConcurrentHashMap<>();
    private final Map<Thread, String> what = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile String failure;

    Watchdog() {
      thread = new Thread(this::watch, "capsched-watchdog");
      thread.setDaemon(true);
      thread.start();
    }

    void enter(String call) {
      what.put(Thread.currentThread(), call);
      started.put(Thread.currentThread(), new long[] {System.nanoTime()});
    }

    void leave() {
      started.remove(Thread.currentThread());
    }

    /** Waits until the watchdog fails the run or {@code end} (nanoTime) comes. */
    synchronized void awaitFailure(long end) throws InterruptedException {
      long left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime());
      if (failure == null && left > 0) {
        wait(Math.min(left, 500));
      }
    }

    private void watch() {
      ThreadMXBean mx = ManagementFactory.getThreadMXBean();
      while (!stop && failure == null) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        long now = System.nanoTime();
        String late = null;
        for (Map.Entry<Thread, long[]> e : started.entrySet()) {
          long ms = TimeUnit.NANOSECONDS.toMillis(now - e.getValue()[0]);
          if (ms > DEADLINE_MS) {
            late = e.getKey().getName() + " has been in " + what.get(e.getKey()) + " for "
                + ms + " ms";
          }
        }
        long[] deadlocked = mx.findDeadlockedThreads();
        if (late != null || deadlocked != null) {
          StringBuilder dump = new StringBuilder(late != null ? late
              : "the JVM finds threads deadlocked").append("; every thread:\n");
          for (ThreadInfo info : mx.dumpAllThreads(true, true)) {
            dump.append(info);
          }
          synchronized (this) {
            failure = dump.toString();
            stop = true;
            notifyAll();
          }
        }
      }
    }

    @Override
    public void close() {
      thread.interrupt();
    }
  }
}
