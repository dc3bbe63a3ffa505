package org.capsched.yarn.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A seeded generator of scenario files (docs/scenario-format.md): a random queue tree with
 * random capacities and limits, a random cluster, and a random workload — applications
 * arriving for several users, asks of mixed sizes and localities, heartbeats, containers
 * finishing, applications ending, nodes lost, refreshes. The same seed always yields the
 * same text, so a divergence can be saved as a .scn file and replayed.
 *
 * <p>Racks are drawn from a second random stream, so adding them left every other draw —
 * and so the workload of each seed — as it was: a seed on one rack yields the same text as
 * before racks were generated.
 */
final class RandomScenario {
  private RandomScenario() {
  }

  static String generate(long seed) {
    Random r = new Random(seed);
    Random topology = new Random(seed * 0x9E3779B97F4A7C15L + 1);
    int racks = 1 + topology.nextInt(3);
    StringBuilder s = new StringBuilder("# random scenario, seed " + seed + "\n");
    List<String> leaves = new ArrayList<>();
    String config = config(r, leaves);
    s.append("config\n").append(config).append("end\n");
    int nodes = 2 + r.nextInt(6);
    List<String> rackOf = new ArrayList<>();
    for (int n = 1; n <= nodes; n++) {
      String rack = racks == 1 ? null : "/r" + topology.nextInt(racks);
      rackOf.add(rack);
      s.append(String.format("node n%d%s memory=%dG vcores=%d%n", n, rack == null ? "" : " rack=" + rack,
          4 + 2 * r.nextInt(4), 4 + r.nextInt(8)));
    }
    List<String> apps = new ArrayList<>();
    int submitted = 0;
    int steps = 20 + r.nextInt(30);
    for (int i = 0; i < steps; i++) {
      int what = r.nextInt(100);
      if (what < 20 || apps.isEmpty()) {
        String app = "app" + (++submitted);
        apps.add(app);
        s.append(String.format("app %s queue=%s user=u%d am=%dG%n", app,
            leaves.get(r.nextInt(leaves.size())), r.nextInt(4), 1 + r.nextInt(2)));
      } else if (what < 45) {
        String app = apps.get(r.nextInt(apps.size()));
        int priority = 1 + r.nextInt(3);
        int memory = 1 + r.nextInt(4);
        int count = 1 + r.nextInt(12);
        s.append(String.format("ask %s priority=%d memory=%dG count=%d%n", app, priority, memory, count));
        if (r.nextInt(4) == 0) {
          int node = 1 + r.nextInt(nodes);
          int local = Math.max(1, count / 2);
          s.append(String.format("ask %s priority=%d memory=%dG count=%d at=n%d%n", app, priority, memory,
              local, node));
          // As AMRMClient asks for a host: for its rack too (mostly).
          String rack = rackOf.get(node - 1);
          if (rack != null && topology.nextInt(4) != 0) {
            s.append(String.format("ask %s priority=%d memory=%dG count=%d at=%s%n", app, priority, memory,
                local, rack));
          }
        } else if (racks > 1 && topology.nextInt(6) == 0) {
          s.append(String.format("ask %s priority=%d memory=%dG count=%d at=/r%d%n", app, priority, memory,
              Math.max(1, count / 2), topology.nextInt(racks)));
        }
      } else if (what < 75) {
        if (r.nextBoolean()) {
          s.append("heartbeat all rounds=").append(1 + r.nextInt(3)).append('\n');
        } else {
          s.append("heartbeat n").append(1 + r.nextInt(nodes)).append('\n');
        }
      } else if (what < 88) {
        s.append(String.format("finish %s count=%d%n", apps.get(r.nextInt(apps.size())), 1 + r.nextInt(4)));
      } else if (what < 95) {
        s.append("remove ").append(apps.remove(r.nextInt(apps.size()))).append('\n');
      } else {
        s.append("refresh\n").append(config(new Random(r.nextLong()), new ArrayList<>(), leaves))
            .append("end\n");
      }
    }
    s.append("heartbeat all rounds=2\n");
    return s.toString();
  }

  /** A random two-level tree: 2-4 parents under root, each with 1-3 leaves. */
  private static String config(Random r, List<String> leavesOut) {
    return config(r, leavesOut, null);
  }

  /**
   * With {@code keep}, the same leaves with new capacities and limits (a valid refresh);
   * otherwise a new tree whose leaves are added to {@code leavesOut}.
   */
  private static String config(Random r, List<String> leavesOut, List<String> keep) {
    StringBuilder c = new StringBuilder("<configuration>\n");
    List<List<String>> tree = new ArrayList<>();
    if (keep == null) {
      int parents = 2 + r.nextInt(3);
      for (int p = 0; p < parents; p++) {
        List<String> children = new ArrayList<>();
        int n = 1 + r.nextInt(3);
        for (int l = 0; l < n; l++) {
          children.add("p" + p + "l" + l);
        }
        tree.add(children);
        leavesOut.addAll(children);
      }
    } else {
      String parent = null;
      for (String leaf : keep) {
        String p = leaf.substring(0, leaf.indexOf('l'));
        if (!p.equals(parent)) {
          tree.add(new ArrayList<>());
          parent = p;
        }
        tree.get(tree.size() - 1).add(leaf);
      }
    }
    List<String> parentNames = new ArrayList<>();
    for (List<String> children : tree) {
      parentNames.add(children.get(0).substring(0, children.get(0).indexOf('l')));
    }
    prop(c, "root.queues", String.join(",", parentNames));
    int[] parentCaps = split(r, parentNames.size());
    for (int p = 0; p < parentNames.size(); p++) {
      String parent = "root." + parentNames.get(p);
      prop(c, parent + ".capacity", Integer.toString(parentCaps[p]));
      prop(c, parent + ".maximum-capacity", Integer.toString(Math.max(parentCaps[p], 40 + r.nextInt(61))));
      prop(c, parent + ".queues", String.join(",", tree.get(p)));
      int[] caps = split(r, tree.get(p).size());
      for (int l = 0; l < tree.get(p).size(); l++) {
        String leaf = parent + "." + tree.get(p).get(l);
        prop(c, leaf + ".capacity", Integer.toString(caps[l]));
        prop(c, leaf + ".maximum-capacity", Integer.toString(Math.max(caps[l], 30 + r.nextInt(71))));
        prop(c, leaf + ".user-limit-factor", new String[] {"1", "2", "0.5", "-1"}[r.nextInt(4)]);
        prop(c, leaf + ".minimum-user-limit-percent", new String[] {"100", "50", "25"}[r.nextInt(3)]);
        if (r.nextInt(3) == 0) {
          prop(c, leaf + ".maximum-am-resource-percent", new String[] {"0.2", "0.5", "1.0"}[r.nextInt(3)]);
        }
      }
    }
    if (r.nextBoolean()) {
      prop(c, "resource-calculator", "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator");
    }
    prop(c, "node-locality-delay", Integer.toString(r.nextInt(4)));
    return c.append("</configuration>\n").toString();
  }

  /** {@code n} positive integer percentages summing to 100. */
  private static int[] split(Random r, int n) {
    int[] out = new int[n];
    int left = 100;
    for (int i = 0; i < n - 1; i++) {
      out[i] = 5 + r.nextInt(Math.max(1, left - 5 * (n - i)));
      left -= out[i];
    }
    out[n - 1] = left;
    return out;
  }

  private static void prop(StringBuilder c, String key, String value) {
    c.append("  <property><name>yarn.scheduler.capacity.").append(key).append("</name><value>")
        .append(value).append("</value></property>\n");
  }
}
