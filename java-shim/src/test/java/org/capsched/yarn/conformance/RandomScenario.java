package org.capsched.yarn.conformance;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;

/**
 * A seeded generator of scenario files (docs/scenario-format.md) that reaches every feature
 * the scheduler implements: queue trees of two or three levels with capacities as
 * percentages, weights or absolute resources; either resource calculator; FIFO and fair
 * ordering (with size-based weight); user weights; every limit, the per-user ones included;
 * locality and per-heartbeat settings; a cluster over racks; and a workload of submissions
 * (managed, unmanaged, keep-containers), asks of every locality, heartbeats, releases,
 * containers ending on their nodes, AM failures and retries, unregistrations, kills, moves,
 * priority changes, blacklists, node loss and return, node resource changes, and refreshes
 * of every kind (limits changed, leaves and parents stopped and restarted, leaves added and
 * removed, the capacity mode converted). The same seed always yields the same text, so a
 * divergence can be saved as a .scn file and replayed.
 *
 * <p>Each scenario also lists the features it exercises ({@link #features}), from which the
 * randomized run writes its coverage table.
 */
final class RandomScenario {
  /** The scenario file's text. */
  final String text;
  /** The configuration keys, modes, events and refresh kinds it exercises. */
  final TreeSet<String> features;

  private RandomScenario(String text, TreeSet<String> features) {
    this.text = text;
    this.features = features;
  }

  static RandomScenario generate(long seed) {
    return new Generator(seed).run();
  }

  /**
   * A long workload for the soak ({@code FaultSoak}): the cluster and configuration of
   * {@code seed}'s scenario, then {@code steps} steps, among them faults the comparison with
   * Apache leaves out — AM liveness and container allocation expiries, NodeManager restarts
   * that keep their containers, nodes lost and heard from again with what they still run,
   * work-preserving RM restarts — with at most
   * {@value Generator#SOAK_LIVE_APPS} applications alive (a submission past that ends one).
   * Generating it draws differently from {@link #generate}: no seed's comparison changes.
   */
  static RandomScenario generateSoak(long seed, int steps) {
    Generator g = new Generator(seed);
    g.soakSteps = steps;
    g.faults = new Random(seed * 0x94D049BB133111EBL + 9);
    return g.run();
  }

  /** Capacity modes a tree is written in. */
  private enum Mode { PERCENT, WEIGHT, ABSOLUTE }

  /** One queue of the generated tree. */
  private static final class Queue {
    final String name;
    final List<Queue> children = new ArrayList<>();
    /** Percentage, weight or memory share (in the tree's mode), and the maximum. */
    int share;
    int max;
    boolean stopped;
    /** A managed parent (legacy auto-creation): no children of its own, and not a leaf. */
    boolean managed;
    final Map<String, String> settings = new LinkedHashMap<>();

    Queue(String name) {
      this.name = name;
    }

    boolean isLeaf() {
      return children.isEmpty();
    }
  }

  /** The opening phase a seed may have, for one of the preemption policy's selectors. */
  private enum SelectorPhase {
    NONE, QUEUE_PRIORITY, RESERVED_CONTAINERS
  }

  private static final class Generator {
    private final Random r;
    private final Random topology;
    /**
     * The draws of features added after the seed list was taken (priority ACLs,
     * lifetimes), apart from {@code r} so that every seed's scenario otherwise stays what
     * it was.
     */
    private final Random later;
    /**
     * The draws of capacity preemption — whether the monitor is on (for about a third of
     * the seeds), the policy's keys, and when rounds run and time passes — apart from the
     * others for the same reason.
     */
    private final Random preemption;
    /**
     * The draws of intra-queue preemption, for about half the seeds with preemption on,
     * apart from {@code preemption} so that the seeds without it stay what they were.
     */
    private final Random intra;
    /** The draw of the reserved-container selector, for a quarter of the preemption seeds. */
    private final Random forReservations;
    /**
     * The draws of queue priorities under priority-utilization parents, with preemption for
     * under-served queues of higher priority, for a third of the preemption seeds.
     */
    private final Random queuePriority;
    /** The draw of lazy preemption, for a third of the preemption seeds. */
    private final Random lazy;
    /** The draw of moving reservations, for half the queue-priority seeds. */
    private final Random moveReservation;
    /** Placement rules and users' groups, for about a fifth of the seeds. */
    private final Random placement;
    /** Auto-created queues, for about a quarter of the seeds. */
    private final Random autoQueues;
    /** Legacy auto-created leaves under a managed parent, for about a sixth of the seeds. */
    private final Random legacyQueues;
    /**
     * Whether the seed opens with a selector phase ({@link #selectorPhase()}), and which:
     * for about three seeds in 20 (not the soak's), drawn apart from the others so that the
     * remaining seeds stay what they were. A seed so drawn has preemption on, with the
     * phase's selector, even when placement rules then leave it without the phase.
     */
    private final Random selectors;
    /** Node labels: which seeds have a labelled partition, and everything about it. */
    private final Random labels;
    /** The cluster's label ("gpu"), or null when the seed has none. */
    private String label;
    private boolean labelExclusive;
    /** Leaves that may access the label as the configuration stands. */
    private final TreeSet<String> labelLeaves = new TreeSet<>();
    /** Nodes in the labelled partition now. */
    private final TreeSet<String> labelledNodes = new TreeSet<>();
    private SelectorPhase selectorPhase = SelectorPhase.NONE;
    /** The phase's leaves: the one that fills the cluster, and the under-served one. */
    private Queue hogLeaf;
    private Queue starvedLeaf;
    /** The managed parent (auto-create-child-queue.enabled), else null. */
    private Queue managedParent;
    /** Its full path. */
    private String managedPath;
    /** The parent that creates queues (auto-queue-creation-v2), else null. */
    private Queue creatingParent;
    /** Queues submissions asked for under {@link #creatingParent}, so far. */
    private int dynamicNames;
    /** The cluster line's users and groups when placement rules are on, else null. */
    private String groupsMapping;
    /** The soak's length in steps (0: a scenario of the comparison, 25 to 59 steps). */
    private int soakSteps;
    /** The soak's own draws of faults (null outside the soak). */
    private Random faults;
    /** Applications alive at once in the soak, at most. */
    static final int SOAK_LIVE_APPS = 40;
    /** One soak step in this many restarts the RM. */
    static final int RM_RESTART_ODDS = 300;
    private boolean preempting;
    private boolean intraPreempting;
    private boolean queuePriorities;
    /** Whether the first pressure application was submitted. */
    private boolean pressured;
    /** The leaf the first pressure application fills the cluster from. */
    private Queue greedyLeaf;
    /** Keys outside {@code yarn.scheduler.capacity.}, by full name. */
    private final Map<String, String> fullKeys = new LinkedHashMap<>();
    private final StringBuilder s = new StringBuilder();
    private final TreeSet<String> features = new TreeSet<>();
    private final Queue root = new Queue("root");
    private final Map<String, String> global = new LinkedHashMap<>();
    private Mode mode;
    private boolean drf;
    /** The cluster's size when the tree was written, for absolute capacities. */
    private int clusterMemoryGb;
    private int clusterVcores;
    private final List<String> nodes = new ArrayList<>();
    private final List<String> lostNodes = new ArrayList<>();
    /** Nodes the soak lost whose NodeManager still runs: they may come back. */
    private final List<String> soakLost = new ArrayList<>();
    private final Map<String, String> rackOf = new LinkedHashMap<>();
    private final List<String> apps = new ArrayList<>();
    private final Map<String, String> appLeaf = new LinkedHashMap<>();
    private int submitted;
    private int leafNames;

    Generator(long seed) {
      r = new Random(seed);
      topology = new Random(seed * 0x9E3779B97F4A7C15L + 1);
      later = new Random(seed * 0xC2B2AE3D27D4EB4FL + 2);
      preemption = new Random(seed * 0x165667B19E3779F9L + 3);
      intra = new Random(seed * 0x27D4EB2F165667C5L + 4);
      forReservations = new Random(seed * 0x85EBCA77C2B2AE63L + 5);
      queuePriority = new Random(seed * 0x9E3779B97F4A7C15L + 6);
      lazy = new Random(seed * 0xD6E8FEB86659FD93L + 7);
      moveReservation = new Random(seed * 0xA0761D6478BD642FL + 8);
      placement = new Random(seed * 0x2545F4914F6CDD1DL + 9);
      autoQueues = new Random(seed * 0x94D049BB133111EBL + 10);
      legacyQueues = new Random(seed * 0x2545F4914F6CDD1DL + 11);
      selectors = new Random(seed * 0xD6E8FEB86659FD93L + 12);
      labels = new Random(seed * 0xBF58476D1CE4E5B9L + 13);
      s.append("# random scenario, seed ").append(seed).append('\n');
    }

    RandomScenario run() {
      int racks = 1 + topology.nextInt(3);
      if (racks > 1) {
        features.add("cluster:racks");
      }
      // The cluster first: absolute capacities are sized against it.
      int nodeCount = 2 + r.nextInt(5);
      List<String> nodeLines = new ArrayList<>();
      for (int n = 1; n <= nodeCount; n++) {
        String rack = racks == 1 ? null : "/r" + topology.nextInt(racks);
        int memory = 4 + 2 * r.nextInt(4);
        int vcores = 4 + r.nextInt(8);
        clusterMemoryGb += memory;
        clusterVcores += vcores;
        String name = "n" + n;
        nodes.add(name);
        rackOf.put(name, rack);
        nodeLines.add(String.format("node %s%s memory=%dG vcores=%d%n", name, rack == null ? "" : " rack=" + rack,
            memory, vcores));
      }
      chooseTree();
      if (faults == null) {
        int phase = selectors.nextInt(20);
        // The reserved-container selector reaches fewer of its phases (Fifo's takes what it
        // leaves): twice as many seeds.
        selectorPhase = phase == 0 ? SelectorPhase.QUEUE_PRIORITY
            : phase <= 2 ? SelectorPhase.RESERVED_CONTAINERS : SelectorPhase.NONE;
      }
      choosePreemption();
      choosePlacement();
      chooseAutoQueues();
      chooseManagedParent();
      planSelectorPhase();
      chooseNodeLabels();
      s.append("config\n").append(xml()).append("end\n");
      int maxPriority = r.nextInt(4) == 0 ? 5 : 0;
      // ACLs on: priority ACLs (and every queue ACL, all open by default) are enforced.
      boolean acl = later.nextInt(3) == 0;
      boolean amNonExclusive = label != null && !labelExclusive && labels.nextInt(3) == 0;
      if (maxPriority > 0 || acl || faults != null || groupsMapping != null || label != null) {
        s.append("cluster");
        if (label != null) {
          s.append(" node-labels=true");
        }
        if (amNonExclusive) {
          s.append(" am-non-exclusive=true");
          features.add("labels:am-non-exclusive");
        }
        if (groupsMapping != null) {
          s.append(" groups=").append(groupsMapping);
        }
        if (faults != null) {
          // The soak restarts the RM now and then, work-preserving.
          s.append(" recovery=true");
        }
        if (maxPriority > 0) {
          s.append(" max-priority=").append(maxPriority);
          features.add("cluster:max-priority");
        }
        if (acl) {
          s.append(" acl=true");
          features.add("cluster:acl");
        }
        s.append('\n');
      }
      for (String line : nodeLines) {
        s.append(line);
      }
      labelNodes();
      selectorPhase();
      int steps = 25 + r.nextInt(35);
      if (soakSteps > 0) {
        steps = soakSteps;
      }
      for (int i = 0; i < steps; i++) {
        if (faults != null && soakFault()) {
          continue;
        }
        step();
        relabel();
        if (preempting && (i == steps / 4 || i == steps / 2)) {
          pressure(i == steps / 4 ? "pressure1" : "pressure2");
        }
        if (queuePriorities && pressured && i == 3 * steps / 8) {
          pressureForPriority();
        }
        if (intraPreempting && i == 3 * steps / 4) {
          pressureInside();
        }
        maybePreempt();
      }
      if (managedParent != null && legacyQueues.nextInt(3) == 0) {
        // The queue-management monitor, once, near the end: Apache's lag behind it is listed.
        s.append("manage-queues\n");
        features.add("event:manage-queues");
      }
      s.append("heartbeat all rounds=2\n");
      return new RandomScenario(s.toString(), features);
    }

    // ---- placement rules ---------------------------------------------------------------

    /**
     * For about a fifth of the seeds: users' groups (named after leaves, or not), and
     * placement rules over them - legacy queue-mappings or JSON rules, by user, group,
     * primary and secondary group, with and without the override - so that submissions
     * naming no queue are placed (see {@link #submit}).
     */
    private void choosePlacement() {
      if (placement.nextInt(5) != 0) {
        return;
      }
      List<Queue> leaves = leaves();
      String[] groupNames = new String[leaves.size() + 2];
      for (int i = 0; i < leaves.size(); i++) {
        groupNames[i] = leaves.get(i).name;
      }
      groupNames[leaves.size()] = "staff";
      groupNames[leaves.size() + 1] = "default";
      StringBuilder groups = new StringBuilder();
      for (int u = 0; u < 4; u++) {
        int count = placement.nextInt(3);
        if (count == 0) {
          continue;
        }
        groups.append(groups.length() == 0 ? "" : ";").append('u').append(u).append('=');
        for (int g = 0; g < count; g++) {
          groups.append(g == 0 ? "" : ",").append(groupNames[placement.nextInt(groupNames.length)]);
        }
      }
      groupsMapping = groups.length() == 0 ? "u0=staff" : groups.toString();
      String leaf = leaves.get(placement.nextInt(leaves.size())).name;
      String other = leaves.get(placement.nextInt(leaves.size())).name;
      if (placement.nextInt(3) == 0) {
        global.put("mapping-rule-format", "json");
        String[] policies = {"primaryGroup", "secondaryGroup", "user", "specified"};
        String[] fallbacks = {"skip", "placeDefault", "reject"};
        global.put("mapping-rule-json", "{\"rules\":["
            + "{\"type\":\"user\",\"matches\":\"u" + placement.nextInt(4)
            + "\",\"policy\":\"custom\",\"customPlacement\":\"" + leaf + "\"},"
            + "{\"type\":\"group\",\"matches\":\"staff\",\"policy\":\"setDefaultQueue\","
            + "\"value\":\"" + other + "\"},"
            + "{\"type\":\"user\",\"matches\":\"*\",\"policy\":\""
            + policies[placement.nextInt(policies.length)] + "\",\"fallbackResult\":\""
            + fallbacks[placement.nextInt(fallbacks.length)] + "\"},"
            + "{\"type\":\"user\",\"matches\":\"*\",\"policy\":\"defaultQueue\"}]}");
        features.add("placement:json");
      } else {
        String[] lasts = {"u:%user:%primary_group", "u:%user:%secondary_group", "u:%user:%user"};
        global.put("queue-mappings", "u:u" + placement.nextInt(4) + ":" + leaf + ",g:staff:" + other
            + "," + lasts[placement.nextInt(lasts.length)]);
        features.add("placement:legacy");
      }
      if (placement.nextInt(3) == 0) {
        global.put("queue-mappings-override.enable", "true");
        features.add("placement:override");
      }
    }

    // ---- auto-created queues ---------------------------------------------------------

    /**
     * For about a quarter of the seeds: one top-level parent creates queues
     * ({@code auto-queue-creation-v2}), sometimes with templates, a small max-queues or a
     * deeper depth; some submissions then name queues below it that do not exist yet (see
     * {@link #submit}). Under a parent whose children use percentages or absolute
     * resources, Apache refuses to create them: that is compared too.
     */
    private void chooseAutoQueues() {
      if (autoQueues.nextInt(4) != 0) {
        return;
      }
      creatingParent = root.children.get(autoQueues.nextInt(root.children.size()));
      Map<String, String> c = creatingParent.settings;
      c.put("auto-queue-creation-v2.enabled", "true");
      features.add("autoqueue:v2");
      if (autoQueues.nextInt(3) == 0) {
        c.put("auto-queue-creation-v2.max-queues", Integer.toString(creatingParent.children.size() + 1
            + autoQueues.nextInt(2)));
        features.add("autoqueue:max-queues");
      }
      if (autoQueues.nextInt(2) == 0) {
        c.put("auto-queue-creation-v2.template.capacity", (1 + autoQueues.nextInt(3)) + "w");
        c.put("auto-queue-creation-v2.leaf-template.maximum-capacity", pick("50", "80", "100"));
        features.add("autoqueue:template");
      }
      if (autoQueues.nextInt(3) == 0) {
        c.put("auto-queue-creation-v2.leaf-template.user-limit-factor", pick("1", "2"));
        c.put("auto-queue-creation-v2.leaf-template.maximum-am-resource-percent", pick("0.2", "0.5"));
        features.add("autoqueue:leaf-template-limits");
      }
      if (autoQueues.nextInt(4) == 0) {
        c.put("auto-queue-creation-v2.maximum-queue-depth", "3");
        features.add("autoqueue:maximum-queue-depth");
      }
    }

    /**
     * For about a sixth of the seeds whose tree is in percentages or weights and that have
     * no placement rules of their own: a leaf becomes a managed parent
     * ({@code auto-create-child-queue.enabled}) with a leaf template, and
     * {@code u:%user:M.%user} places the submissions that name no queue in a leaf
     * created for their user (see {@link #submit}); some submissions name a leaf under it
     * themselves, which Apache creates and refuses.
     */
    private void chooseManagedParent() {
      if (legacyQueues.nextInt(6) != 0 || mode == Mode.ABSOLUTE || groupsMapping != null) {
        return;
      }
      List<Queue> candidates = leaves();
      candidates.removeIf(q -> parentsOf(q).contains(creatingParent));
      if (candidates.isEmpty() || leaves().size() < 3) {
        return;
      }
      managedParent = candidates.get(legacyQueues.nextInt(candidates.size()));
      managedParent.managed = true;
      // The leaf's own settings (an ordering policy, user limits) mean nothing on a parent.
      managedParent.settings.clear();
      List<String> names = new ArrayList<>();
      for (Queue q : parentsOf(managedParent)) {
        names.add(q.name);
      }
      managedPath = String.join(".", names);
      Map<String, String> c = managedParent.settings;
      c.put("auto-create-child-queue.enabled", "true");
      c.put("leaf-queue-template.capacity", pick(legacyQueues, "20", "30", "50", "100"));
      features.add("autoqueue:legacy");
      if (legacyQueues.nextInt(2) == 0) {
        c.put("leaf-queue-template.maximum-capacity", pick(legacyQueues, "50", "80", "100"));
        c.put("leaf-queue-template.user-limit-factor", pick(legacyQueues, "1", "2", "3"));
        features.add("autoqueue:legacy-template-limits");
      }
      if (legacyQueues.nextInt(3) == 0) {
        c.put("auto-create-child-queue.max-queues", Integer.toString(1 + legacyQueues.nextInt(3)));
        features.add("autoqueue:legacy-max-queues");
      }
      if (legacyQueues.nextInt(4) == 0) {
        c.put("auto-create-child-queue.fail-on-exceeding-parent-capacity", "true");
        features.add("autoqueue:legacy-fail-on-exceeding");
      }
      global.put("queue-mappings", "u:%user:" + managedPath + ".%user");
    }

    /** A queue under the creating parent that may not exist yet: one, two or three levels. */
    private String dynamicQueue() {
      String parent = "root." + creatingParent.name;
      int name = autoQueues.nextInt(dynamicNames + 2);
      dynamicNames = Math.max(dynamicNames, name + 1);
      int depth = autoQueues.nextInt(6);
      if (depth < 3) {
        features.add("event:submit-auto-created");
        return parent + ".d" + name;
      }
      if (depth < 5) {
        features.add("event:submit-auto-created-two-levels");
        return parent + ".g" + autoQueues.nextInt(2) + ".d" + name;
      }
      features.add("event:submit-auto-created-three-levels");
      return parent + ".g0.h" + autoQueues.nextInt(2) + ".d" + name;
    }

    // ---- capacity preemption ---------------------------------------------------------

    /** For about a third of the seeds, the scheduling monitor on and the policy's keys. */
    private void choosePreemption() {
      // The draw is taken whatever the phase, so that the stream stays where it was.
      preempting = preemption.nextInt(3) == 0 | selectorPhase != SelectorPhase.NONE;
      if (!preempting) {
        return;
      }
      String policy = "yarn.resourcemanager.monitor.capacity.preemption.";
      fullKeys.put("yarn.resourcemanager.scheduler.monitor.enable", "true");
      features.add("preemption:on");
      if (preemption.nextBoolean()) {
        fullKeys.put(policy + "natural_termination_factor",
            new String[] {"0.5", "1.0", "0.35"}[preemption.nextInt(3)]);
        features.add("preemption:natural-termination-factor");
      }
      if (preemption.nextInt(3) == 0) {
        fullKeys.put(policy + "total_preemption_per_round",
            new String[] {"0.25", "0.5", "1.0"}[preemption.nextInt(3)]);
        features.add("preemption:total-per-round");
      }
      if (preemption.nextInt(3) == 0) {
        fullKeys.put(policy + "max_ignored_over_capacity",
            new String[] {"0", "0.3"}[preemption.nextInt(2)]);
        features.add("preemption:dead-zone");
      }
      if (preemption.nextInt(4) == 0) {
        List<Queue> all = new ArrayList<>();
        collectQueues(root, all);
        all.remove(root);
        all.get(preemption.nextInt(all.size())).settings.put("disable_preemption", "true");
        features.add("preemption:disabled-queue");
      }
      // The first pressure application's leaf lets one user take the whole cluster.
      List<Queue> leaves = leaves();
      greedyLeaf = leaves.get(preemption.nextInt(leaves.size()));
      greedyLeaf.settings.put("user-limit-factor", "100");
      if (preemption.nextInt(8) == 0) {
        fullKeys.put(policy + "observe_only", "true");
        features.add("preemption:observe-only");
      }
      if (drf && preemption.nextInt(3) == 0) {
        fullKeys.put(policy + "conservative-drf", "true");
        features.add("preemption:conservative-drf");
      }
      chooseIntraQueuePreemption(policy);
      if (forReservations.nextInt(4) == 0 | selectorPhase == SelectorPhase.RESERVED_CONTAINERS) {
        fullKeys.put(policy + "select_based_on_reserved_containers", "true");
        features.add("preemption:for-reservations");
      }
      if (queuePriority.nextInt(3) == 0 | selectorPhase == SelectorPhase.QUEUE_PRIORITY) {
        chooseQueuePriorities();
      }
      if (lazy.nextInt(3) == 0) {
        fullKeys.put("yarn.scheduler.capacity.lazy-preemption-enabled", "true");
        features.add("preemption:lazy");
      }
    }

    /**
     * Parents that order their children by priority, then utilization (the root always),
     * children of different priorities, and preemption for the reservations of under-served
     * leaves of higher priority, without its delay (Apache measures it on the wall clock).
     */
    private void chooseQueuePriorities() {
      queuePriorities = true;
      String keys = "yarn.scheduler.capacity.ordering-policy.priority-utilization.underutilized-preemption.";
      fullKeys.put(keys + "enabled", "true");
      fullKeys.put(keys + "reserved-container-delay-ms", "0");
      fullKeys.put("yarn.scheduler.capacity.root.ordering-policy", "priority-utilization");
      features.add("preemption:queue-priority");
      features.add("ordering:priority-utilization");
      if (moveReservation.nextBoolean()) {
        fullKeys.put(keys + "allow-move-reservation", "true");
        features.add("preemption:queue-priority-move-reservation");
      }
      List<Queue> all = new ArrayList<>();
      collectQueues(root, all);
      for (Queue q : all) {
        if (q.isLeaf()) {
          continue;
        }
        if (q != root) {
          if (queuePriority.nextBoolean()) {
            continue;
          }
          q.settings.put("ordering-policy", "priority-utilization");
        }
        for (Queue child : q.children) {
          child.settings.put("priority", Integer.toString(queuePriority.nextInt(4)));
        }
      }
    }

    /**
     * The selector phase's leaves and the settings it needs: the leaf of the largest
     * guarantee is left under-served, and the leaf of the smallest guarantee in another
     * branch of the root fills the cluster. Both branches may grow to the whole cluster and
     * both users to their leaf's maximum, so that the first fills every node and the
     * second's reservation is only for want of room on one node. For the queue-priority
     * phase the under-served branch has the higher priority. Preemption is not disabled on
     * the way to the first leaf (elsewhere it may be). Each leaf takes ten
     * applications whatever its share (the global maximum-applications may leave none to
     * a small leaf). The seed's other settings (limits, the policy's keys) stay as drawn:
     * some phases find nothing to take, as some clusters do. Seeds with placement rules
     * have no phase (the rules may send its applications elsewhere, or refuse them).
     */
    private void planSelectorPhase() {
      if (groupsMapping != null) {
        selectorPhase = SelectorPhase.NONE;
      }
      if (selectorPhase == SelectorPhase.NONE) {
        return;
      }
      List<Queue> leaves = leaves();
      Map<Queue, Double> guarantees = new LinkedHashMap<>();
      for (Queue leaf : leaves) {
        List<Queue> path = parentsOf(leaf);
        double guarantee = 1;
        for (int i = 1; i < path.size(); i++) {
          int siblings = 0;
          for (Queue sibling : path.get(i - 1).children) {
            siblings += sibling.share;
          }
          guarantee *= (double) path.get(i).share / siblings;
        }
        guarantees.put(leaf, guarantee);
      }
      for (Queue leaf : leaves) {
        if (starvedLeaf == null || guarantees.get(leaf) > guarantees.get(starvedLeaf)) {
          starvedLeaf = leaf;
        }
      }
      Queue starvedBranch = parentsOf(starvedLeaf).get(1);
      for (Queue leaf : leaves) {
        if (parentsOf(leaf).get(1) != starvedBranch
            && (hogLeaf == null || guarantees.get(leaf) < guarantees.get(hogLeaf))) {
          hogLeaf = leaf;
        }
      }
      if (hogLeaf == null) {
        selectorPhase = SelectorPhase.NONE;
        return;
      }
      for (Queue leaf : new Queue[] {hogLeaf, starvedLeaf}) {
        for (Queue q : parentsOf(leaf)) {
          q.max = 100;
          if (leaf == hogLeaf) {
            q.settings.remove("disable_preemption");
          }
        }
        leaf.settings.put("user-limit-factor", "100");
        leaf.settings.put("maximum-applications", "10");
      }
      if (selectorPhase == SelectorPhase.QUEUE_PRIORITY) {
        parentsOf(hogLeaf).get(1).settings.put("priority", "0");
        starvedBranch.settings.put("priority", "3");
      }
      features.add(selectorPhase == SelectorPhase.QUEUE_PRIORITY
          ? "preemption:phase-queue-priority" : "preemption:phase-reserved-containers");
    }

    /**
     * The selector phase, before the workload: one application fills every node with
     * 1 GB containers, stops asking and gives its oldest back, the same number on each
     * node; then an application of the under-served leaf asks for containers one size
     * bigger than that (in every resource), which fit on no node though the cluster has
     * room for them, so that it reserves one. Rounds of the policy take room for the
     * reservation, and both applications end, leaving an empty cluster to the workload.
     */
    private void selectorPhase() {
      if (selectorPhase == SelectorPhase.NONE) {
        return;
      }
      // Freed on each node: with three nodes or more one is enough for the cluster to
      // have room for the bigger container beside the second AM; with two, two are.
      int freedPerNode = nodes.size() >= 3 ? 1 : 2;
      s.append(String.format("app selector1 queue=%s user=u7 am=1G%n", hogLeaf.name));
      s.append(String.format("ask selector1 memory=1G count=%d%n", clusterMemoryGb));
      s.append("heartbeat all rounds=12\n");
      s.append("ask selector1 memory=1G count=0\n");
      s.append(String.format("finish selector1 count=%d%n", freedPerNode * nodes.size()));
      s.append(String.format("app selector2 queue=%s user=u8 am=1G%n", starvedLeaf.name));
      s.append("heartbeat all\n");
      s.append(String.format("ask selector2 memory=%dG vcores=%d count=2%n", freedPerNode + 1, freedPerNode + 1));
      s.append("heartbeat all rounds=2\n");
      s.append("preempt\n");
      s.append("wait ").append(15 + selectors.nextInt(10)).append('\n');
      s.append("preempt\n");
      s.append("heartbeat all rounds=2\n");
      s.append("unregister selector1\nunregister selector2\n");
      features.add("event:preempt");
    }

    /** For about half the seeds with preemption, preemption inside queues too. */
    private void chooseIntraQueuePreemption(String policy) {
      intraPreempting = intra.nextBoolean();
      if (!intraPreempting) {
        return;
      }
      String keys = policy + "intra-queue-preemption.";
      fullKeys.put(keys + "enabled", "true");
      features.add("preemption:intra-queue");
      if (intra.nextBoolean()) {
        fullKeys.put(keys + "preemption-order-policy", "priority_first");
        features.add("preemption:intra-queue-priority-first");
      }
      if (intra.nextInt(3) == 0) {
        fullKeys.put(keys + "max-allowable-limit", new String[] {"0.5", "1.0"}[intra.nextInt(2)]);
        features.add("preemption:intra-queue-max-allowable-limit");
      }
      if (intra.nextInt(4) == 0) {
        fullKeys.put(keys + "minimum-threshold", new String[] {"0", "0.9"}[intra.nextInt(2)]);
        features.add("preemption:intra-queue-minimum-threshold");
      }
      if (drf && intra.nextInt(3) == 0) {
        fullKeys.put(keys + "conservative-drf", "false");
        features.add("preemption:intra-queue-conservative-drf-off");
      }
      if (intra.nextInt(5) == 0) {
        List<Queue> all = new ArrayList<>();
        collectQueues(root, all);
        all.get(intra.nextInt(all.size())).settings.put("intra-queue-preemption.disable_preemption", "true");
        features.add("preemption:intra-queue-disabled-queue");
      }
      // Users share the greedy leaf evenly, so one user can be over its limit.
      if (intra.nextBoolean()) {
        greedyLeaf.settings.put("minimum-user-limit-percent", new String[] {"25", "50"}[intra.nextInt(2)]);
        // A user weight drawn for the old percentage may be more than the new one allows
        // (Apache would refuse to start): the lightest weight drawn instead.
        int mulp = Integer.parseInt(greedyLeaf.settings.get("minimum-user-limit-percent"));
        greedyLeaf.settings.replaceAll((k, v) -> k.startsWith("user-settings.") && k.endsWith(".weight")
            && Double.parseDouble(v) > 100.0 / mulp ? "0.5" : v);
        features.add("preemption:intra-queue-user-limit");
      }
    }

    /** Now and then, time passes and a round of the preemption policy runs. */
    private void maybePreempt() {
      if (!preempting || preemption.nextInt(2) != 0) {
        return;
      }
      if (preemption.nextInt(3) != 0) {
        s.append("wait ").append(5 + preemption.nextInt(16)).append('\n');
      }
      s.append("preempt\n");
      features.add("event:preempt");
    }

    /**
     * An application that asks for the whole cluster in a running leaf, so that some queue
     * is starved while another holds more than its share: what preemption is for. It is
     * drawn apart from the seed's other applications (later steps never name it).
     */
    private void pressure(String app) {
      List<Queue> running = leaves();
      running.removeIf(l -> l.stopped);
      if (running.isEmpty()) {
        return;
      }
      Queue leaf = running.get(preemption.nextInt(running.size()));
      if (app.equals("pressure1") && running.contains(greedyLeaf)) {
        leaf = greedyLeaf;
      } else if (running.size() > 1 && leaf == greedyLeaf) {
        running.remove(greedyLeaf);
        leaf = running.get(preemption.nextInt(running.size()));
      }
      if (label != null && app.equals("pressure2")) {
        // On a labelled cluster the second pressure comes from a leaf that may use the
        // label, where one is running: what the label's partition owes it.
        List<Queue> labelled = new ArrayList<>(running);
        labelled.removeIf(l -> l == greedyLeaf || !labelLeaves.contains(l.name));
        if (!labelled.isEmpty()) {
          leaf = labelled.get(labels.nextInt(labelled.size()));
        }
      }
      s.append(String.format("app %s queue=%s user=u%d am=1G%n", app, leaf.name, 4 + preemption.nextInt(2)));
      s.append(String.format("ask %s memory=%dG count=%d%n", app, 1 + preemption.nextInt(2), clusterMemoryGb));
      if (label != null && labelLeaves.contains(leaf.name)) {
        // Pressure in the labelled partition too: what the leaf is guaranteed there may be
        // held by others, or lent to default-partition asks.
        s.append(String.format("ask %s priority=1 memory=%dG count=%d label=%s%n", app, 1 + labels.nextInt(2),
            clusterMemoryGb, label));
        features.add("labels:preemption-pressure");
      }
      s.append("heartbeat all rounds=2\n");
      features.add("preemption:pressure");
      pressured |= app.equals("pressure1");
    }

    /**
     * The first pressure application gives a few containers back, scattered over the
     * nodes, and an application in another leaf asks for a container bigger than any one
     * node now has free: its reservation is what preemption for under-served queues of
     * higher priority makes room for.
     */
    private void pressureForPriority() {
      List<Queue> running = leaves();
      running.removeIf(l -> l.stopped || l == greedyLeaf);
      if (running.isEmpty()) {
        return;
      }
      Queue leaf = running.get(queuePriority.nextInt(running.size()));
      s.append(String.format("finish pressure1 count=%d%n", 3 + queuePriority.nextInt(4)));
      s.append(String.format("app pressure4 queue=%s user=u6 am=1G%n", leaf.name));
      s.append(String.format("ask pressure4 memory=%dG count=1%n", 2 + queuePriority.nextInt(3)));
      s.append("heartbeat all rounds=2\n");
      features.add("preemption:pressure-fragmented");
    }

    /**
     * A third pressure application, in the greedy leaf, of another user and (when the
     * cluster allows priorities) another priority: what intra-queue preemption is for.
     */
    private void pressureInside() {
      if (greedyLeaf.stopped || !leaves().contains(greedyLeaf)) {
        return;
      }
      s.append(String.format("app pressure3 queue=%s user=u%d priority=%d am=1G%n", greedyLeaf.name,
          5 + intra.nextInt(2), intra.nextInt(6)));
      s.append(String.format("ask pressure3 memory=%dG count=%d%n", 1 + intra.nextInt(2), clusterMemoryGb));
      s.append("heartbeat all rounds=2\n");
      features.add("preemption:pressure-inside");
    }

    private static void collectQueues(Queue q, List<Queue> out) {
      out.add(q);
      for (Queue c : q.children) {
        collectQueues(c, out);
      }
    }

    // ---- the queue tree -------------------------------------------------------------

    private void chooseTree() {
      int m = r.nextInt(10);
      mode = m < 6 ? Mode.PERCENT : m < 8 ? Mode.WEIGHT : Mode.ABSOLUTE;
      drf = r.nextBoolean();
      int parents = 2 + r.nextInt(2);
      for (int p = 0; p < parents; p++) {
        Queue parent = new Queue("p" + p);
        root.children.add(parent);
        int leaves = 1 + r.nextInt(3);
        for (int l = 0; l < leaves; l++) {
          // One leaf in four of a three-level tree is a parent of two leaves itself.
          if (l == 0 && r.nextInt(4) == 0) {
            Queue mid = new Queue(parent.name + "m");
            parent.children.add(mid);
            mid.children.add(newLeaf(mid));
            mid.children.add(newLeaf(mid));
          } else {
            parent.children.add(newLeaf(parent));
          }
        }
        if (r.nextInt(5) == 0) {
          parent.settings.put("max-parallel-apps", Integer.toString(1 + r.nextInt(4)));
          features.add("limit:max-parallel-apps(parent)");
        }
        if (later.nextInt(6) == 0) {
          // Inherited by leaves without their own (above every leaf's default).
          parent.settings.put("maximum-application-lifetime", later.nextBoolean() ? "86400" : "604800");
          features.add("lifetime:maximum(parent)");
        }
      }
      assignShares(root);
      // Scheduler-wide settings.
      if (r.nextInt(5) == 0) {
        global.put("maximum-am-resource-percent", pick("0.2", "0.5", "1.0"));
        features.add("limit:maximum-am-resource-percent(global)");
      }
      if (r.nextInt(8) == 0) {
        global.put("maximum-applications", Integer.toString(4 + r.nextInt(8)));
        features.add("limit:maximum-applications(global)");
      }
      if (r.nextInt(10) == 0) {
        global.put("global-queue-max-application", Integer.toString(2 + r.nextInt(4)));
        features.add("limit:global-queue-max-application");
      }
      if (r.nextInt(8) == 0) {
        global.put("max-parallel-apps", Integer.toString(2 + r.nextInt(4)));
        features.add("limit:max-parallel-apps(global)");
      }
      if (r.nextInt(6) == 0) {
        global.put("user.max-parallel-apps", Integer.toString(1 + r.nextInt(3)));
        features.add("limit:user.max-parallel-apps");
      }
      if (r.nextInt(6) == 0) {
        global.put("user.u" + r.nextInt(4) + ".max-parallel-apps", Integer.toString(1 + r.nextInt(2)));
        features.add("limit:user.NAME.max-parallel-apps");
      }
      global.put("node-locality-delay", Integer.toString(r.nextInt(4)));
      features.add("locality:node-locality-delay");
      if (r.nextInt(4) == 0) {
        global.put("rack-locality-additional-delay", Integer.toString(r.nextInt(3)));
        features.add("locality:rack-locality-additional-delay");
      }
      if (r.nextInt(6) == 0) {
        global.put("rack-locality-full-reset", "false");
        features.add("locality:rack-locality-full-reset=false");
      }
      int heartbeat = r.nextInt(8);
      if (heartbeat == 0) {
        global.put("per-node-heartbeat.multiple-assignments-enabled", "false");
        features.add("heartbeat:multiple-assignments-enabled=false");
      } else if (heartbeat == 1) {
        global.put("per-node-heartbeat.maximum-container-assignments", Integer.toString(1 + r.nextInt(4)));
        features.add("heartbeat:maximum-container-assignments");
      } else if (heartbeat == 2) {
        global.put("per-node-heartbeat.maximum-offswitch-assignments", Integer.toString(2 + r.nextInt(3)));
        features.add("heartbeat:maximum-offswitch-assignments");
      }
      features.add("capacity:" + mode.name().toLowerCase());
      features.add(drf ? "calculator:dominant" : "calculator:default");
    }

    private Queue newLeaf(Queue parent) {
      Queue leaf = new Queue(parent.name + "l" + (leafNames++));
      Map<String, String> c = leaf.settings;
      c.put("user-limit-factor", pick("1", "2", "0.5", "-1"));
      c.put("minimum-user-limit-percent", pick("100", "50", "25"));
      features.add("limit:user-limit-factor");
      features.add("limit:minimum-user-limit-percent");
      if (r.nextInt(3) == 0) {
        c.put("maximum-am-resource-percent", pick("0.2", "0.5", "1.0"));
        features.add("limit:maximum-am-resource-percent(queue)");
      }
      if (r.nextInt(3) == 0) {
        c.put("ordering-policy", "fair");
        features.add("ordering:fair");
        if (r.nextBoolean()) {
          c.put("ordering-policy.fair.enable-size-based-weight", "true");
          features.add("ordering:fair-size-based-weight");
        }
      } else {
        features.add("ordering:fifo");
      }
      if (r.nextInt(5) == 0) {
        // Apache refuses a weight above 100 / minimum-user-limit-percent.
        int mulp = Integer.parseInt(c.get("minimum-user-limit-percent"));
        String weight = pick("0.5", "2", "3");
        c.put("user-settings.u" + r.nextInt(4) + ".weight",
            Double.parseDouble(weight) <= 100.0 / mulp ? weight : "0.5");
        features.add("limit:user-weight");
      }
      if (r.nextInt(6) == 0) {
        c.put("max-parallel-apps", Integer.toString(1 + r.nextInt(3)));
        features.add("limit:max-parallel-apps(leaf)");
      }
      if (r.nextInt(8) == 0) {
        c.put("maximum-applications", Integer.toString(2 + r.nextInt(4)));
        features.add("limit:maximum-applications(queue)");
      }
      if (r.nextInt(8) == 0) {
        c.put("default-application-priority", Integer.toString(1 + r.nextInt(3)));
        features.add("priority:default-application-priority");
      }
      if (later.nextInt(6) == 0) {
        // A user's highest and default priority here (Apache's priority ACL format).
        int max = later.nextInt(4);
        c.put("acl_application_max_priority", "[user=u" + later.nextInt(4) + " max_priority="
            + max + " default_priority=" + later.nextInt(max + 1) + "]");
        features.add("priority:acl");
      }
      if (later.nextInt(6) == 0) {
        // Lifetimes in seconds, long enough that none ends during a run; Apache refuses a
        // default above the maximum, so the default stays within it.
        int max = new int[] {2000, 3600, 86400}[later.nextInt(3)];
        c.put("maximum-application-lifetime", Integer.toString(max));
        features.add("lifetime:maximum");
        if (later.nextBoolean()) {
          c.put("default-application-lifetime", Integer.toString(1000 + later.nextInt(max - 999)));
          features.add("lifetime:default");
        }
      }
      return leaf;
    }

    /** New shares and maxima for {@code q}'s children (and theirs), in the tree's mode. */
    private void assignShares(Queue q) {
      if (q.isLeaf()) {
        return;
      }
      int[] shares = split(q.children.size());
      for (int i = 0; i < q.children.size(); i++) {
        Queue c = q.children.get(i);
        switch (mode) {
        case WEIGHT:
          c.share = 1 + r.nextInt(6);
          break;
        default:
          c.share = shares[i];
        }
        c.max = Math.max(c.share, 30 + r.nextInt(71));
        assignShares(c);
      }
    }

    /** {@code n} positive integer percentages summing to 100. */
    private int[] split(int n) {
      int[] out = new int[n];
      int left = 100;
      for (int i = 0; i < n - 1; i++) {
        out[i] = 5 + r.nextInt(Math.max(1, left - 5 * (n - i)));
        left -= out[i];
      }
      out[n - 1] = left;
      return out;
    }

    /** {@code share} percent of a parent's guarantee and {@code max} percent of its maximum. */
    private static long[][] shareOf(long[][] parent, int share, int max) {
      long[] min = {parent[0][0] * share / 100, parent[0][1] * share / 100};
      return new long[][] {min,
          {Math.max(min[0], parent[1][0] * max / 100), Math.max(min[1], parent[1][1] * max / 100)}};
    }

    private static String vector(long[] r) {
      return "[memory=" + r[0] + ",vcores=" + r[1] + "]";
    }

    private String xml() {
      StringBuilder c = new StringBuilder("<configuration>\n");
      long[] cluster = {clusterMemoryGb * 1024L, clusterVcores};
      // The label's absolute capacities are sized against half the cluster (the labelled
      // nodes come and go; Apache scales the guarantees down when they ask for more).
      long[] labelled = {cluster[0] / 2, cluster[1] / 2};
      writeQueue(c, root, "root", new long[][] {cluster, cluster}, new long[][] {labelled, labelled});
      for (Map.Entry<String, String> e : global.entrySet()) {
        prop(c, e.getKey(), e.getValue());
      }
      if (drf) {
        prop(c, "resource-calculator", "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator");
      }
      for (Map.Entry<String, String> e : fullKeys.entrySet()) {
        c.append("  <property><name>").append(e.getKey()).append("</name><value>")
            .append(e.getValue()).append("</value></property>\n");
      }
      return c.append("</configuration>\n").toString();
    }

    /**
     * Writes {@code q} at {@code path}. For absolute capacities, {@code bounds} are its
     * parent's guarantee and maximum ({memory MB, vcores}) in the default partition and
     * {@code labelBounds} in the label's; each child gets its share of them rounded down,
     * so children never sum to more than their parent in any resource (which Apache
     * refuses). The label's shares are written in the tree's mode: percentages, weights,
     * or absolute resources.
     */
    private void writeQueue(StringBuilder c, Queue q, String path, long[][] bounds, long[][] labelBounds) {
      long[][] own = bounds;
      long[][] ownLabel = labelBounds;
      if (q != root) {
        switch (mode) {
        case PERCENT:
          prop(c, path + ".capacity", Integer.toString(q.share));
          prop(c, path + ".maximum-capacity", Integer.toString(q.max));
          break;
        case WEIGHT:
          prop(c, path + ".capacity", q.share + "w");
          prop(c, path + ".maximum-capacity", Integer.toString(q.max));
          break;
        default:
          own = shareOf(bounds, q.share, q.max);
          prop(c, path + ".capacity", vector(own[0]));
          prop(c, path + ".maximum-capacity", vector(own[1]));
        }
        if (q.stopped) {
          prop(c, path + ".state", "STOPPED");
        }
        String labelCapacity = "accessible-node-labels." + label + ".capacity";
        String labelMaximum = "accessible-node-labels." + label + ".maximum-capacity";
        if (label != null && q.settings.containsKey(labelCapacity)) {
          int share = Integer.parseInt(q.settings.get(labelCapacity));
          String max = q.settings.get(labelMaximum);
          ownLabel = shareOf(labelBounds, share, max == null ? 100 : Integer.parseInt(max));
        }
        for (Map.Entry<String, String> e : q.settings.entrySet()) {
          String key = e.getKey();
          String value = e.getValue();
          if (key.equals(labelCapacity) && mode == Mode.WEIGHT) {
            // At least 1w: Apache keeps a queue's old share of a label when a refresh sets
            // its weight there to 0w (its legacy update sets a share only when positive).
            value = Math.max(1, Integer.parseInt(value)) + "w";
          } else if (key.equals(labelCapacity) && mode == Mode.ABSOLUTE) {
            value = vector(ownLabel[0]);
          } else if (key.equals(labelMaximum) && mode == Mode.ABSOLUTE) {
            value = vector(ownLabel[1]);
          }
          if (!(q.stopped && key.equals("state"))) {
            prop(c, path + "." + key, value);
          }
        }
      }
      if (!q.isLeaf()) {
        List<String> names = new ArrayList<>();
        for (Queue child : q.children) {
          names.add(child.name);
        }
        prop(c, path + ".queues", String.join(",", names));
        for (Queue child : q.children) {
          writeQueue(c, child, path + "." + child.name, own, ownLabel);
        }
      }
    }

    private List<Queue> leaves() {
      List<Queue> out = new ArrayList<>();
      collectLeaves(root, out);
      return out;
    }

    private static void collectLeaves(Queue q, List<Queue> out) {
      if (q.isLeaf() && !q.managed) {
        out.add(q);
      }
      for (Queue c : q.children) {
        collectLeaves(c, out);
      }
    }

    private List<Queue> parentsOf(Queue q) {
      List<Queue> out = new ArrayList<>();
      findPath(root, q, out);
      return out;
    }

    private static boolean findPath(Queue at, Queue target, List<Queue> path) {
      path.add(at);
      if (at == target) {
        return true;
      }
      for (Queue c : at.children) {
        if (findPath(c, target, path)) {
          return true;
        }
      }
      path.remove(path.size() - 1);
      return false;
    }

    // ---- the workload -----------------------------------------------------------------

    private void step() {
      int what = r.nextInt(100);
      if (what < 16 || apps.isEmpty()) {
        submit();
      } else if (what < 38) {
        ask();
      } else if (what < 62) {
        if (r.nextBoolean()) {
          s.append("heartbeat all rounds=").append(1 + r.nextInt(3)).append('\n');
        } else {
          s.append("heartbeat ").append(nodes.get(r.nextInt(nodes.size()))).append('\n');
        }
        features.add("event:heartbeat");
      } else if (what < 71) {
        s.append(String.format("finish %s count=%d%n", anyApp(), 1 + r.nextInt(4)));
        features.add("event:finish");
      } else if (what < 74) {
        s.append(String.format("complete %s count=%d%n", anyApp(), 1 + r.nextInt(3)));
        features.add("event:complete");
      } else if (what < 78) {
        String app = apps.remove(r.nextInt(apps.size()));
        s.append("remove ").append(app).append('\n');
        features.add("event:kill");
      } else if (what < 80) {
        String app = apps.remove(r.nextInt(apps.size()));
        s.append("unregister ").append(app).append('\n');
        features.add("event:unregister");
      } else if (what < 82) {
        s.append("fail-am ").append(anyApp()).append('\n');
        features.add("event:fail-am");
      } else if (what < 84) {
        moveOrPriority();
      } else if (what < 86) {
        blacklist();
      } else if (what < 89) {
        nodeEvent();
      } else {
        refresh();
      }
    }

    /**
     * The soak's extra steps: an expiry now and then, and an application ended when too many
     * are alive. True if it wrote a step in place of a generated one.
     */
    private boolean soakFault() {
      if (apps.size() > SOAK_LIVE_APPS) {
        String app = apps.remove(faults.nextInt(apps.size()));
        s.append(faults.nextBoolean() ? "remove " : "unregister ").append(app).append('\n');
        return true;
      }
      if (faults.nextInt(RM_RESTART_ODDS) == 0) {
        s.append("restart-rm\n");
        features.add("event:restart-rm");
        return true;
      }
      int what = faults.nextInt(100);
      if (what == 99) {
        s.append("restart-node ").append(nodes.get(faults.nextInt(nodes.size()))).append('\n');
        features.add("event:restart-node");
        return true;
      }
      if (what == 98 && nodes.size() > 1) {
        String node = nodes.remove(faults.nextInt(nodes.size()));
        soakLost.add(node);
        s.append("lose-node ").append(node).append('\n');
        features.add("event:lose-node");
        return true;
      }
      if (what >= 96 && !soakLost.isEmpty()) {
        String node = soakLost.remove(0);
        nodes.add(node);
        s.append("return-node ").append(node).append('\n');
        features.add("event:return-node");
        return true;
      }
      if (apps.isEmpty() || what >= 4) {
        return false;
      }
      s.append(what < 2 ? "expire-am " : "expire-container ").append(anyApp()).append('\n');
      features.add(what < 2 ? "event:expire-am" : "event:expire-container");
      return true;
    }

    private String anyApp() {
      return apps.get(r.nextInt(apps.size()));
    }

    private void submit() {
      String app = "app" + (++submitted);
      List<Queue> leaves = leaves();
      Queue leaf = leaves.get(r.nextInt(leaves.size()));
      apps.add(app);
      appLeaf.put(app, leaf.name);
      String queue = leaf.name;
      if (groupsMapping != null && placement.nextInt(2) == 0) {
        // Named no queue: the placement rules decide.
        queue = "default";
        features.add("event:submit-placed");
      } else if (creatingParent != null && autoQueues.nextInt(3) == 0) {
        queue = dynamicQueue();
      } else if (managedParent != null && legacyQueues.nextInt(3) == 0) {
        if (legacyQueues.nextInt(4) == 0) {
          // Named by the submitter, not placed: created, and the application refused.
          queue = managedPath + ".x" + legacyQueues.nextInt(2);
          features.add("event:submit-managed-unplaced");
        } else {
          queue = "default";
          features.add("event:submit-managed-placed");
        }
      }
      StringBuilder line = new StringBuilder(String.format("app %s queue=%s user=u%d", app, queue, r.nextInt(4)));
      int kind = r.nextInt(12);
      if (kind == 0) {
        line.append(" unmanaged");
        features.add("event:submit-unmanaged");
      } else {
        line.append(" am=").append(1 + r.nextInt(2)).append('G');
        if (drf && r.nextInt(3) == 0) {
          line.append(',').append(1 + r.nextInt(2));
        }
        if (kind == 1) {
          line.append(" keep-containers");
          features.add("event:submit-keep-containers");
        }
      }
      if (r.nextInt(6) == 0) {
        line.append(" priority=").append(r.nextInt(4));
        features.add("event:submit-priority");
      }
      if (later.nextInt(5) == 0) {
        line.append(" lifetime=").append(new int[] {1000, 5000, 100000}[later.nextInt(3)]);
        features.add("event:submit-lifetime");
      }
      s.append(line).append('\n');
      features.add("event:submit");
    }

    private void ask() {
      String app = anyApp();
      int priority = 1 + r.nextInt(3);
      int memory = 1 + r.nextInt(4);
      int count = 1 + r.nextInt(12);
      String vcores = "";
      if (drf && r.nextInt(3) == 0) {
        vcores = " vcores=" + (1 + r.nextInt(3));
        features.add("event:ask-vcores");
      }
      String labelled = "";
      if (label != null && labelLeaves.contains(appLeaf.get(app)) && labels.nextInt(2) == 0) {
        labelled = " label=" + label;
        features.add("labels:ask");
      }
      s.append(String.format("ask %s priority=%d memory=%dG%s count=%d%s%n", app, priority, memory, vcores, count,
          labelled));
      features.add("event:ask");
      if (r.nextInt(4) == 0) {
        String node = nodes.get(r.nextInt(nodes.size()));
        int local = Math.max(1, count / 2);
        boolean strict = r.nextInt(5) == 0;
        s.append(String.format("ask %s priority=%d memory=%dG%s count=%d at=%s%s%n", app, priority, memory, vcores,
            local, node, strict ? " relax=false" : ""));
        features.add(strict ? "event:ask-node-strict" : "event:ask-node");
        // As AMRMClient asks for a host: for its rack too (mostly).
        String rack = rackOf.get(node);
        if (rack != null && topology.nextInt(4) != 0) {
          s.append(String.format("ask %s priority=%d memory=%dG%s count=%d at=%s%n", app, priority, memory, vcores,
              local, rack));
          features.add("event:ask-rack");
        }
      } else if (rackOf.values().stream().anyMatch(x -> x != null) && topology.nextInt(6) == 0) {
        String rack = new ArrayList<>(new TreeSet<>(rackOf.values().stream().filter(x -> x != null)
            .collect(java.util.stream.Collectors.toList()))).get(0);
        s.append(String.format("ask %s priority=%d memory=%dG%s count=%d at=%s%n", app, priority, memory, vcores,
            Math.max(1, count / 2), rack));
        features.add("event:ask-rack");
      }
    }

    private void moveOrPriority() {
      String app = anyApp();
      if (r.nextBoolean()) {
        // To another leaf: Apache's move of an application to the queue it is in already
        // loses its user's usage there (divergences.txt: miscounted-user).
        List<Queue> leaves = leaves();
        leaves.removeIf(l -> l.name.equals(appLeaf.get(app)));
        if (leaves.isEmpty()) {
          return;
        }
        Queue to = leaves.get(r.nextInt(leaves.size()));
        s.append("move ").append(app).append(" queue=").append(to.name).append('\n');
        appLeaf.put(app, to.name);
        features.add("event:move");
      } else {
        s.append("priority ").append(app).append(' ').append(r.nextInt(6)).append('\n');
        features.add("event:priority");
      }
    }

    private void blacklist() {
      String app = anyApp();
      String node = nodes.get(r.nextInt(nodes.size()));
      s.append("blacklist ").append(app).append(r.nextInt(3) == 0 ? " remove=" : " add=").append(node).append('\n');
      features.add("event:blacklist");
    }

    private void nodeEvent() {
      int kind = r.nextInt(3);
      if (kind == 0 && nodes.size() > 1) {
        String node = nodes.remove(r.nextInt(nodes.size()));
        lostNodes.add(node);
        s.append("remove-node ").append(node).append('\n');
        features.add("event:remove-node");
      } else if (kind == 1 && !lostNodes.isEmpty()) {
        String node = lostNodes.remove(0);
        nodes.add(node);
        String rack = rackOf.get(node);
        s.append(String.format("node %s%s memory=%dG vcores=%d%n", node, rack == null ? "" : " rack=" + rack,
            4 + 2 * r.nextInt(4), 4 + r.nextInt(8)));
        features.add("event:re-add-node");
      } else {
        String node = nodes.get(r.nextInt(nodes.size()));
        s.append(String.format("node-resource %s memory=%dG vcores=%d%n", node, 4 + 2 * r.nextInt(4),
            4 + r.nextInt(8)));
        features.add("event:node-resource");
      }
    }

    // ---- node labels ------------------------------------------------------------------

    /**
     * For half the seeds (in any capacity mode, with any preemption), not a soak, nor a
     * tree with auto-created queues: a label, exclusive or not, its shares down some paths
     * of the tree (see {@link #assignLabelShares}), one or two nodes labelled, asks for it
     * (see {@link #ask}), nodes relabelled as the run goes (see {@link #relabel}).
     */
    private void chooseNodeLabels() {
      boolean drawn = labels.nextInt(2) == 0;
      boolean lazyPreemption = fullKeys.containsKey("yarn.scheduler.capacity.lazy-preemption-enabled");
      if (!drawn || faults != null || managedParent != null || creatingParent != null) {
        return;
      }
      label = "gpu";
      labelExclusive = labels.nextBoolean();
      features.add(labelExclusive ? "labels:exclusive" : "labels:non-exclusive");
      if (mode != Mode.PERCENT) {
        features.add(mode == Mode.WEIGHT ? "labels:weights" : "labels:absolute");
      }
      if (preempting) {
        features.add("labels:preemption");
      }
      if (preempting && lazyPreemption) {
        features.add("labels:lazy-preemption");
      }
      if (preempting && intraPreempting) {
        features.add("labels:intra-queue-preemption");
      }
      if (preempting && queuePriorities) {
        features.add("labels:queue-priority-preemption");
      }
      assignLabelShares();
    }

    /**
     * Draws the label's shares afresh: under the root and under every parent with a share,
     * one or two children get one (adding up to 100), each sometimes with a maximum and,
     * on a leaf, its own AM percentage or a default label expression; the other children
     * may not access the label or inherit their parent's access with no share.
     */
    private void assignLabelShares() {
      List<Queue> all = new ArrayList<>();
      collectQueues(root, all);
      for (Queue q : all) {
        q.settings.keySet().removeIf(k -> k.startsWith("accessible-node-labels")
            || k.equals("default-node-label-expression"));
      }
      labelLeaves.clear();
      shareLabel(root, true, true);
    }

    /**
     * Shares the label among {@code parent}'s children when it has a share itself
     * ({@code shared}); under a parent that may access it without a share, or may not, the
     * children inherit that.
     */
    private void shareLabel(Queue parent, boolean accesses, boolean shared) {
      if (parent.isLeaf()) {
        if (accesses) {
          labelLeaves.add(parent.name);
        }
        return;
      }
      if (!shared) {
        for (Queue c : parent.children) {
          shareLabel(c, accesses, false);
        }
        return;
      }
      int n = parent.children.size();
      int given = Math.min(n, 1 + labels.nextInt(2));
      int[] shares = given == 1 ? new int[] {100} : new int[] {30 + labels.nextInt(41), 0};
      if (given == 2) {
        shares[1] = 100 - shares[0];
      }
      int first = labels.nextInt(n);
      String prefix = "accessible-node-labels";
      for (int i = 0; i < n; i++) {
        Queue c = parent.children.get(i);
        int at = (i - first + n) % n;
        if (at < given) {
          c.settings.put(prefix, label);
          c.settings.put(prefix + "." + label + ".capacity", Integer.toString(shares[at]));
          if (labels.nextInt(3) == 0) {
            c.settings.put(prefix + "." + label + ".maximum-capacity", Integer.toString(
                Math.max(shares[at], 40 + labels.nextInt(61))));
            features.add("labels:maximum-capacity");
          }
          if (c.isLeaf() && labels.nextInt(4) == 0) {
            c.settings.put(prefix + "." + label + ".maximum-am-resource-percent", pick(labels, "0.2", "0.5", "1.0"));
            features.add("labels:maximum-am-resource-percent");
          }
          if (c.isLeaf() && labels.nextInt(4) == 0) {
            c.settings.put("default-node-label-expression", label);
            features.add("labels:default-node-label-expression");
          }
          shareLabel(c, true, true);
        } else if (labels.nextBoolean()) {
          // No access at all (a blank list).
          c.settings.put(prefix, " ");
          shareLabel(c, false, false);
        } else {
          // Its parent's access, with no share of the label.
          shareLabel(c, true, false);
        }
      }
    }

    /**
     * Draws the label's shares again at a refresh, among the children that have one already
     * (one more where none has, a leaf having gone): a queue keeps its label's keys once it
     * has them. (Apache keeps a queue's effective resources in a label whose keys a refresh
     * removes, as they were; this generator does not remove them.)
     */
    private void reshareLabel(Queue parent, boolean shared) {
      if (parent.isLeaf()) {
        return;
      }
      String prefix = "accessible-node-labels";
      String capacity = prefix + "." + label + ".capacity";
      List<Queue> keyed = new ArrayList<>();
      for (Queue c : parent.children) {
        if (c.settings.containsKey(capacity)) {
          keyed.add(c);
        }
      }
      if (shared && keyed.isEmpty()) {
        Queue c = parent.children.get(labels.nextInt(parent.children.size()));
        c.settings.put(prefix, label);
        keyed.add(c);
        labelLeaves.add(c.name);
      }
      int left = shared ? 100 : 0;
      for (int i = 0; i < keyed.size(); i++) {
        int share = i == keyed.size() - 1 ? left : labels.nextInt(left + 1);
        left -= share;
        Queue c = keyed.get(i);
        c.settings.put(capacity, Integer.toString(share));
        String max = prefix + "." + label + ".maximum-capacity";
        if (c.settings.containsKey(max)) {
          c.settings.put(max, Integer.toString(Math.max(share, 40 + labels.nextInt(61))));
        }
      }
      for (Queue c : parent.children) {
        // Under a share of nothing, the children's shares add up to nothing too.
        reshareLabel(c, shared && Integer.parseInt(c.settings.getOrDefault(capacity, "0")) > 0);
      }
      labelLeaves.clear();
      collectLabelLeaves(root, true);
    }

    /** The leaves that may access the label, as the configuration now says. */
    private void collectLabelLeaves(Queue q, boolean accesses) {
      String access = q.settings.get("accessible-node-labels");
      boolean mine = q == root || (access == null ? accesses : access.trim().equals(label));
      if (q.isLeaf()) {
        if (mine) {
          labelLeaves.add(q.name);
        }
        return;
      }
      for (Queue c : q.children) {
        collectLabelLeaves(c, mine);
      }
    }

    /** The label added to the cluster and its first nodes labelled. */
    private void labelNodes() {
      if (label == null) {
        return;
      }
      s.append("node-label ").append(label).append(labelExclusive ? "" : " exclusive=false").append('\n');
      int count = nodes.size() >= 4 && labels.nextBoolean() ? 2 : 1;
      List<String> pool = new ArrayList<>(nodes);
      for (int i = 0; i < count; i++) {
        String node = pool.remove(labels.nextInt(pool.size()));
        labelledNodes.add(node);
        s.append("label-node ").append(node).append(' ').append(label).append('\n');
      }
    }

    /** Now and then a node joins or leaves the labelled partition. */
    private void relabel() {
      if (label == null || labels.nextInt(20) != 0) {
        return;
      }
      String node = nodes.get(labels.nextInt(nodes.size()));
      if (labelledNodes.remove(node)) {
        s.append("label-node ").append(node).append('\n');
      } else {
        labelledNodes.add(node);
        s.append("label-node ").append(node).append(' ').append(label).append('\n');
      }
      features.add("labels:relabel");
    }

    // ---- refreshes ----------------------------------------------------------------------

    private void refresh() {
      int kind = r.nextInt(10);
      List<Queue> leaves = leaves();
      if (kind < 4) {
        // New shares and limits for the same tree.
        assignShares(root);
        Queue leaf = leaves.get(r.nextInt(leaves.size()));
        leaf.settings.put("user-limit-factor", pick("1", "2", "0.5", "-1"));
        leaf.settings.put("minimum-user-limit-percent", pick("100", "50", "25"));
        features.add("refresh:change");
      } else if (kind == 4) {
        // A stopped leaf is restarted as often as a running one is stopped.
        List<Queue> stopped = new ArrayList<>(leaves);
        stopped.removeIf(l -> !l.stopped);
        Queue leaf = !stopped.isEmpty() && r.nextBoolean()
            ? stopped.get(r.nextInt(stopped.size())) : leaves.get(r.nextInt(leaves.size()));
        leaf.stopped = !leaf.stopped;
        features.add(leaf.stopped ? "refresh:stop-leaf" : "refresh:restart-leaf");
      } else if (kind == 5) {
        List<Queue> stopped = new ArrayList<>(root.children);
        stopped.removeIf(p -> !p.stopped);
        Queue parent = !stopped.isEmpty() && r.nextBoolean()
            ? stopped.get(r.nextInt(stopped.size())) : root.children.get(r.nextInt(root.children.size()));
        parent.stopped = !parent.stopped;
        if (!parent.stopped && r.nextBoolean()) {
          // Its leaves restart too only when their own state says RUNNING.
          for (Queue leaf : leaves) {
            if (parentsOf(leaf).contains(parent)) {
              leaf.settings.put("state", "RUNNING");
            }
          }
          features.add("refresh:restart-parent-and-leaves");
        }
        features.add(parent.stopped ? "refresh:stop-parent" : "refresh:restart-parent");
      } else if (kind == 6) {
        Queue parent = root.children.get(r.nextInt(root.children.size()));
        if (parent.managed) {
          // A managed parent has no configured children (Apache's would break).
          parent = root.children.get(root.children.get(0) == parent ? 1 : 0);
        }
        parent.children.add(newLeaf(parent));
        assignShares(root);
        features.add("refresh:add-leaf");
      } else if (kind == 7) {
        removeLeaf(leaves);
      } else if (kind == 8 && label == null) {
        Mode from = mode;
        mode = mode == Mode.PERCENT ? Mode.WEIGHT : Mode.PERCENT;
        assignShares(root);
        features.add("refresh:convert-" + from.name().toLowerCase() + "-to-" + mode.name().toLowerCase());
      } else {
        drf = !drf;
        features.add("refresh:calculator");
      }
      if (label != null && (kind < 4 || kind == 6 || kind == 7)) {
        // The tree or its shares changed: the label's shares are drawn again, so that they
        // still add up under every parent.
        reshareLabel(root, true);
        features.add("labels:refresh");
      }
      s.append("refresh\n").append(xml()).append("end\n");
      features.add("refresh");
    }

    /**
     * Removes a leaf: one stopped in the running configuration with no application left
     * that this generator knows of, as Apache requires (else the refresh is refused, which
     * is compared too); a parent left without leaves goes with it.
     */
    private void removeLeaf(List<Queue> leaves) {
      // A leaf already stopped, if there is one, else the one stopped now.
      List<Queue> stopped = new ArrayList<>(leaves);
      stopped.removeIf(l -> !l.stopped);
      Queue leaf = stopped.isEmpty()
          ? leaves.get(r.nextInt(leaves.size())) : stopped.get(r.nextInt(stopped.size()));
      boolean busy = appLeaf.entrySet().stream()
          .anyMatch(e -> e.getValue().equals(leaf.name) && apps.contains(e.getKey()));
      if (!leaf.stopped || leaves.size() < 3) {
        leaf.stopped = true;
        features.add("refresh:stop-leaf");
        return;
      }
      List<Queue> path = parentsOf(leaf);
      // The leaf goes, and each parent it leaves empty (a subtree), below root.
      int at = path.size() - 1;
      path.get(at - 1).children.remove(leaf);
      while (at - 1 > 0 && path.get(at - 1).children.isEmpty()) {
        path.get(at - 2).children.remove(path.get(at - 1));
        features.add("refresh:remove-subtree");
        at--;
      }
      assignShares(root);
      features.add(busy ? "refresh:remove-busy-leaf" : "refresh:remove-leaf");
    }

    private String pick(String... values) {
      return pick(r, values);
    }

    private static String pick(Random from, String... values) {
      return values[from.nextInt(values.length)];
    }

    private static void prop(StringBuilder c, String key, String value) {
      c.append("  <property><name>yarn.scheduler.capacity.").append(key).append("</name><value>")
          .append(value).append("</value></property>\n");
    }
  }
}
