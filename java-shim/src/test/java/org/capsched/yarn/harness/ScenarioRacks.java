package org.capsched.yarn.harness;

import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.net.DNSToSwitchMapping;
import org.apache.hadoop.net.NetworkTopology;

/**
 * The rack of each scenario node, as the RM's {@code RackResolver} asks for it (set as
 * {@code net.topology.node.switch.mapping.impl}). {@link ScenarioDriver} gives every node
 * a loopback address whose second byte names its rack ({@code 127.R.x.y}, R from
 * {@link #octet}), so resolving needs no state per RM: the RackResolver is initialised once
 * per JVM, by the first RM, and caches every answer.
 */
public final class ScenarioRacks implements DNSToSwitchMapping {
  /** Rack names by second address byte minus one; only ever grows, so answers never change. */
  private static final List<String> RACKS = new ArrayList<>();

  static {
    RACKS.add(NetworkTopology.DEFAULT_RACK);
  }

  /** The second address byte that stands for {@code rack}. */
  static synchronized int octet(String rack) {
    int i = RACKS.indexOf(rack);
    if (i < 0) {
      if (RACKS.size() >= 254) {
        throw new IllegalArgumentException("more than 254 racks in one JVM: " + rack);
      }
      RACKS.add(rack);
      i = RACKS.size() - 1;
    }
    return i + 1;
  }

  private static synchronized String rack(String host) {
    String[] bytes = host.split("\\.");
    if (bytes.length == 4 && bytes[0].equals("127")) {
      try {
        int i = Integer.parseInt(bytes[1]) - 1;
        if (i >= 0 && i < RACKS.size()) {
          return RACKS.get(i);
        }
      } catch (NumberFormatException notOurs) {
        // falls through to the default rack
      }
    }
    return NetworkTopology.DEFAULT_RACK;
  }

  @Override
  public List<String> resolve(List<String> names) {
    List<String> out = new ArrayList<>(names.size());
    for (String name : names) {
      out.add(rack(name));
    }
    return out;
  }

  @Override
  public void reloadCachedMappings() {
  }

  @Override
  public void reloadCachedMappings(List<String> names) {
  }
}
