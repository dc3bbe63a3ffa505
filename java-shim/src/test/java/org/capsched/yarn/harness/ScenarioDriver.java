package org.capsched.yarn.harness;

import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeys;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.net.DNSToSwitchMapping;
import org.apache.hadoop.net.NetworkTopology;
import org.apache.hadoop.security.Groups;
import org.apache.hadoop.util.Time;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateRequest;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.protocolrecords.MoveApplicationAcrossQueuesRequest;
import org.apache.hadoop.yarn.api.protocolrecords.UpdateApplicationPriorityRequest;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationTimeoutType;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.api.records.ExecutionType;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeLabel;
import org.apache.hadoop.yarn.api.records.PreemptionContainer;
import org.apache.hadoop.yarn.api.records.PreemptionMessage;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceBlacklistRequest;
import org.apache.hadoop.yarn.api.records.ResourceOption;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.InvalidResourceRequestException;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.api.protocolrecords.AddToClusterNodeLabelsRequest;
import org.apache.hadoop.yarn.server.api.protocolrecords.ReplaceLabelsOnNodeRequest;
import org.apache.hadoop.yarn.server.api.protocolrecords.UpdateNodeResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.MemoryRMStateStore;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.RMStateStore;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.monitor.SchedulingEditPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity.ProportionalCapacityPreemptionPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.api.protocolrecords.NMContainerStatus;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerState;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.AbstractLeafQueue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.AutoCreatedQueueDeletionPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CSAMContainerLaunchDiagnosticsConstants;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueueManagementDynamicEditPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ContainerExpiredSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeUpdateSchedulerEvent;
import org.capsched.yarn.ConsistencyCheck;
import org.capsched.yarn.RustCapacityScheduler;
import org.capsched.yarn.RustPreemptionPolicy;
import org.capsched.yarn.RustQueueDeletionPolicy;
import org.capsched.yarn.RustQueueManagementPolicy;
import org.apache.hadoop.yarn.util.ControlledClock;

/**
 * Drives one scenario file (see docs/scenario-format.md) through a real ResourceManager
 * (MockRM) with a given scheduler, the way an RM sees a cluster: NodeManagers register
 * and heartbeat, applications are submitted through the client service, their AMs
 * register and call {@code allocate()}, containers are released by the AMs and
 * applications are killed. After every step it takes a snapshot of what the RM's own
 * objects say — queue and user metrics, live and reserved containers per application,
 * node reservations, application states, the headroom each AM was last told — so two
 * schedulers can be compared step by step.
 *
 * <p>Differences from the Rust driver, the same for both schedulers: an AM's asks reach the
 * scheduler once the AM has been allocated and registered; {@code finish} is a release by
 * the AM. Node racks reach the RM as a real cluster's do, through its {@code RackResolver}
 * (see {@link ScenarioRacks}).
 */
public final class ScenarioDriver implements AutoCloseable {
  private static final int PORT = 1234;
  /** The cluster timestamp of every run: 2023-11-14, 22:13:20 UTC. */
  private static final long CLUSTER_TIMESTAMP = 1_700_000_000_000L;

  /** The RM now running: a {@code restart-rm} step replaces it. */
  private MockRM rm;
  /**
   * RMs a restart replaced. Each stays up until the driver closes, as Hadoop's own restart
   * tests keep theirs: stopping one would close the state store its successor reads.
   */
  private final List<MockRM> replaced = new ArrayList<>();
  /** Containers reported by returning nodes that the RM recovered. */
  private long recoveredFromReturns;
  /** Containers reported to restarted RMs that they recovered. */
  private long recoveredAfterRestarts;
  /** RM restarts so far; each restarted RM numbers its applications under a new timestamp. */
  private int restarts;
  /** The capacity-scheduler.xml the RM last accepted: what a restarted RM starts from. */
  private String acceptedXml;
  private final YarnConfiguration conf;
  private final Map<String, MockNM> nodes = new LinkedHashMap<>();
  /** Nodes a {@code lose-node} step lost, with what they ran then: they may come back. */
  private final Map<String, LostNode> lostNodes = new HashMap<>();
  /** Scenario node name to the loopback address standing for it. */
  private final Map<String, String> hosts = new HashMap<>();
  /** Nodes registered so far: each gets its own address, a re-added name a new one. */
  private int registered;
  private final Map<String, RMApp> apps = new LinkedHashMap<>();
  private final Map<String, MockAM> ams = new HashMap<>();
  private final Map<String, List<ResourceRequest>> waitingAsks = new HashMap<>();
  /** Task containers per application, oldest first, with their node. */
  private final Map<String, List<Container>> containers = new HashMap<>();
  /** The headroom each AM was told by its latest allocate() call. */
  private final Map<String, Resource> headrooms = new HashMap<>();

  /** The scheduler under test, for debugging aids. */
  public ResourceScheduler rmScheduler() {
    return rm.getResourceScheduler();
  }

  /** The reason each application's last refused move gave. */
  private final Map<String, String> refusedMoves = new HashMap<>();
  /** A node has been moved between partitions (label-node) during the run. */
  private boolean relabelled;
  /**
   * A refresh, accepted or refused, named a label for a queue that the configuration in
   * force after it does not (Apache's queue keeps what it worked out for that partition).
   */
  private boolean labelKeysDropped;
  /** Applications whose last allocate() the RM refused (an ask it does not accept), why. */
  private final Map<String, String> refusedAsks = new HashMap<>();
  /** The verdict of this step's expect line, if it is one (see {@link #expect}). */
  private String expectation;
  /** Priority changes the RM refused (a priority ACL), by application name: the reason. */
  private final Map<String, String> refusedPriorities = new HashMap<>();
  /**
   * Submissions the RM refused before it made an application (a priority ACL): the reason.
   * Later steps naming such an application are skipped, as a client would have nothing to
   * act on.
   */
  private final Map<String, String> refusedSubmissions = new java.util.TreeMap<>();
  /** The steps that name an application as their first word. */
  private static final java.util.Set<String> APPLICATION_STEPS = new java.util.HashSet<>(
      java.util.Arrays.asList("ask", "finish", "complete", "fail-am", "unregister", "blacklist",
          "remove", "move", "priority", "expire-am", "expire-container"));
  /** How the latest refresh ended: "accepted" or "refused". */
  private String lastRefresh;
  /**
   * The preemption policy's clock: {@code wait} moves it on. It starts well after zero, as
   * a real clock does, so that no remembered mark looks older than it is.
   */
  private final ControlledClock clock = new ControlledClock();
  /** The preemption policy the {@code preempt} step runs, made at its first round. */
  private SchedulingEditPolicy preemption;
  /**
   * Whether preemption for queues of higher priority is on: its selector takes a node's
   * containers oldest first by their creation times, in wall-clock milliseconds, and the
   * order of two created in the same millisecond comes from a hash map. Two runs cannot
   * share such ties, so each node update then starts in a millisecond of its own (see
   * {@link #heartbeat}).
   */
  private final boolean containerAgesMatter;
  /** The wall-clock millisecond the last node update ended in. */
  private long lastNodeUpdateMillis;
  /** When the last application was submitted, on the JVM's monotonic clock (ms). */
  private long lastSubmittedAt;
  /** The deletion of idle auto-created queues, made at the first {@code expire-queues}. */
  private SchedulingEditPolicy queueDeletion;
  /** The managed parents' queue management, made at the first {@code manage-queues}. */
  private SchedulingEditPolicy queueManagement;
  /** The kind of the last step (its first word). */
  private String lastStep;
  /** The exception the last {@code preempt} round failed with (its class), else null. */
  private String lastPreemptionFailure;
  /**
   * Whether our last preemption round hung on the order of equally under-served queues,
   * which Apache's policy takes from identity hash codes (see divergences.txt,
   * preemption-tie-order).
   */
  private boolean lastPreemptionTieOrderMattered;
  /** How many {@code manage-queues} rounds ran. */
  private int queueManagementRounds;
  /**
   * Apache's policy only: the selectors that chose containers in some round (simple class
   * names), for the coverage report — which of its selectors a scenario reached.
   */
  private final Set<String> selectorsThatChose = new TreeSet<>();
  /**
   * Per application, the containers its AM was told it will lose ({@code PreemptionMessage}),
   * by number, in the order told.
   */
  private final Map<String, List<Long>> toldPreempted = new HashMap<>();

  /**
   * Starts the RM with {@code configXml} and the scenario's {@code cluster} settings
   * (min-allocation, max-allocation, acl, max-priority; see docs/scenario-format.md).
   */
  public ScenarioDriver(Class<? extends ResourceScheduler> scheduler, String configXml,
      Map<String, String> cluster) throws Exception {
    this.conf = RmHarness.configuration(scheduler, configXml.getBytes(StandardCharsets.UTF_8));
    conf.setClass(CommonConfigurationKeysPublic.NET_TOPOLOGY_NODE_SWITCH_MAPPING_IMPL_KEY,
        ScenarioRacks.class, DNSToSwitchMapping.class);
    if (cluster.containsKey("min-allocation")) {
      Resource min = resource(cluster.get("min-allocation"));
      conf.setLong(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, min.getMemorySize());
      conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_VCORES, min.getVirtualCores());
    }
    if (cluster.containsKey("max-allocation")) {
      Resource max = resource(cluster.get("max-allocation"));
      conf.setLong(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, max.getMemorySize());
      conf.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES, max.getVirtualCores());
    }
    if (cluster.containsKey("acl")) {
      conf.setBoolean(YarnConfiguration.YARN_ACL_ENABLE, Boolean.parseBoolean(cluster.get("acl")));
    }
    if (cluster.containsKey("am-non-exclusive")) {
      conf.setBoolean(YarnConfiguration.AM_ALLOW_NON_EXCLUSIVE_ALLOCATION,
          Boolean.parseBoolean(cluster.get("am-non-exclusive")));
    }
    if (Boolean.parseBoolean(cluster.get("node-labels"))) {
      // Labels kept by the RM and handed out by yarn rmadmin (centralized configuration).
      conf.setBoolean(YarnConfiguration.NODE_LABELS_ENABLED, true);
    }
    if (cluster.containsKey("max-priority")) {
      conf.setInt(YarnConfiguration.MAX_CLUSTER_LEVEL_APPLICATION_PRIORITY,
          Integer.parseInt(cluster.get("max-priority")));
    }
    // Users' groups (Hadoop's static mapping syntax, user=g1,g2;user2=g3): the RM's group
    // service is one per JVM and placement rules keep the one they start with, so it is
    // loaded before the RM starts - with no mapping at all when the scenario gives none.
    Configuration groups = new Configuration(false);
    groups.set(CommonConfigurationKeys.HADOOP_USER_GROUP_STATIC_OVERRIDES,
        cluster.getOrDefault("groups", ""));
    Groups.getUserToGroupsMappingServiceWithLoadedConfiguration(groups);
    if (Boolean.parseBoolean(cluster.get("recovery"))) {
      // Work-preserving recovery from an in-memory state store, scheduling at once after a
      // restart (the restart-rm step).
      conf.setBoolean(YarnConfiguration.RECOVERY_ENABLED, true);
      conf.setBoolean(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_ENABLED, true);
      conf.setLong(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS, 0);
      conf.set(YarnConfiguration.RM_STORE, MemoryRMStateStore.class.getName());
    }
    this.acceptedXml = configXml;
    RMStateStore store = null;
    if (Boolean.parseBoolean(cluster.get("recovery"))) {
      store = new DurableMemoryStateStore();
      store.init(conf);
    }
    this.rm = RmHarness.start(conf, store);
    this.containerAgesMatter = loadedConfiguration().getBoolean(
        "yarn.scheduler.capacity.ordering-policy.priority-utilization.underutilized-preemption.enabled", false);
    clock.setTime(CLUSTER_TIMESTAMP);
    // Every run numbers its applications and containers alike. An id carries the RM's
    // start time (its "cluster timestamp"), and the RM's hash maps keyed by ids — an
    // attempt's live containers, which both schedulers kill in that map's order when the
    // attempt ends — then iterate in an order that changes from run to run. The order
    // reaches decisions: Apache's user limit sums users' usage ratios in floats charged and
    // refunded container by container, so another kill order can move the limit across a
    // rounding step (seed 253 told an AM 1 GB more or less headroom in about half its
    // runs, with either scheduler).
    RmHarness.pinClusterTimestamp(CLUSTER_TIMESTAMP);
  }

  /**
   * With our scheduler, the differences between the Rust core's containers and usage and
   * the RM's objects (empty when they agree); with any other scheduler, nothing.
   */
  public List<String> consistency() {
    ResourceScheduler scheduler = rm.getResourceScheduler();
    return scheduler instanceof RustCapacityScheduler
        ? ConsistencyCheck.of((RustCapacityScheduler) scheduler) : Collections.<String>emptyList();
  }

  /** Applies one scenario line. */
  public void step(List<String> words, Map<String, String> named, String block) throws Exception {
    String verb = words.get(0);
    lastStep = verb;
    expectation = null;
    if (APPLICATION_STEPS.contains(verb) && refusedSubmissions.containsKey(words.get(1))) {
      return;
    }
    dropEndedAms();
    switch (verb) {
    case "node":
      addNodes(words.get(1), Integer.parseInt(named.getOrDefault("count", "1")),
          named.getOrDefault("rack", NetworkTopology.DEFAULT_RACK),
          memory(named.get("memory")), Integer.parseInt(named.get("vcores")));
      break;
    case "remove-node":
      lostNodes.remove(words.get(1));
      MockNM nm = nodes.remove(words.get(1));
      rm.sendNodeLost(nm);
      rm.drainEvents();
      break;
    case "lose-node":
      loseNode(words.get(1));
      break;
    case "return-node":
      returnNode(words.get(1));
      break;
    case "restart-rm":
      restartRm();
      break;
    case "app":
      submit(words.get(1), named, words.contains("unmanaged"), words.contains("keep-containers"));
      break;
    case "ask":
      ask(words.get(1), named);
      break;
    case "heartbeat":
      heartbeat(words.get(1), Integer.parseInt(named.getOrDefault("rounds", "1")));
      break;
    case "finish":
      finish(words.get(1), count(words, named), named.get("node"));
      break;
    case "complete":
      complete(words.get(1), count(words, named), named.get("node"));
      break;
    case "fail-am":
      failAm(words.get(1));
      break;
    case "unregister":
      unregister(words.get(1));
      break;
    case "expire-am":
      expireAm(words.get(1));
      break;
    case "restart-node":
      restartNode(words.get(1));
      break;
    case "expire-container":
      expireContainer(words.get(1));
      break;
    case "node-resource":
      rm.getAdminService().updateNodeResource(UpdateNodeResourceRequest.newInstance(
          Collections.singletonMap(nodes.get(words.get(1)).getNodeId(), ResourceOption.newInstance(
              Resource.newInstance(memory(named.get("memory")), Integer.parseInt(named.get("vcores"))), -1))));
      rm.drainEvents();
      break;
    case "node-label":
      rm.getAdminService().addToClusterNodeLabels(AddToClusterNodeLabelsRequest.newInstance(
          Collections.singletonList(NodeLabel.newInstance(words.get(1),
              !"false".equals(named.get("exclusive"))))));
      rm.drainEvents();
      break;
    case "label-node":
      rm.getAdminService().replaceLabelsOnNode(ReplaceLabelsOnNodeRequest.newInstance(
          Collections.singletonMap(nodes.get(words.get(1)).getNodeId(), words.size() > 2
              ? Collections.singleton(words.get(2)) : Collections.<String>emptySet())));
      rm.drainEvents();
      relabelled = true;
      break;
    case "blacklist":
      blacklist(words.get(1), hostList(named.get("add")), hostList(named.get("remove")));
      break;
    case "remove":
      RMApp app = apps.get(words.get(1));
      if (app.isAppInCompletedStates()) {
        // Rejected, failed or finished already: nothing to kill.
        break;
      }
      rm.killApp(app.getApplicationId());
      rm.waitForState(app.getApplicationId(), RMAppState.KILLED);
      rm.drainEvents();
      ams.remove(words.get(1));
      containers.remove(words.get(1));
      waitingAsks.remove(words.get(1));
      break;
    case "move":
      move(words.get(1), named.get("queue"));
      break;
    case "priority":
      priority(words.get(1), Integer.parseInt(words.get(2)));
      break;
    case "refresh":
      URL file = conf.getClassLoader().getResource(YarnConfiguration.CS_CONFIGURATION_FILE);
      Files.write(Paths.get(file.toURI()), block.getBytes(StandardCharsets.UTF_8));
      Set<String> labelledBefore = queueLabels(acceptedXml);
      labelledBefore.addAll(queueLabels(block));
      try {
        rm.getResourceScheduler().reinitialize(new YarnConfiguration(conf), rm.getRMContext());
        lastRefresh = "accepted";
        acceptedXml = block;
      } catch (Exception refused) {
        // A refused refresh is part of the scenario: the snapshot shows that it was refused
        // and that nothing changed.
        lastRefresh = "refused";
      }
      labelledBefore.removeAll(queueLabels(acceptedXml));
      labelKeysDropped |= !labelledBefore.isEmpty();
      rm.drainEvents();
      break;
    case "preempt":
      preempt();
      break;
    case "expire-queues":
      expireQueues();
      break;
    case "manage-queues":
      manageQueues();
      break;
    case "wait":
      clock.tickMsec(Long.parseLong(words.get(1)) * 1000);
      break;
    case "expect":
      expectation = expect(words, named);
      break;
    default:
      // config, cluster and show lines are not events.
    }
  }

  /**
   * Checks an {@code expect} line (docs/scenario-format.md) against the RM's state as the
   * snapshot shows it: "holds", or "fails: " and what was found. The snapshot of the same
   * step carries the answer, so that a line failing with either scheduler is reported.
   */
  private String expect(List<String> words, Map<String, String> named) {
    Map<String, String> facts = snapshot(false);
    String what = words.get(1);
    String subject = words.size() > 2 ? words.get(2) : "";
    String found;
    switch (what) {
    case "queue": {
      String fact = facts.get("queue " + queuePath(subject, facts));
      found = fact == null ? "no queue " + subject
          : usedOf(field(fact, "allocated"), field(fact, "reserved"));
      return verdict(found, usedExpected(named.get("used"), found));
    }
    case "user": {
      String fact = facts.get("queue-user " + queuePath(subject, facts) + " " + words.get(3));
      found = fact == null ? "0MB/0" : field(fact, "used");
      return verdict(found, usedExpected(named.get("used"), found));
    }
    case "app": {
      String fact = facts.getOrDefault("app " + subject, "");
      if (named.containsKey("containers")) {
        String live = fact.contains(" live=") ? field(fact, "live") : "0";
        return verdict("containers=" + live, live.equals(named.get("containers")));
      }
      if (named.containsKey("queue")) {
        String queue = field(fact, "queue");
        return verdict("queue=" + queue, queue.equals(queuePath(named.get("queue"), facts)));
      }
      boolean active = activated(subject);
      return verdict(active ? "active" : "pending",
          active == "active".equals(words.size() > 3 ? words.get(3) : ""));
    }
    case "rejected": {
      String text = expectedText(words);
      String fact = facts.getOrDefault("app " + subject, "");
      boolean rejected = fact.startsWith("submission-refused=") || fact.startsWith("state=FAILED");
      return verdict(fact, rejected && fact.contains(text));
    }
    case "move-refused": {
      String text = expectedText(words);
      String reason = refusedMoves.get(subject);
      return verdict(reason == null ? "moved" : reason, reason != null && reason.contains(text));
    }
    case "reserved": {
      String want = words.size() > 3 ? words.get(3) : "none";
      String holder = field(facts.getOrDefault("node " + subject, "reserved-for=none"), "reserved-for");
      return verdict("reserved-for=" + holder, holder.equals(want));
    }
    case "headroom": {
      Resource told = headrooms.get(subject);
      long memory = memory(named.get("memory"));
      return verdict(told == null ? "none told" : QueueProbe.text(told),
          told != null && told.getMemorySize() == memory);
    }
    default:
      throw new IllegalArgumentException("unknown expectation '" + what + "'");
    }
  }

  /**
   * An expect line's quoted text (the words from the fourth on, quotes dropped), with each
   * application id it names ("application_1_0004", as the core's runner numbers them) given
   * as the scenario's name for the application submitted with that number, as this
   * driver's facts name applications.
   */
  private String expectedText(List<String> words) {
    String text = String.join(" ", words.subList(Math.min(3, words.size()), words.size()));
    if (text.length() >= 2 && text.startsWith("\"") && text.endsWith("\"")) {
      text = text.substring(1, text.length() - 1);
    }
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("application_\\d+_(\\d+)").matcher(text);
    StringBuffer out = new StringBuffer();
    while (m.find()) {
      int sequence = Integer.parseInt(m.group(1));
      String name = m.group();
      for (Map.Entry<String, RMApp> e : apps.entrySet()) {
        if (e.getValue().getApplicationId().getId() == sequence) {
          name = e.getKey();
        }
      }
      m.appendReplacement(out, java.util.regex.Matcher.quoteReplacement(name));
    }
    m.appendTail(out);
    return out.toString();
  }

  private static String verdict(String found, boolean holds) {
    return holds ? "holds" : "fails: " + found;
  }

  /** Whether "MEMORYMB/VCORES" is what {@code used} (1G, 2048M or 2G,3) says. */
  private static boolean usedExpected(String used, String found) {
    String[] f = found.replace("MB", "").split("/");
    if (f.length != 2) {
      return false;
    }
    String[] parts = used.split(",");
    return memory(parts[0]) == Long.parseLong(f[0])
        && (parts.length < 2 || Long.parseLong(parts[1].trim()) == Long.parseLong(f[1]));
  }

  /** Allocated plus reserved ("MEMORYMB/VCORES" each), as the core counts a queue's use. */
  private static String usedOf(String allocated, String reserved) {
    String[] a = allocated.replace("MB", "").split("/");
    String[] r = reserved.replace("MB", "").split("/");
    return (Long.parseLong(a[0]) + Long.parseLong(r[0])) + "MB/"
        + (Long.parseLong(a[1]) + Long.parseLong(r[1]));
  }

  /** The value of "NAME=value" in a fact, up to the next space. */
  private static String field(String fact, String name) {
    int at = fact.startsWith(name + "=") ? 0 : fact.indexOf(" " + name + "=") + 1;
    if (!fact.startsWith(name + "=", at)) {
      return "";
    }
    int end = fact.indexOf(' ', at);
    return fact.substring(at + name.length() + 1, end < 0 ? fact.length() : end);
  }

  /** A live queue's full path from a scenario's full path or short name. */
  private static String queuePath(String name, Map<String, String> facts) {
    for (String candidate : new String[] {name, "root." + name}) {
      if (facts.containsKey("queue-capacity " + candidate)) {
        return candidate;
      }
    }
    for (String fact : facts.keySet()) {
      if (fact.startsWith("queue-capacity ") && fact.endsWith("." + name)) {
        return fact.substring("queue-capacity ".length());
      }
    }
    return name;
  }

  /** Whether the scheduler has activated the application (it may be given containers). */
  private boolean activated(String name) {
    RMApp app = apps.get(name);
    if (app == null) {
      return false;
    }
    ResourceScheduler s = rm.getResourceScheduler();
    if (s instanceof RustCapacityScheduler) {
      return ((RustCapacityScheduler) s).isApplicationActivated(app.getApplicationId());
    }
    RMAppAttempt attempt = app.getCurrentAppAttempt();
    SchedulerApplicationAttempt a = attempt == null ? null
        : ((AbstractYarnScheduler<?, ?>) s).getApplicationAttempt(attempt.getAppAttemptId());
    return a != null && a.getQueue() instanceof AbstractLeafQueue
        && ((AbstractLeafQueue) a.getQueue()).getApplications().contains(a);
  }

  /** {@code yarn application -updatePriority}, through the client service; refusals are kept. */
  private void priority(String name, int priority) throws Exception {
    ApplicationId id = apps.get(name).getApplicationId();
    try {
      rm.getClientRMService().updateApplicationPriority(
          UpdateApplicationPriorityRequest.newInstance(id, Priority.newInstance(priority)));
      refusedPriorities.remove(name);
    } catch (YarnException refused) {
      refusedPriorities.put(name, refused.getMessage().replace(id.toString(), name));
    }
    rm.drainEvents();
  }

  /** {@code yarn application -movetoqueue}, through the client service; refusals are kept. */
  private void move(String name, String queue) throws Exception {
    try {
      rm.getClientRMService().moveApplicationAcrossQueues(
          MoveApplicationAcrossQueuesRequest.newInstance(apps.get(name).getApplicationId(), queue));
      refusedMoves.remove(name);
    } catch (YarnException refused) {
      // Application ids differ between runs (the RM's start time): name the application.
      refusedMoves.put(name, refused.getMessage()
          .replace(apps.get(name).getApplicationId().toString(), name));
    }
    rm.drainEvents();
  }

  private void addNodes(String name, int count, String rack, int memory, int vcores)
      throws Exception {
    for (int i = 1; i <= count; i++) {
      String host = count == 1 ? name : name + i;
      // Scenario hosts do not exist, and the RM resolves node names in several places;
      // each failing DNS lookup costs ~0.2 s. Each node gets a loopback address as its
      // host name instead (127.R.x.y, R standing for its rack), and asks naming the node
      // are translated.
      int n = ++registered;
      String address = "127." + ScenarioRacks.octet(rack) + "." + (n / 250) + "." + (n % 250 + 1);
      hosts.put(host, address);
      MockNM nm = rm.registerNode(address + ":" + PORT, memory, vcores);
      nodes.put(host, nm);
      String resolved = rm.getRMContext().getRMNodes().get(nm.getNodeId()).getRackName();
      if (!rack.equals(resolved)) {
        throw new IllegalStateException("node " + host + " is on " + resolved + ", not " + rack
            + ": the JVM's RackResolver was set up before ScenarioRacks");
      }
    }
    rm.drainEvents();
  }

  private void submit(String name, Map<String, String> named, boolean unmanaged,
      boolean keepContainers) throws Exception {
    Resource am = resource(named.getOrDefault("am", "1024"));
    MockRMAppSubmissionData data = MockRMAppSubmissionData.Builder.createWithResource(am, rm)
        .withQueue(named.get("queue"))
        .withUser(named.get("user"))
        .withAppName(name)
        .withAppPriority(Priority.newInstance(Integer.parseInt(named.getOrDefault("priority", "0"))))
        .withUnmanagedAM(unmanaged)
        .withKeepContainers(keepContainers)
        .withWaitForAppAcceptedState(false)
        .withApplicationTimeouts(named.containsKey("lifetime")
            ? Collections.singletonMap(ApplicationTimeoutType.LIFETIME,
                Long.parseLong(named.get("lifetime")))
            : Collections.<ApplicationTimeoutType, Long>emptyMap())
        .build();
    RMApp app;
    try {
      lastSubmittedAt = Time.monotonicNow();
      app = MockRMAppSubmitter.submit(rm, data);
    } catch (Exception refused) {
      // The RM's client service refused it before making an application: keep the reason
      // the client was given, without the run's application id.
      Throwable reason = refused;
      while (!(reason instanceof YarnException) && reason.getCause() != null) {
        reason = reason.getCause();
      }
      if (!(reason instanceof YarnException)) {
        throw refused;
      }
      refusedSubmissions.put(name, reason.getMessage()
          .replaceAll("application_\\d+_\\d+", name).replace('\n', ' '));
      rm.drainEvents();
      return;
    }
    rm.drainEvents();
    apps.put(name, app);
    if (unmanaged && app.getState() != RMAppState.FAILED) {
      RMAppAttempt attempt = app.getCurrentAppAttempt();
      rm.waitForState(attempt.getAppAttemptId(), RMAppAttemptState.LAUNCHED);
      register(name, new MockAM(rm.getRMContext(), rm.getApplicationMasterService(),
          attempt.getAppAttemptId()));
    }
  }

  private void register(String name, MockAM am) throws Exception {
    am.registerAppAttempt();
    rm.drainEvents();
    ams.put(name, am);
    List<ResourceRequest> asks = waitingAsks.remove(name);
    if (asks != null) {
      allocate(name, am, asks);
    }
  }

  /**
   * The AM's allocate() with {@code asks}; one the RM refuses (a label the queue may not
   * use, a size over the maximum) is recorded for the comparison, as a refused move is.
   */
  private void allocate(String name, MockAM am, List<ResourceRequest> asks) throws Exception {
    AllocateResponse response;
    try {
      response = am.allocate(asks, Collections.<ContainerId>emptyList());
    } catch (InvalidResourceRequestException refused) {
      refusedAsks.put(name, refused.getMessage());
      return;
    }
    refusedAsks.remove(name);
    pull(name, response);
  }

  private void ask(String name, Map<String, String> named) throws Exception {
    ResourceRequest r = ResourceRequest.newInstance(
        Priority.newInstance(Integer.parseInt(named.getOrDefault("priority", "1"))),
        hosts.getOrDefault(named.getOrDefault("at", ResourceRequest.ANY),
            named.getOrDefault("at", ResourceRequest.ANY)),
        Resource.newInstance(memory(named.get("memory")),
            Integer.parseInt(named.getOrDefault("vcores", "1"))),
        Integer.parseInt(named.get("count")),
        !"false".equals(named.get("relax")));
    r.setAllocationRequestId(Long.parseLong(named.getOrDefault("id", "0")));
    if (named.containsKey("label")) {
      r.setNodeLabelExpression(named.get("label"));
    }
    MockAM am = ams.get(name);
    if (am == null) {
      waitingAsks.computeIfAbsent(name, k -> new ArrayList<>()).add(r);
      return;
    }
    allocate(name, am, Collections.singletonList(r));
  }

  private void heartbeat(String target, int rounds) throws Exception {
    List<MockNM> targets = "all".equals(target)
        ? new ArrayList<>(nodes.values()) : Collections.singletonList(nodes.get(target));
    ResourceScheduler scheduler = rm.getResourceScheduler();
    for (int r = 0; r < rounds; r++) {
      for (MockNM nm : targets) {
        // The event an NM heartbeat turns into inside the RM (RMNodeImpl's status update),
        // sent directly: MockNM's own heartbeat round trip costs ~0.4 s in MockRM.
        RMNode node = rm.getRMContext().getRMNodes().get(nm.getNodeId());
        while (containerAgesMatter && System.currentTimeMillis() <= lastNodeUpdateMillis) {
          Thread.onSpinWait();
        }
        scheduler.handle(new NodeUpdateSchedulerEvent(node));
        rm.drainEvents();
        launchAllocatedAms();
        lastNodeUpdateMillis = System.currentTimeMillis();
      }
    }
    allocateAll();
  }

  /**
   * Forgets the AMs whose attempt the RM ended on its own (their node was lost; with no
   * attempts left the application failed): a new attempt's AM registers when placed.
   */
  private void dropEndedAms() {
    for (Map.Entry<String, RMApp> e : apps.entrySet()) {
      MockAM running = ams.get(e.getKey());
      RMAppAttempt attempt = e.getValue().getCurrentAppAttempt();
      if (running != null && (e.getValue().isAppInCompletedStates() || attempt == null
          || !running.getApplicationAttemptId().equals(attempt.getAppAttemptId()))) {
        ams.remove(e.getKey());
        waitingAsks.remove(e.getKey());
      }
    }
  }

  /** AMs whose container was just allocated are launched and register, as an NM would. */
  private void launchAllocatedAms() throws Exception {
    dropEndedAms();
    for (Map.Entry<String, RMApp> e : apps.entrySet()) {
      RMAppAttempt attempt = e.getValue().getCurrentAppAttempt();
      if (attempt != null && !ams.containsKey(e.getKey())
          && attempt.getAppAttemptState() == RMAppAttemptState.ALLOCATED) {
        register(e.getKey(), rm.sendAMLaunched(attempt.getAppAttemptId()));
      }
    }
  }

  /**
   * Takes what an allocate() call handed the AM: its new containers, its headroom, and the
   * containers it is told it will lose.
   */
  private void pull(String app, AllocateResponse response) {
    containers.computeIfAbsent(app, k -> new ArrayList<>()).addAll(response.getAllocatedContainers());
    headrooms.put(app, response.getAvailableResources());
    PreemptionMessage message = response.getPreemptionMessage();
    if (message != null) {
      List<Long> told = toldPreempted.computeIfAbsent(app, k -> new ArrayList<>());
      if (message.getStrictContract() != null) {
        for (PreemptionContainer c : message.getStrictContract().getContainers()) {
          told.add(c.getId().getContainerId());
        }
      }
      if (message.getContract() != null) {
        for (PreemptionContainer c : message.getContract().getContainers()) {
          told.add(c.getId().getContainerId());
        }
      }
    }
  }

  /**
   * One round of the scheduler's capacity preemption policy, as the RM's scheduling monitor
   * runs it (Apache's {@code ProportionalCapacityPreemptionPolicy} with Apache's scheduler,
   * ours with ours), on the scenario's clock; the RM applies the events it sends, and every
   * AM then calls allocate() and hears which of its containers it will lose.
   */
  private void preempt() throws Exception {
    ResourceScheduler scheduler = rm.getResourceScheduler();
    if (preemption == null && scheduler instanceof CapacityScheduler) {
      // (This constructor initialises the policy itself.)
      preemption = new ProportionalCapacityPreemptionPolicy(rm.getRMContext(),
          (CapacityScheduler) scheduler, clock);
    } else if (preemption == null) {
      preemption = new RustPreemptionPolicy(clock);
      preemption.init(conf, rm.getRMContext(), scheduler);
    }
    lastPreemptionFailure = null;
    try {
      preemption.editSchedule();
    } catch (RuntimeException e) {
      // As the RM's scheduling monitor does (SchedulingMonitor.PolicyInvoker): the round is
      // logged and skipped, the next one tried again.
      lastPreemptionFailure = e.getClass().getSimpleName();
    }
    if (preemption instanceof ProportionalCapacityPreemptionPolicy) {
      noteSelectorsThatChose((ProportionalCapacityPreemptionPolicy) preemption);
    } else {
      lastPreemptionTieOrderMattered =
          ConsistencyCheck.preemptionTieOrderMattered((RustCapacityScheduler) scheduler);
    }
    rm.drainEvents();
    allocateAll();
  }

  /**
   * The auto-created queues' expiration time passes on the real clock since the last
   * submission (both schedulers' deletion policies measure idleness on the JVM's monotonic
   * clock), then the deletion
   * policy — Apache's {@code AutoCreatedQueueDeletionPolicy} with Apache's scheduler, ours
   * with ours, one instance for the run as the scheduling monitor keeps one — runs twice:
   * a queue it marks in one round it deletes in the next.
   */
  private void expireQueues() throws Exception {
    ResourceScheduler scheduler = rm.getResourceScheduler();
    if (queueDeletion == null) {
      queueDeletion = scheduler instanceof CapacityScheduler
          ? new AutoCreatedQueueDeletionPolicy() : new RustQueueDeletionPolicy();
      queueDeletion.init(conf, rm.getRMContext(), scheduler);
    }
    long seconds = loadedConfiguration().getLong(CapacitySchedulerConfiguration.AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME,
        CapacitySchedulerConfiguration.DEFAULT_AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME);
    // Both policies count whole idle seconds since a queue's last submission (or creation,
    // which a submission makes) on this clock and want more than `seconds` of them: wait
    // until that holds for the last submission, however long the steps since took.
    long idleFrom = lastSubmittedAt + (seconds + 1) * 1000 + 100;
    for (long left = idleFrom - Time.monotonicNow(); left > 0; left = idleFrom - Time.monotonicNow()) {
      Thread.sleep(left);
    }
    for (int round = 0; round < 2; round++) {
      queueDeletion.editSchedule();
      rm.drainEvents();
    }
  }

  /**
   * One round of the queue-management monitor over managed parents' leaves — Apache's
   * {@code QueueManagementDynamicEditPolicy} with Apache's scheduler (its changes reach the
   * scheduler as an event, applied once the dispatcher drains), ours with ours; one instance
   * for the run, as the scheduling monitor keeps one.
   */
  private void manageQueues() {
    ResourceScheduler scheduler = rm.getResourceScheduler();
    if (queueManagement == null) {
      queueManagement = scheduler instanceof CapacityScheduler
          ? new QueueManagementDynamicEditPolicy() : new RustQueueManagementPolicy();
      queueManagement.init(conf, rm.getRMContext(), scheduler);
    }
    queueManagement.editSchedule();
    rm.drainEvents();
    queueManagementRounds++;
  }

  /** The queues among the facts' that the configuration in force makes managed parents. */
  /** The capacity scheduler's configuration in force, as the scheduler loaded it. */
  private Configuration loadedConfiguration() {
    ResourceScheduler scheduler = rm.getResourceScheduler();
    return scheduler instanceof CapacityScheduler
        ? ((CapacityScheduler) scheduler).getConfiguration()
        : ((RustCapacityScheduler) scheduler).getConfiguration();
  }

  /** Each "queue-path label" a capacity-scheduler.xml names a per-label key for. */
  private static Set<String> queueLabels(String xml) {
    Set<String> out = new HashSet<>();
    java.util.regex.Matcher m = LABEL_KEY.matcher(xml);
    while (m.find()) {
      out.add(m.group(1) + " " + m.group(2));
    }
    return out;
  }

  private static final java.util.regex.Pattern LABEL_KEY = java.util.regex.Pattern.compile(
      "<name>\\s*yarn\\.scheduler\\.capacity\\.(root(?:\\.[^<\\s]+?)?)\\.accessible-node-labels\\.([^.<\\s]+)\\.[^<\\s]+\\s*</name>");

  private List<String> managedParents(Set<String> factKeys) {
    Configuration configuration = loadedConfiguration();
    CapacitySchedulerConfiguration loaded = configuration instanceof CapacitySchedulerConfiguration
        ? (CapacitySchedulerConfiguration) configuration
        : new CapacitySchedulerConfiguration(configuration, false);
    List<String> parents = new ArrayList<>();
    for (String key : factKeys) {
      if (key.startsWith("queue-capacity ")) {
        String queue = key.substring("queue-capacity ".length());
        if (loaded.isAutoCreateChildQueueEnabled(queue)) {
          parents.add(queue);
        }
      }
    }
    java.util.Collections.sort(parents);
    return parents;
  }

  /** The queues among the facts' whose parent is one of {@code parents}. */
  private static List<String> managedLeaves(Set<String> factKeys, List<String> parents) {
    List<String> leaves = new ArrayList<>();
    for (String key : factKeys) {
      if (key.startsWith("queue-capacity ")) {
        String queue = key.substring("queue-capacity ".length());
        int dot = queue.lastIndexOf('.');
        if (dot > 0 && parents.contains(queue.substring(0, dot))) {
          leaves.add(queue);
        }
      }
    }
    java.util.Collections.sort(leaves);
    return leaves;
  }

  /** Reads the round's candidates per selector, which Apache's policy keeps for its tests. */
  private void noteSelectorsThatChose(ProportionalCapacityPreemptionPolicy policy) throws Exception {
    java.lang.reflect.Method perSelector =
        ProportionalCapacityPreemptionPolicy.class.getDeclaredMethod("getToPreemptCandidatesPerSelector");
    perSelector.setAccessible(true);
    Map<?, ?> chosen = (Map<?, ?>) perSelector.invoke(policy);
    if (chosen == null) {
      return;
    }
    for (Map.Entry<?, ?> e : chosen.entrySet()) {
      if (!((Map<?, ?>) e.getValue()).isEmpty()) {
        selectorsThatChose.add(e.getKey().getClass().getSimpleName());
      }
    }
  }

  /** {@code count=N}, {@code count=all} or a bare {@code all}; null for all. */
  private static String count(List<String> words, Map<String, String> named) {
    String count = named.get("count");
    return count != null ? count : words.size() > 2 ? words.get(2) : null;
  }

  /**
   * Takes the application's oldest {@code count} task containers (all for null or "all"),
   * on {@code node} if given, out of its list; containers the RM already ended (a lost
   * node, a failed attempt) leave the list on the way.
   */
  private List<Container> take(String app, String count, String node) {
    List<Container> list = containers.getOrDefault(app, new ArrayList<>());
    list.removeIf(c -> rm.getResourceScheduler().getRMContainer(c.getId()) == null);
    List<Container> taken = new ArrayList<>();
    int n = count == null || "all".equals(count) ? Integer.MAX_VALUE : Integer.parseInt(count);
    for (Container c : new ArrayList<>(list)) {
      if (taken.size() >= n) {
        break;
      }
      if (node == null || c.getNodeId().getHost().equals(hosts.get(node))) {
        taken.add(c);
        list.remove(c);
      }
    }
    return taken;
  }

  /** The AM releases task containers in an allocate() call. */
  private void finish(String app, String count, String node) throws Exception {
    MockAM am = ams.get(app);
    if (am == null) {
      // Its AM has not started (or it was rejected): it holds no task containers.
      return;
    }
    List<ContainerId> release = new ArrayList<>();
    for (Container c : take(app, count, node)) {
      release.add(c.getId());
    }
    pull(app, am.allocate(Collections.<ResourceRequest>emptyList(), release));
    rm.drainEvents();
  }

  /**
   * Task containers exit on their nodes: each node reports its containers complete in a
   * heartbeat through the RM's resource tracker (which also offers the node to the
   * scheduler), then every AM calls allocate().
   */
  private void complete(String app, String count, String node) throws Exception {
    Map<NodeId, List<ContainerStatus>> byNode = new LinkedHashMap<>();
    for (Container c : take(app, count, node)) {
      byNode.computeIfAbsent(c.getNodeId(), k -> new ArrayList<>())
          .add(ContainerStatus.newInstance(c.getId(), ContainerState.COMPLETE, "completed", 0));
    }
    for (Map.Entry<NodeId, List<ContainerStatus>> e : byNode.entrySet()) {
      reportFromNode(e.getKey(), e.getValue());
    }
    allocateAll();
  }

  /** The node's NodeManager heartbeats with {@code statuses}; the RM handles it fully. */
  private void reportFromNode(NodeId node, List<ContainerStatus> statuses) throws Exception {
    for (MockNM nm : nodes.values()) {
      if (nm.getNodeId().equals(node)) {
        nm.nodeHeartbeat(statuses, true);
        rm.drainEvents();
        launchAllocatedAms();
        return;
      }
    }
  }

  /**
   * The AM container exits with a failure: the RM fails the attempt and starts the next
   * one if attempts remain. Without keep-containers the task containers die with it.
   */
  private void failAm(String app) throws Exception {
    RMAppAttempt attempt = apps.get(app).getCurrentAppAttempt();
    Container master = attempt == null ? null : attempt.getMasterContainer();
    if (master == null || rm.getResourceScheduler().getRMContainer(master.getId()) == null) {
      // No managed AM running (unmanaged, not placed yet, or already gone).
      return;
    }
    reportFromNode(master.getNodeId(), Collections.singletonList(
        ContainerStatus.newInstance(master.getId(), ContainerState.COMPLETE, "AM exited", 1)));
    rm.waitForState(attempt.getAppAttemptId(), RMAppAttemptState.FAILED);
    rm.drainEvents();
    ams.remove(app);
    waitingAsks.remove(app);
    launchAllocatedAms();
    allocateAll();
  }

  /**
   * The NodeManager restarts and keeps its containers (work-preserving NM restart): it
   * registers again under its id, reporting what runs on it and their applications. The
   * RM reconnects the node as it does for a real one. (A fault soak step.)
   */
  private void restartNode(String name) throws Exception {
    MockNM nm = nodes.get(name);
    SchedulerNode node = nm == null ? null : scheduler().getSchedulerNode(nm.getNodeId());
    if (node == null) {
      return;
    }
    List<NMContainerStatus> running = running(node, "running before the NodeManager restarted");
    nm.registerNode(running, applicationsOf(running));
    rm.drainEvents();
    launchAllocatedAms();
    allocateAll();
  }

  /**
   * The RM loses the node (its NodeManager stops heartbeating past the expiry) and ends what
   * ran there, as {@code remove-node} does; the NodeManager itself keeps running it, and a
   * {@code return-node} step brings it back. (A fault soak step.)
   */
  private void loseNode(String name) throws Exception {
    MockNM nm = nodes.remove(name);
    SchedulerNode node = scheduler().getSchedulerNode(nm.getNodeId());
    lostNodes.put(name, new LostNode(nm, node == null ? new ArrayList<NMContainerStatus>()
        : running(node, "running when the RM lost its node")));
    rm.sendNodeLost(nm);
    rm.drainEvents();
  }

  /**
   * A lost node's NodeManager is heard from again: it registers under the same id,
   * reporting the containers it still runs. The RM recovers each whose application still
   * runs (and, without keep-containers, whose attempt is still the current one) and tells
   * the node to kill the rest, as Apache's {@code recoverContainersOnNode} does. The AMs
   * get their recovered containers back in their lists. (A fault soak step.)
   */
  private void returnNode(String name) throws Exception {
    LostNode lost = lostNodes.remove(name);
    if (lost == null) {
      return;
    }
    lost.nm.setResourceTrackerService(rm.getResourceTrackerService());
    lost.nm.registerNode(lost.running, applicationsOf(lost.running));
    nodes.put(name, lost.nm);
    rm.drainEvents();
    recoveredFromReturns += countRecovered(lost.running);
    relist(lost.running);
    launchAllocatedAms();
    allocateAll();
  }

  /**
   * The RM restarts, work-preserving (the cluster line says {@code recovery=true}): a new RM
   * starts on the old one's state store with the capacity-scheduler.xml last accepted, and
   * recovers the applications; every NodeManager registers with it, reporting what it
   * runs; every AM, told to resync, registers again and sends its outstanding asks and its
   * blacklist again, as Hadoop's AMRMClient does. (A fault soak step.)
   */
  private void restartRm() throws Exception {
    AbstractYarnScheduler<?, ?> before = scheduler();
    Map<String, List<NMContainerStatus>> reports = new HashMap<>();
    for (Map.Entry<String, MockNM> e : nodes.entrySet()) {
      SchedulerNode node = before.getSchedulerNode(e.getValue().getNodeId());
      reports.put(e.getKey(), node == null ? new ArrayList<NMContainerStatus>()
          : running(node, "running when the RM restarted"));
    }
    Map<String, AllocateRequest> resync = new HashMap<>();
    for (Map.Entry<String, MockAM> e : ams.entrySet()) {
      SchedulerApplicationAttempt attempt =
          before.getApplicationAttempt(e.getValue().getApplicationAttemptId());
      if (attempt == null) {
        continue;
      }
      List<ResourceRequest> asks = new ArrayList<>();
      for (ResourceRequest r : attempt.getAppSchedulingInfo().getAllResourceRequests()) {
        if (r.getNumContainers() > 0) {
          asks.add(ResourceRequest.clone(r));
        }
      }
      resync.put(e.getKey(), AllocateRequest.newInstance(0, 0f, asks,
          Collections.<ContainerId>emptyList(), ResourceBlacklistRequest.newInstance(
              new ArrayList<>(attempt.getAppSchedulingInfo().getBlackListCopy()),
              Collections.<String>emptyList())));
    }

    URL file = conf.getClassLoader().getResource(YarnConfiguration.CS_CONFIGURATION_FILE);
    Files.write(Paths.get(file.toURI()), acceptedXml.getBytes(StandardCharsets.UTF_8));
    replaced.add(rm);
    rm = RmHarness.start(conf, rm.getRMStateStore());
    // The restarted RM's new applications must not take the recovered ones' ids.
    RmHarness.pinClusterTimestamp(CLUSTER_TIMESTAMP + ++restarts);
    preemption = null;
    for (Map.Entry<String, MockNM> e : nodes.entrySet()) {
      List<NMContainerStatus> running = reports.get(e.getKey());
      e.getValue().setResourceTrackerService(rm.getResourceTrackerService());
      e.getValue().registerNode(running, applicationsOf(running));
    }
    rm.drainEvents();
    for (List<NMContainerStatus> running : reports.values()) {
      recoveredAfterRestarts += countRecovered(running);
    }
    for (Map.Entry<String, RMApp> e : apps.entrySet()) {
      RMApp recovered = rm.getRMContext().getRMApps().get(e.getValue().getApplicationId());
      if (recovered != null) {
        e.setValue(recovered);
      }
    }
    for (Map.Entry<String, MockAM> e : new ArrayList<>(ams.entrySet())) {
      MockAM am = e.getValue();
      RMAppAttempt attempt = apps.get(e.getKey()).getCurrentAppAttempt();
      if (attempt == null || !attempt.getAppAttemptId().equals(am.getApplicationAttemptId())
          || attempt.getAppAttemptState() != RMAppAttemptState.LAUNCHED) {
        ams.remove(e.getKey());
        continue;
      }
      am.setAMRMProtocol(rm.getApplicationMasterService(), rm.getRMContext());
      am.registerAppAttempt(false);
      rm.drainEvents();
      AllocateRequest again = resync.get(e.getKey());
      if (again != null) {
        pull(e.getKey(), am.allocate(again));
        rm.drainEvents();
      }
    }
    launchAllocatedAms();
    allocateAll();
  }

  /** How many of the reported containers the RM holds now. */
  private int countRecovered(List<NMContainerStatus> reported) {
    int held = 0;
    for (NMContainerStatus s : reported) {
      if (rm.getResourceScheduler().getRMContainer(s.getContainerId()) != null) {
        held++;
      }
    }
    return held;
  }

  /** Containers lost nodes reported on coming back that the RM took back, so far. */
  public long recoveredFromReturns() {
    return recoveredFromReturns;
  }

  /** Containers NodeManagers reported to restarted RMs that those recovered, so far. */
  public long recoveredAfterRestarts() {
    return recoveredAfterRestarts;
  }

  /** A node the RM lost, and the containers its NodeManager still runs. */
  private static final class LostNode {
    final MockNM nm;
    final List<NMContainerStatus> running;

    LostNode(MockNM nm, List<NMContainerStatus> running) {
      this.nm = nm;
      this.running = running;
    }
  }

  private AbstractYarnScheduler<?, ?> scheduler() {
    return (AbstractYarnScheduler<?, ?>) rm.getResourceScheduler();
  }

  /**
   * What the node's NodeManager runs, as it reports it on registering: the AM containers
   * launched there and the task containers their AMs took (a real AM launches what it gets;
   * a scenario never launches them itself), each with its size, priority and request id.
   */
  private static List<NMContainerStatus> running(SchedulerNode node, String why) {
    List<NMContainerStatus> out = new ArrayList<>();
    for (RMContainer c : node.getCopiedListOfRunningContainers()) {
      if (c.getState() != RMContainerState.RUNNING && c.getState() != RMContainerState.ACQUIRED) {
        continue;
      }
      out.add(NMContainerStatus.newInstance(c.getContainerId(), 0, ContainerState.RUNNING,
          c.getAllocatedResource(), why, 0, c.getAllocatedSchedulerKey().getPriority(),
          c.getCreationTime(), "", ExecutionType.GUARANTEED,
          c.getAllocatedSchedulerKey().getAllocationRequestId()));
    }
    return out;
  }

  private static List<ApplicationId> applicationsOf(List<NMContainerStatus> running) {
    Set<ApplicationId> out = new TreeSet<>();
    for (NMContainerStatus s : running) {
      out.add(s.getContainerId().getApplicationAttemptId().getApplicationId());
    }
    return new ArrayList<>(out);
  }

  /**
   * Puts the recovered task containers among reported ones back in their applications'
   * lists (the RM had ended them when it lost their node).
   */
  private void relist(List<NMContainerStatus> reported) {
    for (NMContainerStatus s : reported) {
      RMContainer c = rm.getResourceScheduler().getRMContainer(s.getContainerId());
      if (c == null || c.isAMContainer()) {
        continue;
      }
      for (Map.Entry<String, RMApp> e : apps.entrySet()) {
        if (e.getValue().getApplicationId().equals(
            s.getContainerId().getApplicationAttemptId().getApplicationId())) {
          List<Container> list = containers.computeIfAbsent(e.getKey(), k -> new ArrayList<>());
          if (list.stream().noneMatch(held -> held.getId().equals(s.getContainerId()))) {
            list.add(c.getContainer());
          }
        }
      }
    }
  }

  /**
   * The RM stops hearing from the application's AM: its liveliness monitor expires the
   * attempt (as {@code AMLivelinessMonitor} does), which fails, and the RM starts the next
   * attempt if it has one left.
   */
  private void expireAm(String app) throws Exception {
    RMAppAttempt attempt = apps.get(app).getCurrentAppAttempt();
    if (attempt == null || (attempt.getAppAttemptState() != RMAppAttemptState.RUNNING
        && attempt.getAppAttemptState() != RMAppAttemptState.LAUNCHED)) {
      return;
    }
    rm.getRMContext().getDispatcher().getEventHandler().handle(
        new RMAppAttemptEvent(attempt.getAppAttemptId(), RMAppAttemptEventType.EXPIRE));
    rm.waitForState(attempt.getAppAttemptId(), RMAppAttemptState.FAILED);
    rm.drainEvents();
    ams.remove(app);
    waitingAsks.remove(app);
    launchAllocatedAms();
    allocateAll();
  }

  /**
   * The application's newest task container, handed to its AM but never launched, passes
   * its allocation expiry: the RM's {@code ContainerAllocationExpirer} tells the scheduler,
   * which takes it back.
   */
  private void expireContainer(String app) throws Exception {
    List<Container> held = containers.get(app);
    if (held == null || held.isEmpty()) {
      return;
    }
    Container newest = held.remove(held.size() - 1);
    RMContainer c = rm.getResourceScheduler().getRMContainer(newest.getId());
    if (c == null || c.getState() != RMContainerState.ACQUIRED) {
      return;
    }
    rm.getRMContext().getDispatcher().getEventHandler().handle(
        new ContainerExpiredSchedulerEvent(newest.getId()));
    rm.drainEvents();
    allocateAll();
  }

  /**
   * What the attempt's diagnostics say of its AM while it waits for it, in kind (the
   * leaf activated it, or held it back by the queue's or the user's AM limit, or the cluster
   * was empty; then assigned): null if they say none of these. Its details (the queue's
   * figures, the time, the last node tried) are left out; RestConformanceTest compares them.
   */
  private static String amDiagnosis(String diagnostics) {
    if (diagnostics == null) {
      return null;
    } else if (diagnostics.contains("Scheduler has assigned a container for AM")) {
      return "assigned";
    } else if (diagnostics.contains(
        CSAMContainerLaunchDiagnosticsConstants.QUEUE_AM_RESOURCE_LIMIT_EXCEED)) {
      return "queue-am-limit";
    } else if (diagnostics.contains(
        CSAMContainerLaunchDiagnosticsConstants.USER_AM_RESOURCE_LIMIT_EXCEED)) {
      return "user-am-limit";
    } else if (diagnostics.contains(CSAMContainerLaunchDiagnosticsConstants.CLUSTER_RESOURCE_EMPTY)) {
      return "cluster-empty";
    } else if (diagnostics.contains("Application is Activated")) {
      return "activated";
    }
    return null;
  }

  /** The AM unregisters and its container exits: the application finishes. */
  private void unregister(String app) throws Exception {
    MockAM am = ams.get(app);
    if (am == null) {
      return;
    }
    RMAppAttempt attempt = apps.get(app).getCurrentAppAttempt();
    am.unregisterAppAttempt(false);
    rm.drainEvents();
    Container master = attempt.getMasterContainer();
    if (master != null) {
      reportFromNode(master.getNodeId(), Collections.singletonList(
          ContainerStatus.newInstance(master.getId(), ContainerState.COMPLETE, "AM finished", 0)));
    }
    rm.waitForState(apps.get(app).getApplicationId(), RMAppState.FINISHED);
    rm.drainEvents();
    ams.remove(app);
    containers.remove(app);
    waitingAsks.remove(app);
    allocateAll();
  }

  /** The AM's blacklist changes in an allocate() call (once its AM runs). */
  private void blacklist(String app, List<String> add, List<String> remove) throws Exception {
    MockAM am = ams.get(app);
    if (am == null) {
      return;
    }
    pull(app, am.allocate(AllocateRequest.newInstance(0, 0f, Collections.<ResourceRequest>emptyList(),
        Collections.<ContainerId>emptyList(), ResourceBlacklistRequest.newInstance(add, remove))));
    rm.drainEvents();
  }

  /** Scenario node names, comma-separated, as the hosts the RM knows them by. */
  private List<String> hostList(String names) {
    List<String> out = new ArrayList<>();
    if (names != null) {
      for (String n : names.split(",")) {
        out.add(hosts.getOrDefault(n, n));
      }
    }
    return out;
  }

  /** Every running AM calls allocate() with nothing new, taking what it was given. */
  private void allocateAll() throws Exception {
    dropEndedAms();
    for (Map.Entry<String, MockAM> e : ams.entrySet()) {
      pull(e.getKey(), e.getValue().allocate(Collections.<ResourceRequest>emptyList(),
          Collections.<ContainerId>emptyList()));
    }
  }

  /**
   * What the RM's objects say now, as sorted "fact = value" lines. Queue figures come from
   * QueueMetrics (allocated and reserved), user figures from each queue's user metrics.
   */
  public Map<String, String> snapshot() {
    return snapshot(true);
  }

  /** The same, with the REST scheduler view's fields when {@code withRestView}. */
  public Map<String, String> snapshot(boolean withRestView) {
    Map<String, String> facts = new TreeMap<>();
    Set<String> users = new TreeSet<>();
    for (RMApp app : apps.values()) {
      users.add(app.getUser());
    }
    AbstractYarnScheduler<?, ?> scheduler = (AbstractYarnScheduler<?, ?>) rm.getResourceScheduler();
    QueueProbe.addFacts(scheduler, facts);
    for (Map.Entry<String, QueueMetrics> e : QueueMetrics.getQueueMetrics().entrySet()) {
      QueueMetrics m = e.getValue();
      if (!facts.containsKey("queue-capacity " + e.getKey())) {
        // Not a live queue: Apache also registers per-partition copies ("default.root.a";
        // the default partition's figures are the queue's own), and metrics stay
        // registered for queues a refused refresh built before it was refused.
        continue;
      }
      facts.put("queue " + e.getKey(), String.format(
          "allocated=%dMB/%d reserved=%dMB/%d pending=%dMB/%d pending-containers=%d pending-apps=%d running-apps=%d",
          m.getAllocatedMB(), m.getAllocatedVirtualCores(), m.getReservedMB(), m.getReservedVirtualCores(),
          m.getPendingMB(), m.getPendingVirtualCores(), m.getPendingContainers(), m.getAppsPending(),
          m.getAppsRunning()));
      if (m.getAggregatePreemptedContainers() > 0) {
        facts.put("preempted " + e.getKey(), String.format("containers=%d memory=%dMB vcores=%d",
            m.getAggregatePreemptedContainers(), m.getAggregateMemoryMBPreempted(),
            m.getAggregateVcoresPreempted()));
      }
      for (String user : users) {
        QueueMetrics u = m.getUserMetrics(user);
        if (u != null) {
          facts.put("user " + e.getKey() + " " + user, String.format(
              "allocated=%dMB/%d reserved=%dMB pending=%dMB pending-apps=%d running-apps=%d",
              u.getAllocatedMB(), u.getAllocatedVirtualCores(), u.getReservedMB(),
              u.getPendingMB(), u.getAppsPending(), u.getAppsRunning()));
        }
      }
    }
    if (lastRefresh != null) {
      facts.put("refresh", lastRefresh);
    }
    List<String> managedParents = managedParents(facts.keySet());
    if (!managedParents.isEmpty()) {
      facts.put("managed-parents", String.join(",", managedParents));
      facts.put("managed-leaves", String.join(",", managedLeaves(facts.keySet(), managedParents)));
    }
    if (lastStep != null) {
      facts.put("step", lastStep);
    }
    if (relabelled) {
      // (Read by divergence checks: gauges that do not follow a relabelled node.)
      facts.put("nodes-relabelled", "true");
    }
    if (labelKeysDropped) {
      // (Read by divergence checks: partitions a queue is no longer configured for.)
      facts.put("label-keys-dropped", "true");
    }
    if (lastPreemptionFailure != null) {
      facts.put("preemption-round-failed", lastPreemptionFailure);
    }
    if (lastPreemptionTieOrderMattered) {
      facts.put("preemption-tie-order-mattered", "true");
    }
    if (queueManagementRounds > 0) {
      facts.put("queue-management", "rounds=" + queueManagementRounds);
    }
    if (expectation != null) {
      facts.put("expect", expectation);
    }
    if (!selectorsThatChose.isEmpty()) {
      facts.put("preemption-selectors", String.join(",", selectorsThatChose));
    }
    if (withRestView) {
      Set<String> live = new TreeSet<>();
      for (String fact : facts.keySet()) {
        if (fact.startsWith("queue-capacity ")) {
          live.add(fact.substring("queue-capacity ".length()));
        }
      }
      facts.putAll(MetricsView.facts(live, users,
          scheduler.getClusterResource().getMemorySize() == 0));
      try {
        facts.putAll(RestView.facts(scheduler));
      } catch (Exception e) {
        throw new IllegalStateException("the REST scheduler view could not be built", e);
      }
    }
    for (Map.Entry<String, RMApp> e : apps.entrySet()) {
      RMApp app = e.getValue();
      RMAppState state = app.getState();
      String fact = "state=" + (state == RMAppState.NEW_SAVING || state == RMAppState.SUBMITTED ? "SUBMITTED" : state)
          + " queue=" + app.getQueue() + " priority=" + app.getApplicationPriority();
      if (refusedPriorities.containsKey(e.getKey())) {
        fact += " priority-refused=" + refusedPriorities.get(e.getKey());
      }
      if (refusedMoves.containsKey(e.getKey())) {
        fact += " move-refused=" + refusedMoves.get(e.getKey());
      }
      if (refusedAsks.containsKey(e.getKey())) {
        fact += " ask-refused=" + refusedAsks.get(e.getKey());
      }
      Long timeout = app.getApplicationTimeouts().get(ApplicationTimeoutType.LIFETIME);
      if (timeout != null && timeout > 0) {
        // The lifetime the scheduler granted, in seconds from submission.
        fact += " lifetime=" + (timeout - app.getSubmitTime()) / 1000;
      }
      RMAppAttempt attempt = app.getCurrentAppAttempt();
      if (attempt != null) {
        ApplicationAttemptId id = attempt.getAppAttemptId();
        SchedulerApplicationAttempt a = scheduler.getApplicationAttempt(id);
        if (a != null) {
          fact += " live=" + a.getLiveContainers().size()
              + " reserved=" + a.getReservedContainers().size()
              + " used=" + a.getCurrentConsumption().getMemorySize() + "MB";
        }
        String waiting = amDiagnosis(attempt.getDiagnostics());
        if (waiting != null && !app.isAppInCompletedStates()) {
          fact += " am=" + waiting;
        }
      }
      if (attempt != null) {
        RMAppAttemptMetrics metrics = attempt.getRMAppAttemptMetrics();
        if (metrics.getNumNonAMContainersPreempted() > 0 || metrics.getIsPreempted()) {
          fact += " preempted=" + metrics.getNumNonAMContainersPreempted() + "/"
              + metrics.getResourcePreempted().getMemorySize() + "MB"
              + (metrics.getIsPreempted() ? "+am" : "");
        }
      }
      List<Long> told = toldPreempted.get(e.getKey());
      if (told != null) {
        fact += " told-preempted=" + told;
      }
      Resource headroom = headrooms.get(e.getKey());
      if (headroom != null) {
        fact += " headroom=" + QueueProbe.text(headroom);
      }
      if (state == RMAppState.FAILED || state == RMAppState.KILLED) {
        // The rejection or kill text the client is shown, without the run's ids.
        fact += " diagnostics=" + app.getDiagnostics().toString()
            .replace(app.getApplicationId().toString(), e.getKey()).replace('\n', ' ');
      }
      facts.put("app " + e.getKey(), fact);
    }
    for (Map.Entry<String, String> e : refusedSubmissions.entrySet()) {
      facts.put("app " + e.getKey(), "submission-refused=" + e.getValue());
    }
    Map<NodeId, Set<ContainerId>> oursKillable = scheduler instanceof RustCapacityScheduler
        ? ConsistencyCheck.killable((RustCapacityScheduler) scheduler)
        : Collections.<NodeId, Set<ContainerId>>emptyMap();
    for (Map.Entry<String, MockNM> e : nodes.entrySet()) {
      SchedulerNode node = scheduler.getSchedulerNode(e.getValue().getNodeId());
      if (node == null) {
        continue;
      }
      RMContainer reserved = node.getReservedContainer();
      String fact = "allocated=" + node.getAllocatedResource().getMemorySize()
          + "MB free=" + node.getUnallocatedResource().getMemorySize()
          + "MB reserved-for=" + (reserved == null ? "none" : appName(reserved));
      Set<ContainerId> killable = node instanceof FiCaSchedulerNode
          ? ((FiCaSchedulerNode) node).getKillableContainers().keySet()
          : oursKillable.getOrDefault(node.getNodeID(), Collections.<ContainerId>emptySet());
      if (!killable.isEmpty()) {
        // Lazy preemption's killable containers, by application name and number.
        TreeSet<String> names = new TreeSet<>();
        for (ContainerId id : killable) {
          names.add(appName(id) + "#" + id.getContainerId());
        }
        fact += " killable=" + names;
      }
      facts.put("node " + e.getKey(), fact);
    }
    return facts;
  }

  private String appName(ContainerId id) {
    for (Map.Entry<String, RMApp> e : apps.entrySet()) {
      if (e.getValue().getApplicationId().equals(id.getApplicationAttemptId().getApplicationId())) {
        return e.getKey();
      }
    }
    return id.getApplicationAttemptId().toString();
  }

  private String appName(RMContainer c) {
    for (Map.Entry<String, RMApp> e : apps.entrySet()) {
      if (e.getValue().getApplicationId().equals(c.getApplicationAttemptId().getApplicationId())) {
        return e.getKey();
      }
    }
    return c.getApplicationAttemptId().toString();
  }

  /** Sizes: 1024, 1024M, 10G (MiB by default), as the scenario format writes them. */
  static int memory(String v) {
    String s = v.trim();
    char unit = Character.toUpperCase(s.charAt(s.length() - 1));
    if (unit == 'G') {
      return Integer.parseInt(s.substring(0, s.length() - 1)) * 1024;
    }
    if (unit == 'M') {
      return Integer.parseInt(s.substring(0, s.length() - 1));
    }
    return Integer.parseInt(s);
  }

  private static Resource resource(String v) {
    String[] parts = v.split(",");
    return Resource.newInstance(memory(parts[0]), parts.length > 1 ? Integer.parseInt(parts[1].trim()) : 1);
  }

  NodeId nodeId(String name) {
    return nodes.get(name).getNodeId();
  }

  /** Stops the RM. */
  @Override
  public void close() {
    rm.stop();
    for (MockRM old : replaced) {
      old.stop();
    }
  }
}
