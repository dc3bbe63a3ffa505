package org.capsched.yarn;

import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.yarn.api.records.QueueState;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;

/**
 * One queue as the Rust core reports it at one moment: configured and effective capacities
 * and usage. Capacities are fractions (0.25 = 25%); "absolute" ones are shares of the
 * whole cluster, the others shares of the parent.
 */
public final class QueueSnapshot {
  private final String path;
  private final double[] figures;
  private final long[] counts;
  private final int figure;
  private final int count;

  QueueSnapshot(String path, QueueReport report, int index) {
    this.path = path;
    this.figures = report.figures;
    this.counts = report.counts;
    this.figure = index * Wire.QueueFigures.STRIDE;
    this.count = index * Wire.QueueCounts.STRIDE;
  }

  /** Full path, such as root.engineering.qa. */
  public String getPath() {
    return path;
  }

  /**
   * Each queue's children, by index, in report order, for a whole report (one pass over
   * the parent indices).
   */
  public static List<List<Integer>> children(List<QueueSnapshot> report) {
    List<List<Integer>> out = new ArrayList<>(report.size());
    for (int i = 0; i < report.size(); i++) {
      out.add(new ArrayList<>());
    }
    for (int i = 0; i < report.size(); i++) {
      int parent = report.get(i).getParentIndex();
      if (parent >= 0) {
        out.get(parent).add(i);
      }
    }
    return out;
  }

  /** Last component of the path. */
  public String getName() {
    return path.substring(path.lastIndexOf('.') + 1);
  }

  /** Index of the parent in the snapshot list, -1 for root. */
  public int getParentIndex() {
    return (int) counts[count + Wire.QueueCounts.PARENT];
  }

  /** Configured capacity, a share of the parent. */
  public double getCapacity() {
    return figures[figure + Wire.QueueFigures.CAPACITY];
  }

  /** Configured maximum capacity, a share of the parent. */
  public double getMaximumCapacity() {
    return figures[figure + Wire.QueueFigures.MAXIMUM_CAPACITY];
  }

  /** Effective capacity, a share of the cluster. */
  public double getAbsoluteCapacity() {
    return figures[figure + Wire.QueueFigures.ABSOLUTE_CAPACITY];
  }

  /** Effective maximum capacity, a share of the cluster. */
  public double getAbsoluteMaximumCapacity() {
    return figures[figure + Wire.QueueFigures.ABSOLUTE_MAXIMUM_CAPACITY];
  }

  /** Used resources as a share of the guarantee. */
  public double getUsedCapacity() {
    return figures[figure + Wire.QueueFigures.USED_CAPACITY];
  }

  /** Used resources as a share of the cluster. */
  public double getAbsoluteUsedCapacity() {
    return figures[figure + Wire.QueueFigures.ABSOLUTE_USED_CAPACITY];
  }

  /** Memory the queue's containers and reservations use, in MB. */
  public long getUsedMemoryMb() {
    return counts[count + Wire.QueueCounts.USED_MEMORY];
  }

  /** Virtual cores the queue's containers and reservations use. */
  public long getUsedVcores() {
    return counts[count + Wire.QueueCounts.USED_VCORES];
  }

  /** Applications in this queue and its descendants. */
  public int getNumApplications() {
    return (int) counts[count + Wire.QueueCounts.APPLICATIONS];
  }

  /** The queue's state now: STOPPED when it or an ancestor is, DRAINING while apps remain. */
  public QueueState getState() {
    return state(counts[count + Wire.QueueCounts.STATE]);
  }

  /** The state a {@link Wire.QueueStateCode} names. */
  static QueueState state(long code) {
    switch ((int) code) {
    case Wire.QueueStateCode.STOPPED:
      return QueueState.STOPPED;
    case Wire.QueueStateCode.DRAINING:
      return QueueState.DRAINING;
    default:
      return QueueState.RUNNING;
    }
  }

  /** The figures YARN's QueueInfo shows, laid out as {@link Wire.QueueInfoFigures}. */
  double[] queueInfoFigures() {
    double[] f = new double[Wire.QueueInfoFigures.STRIDE];
    f[Wire.QueueInfoFigures.CAPACITY] = getCapacity();
    f[Wire.QueueInfoFigures.MAXIMUM_CAPACITY] = getMaximumCapacity();
    f[Wire.QueueInfoFigures.ABSOLUTE_CAPACITY] = getAbsoluteCapacity();
    f[Wire.QueueInfoFigures.USED_CAPACITY] = getUsedCapacity();
    f[Wire.QueueInfoFigures.WEIGHT] = getWeight();
    f[Wire.QueueInfoFigures.STATE] = counts[count + Wire.QueueCounts.STATE];
    f[Wire.QueueInfoFigures.MAX_PARALLEL_APPS] = counts[count + Wire.QueueCounts.MAX_PARALLEL_APPS];
    f[Wire.QueueInfoFigures.PREEMPTION_DISABLED] = isPreemptionDisabled() ? 1 : 0;
    f[Wire.QueueInfoFigures.INTRA_QUEUE_PREEMPTION_DISABLED] =
        isIntraQueuePreemptionDisabled() ? 1 : 0;
    return f;
  }

  /** The guarantee in every resource (the effective minimum resource). */
  public Resource getEffectiveMinResource() {
    return resource(Wire.QueueCounts.EFFECTIVE_MIN_MEMORY, Wire.QueueCounts.EFFECTIVE_MIN_VCORES);
  }

  /** The most the queue may hold in every resource (the effective maximum resource). */
  public Resource getEffectiveMaxResource() {
    return resource(Wire.QueueCounts.EFFECTIVE_MAX_MEMORY, Wire.QueueCounts.EFFECTIVE_MAX_VCORES);
  }

  /** What a leaf's ApplicationMasters may hold (zero for a parent). */
  public Resource getAmResourceLimit() {
    return resource(Wire.QueueCounts.AM_LIMIT_MEMORY, Wire.QueueCounts.AM_LIMIT_VCORES);
  }

  /** What a leaf's activated applications' ApplicationMasters hold. */
  public Resource getAmResourceUsed() {
    return resource(Wire.QueueCounts.AM_USED_MEMORY, Wire.QueueCounts.AM_USED_VCORES);
  }

  /** What one user's ApplicationMasters may hold in a leaf, for a user of weight 1. */
  public Resource getUserAmResourceLimit() {
    return resource(Wire.QueueCounts.USER_AM_LIMIT_MEMORY, Wire.QueueCounts.USER_AM_LIMIT_VCORES);
  }

  /** What reservations hold in this queue and its descendants. */
  public Resource getReserved() {
    return resource(Wire.QueueCounts.RESERVED_MEMORY, Wire.QueueCounts.RESERVED_VCORES);
  }

  /** A leaf's activated applications. */
  public int getNumActiveApplications() {
    return (int) counts[count + Wire.QueueCounts.ACTIVE_APPLICATIONS];
  }

  /** A leaf's applications waiting for activation. */
  public int getNumPendingApplications() {
    return (int) counts[count + Wire.QueueCounts.PENDING_APPLICATIONS];
  }

  /**
   * Containers and reservations the leaf's applications hold, in every partition (Apache's
   * {@code numContainers}).
   */
  public int getNumContainers() {
    return (int) counts[count + Wire.QueueCounts.CONTAINERS];
  }

  /** Applications counted against {@code max-parallel-apps} in this queue and below. */
  public int getNumRunnableApplications() {
    return (int) counts[count + Wire.QueueCounts.RUNNABLE_APPLICATIONS];
  }

  /** Applications one user may have in a leaf at once. */
  public int getMaximumApplicationsPerUser() {
    return (int) counts[count + Wire.QueueCounts.MAXIMUM_APPLICATIONS_PER_USER];
  }

  private Resource resource(int memory, int vcores) {
    return Resource.newInstance(counts[count + memory], (int) counts[count + vcores]);
  }

  /** The weight, or -1 unless the queue's capacity is given as a weight. */
  public double getWeight() {
    return figures[figure + Wire.QueueFigures.WEIGHT];
  }

  /**
   * The weight over the sum of its weight-mode siblings' (the share of the parent it
   * stands for); 0 unless the queue's capacity is given as a weight.
   */
  public double getNormalizedWeight() {
    return figures[figure + Wire.QueueFigures.NORMALIZED_WEIGHT];
  }

  /** {@code maximum-applications} in effect for the queue. */
  public int getMaximumApplications() {
    return (int) counts[count + Wire.QueueCounts.MAXIMUM_APPLICATIONS];
  }

  /** {@code user-limit-factor}. */
  public double getUserLimitFactor() {
    return figures[figure + Wire.QueueFigures.USER_LIMIT_FACTOR];
  }

  /** {@code minimum-user-limit-percent}. */
  public double getMinimumUserLimitPercent() {
    return figures[figure + Wire.QueueFigures.MINIMUM_USER_LIMIT_PERCENT];
  }

  /** {@code maximum-am-resource-percent} in effect for the queue. */
  public double getMaximumAmResourcePercent() {
    return figures[figure + Wire.QueueFigures.MAXIMUM_AM_RESOURCE_PERCENT];
  }

  /** {@code max-parallel-apps}, Integer.MAX_VALUE when unlimited. */
  public int getMaxParallelApps() {
    long v = counts[count + Wire.QueueCounts.MAX_PARALLEL_APPS];
    return v < 0 ? Integer.MAX_VALUE : (int) v;
  }

  /** {@code maximum-application-lifetime} in effect, seconds (0 or less: none). */
  public long getMaximumApplicationLifetime() {
    return counts[count + Wire.QueueCounts.MAXIMUM_APPLICATION_LIFETIME];
  }

  /** {@code default-application-lifetime} in effect, seconds (0 or less: none). */
  public long getDefaultApplicationLifetime() {
    return counts[count + Wire.QueueCounts.DEFAULT_APPLICATION_LIFETIME];
  }

  /**
   * Whether capacity preemption may not take this queue's containers ({@code
   * disable_preemption}, inherited; always with the scheduling monitor off).
   */
  public boolean isPreemptionDisabled() {
    return counts[count + Wire.QueueCounts.PREEMPTION_DISABLED] != 0;
  }

  /** Whether it may not take them for another application of the queue. */
  public boolean isIntraQueuePreemptionDisabled() {
    return counts[count + Wire.QueueCounts.INTRA_QUEUE_PREEMPTION_DISABLED] != 0;
  }

  /**
   * How it orders its children, by Apache's policy name: {@code priority-utilization} or
   * {@code utilization} (a parent's own {@code ordering-policy}, else its parent's).
   */
  public String getQueueOrderingPolicy() {
    return counts[count + Wire.QueueCounts.PRIORITY_UTILIZATION] != 0
        ? CapacitySchedulerConfiguration.QUEUE_PRIORITY_UTILIZATION_ORDERING_POLICY
        : CapacitySchedulerConfiguration.QUEUE_UTILIZATION_ORDERING_POLICY;
  }

  /** Whether applications run in it (a parent that may create children is none). */
  public boolean isLeaf() {
    return counts[count + Wire.QueueCounts.LEAF] != 0;
  }

  /**
   * How it came to be, by Apache's REST name: {@code dynamicFlexible} (created by a
   * submission), {@code dynamicLegacy} (a managed parent's leaf) or {@code static}
   * (configured).
   */
  public String getCreationMethod() {
    switch ((int) counts[count + Wire.QueueCounts.DYNAMIC]) {
    case Wire.CreationCode.FLEXIBLE:
      return "dynamicFlexible";
    case Wire.CreationCode.LEGACY:
      return "dynamicLegacy";
    default:
      return "static";
    }
  }

  /** A managed parent's leaf (Apache's {@code AutoCreatedLeafQueue}). */
  public boolean isAutoCreatedLeaf() {
    return counts[count + Wire.QueueCounts.DYNAMIC] == Wire.CreationCode.LEGACY;
  }

  /**
   * Whether queues may be created under it, by Apache's REST name: {@code flexible},
   * {@code legacy} or {@code off}.
   */
  public String getAutoCreationEligibility() {
    switch ((int) counts[count + Wire.QueueCounts.AUTO_CREATION]) {
    case Wire.AutoCreationCode.FLEXIBLE:
      return "flexible";
    case Wire.AutoCreationCode.LEGACY:
      return "legacy";
    default:
      return "off";
    }
  }

  /** The largest container its applications may ask for ({@code maximum-allocation-*}). */
  public long getMaximumAllocationMb() {
    return counts[count + Wire.QueueCounts.MAXIMUM_ALLOCATION_MEMORY];
  }

  /** The largest container's virtual cores. */
  public long getMaximumAllocationVcores() {
    return counts[count + Wire.QueueCounts.MAXIMUM_ALLOCATION_VCORES];
  }

  @Override
  public String toString() {
    return String.format("%s capacity=%.4f max=%.4f abs=%.4f absMax=%.4f used=%d MB",
        path, getCapacity(), getMaximumCapacity(), getAbsoluteCapacity(),
        getAbsoluteMaximumCapacity(), getUsedMemoryMb());
  }
}
