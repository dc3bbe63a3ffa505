package org.capsched.yarn;

import java.util.List;

import org.apache.hadoop.yarn.api.records.ResourceRequest;

/**
 * An AM's asks flattened into the parallel arrays {@link NativeScheduler#allocate} takes:
 * per ask three ints (priority, containers, relax locality), three longs (allocation
 * request id, memory, vcores), its resource name and its node label expression (the
 * partition a {@code *} ask is for; the array is null when no ask names one, as on a
 * cluster without labels).
 */
final class Asks {
  final int[] ints;
  final long[] longs;
  final String[] names;
  String[] labels;

  private Asks(int n) {
    ints = new int[3 * n];
    longs = new long[3 * n];
    names = new String[n];
  }

  /** {@code requests} in the core's encoding. */
  static Asks encode(List<ResourceRequest> requests) {
    Asks a = new Asks(requests.size());
    int i = 0;
    for (ResourceRequest r : requests) {
      a.ints[3 * i] = r.getPriority().getPriority();
      a.ints[3 * i + 1] = r.getNumContainers();
      a.ints[3 * i + 2] = r.getRelaxLocality() ? 1 : 0;
      a.longs[3 * i] = r.getAllocationRequestId();
      a.longs[3 * i + 1] = r.getCapability().getMemorySize();
      a.longs[3 * i + 2] = r.getCapability().getVirtualCores();
      a.names[i] = r.getResourceName();
      String label = r.getNodeLabelExpression();
      if (label != null && !label.isEmpty()) {
        if (a.labels == null) {
          a.labels = new String[requests.size()];
          java.util.Arrays.fill(a.labels, "");
        }
        a.labels[i] = label.trim();
      }
      i++;
    }
    return a;
  }
}
