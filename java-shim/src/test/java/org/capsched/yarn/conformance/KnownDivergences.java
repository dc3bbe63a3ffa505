package org.capsched.yarn.conformance;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiPredicate;

/**
 * The divergences from Apache's CapacityScheduler we choose on purpose, as listed (with
 * their reasons) in integration-tests/scenarios/divergences.txt. Each listed name has a
 * check here that recognises it from the two schedulers' snapshots at the step where they
 * first differ; the file decides which checks apply and why.
 */
final class KnownDivergences {
  /** Checks by name: (Apache's snapshot, ours) at the first differing step. */
  private static final Map<String, BiPredicate<Map<String, String>, Map<String, String>>> CHECKS =
      new LinkedHashMap<>();

  static {
    // Apache handed a node more memory than it has; ours did not.
    CHECKS.put("overcommitted-node", (apache, ours) -> overcommitted(apache) && !overcommitted(ours));
    // Apache's applications hold less than its nodes carry; ours hold what the nodes carry.
    CHECKS.put("split-books", (apache, ours) -> !booksBalance(apache) && booksBalance(ours));
    // Apache counted a user's applications below zero, or forgot a user whose applications
    // still run (or restarted its books at zero); ours still has it, with its applications.
    CHECKS.put("miscounted-user", KnownDivergences::miscountedUser);
    // Apache's parents count runnable applications that are not under them (a moved
    // application stays counted where it was); ours count what is under them.
    CHECKS.put("moved-runnable-count", (apache, ours) -> !runnableCountsAddUp(apache)
        && runnableCountsAddUp(ours));
    // Both refused a refresh, and Apache's queues' states, capacities or maximums have
    // moved to what the refused file said where ours have not (or its leaves' application
    // limits are left unset, -1, or a managed parent's leaves read a configured capacity
    // of 0% as the refused refresh's managed parent left them).
    CHECKS.put("half-applied-refusal", (apache, ours) -> "refused".equals(apache.get("refresh"))
        && "refused".equals(ours.get("refresh"))
        && (differIn(apache, ours, "state=") || differIn(apache, ours, "capacity=")
            || differIn(apache, ours, "max=") || apache.entrySet().stream().anyMatch(f ->
                f.getKey().startsWith("queue-limits ") && f.getValue().startsWith("max-apps=-1 ")
                && !ours.getOrDefault(f.getKey(), "").startsWith("max-apps=-1 "))
            || onlyManagedLeavesVectorsZeroed(apache, ours)));
    // Apache's leaf lists an application that max-parallel-apps still holds among its
    // pending ones (more active and pending than runnable); ours does not.
    CHECKS.put("unrunnable-made-pending", (apache, ours) -> !leavesListOnlyRunnable(apache)
        && leavesListOnlyRunnable(ours));
    // Apache's REST view shows a leaf's reservations where its queue metrics do not (a
    // moved application's reservation left in its old leaf's books); ours shows them
    // where its metrics do.
    CHECKS.put("moved-reservation-left-behind", (apache, ours) -> !restReservedMatchesMetrics(apache)
        && restReservedMatchesMetrics(ours));
    // Apache's parents count fewer applications than their children hold (an application
    // recovered after a restart that its leaf refused to count in); ours count them all.
    CHECKS.put("recovered-app-uncounted", (apache, ours) -> !parentsCountChildren(apache)
        && parentsCountChildren(ours));
    // Apache told an application waiting for its AM that a container was assigned though
    // it holds none (a proposal its commit check refused); ours still says activated. One
    // whose AM container is reserved elsewhere (a proposal to place it on another node,
    // refused) must agree in everything else.
    CHECKS.put("assigned-before-commit", (apache, ours) -> apache.entrySet().stream()
        .anyMatch(f -> f.getKey().startsWith("app ") && f.getValue().contains(" am=assigned")
            && f.getValue().contains(" live=0 ")
            && ours.getOrDefault(f.getKey(), "").contains(" am=activated")
            && (f.getValue().contains(" reserved=0 ")
                || f.getValue().replace(" am=assigned", " am=activated").equals(ours.get(f.getKey())))));
    // Right after a refresh (accepted, or refused: Apache then reloads the file in force),
    // an application held back from activation is told Apache's
    // queue AM limit where ours names the user's, or the other way round; everything else
    // about it agrees.
    CHECKS.put("am-limit-named-after-refresh", (apache, ours) -> apache.containsKey("refresh")
        && apache.entrySet().stream().anyMatch(f -> {
          String o = ours.get(f.getKey());
          return f.getKey().startsWith("app ") && o != null && !o.equals(f.getValue())
              && (f.getValue().contains(" am=queue-am-limit") && o.contains(" am=user-am-limit")
                  || f.getValue().contains(" am=user-am-limit") && o.contains(" am=queue-am-limit"))
              && o.replace(" am=user-am-limit", " am=queue-am-limit")
                  .equals(f.getValue().replace(" am=user-am-limit", " am=queue-am-limit"));
        }));
    // After a queue-management round, only managed leaves (and the headroom of their
    // applications) differ: Apache's still show what they had before the round.
    CHECKS.put("managed-leaf-lag", (apache, ours) -> apache.containsKey("queue-management")
        && onlyManagedLeavesDiffer(apache, ours));
    // Apache's preemption round failed (the RM's monitor logs and skips it); ours ran.
    CHECKS.put("preemption-fails-on-empty-managed-parent", (apache, ours) ->
        apache.containsKey("preemption-round-failed") && !ours.containsKey("preemption-round-failed")
        && listed(apache, "managed-parents").stream().anyMatch(p -> managedLeaves(apache).stream()
            .noneMatch(l -> l.startsWith(p + "."))));
    // Apache's round threw ConcurrentModificationException (its FIFO selector walks the
    // partitions a leaf owes in while it removes each one paid); ours goes on.
    CHECKS.put("preemption-fails-on-paid-partition", (apache, ours) ->
        "ConcurrentModificationException".equals(apache.get("preemption-round-failed"))
        && !ours.containsKey("preemption-round-failed"));
    // Right after a refresh in a tree with a managed parent, Apache's queue metrics read
    // no used share and nothing available for some queues (and some leaves' AM limits are
    // worked out from other figures); ours the figures themselves.
    CHECKS.put("zeroed-gauges-after-refresh", (apache, ours) -> apache.containsKey("refresh")
        && apache.containsKey("managed-parents")
        && onlyZeroedGauges(apache, ours, "refresh".equals(apache.get("step"))));
    // After a refresh, only the leaves of a managed parent configured in absolute
    // resources differ, Apache's sharing the parent's minimum among all of them.
    CHECKS.put("managed-absolute-refresh", (apache, ours) -> apache.containsKey("refresh")
        && onlyManagedLeavesDiffer(apache, ours) && apache.entrySet().stream().anyMatch(f ->
            f.getKey().startsWith("rest ") && f.getKey().endsWith(" | mode")
            && "absolute".equals(f.getValue())
            && managedLeaves(apache).contains(f.getKey().substring(5, f.getKey().length() - 7))));
    // A preemption round whose ideal assignment hung on the order of equally under-served
    // queues (ours says so: Apache's order comes from identity hash codes and changes
    // from one JVM to the next), and only the containers it marked or the reservations it
    // dropped differ.
    CHECKS.put("preemption-tie-order", (apache, ours) -> "preempt".equals(apache.get("step"))
        && ours.containsKey("preemption-tie-order-mattered") && onlyPreemptionChoicesDiffer(apache, ours));
    // Nodes have moved between partitions during the run, and only queues' AM-used gauges
    // differ: Apache's keep counting an AM in the partition it started in (its books move
    // it, its gauges do not); ours count it where it is now.
    CHECKS.put("am-gauge-after-relabel", (apache, ours) -> apache.containsKey("nodes-relabelled")
        && onlyAmUsedGauges(apache, ours));
    // Apache's REST view shows a negative normalized weight (-1 over the siblings') for a
    // queue with no weight in a partition at other cluster updates than ours does; the two
    // show 0 and that figure the other way round.
    CHECKS.put("negative-normalized-weight", KnownDivergences::onlyNegativeNormalizedWeights);
    // A refresh (accepted, or refused after its queues were built) dropped a queue's keys
    // for a label, and only figures of labelled partitions differ: Apache's queue keeps
    // the effective resources and AM percentage it last worked out there; ours has none.
    CHECKS.put("stale-label-capacity", (apache, ours) -> apache.containsKey("label-keys-dropped")
        && onlyLabelledPartitionFigures(apache, ours));
    // Apache's absolute capacities do not follow its configured percentages (kept from
    // the weights before a refresh); ours do.
    CHECKS.put("stale-absolute-capacity", (apache, ours) -> staleQueues(apache).stream()
        .anyMatch(q -> !java.util.Objects.equals(apache.get(q), ours.get(q))) && staleQueues(ours).isEmpty());
  }

  private final Map<String, String> reasons;

  private KnownDivergences(Map<String, String> reasons) {
    this.reasons = reasons;
  }

  /** The list the harness uses (system property {@code capsched.divergences}). */
  static KnownDivergences load() throws IOException {
    String where = System.getProperty("capsched.divergences",
        "../integration-tests/scenarios/divergences.txt");
    return parse(Paths.get(where));
  }

  static KnownDivergences parse(Path file) throws IOException {
    Map<String, String> reasons = new LinkedHashMap<>();
    int number = 0;
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      number++;
      String text = line.trim();
      if (text.isEmpty() || text.startsWith("#")) {
        continue;
      }
      int colon = text.indexOf(':');
      String name = colon < 0 ? text : text.substring(0, colon).trim();
      String reason = colon < 0 ? "" : text.substring(colon + 1).trim();
      if (!CHECKS.containsKey(name)) {
        throw new IllegalArgumentException(file + ":" + number + ": '" + name
            + "' is not a divergence the harness can recognise (known: " + CHECKS.keySet() + ")");
      }
      if (reason.isEmpty()) {
        throw new IllegalArgumentException(file + ":" + number + ": '" + name + "' gives no reason");
      }
      reasons.put(name, reason);
    }
    return new KnownDivergences(reasons);
  }

  /**
   * The listed divergence that explains why the snapshots first differ here, as
   * "NAME: REASON", or null when none does.
   */
  String explain(Map<String, String> apache, Map<String, String> ours) {
    Map<String, String> a = withoutMirrors(apache);
    Map<String, String> o = withoutMirrors(ours);
    if (a.size() != apache.size() || o.size() != ours.size()) {
      apache = a;
      ours = o;
    }
    String single = explaining(apache, ours);
    if (single != null) {
      return single + ": " + reasons.get(single);
    }
    // Two listed divergences or more at one step: each group of differing facts (one
    // queue's metrics, one queue's REST view, one node, ...) must be explained by one of
    // them alone, the other groups' facts taken as Apache's.
    java.util.List<String> differing = differingFacts(apache, ours);
    Map<String, java.util.List<String>> groups = new java.util.TreeMap<>();
    for (String key : differing) {
      int bar = key.indexOf(" | ");
      groups.computeIfAbsent(bar < 0 ? key : key.substring(0, bar), g -> new java.util.ArrayList<>())
          .add(key);
    }
    java.util.Set<String> names = new java.util.LinkedHashSet<>();
    for (java.util.List<String> group : groups.values()) {
      Map<String, String> onlyGroup = new java.util.TreeMap<>(ours);
      for (String key : differing) {
        if (group.contains(key)) {
          continue;
        }
        if (apache.containsKey(key)) {
          onlyGroup.put(key, apache.get(key));
        } else {
          onlyGroup.remove(key);
        }
      }
      String name = explaining(apache, onlyGroup);
      if (name == null) {
        return null;
      }
      names.add(name);
    }
    if (names.size() < 2) {
      return null;
    }
    StringBuilder out = new StringBuilder();
    for (String name : names) {
      out.append(out.length() == 0 ? "" : "; and ").append(name).append(": ").append(reasons.get(name));
    }
    return out.toString();
  }

  /** The first listed divergence whose check explains the snapshots, or null. */
  private String explaining(Map<String, String> apache, Map<String, String> ours) {
    for (String name : reasons.keySet()) {
      if (CHECKS.get(name).test(apache, ours)) {
        return name;
      }
    }
    return null;
  }

  /**
   * {@code facts} without the default partition's metrics records' facts that repeat the
   * queue's (or user's) own record: the checks above read the queues' records, and a
   * difference there shows in both.
   */
  private static Map<String, String> withoutMirrors(Map<String, String> facts) {
    Map<String, String> out = new java.util.TreeMap<>();
    String mirror = "metrics partition=default ";
    for (Map.Entry<String, String> f : facts.entrySet()) {
      String key = f.getKey();
      if (key.startsWith(mirror) && key.indexOf(" | ") > mirror.length()
          && java.util.Objects.equals(f.getValue(),
              facts.get("metrics " + key.substring(mirror.length())))) {
        continue;
      }
      out.put(key, f.getValue());
    }
    return out;
  }

  /**
   * The facts that differ between the two snapshots, of those the harness compares (the
   * users-active facts and the selectors that chose are read by checks, not compared).
   */
  private static java.util.List<String> differingFacts(Map<String, String> apache,
      Map<String, String> ours) {
    java.util.Set<String> keys = new java.util.TreeSet<>(apache.keySet());
    keys.addAll(ours.keySet());
    java.util.List<String> out = new java.util.ArrayList<>();
    for (String key : keys) {
      if (!java.util.Objects.equals(apache.get(key), ours.get(key))
          && !key.startsWith("queue-active-") && !key.equals("preemption-selectors")
          && !key.equals("preemption-tie-order-mattered")) {
        out.add(key);
      }
    }
    return out;
  }

  /**
   * Whether the snapshots differ only in what a preemption round chose and its
   * consequences: applications differ only in the containers they were told they will
   * lose and the reservations they hold, nodes only in whom they are reserved for, and
   * every other differing fact is a figure of one of those applications' leaves or of its
   * ancestors (a dropped reservation leaves their used resources, capacities and users'
   * figures).
   */
  private static boolean onlyPreemptionChoicesDiffer(Map<String, String> apache,
      Map<String, String> ours) {
    java.util.List<String> differing = differingFacts(apache, ours);
    java.util.Set<String> touched = new java.util.HashSet<>();
    for (String key : differing) {
      if (key.startsWith("app ")) {
        if (!withoutPreemptionChoices(apache.get(key)).equals(withoutPreemptionChoices(ours.get(key)))) {
          return false;
        }
        java.util.regex.Matcher leaf = APP_QUEUE.matcher(apache.getOrDefault(key, ""));
        for (String path = leaf.find() ? leaf.group(1) : ""; !path.isEmpty();
            path = path.contains(".") ? path.substring(0, path.lastIndexOf('.')) : "") {
          touched.add(path);
        }
      }
    }
    return !differing.isEmpty() && differing.stream().allMatch(key -> {
      String[] words = key.split(" ");
      return key.startsWith("app ")
          || key.startsWith("node ")
              && withoutPreemptionChoices(apache.get(key)).equals(withoutPreemptionChoices(ours.get(key)))
          || words.length > 1 && touched.contains(words[1]);
    });
  }

  /** An application fact's leaf. */
  private static final java.util.regex.Pattern APP_QUEUE = java.util.regex.Pattern.compile("queue=(\\S+)");

  private static String withoutPreemptionChoices(String fact) {
    return fact == null ? "" : fact.replaceAll(" told-preempted=\\[[^\\]]*\\]", "")
        .replaceAll(" reserved(-for)?=\\S+", "");
  }

  /**
   * Whether every differing fact is a managed leaf's configured capacity vector in the
   * REST view, Apache's reading 0% in every resource.
   */
  private static boolean onlyManagedLeavesVectorsZeroed(Map<String, String> apache,
      Map<String, String> ours) {
    java.util.Set<String> managed = new java.util.HashSet<>(managedLeaves(apache));
    java.util.List<String> differing = differingFacts(apache, ours);
    return !differing.isEmpty() && differing.stream().allMatch(key -> {
      String[] parts = key.split(" ");
      String value = apache.getOrDefault(key, "");
      return key.startsWith("rest ") && parts.length > 1 && managed.contains(parts[1])
          && key.contains("queueCapacityVectorInfo.")
          && (value.equals("0.0%") || value.matches("\\[(\\S+=0\\.0%,?)+\\]"));
    });
  }

  /** Whether the snapshots differ, and only in queues' UsedAMResource gauges. */
  private static boolean onlyAmUsedGauges(Map<String, String> apache, Map<String, String> ours) {
    java.util.List<String> differing = differingFacts(apache, ours);
    return !differing.isEmpty() && differing.stream().allMatch(key ->
        key.startsWith("metrics ") && key.contains(" | UsedAMResource"));
  }

  /**
   * Whether the snapshots differ only in partitions' normalized weights in the REST view,
   * each 0 on one side and negative on the other.
   */
  private static boolean onlyNegativeNormalizedWeights(Map<String, String> apache,
      Map<String, String> ours) {
    java.util.List<String> differing = differingFacts(apache, ours);
    return !differing.isEmpty() && differing.stream().allMatch(key -> key.startsWith("rest ")
        && key.contains(".queueCapacitiesByPartition[") && key.endsWith("].normalizedWeight")
        && oneZeroOneNegative(apache.get(key), ours.get(key)));
  }

  /**
   * Whether the snapshots differ only in figures of labelled partitions (queue metrics and
   * the REST view's per-partition capacities and usage), Apache's showing some queue an
   * effective resource there where ours shows none.
   */
  private static boolean onlyLabelledPartitionFigures(Map<String, String> apache,
      Map<String, String> ours) {
    java.util.List<String> differing = differingFacts(apache, ours);
    return !differing.isEmpty()
        && differing.stream().allMatch(key -> key.startsWith("metrics partition=")
            && !key.startsWith("metrics partition=default ")
            || key.startsWith("rest ") && key.contains("ByPartition[") && !key.contains("ByPartition[]"))
        && differing.stream().anyMatch(key -> key.contains("].effectiveMinResource.memory")
            && !"0".equals(apache.get(key)) && "0".equals(ours.getOrDefault(key, "0")));
  }

  private static boolean oneZeroOneNegative(String a, String b) {
    try {
      double x = Double.parseDouble(a);
      double y = Double.parseDouble(b);
      return (x == 0 && y < 0) || (y == 0 && x < 0);
    } catch (NumberFormatException | NullPointerException e) {
      return false;
    }
  }

  /** Gauges Apache's metrics show as 0 after such a refresh. */
  private static final java.util.Set<String> ZEROED_GAUGES = new java.util.HashSet<>(
      java.util.Arrays.asList("AvailableMB", "AvailableVCores", "UsedCapacity",
          "AbsoluteUsedCapacity"));

  /**
   * Whether every difference is a queue gauge of {@link #ZEROED_GAUGES} that Apache shows as
   * 0 (and ours does not) or a leaf's ApplicationMaster limit, and there is one — a zeroed
   * gauge among them unless the step is the refresh itself.
   */
  private static boolean onlyZeroedGauges(Map<String, String> apache, Map<String, String> ours,
      boolean atRefresh) {
    boolean differ = false;
    boolean zeroed = false;
    for (String key : differingFacts(apache, ours)) {
      differ = true;
      String theirs = apache.get(key);
      String mine = ours.get(key);
      if (theirs == null || mine == null) {
        return false;
      }
      int bar = key.indexOf(" | ");
      String field = bar < 0 ? "" : key.substring(bar + 3);
      boolean zeroedGauge = key.startsWith("metrics ") && ZEROED_GAUGES.contains(field)
          && Double.parseDouble(theirs) == 0;
      boolean amLimit = key.startsWith("metrics ") && field.startsWith("AMResourceLimit")
          || key.startsWith("rest ") && (field.startsWith("AMResourceLimit.")
              || field.contains(".amLimit.") || field.contains(".userAmLimit."))
          || key.startsWith("queue-limits ")
              && withoutAmLimits(theirs).equals(withoutAmLimits(mine));
      if (!zeroedGauge && !amLimit) {
        return false;
      }
      zeroed |= zeroedGauge;
    }
    // Apache's gauges may read 0 a step or two after the refresh: then they say so.
    return differ && (atRefresh || zeroed);
  }

  private static String withoutAmLimits(String limitsFact) {
    return limitsFact.replaceAll(" (user-)?am-limit=\\S+", "");
  }

  /** The managed parents' leaves the snapshot lists. */
  private static java.util.List<String> managedLeaves(Map<String, String> snapshot) {
    return listed(snapshot, "managed-leaves");
  }

  /** The comma-separated list of one fact, empty when there is no such fact. */
  private static java.util.List<String> listed(Map<String, String> snapshot, String fact) {
    String list = snapshot.get(fact);
    return list == null || list.isEmpty() ? java.util.Collections.emptyList()
        : java.util.Arrays.asList(list.split(","));
  }

  /**
   * Whether every difference is about a managed parent's leaf: its own facts (metrics, capacities, limits, users, REST view), or the headroom of
   * an application in it, everything else about the application agreeing.
   */
  private static boolean onlyManagedLeavesDiffer(Map<String, String> apache,
      Map<String, String> ours) {
    java.util.List<String> leaves = managedLeaves(apache);
    if (leaves.isEmpty() || !leaves.equals(managedLeaves(ours))) {
      return false;
    }
    boolean differ = false;
    for (String key : differingFacts(apache, ours)) {
      String theirs = apache.get(key);
      String mine = ours.get(key);
      differ = true;
      String about = key.substring(key.indexOf(' ') + 1);
      boolean leafFact = leaves.stream().anyMatch(l -> about.equals(l) || about.startsWith(l + " "));
      boolean headroomOnly = key.startsWith("app ") && theirs != null && mine != null
          && leaves.stream().anyMatch(l -> theirs.contains(" queue=" + l + " "))
          && withoutHeadroom(theirs).equals(withoutHeadroom(mine));
      if (!leafFact && !headroomOnly) {
        return false;
      }
    }
    return differ;
  }

  private static String withoutHeadroom(String appFact) {
    return appFact.replaceAll(" headroom=\\S+", "");
  }

  /** Whether the applications' usage adds up to what the nodes have allocated. */
  private static boolean booksBalance(Map<String, String> snapshot) {
    return sum(snapshot, "app ", " used=") == sum(snapshot, "node ", "allocated=");
  }

  /** The sum of a field's MB figure over the facts whose keys start with a prefix. */
  private static long sum(Map<String, String> snapshot, String prefix, String field) {
    long total = 0;
    for (Map.Entry<String, String> f : snapshot.entrySet()) {
      int at = f.getValue().indexOf(field);
      if (f.getKey().startsWith(prefix) && at >= 0) {
        int from = at + field.length();
        total += Long.parseLong(f.getValue().substring(from, f.getValue().indexOf("MB", from)));
      }
    }
    return total;
  }

  /**
   * A leaf's user whose application count Apache has below zero, whose usage Apache has
   * lost (none, where ours has some), or that ours reports with an active application
   * while Apache has no such user, or one with no applications and nothing used.
   */
  private static boolean miscountedUser(Map<String, String> apache, Map<String, String> ours) {
    boolean negative = apache.entrySet().stream()
        .anyMatch(f -> f.getKey().startsWith("queue-user ") && f.getValue().contains("pending=-"));
    return negative || forgottenActiveUser(apache, ours) || droppedFromActiveSet(apache, ours)
        || !usersPendingAddUp(apache) && usersPendingAddUp(ours)
        || onlyUserPartitionsForgotten(apache, ours)
        || ours.entrySet().stream().anyMatch(f -> {
      String a = apache.get(f.getKey());
      return f.getKey().startsWith("queue-user ") && (a != null && a.contains("pending=-")
          || a != null && a.startsWith("used=0MB/0 ") && !f.getValue().startsWith("used=0MB/0 ")
          || !f.getValue().contains(" active=0 ") && (a == null
              || a.startsWith("used=0MB/0 am-used=0MB/0 ") && a.contains(" active=0 "))
          // Forgotten while an application of the user still waits in the leaf (counted
          // out with a killed one that never ran, the user's count reached zero).
          || a == null && !f.getValue().contains(" pending=0 "));
    });
  }

  /**
   * Whether the states differ only in labelled partitions the REST view lists for a user in
   * ours, holding nothing there, that Apache's lists not: Apache forgot the user between
   * two attempts of its only application and made it afresh, its usage by partition
   * starting empty; ours kept the user and the partitions it was ever allocated in.
   */
  private static boolean onlyUserPartitionsForgotten(Map<String, String> apache,
      Map<String, String> ours) {
    boolean any = false;
    for (String key : differingFacts(apache, ours)) {
      String a = apache.get(key);
      String o = ours.get(key);
      int at = key.indexOf(".resources.resourceUsagesByPartition[");
      if (a != null || !key.startsWith("rest ") || !key.contains(" | users.user[") || at < 0
          || key.contains("resourceUsagesByPartition[]")) {
        return false;
      }
      String field = key.substring(key.indexOf(']', at + 1) + 2);
      boolean empty = !(field.endsWith(".memory") || field.endsWith(".vCores")
          || field.endsWith("].value")) || "0".equals(o);
      if (!empty) {
        return false;
      }
      any = true;
    }
    return any;
  }

  /**
   * Whether every leaf's users' pending counts add up to the applications its limits say
   * wait to be activated. Apache's miscount takes one off a user still waiting with
   * another application (so the count stays above zero while the leaf lists the
   * application).
   */
  private static boolean usersPendingAddUp(Map<String, String> facts) {
    Map<String, Integer> byUsers = new java.util.HashMap<>();
    for (Map.Entry<String, String> f : facts.entrySet()) {
      if (f.getKey().startsWith("queue-user ")) {
        String leafAndUser = f.getKey().substring("queue-user ".length());
        String leaf = leafAndUser.substring(0, leafAndUser.lastIndexOf(' '));
        byUsers.merge(leaf, intField(f.getValue(), "pending"), Integer::sum);
      }
    }
    return facts.entrySet().stream().filter(f -> f.getKey().startsWith("queue-limits "))
        .allMatch(f -> intField(f.getValue(), "pending")
            == byUsers.getOrDefault(f.getKey().substring("queue-limits ".length()), 0));
  }

  /** The integer after " NAME=" (or at the start) in a fact. */
  private static int intField(String fact, String name) {
    String padded = " " + fact;
    int at = padded.indexOf(" " + name + "=");
    if (at < 0) {
      return 0;
    }
    int from = at + name.length() + 2;
    int to = from;
    while (to < padded.length() && (Character.isDigit(padded.charAt(to)) || padded.charAt(to) == '-')) {
      to++;
    }
    return Integer.parseInt(padded.substring(from, to));
  }

  /**
   * A user Apache forgot while an application of its still counted it active: Apache's
   * REST view no longer lists it among the active users (its active-users set lost it
   * with the user; its count of active users did not) though Apache holds the user with
   * the same usage and applications as ours, and ours lists it active. The user limits
   * may differ already: Apache shares the leaf among the active users it still knows.
   */
  private static boolean forgottenActiveUser(Map<String, String> apache,
      Map<String, String> ours) {
    return ours.entrySet().stream().anyMatch(f -> {
      String key = f.getKey();
      if (!key.startsWith("rest ") || !key.endsWith(".isActive") || !"true".equals(f.getValue())
          || !"false".equals(apache.get(key))) {
        return false;
      }
      String queue = key.substring("rest ".length(), key.indexOf(" | "));
      String user = key.substring(key.indexOf("user[") + 5, key.lastIndexOf(']'));
      String counts = apache.get("queue-user " + queue + " " + user);
      String ourCounts = ours.get("queue-user " + queue + " " + user);
      return counts != null && ourCounts != null
          && withoutLimit(counts).equals(withoutLimit(ourCounts));
    });
  }

  /**
   * A leaf whose active-users set (the users Apache shares its limit among) lacks users of
   * ours that Apache's count of active users still includes: Apache forgot a user while an
   * application of its still counted it active.
   */
  private static boolean droppedFromActiveSet(Map<String, String> apache, Map<String, String> ours) {
    return ours.entrySet().stream().anyMatch(f -> {
      if (!f.getKey().startsWith("queue-active-users ")) {
        return false;
      }
      String leaf = f.getKey().substring("queue-active-users ".length());
      java.util.List<String> theirs = usersOf(apache.get(f.getKey()));
      java.util.List<String> mine = usersOf(f.getValue());
      String count = apache.get("queue-active-count " + leaf);
      int missing = (int) mine.stream().filter(u -> !theirs.contains(u)).count();
      return missing > 0 && mine.containsAll(theirs) && count != null
          && Integer.parseInt(count) - theirs.size() >= missing;
    });
  }

  private static java.util.List<String> usersOf(String activeUsers) {
    return activeUsers == null || activeUsers.isEmpty() ? java.util.Collections.emptyList()
        : java.util.Arrays.asList(activeUsers.split(","));
  }

  /** A user's facts less its user limit. */
  private static String withoutLimit(String userFacts) {
    return userFacts.replaceFirst(" limit=\\S+", "");
  }

  /**
   * The queue-capacity facts of queues with a configured share whose absolute capacity is
   * not their parent's absolute capacity times that share.
   */
  private static java.util.List<String> staleQueues(Map<String, String> snapshot) {
    java.util.List<String> out = new java.util.ArrayList<>();
    for (Map.Entry<String, String> f : snapshot.entrySet()) {
      if (!f.getKey().startsWith("queue-capacity root.")) {
        continue;
      }
      String path = f.getKey().substring("queue-capacity ".length());
      String parent = snapshot.get("queue-capacity " + path.substring(0, path.lastIndexOf('.')));
      double capacity = field(f.getValue(), "capacity=");
      if (parent == null || capacity == 0 || Double.isNaN(capacity)) {
        continue;
      }
      if (Math.abs(field(parent, "abs=") * capacity - field(f.getValue(), "abs=")) > 0.002) {
        out.add(f.getKey());
      }
    }
    return out;
  }

  /** Whether each parent's runnable count is the sum of its children's. */
  private static boolean runnableCountsAddUp(Map<String, String> snapshot) {
    Map<String, Integer> sums = new java.util.HashMap<>();
    for (Map.Entry<String, String> f : snapshot.entrySet()) {
      if (f.getKey().startsWith("queue-runnable root.")) {
        String path = f.getKey().substring("queue-runnable ".length());
        sums.merge(path.substring(0, path.lastIndexOf('.')), Integer.parseInt(f.getValue()), Integer::sum);
      }
    }
    return sums.entrySet().stream()
        .allMatch(e -> e.getValue() == Integer.parseInt(snapshot.get("queue-runnable " + e.getKey())));
  }

  /** Whether every queue's reserved memory in the REST view is what its metrics say. */
  private static boolean restReservedMatchesMetrics(Map<String, String> snapshot) {
    String prefix = "rest ";
    String suffix = " | resources.resourceUsagesByPartition[].reserved.memory";
    for (Map.Entry<String, String> f : snapshot.entrySet()) {
      if (f.getKey().startsWith(prefix) && f.getKey().endsWith(suffix)) {
        String queue = f.getKey().substring(prefix.length(), f.getKey().length() - suffix.length());
        String metrics = snapshot.get("metrics " + queue + " | ReservedMB");
        if (metrics != null && !metrics.equals(f.getValue())) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * Whether every parent's application count in the REST view is its children's sum (facts
   * "rest QUEUE | numApplications").
   */
  private static boolean parentsCountChildren(Map<String, String> snapshot) {
    String prefix = "rest ";
    String suffix = " | numApplications";
    Map<String, Long> counts = new java.util.TreeMap<>();
    for (Map.Entry<String, String> f : snapshot.entrySet()) {
      if (f.getKey().startsWith(prefix) && f.getKey().endsWith(suffix)) {
        counts.put(f.getKey().substring(prefix.length(), f.getKey().length() - suffix.length()),
            Long.parseLong(f.getValue()));
      }
    }
    for (Map.Entry<String, Long> parent : counts.entrySet()) {
      long children = 0;
      boolean any = false;
      for (Map.Entry<String, Long> child : counts.entrySet()) {
        String path = child.getKey();
        if (path.startsWith(parent.getKey() + ".")
            && path.indexOf('.', parent.getKey().length() + 1) < 0) {
          children += child.getValue();
          any = true;
        }
      }
      if (any && children != parent.getValue()) {
        return false;
      }
    }
    return true;
  }

  /** Whether no leaf has more active and pending applications than runnable ones. */
  private static boolean leavesListOnlyRunnable(Map<String, String> snapshot) {
    for (Map.Entry<String, String> f : snapshot.entrySet()) {
      if (f.getKey().startsWith("queue-limits ")) {
        String runnable = snapshot.get("queue-runnable " + f.getKey().substring("queue-limits ".length()));
        if (runnable != null
            && field(f.getValue(), "active=") + field(f.getValue(), "pending=") > Integer.parseInt(runnable)) {
          return false;
        }
      }
    }
    return true;
  }

  /** The number after {@code name} in a fact's value. */
  private static double field(String value, String name) {
    int at = value.indexOf(" " + name) + 1;
    if (at == 0 && value.startsWith(name)) {
      at = 0;
    } else if (at == 0) {
      return Double.NaN;
    }
    int from = at + name.length();
    int to = value.indexOf(' ', from);
    return Double.parseDouble(value.substring(from, to < 0 ? value.length() : to));
  }

  private static boolean overcommitted(Map<String, String> snapshot) {
    return snapshot.entrySet().stream()
        .anyMatch(f -> f.getKey().startsWith("node ") && f.getValue().contains(" free=-"));
  }

  /** Whether some queue's state (RUNNING, STOPPED, DRAINING) differs between the two. */
  /**
   * Whether some queue's {@code field} (a queue's state, configured capacity or maximum)
   * differs between the two.
   */
  private static boolean differIn(Map<String, String> apache, Map<String, String> ours,
      String field) {
    for (Map.Entry<String, String> e : apache.entrySet()) {
      if (e.getKey().startsWith("queue-capacity ")) {
        String theirs = ours.get(e.getKey());
        if (theirs != null && !token(e.getValue(), field).equals(token(theirs, field))) {
          return true;
        }
      }
    }
    return false;
  }

  /** {@code field} and its value in a "queue-capacity" fact (" capacity=" not "abs-capacity="). */
  private static String token(String capacityFact, String field) {
    int at = capacityFact.startsWith(field) ? 0 : capacityFact.indexOf(" " + field);
    if (at < 0) {
      return "";
    }
    int end = capacityFact.indexOf(' ', at + 1);
    return capacityFact.substring(at, end < 0 ? capacityFact.length() : end).trim();
  }
}
