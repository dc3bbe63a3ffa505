package org.capsched.yarn;

/**
 * One queue as the Rust core reports it at one moment: configured and effective capacities
 * and usage. Capacities are fractions (0.25 = 25%); "absolute" ones are shares of the
 * whole cluster, the others shares of the parent.
 */
public final class QueueSnapshot {
  private final String path;
  private final int parent;
  private final double[] report;
  private final int offset;

  QueueSnapshot(String path, double[] report, int index) {
    this.path = path;
    this.report = report;
    this.offset = index * NativeScheduler.QUEUE_REPORT_STRIDE;
    this.parent = (int) report[offset + 10];
  }

  /** Full path, such as root.engineering.qa. */
  public String getPath() {
    return path;
  }

  /** Last component of the path. */
  public String getName() {
    return path.substring(path.lastIndexOf('.') + 1);
  }

  /** Index of the parent in the snapshot list, -1 for root. */
  public int getParentIndex() {
    return parent;
  }

  /** Configured capacity, a share of the parent. */
  public double getCapacity() {
    return report[offset];
  }

  /** Configured maximum capacity, a share of the parent. */
  public double getMaximumCapacity() {
    return report[offset + 1];
  }

  /** Effective capacity, a share of the cluster. */
  public double getAbsoluteCapacity() {
    return report[offset + 2];
  }

  /** Effective maximum capacity, a share of the cluster. */
  public double getAbsoluteMaximumCapacity() {
    return report[offset + 3];
  }

  /** Used resources as a share of the guarantee. */
  public double getUsedCapacity() {
    return report[offset + 4];
  }

  /** Used resources as a share of the cluster. */
  public double getAbsoluteUsedCapacity() {
    return report[offset + 5];
  }

  /** Memory the queue's containers and reservations use, in MB. */
  public long getUsedMemoryMb() {
    return (long) report[offset + 6];
  }

  /** Virtual cores the queue's containers and reservations use. */
  public long getUsedVcores() {
    return (long) report[offset + 7];
  }

  /** Applications in this queue and its descendants. */
  public int getNumApplications() {
    return (int) report[offset + 8];
  }

  public boolean isStopped() {
    return report[offset + 9] != 0;
  }

  /** The weight, or -1 unless the queue's capacity is given as a weight. */
  public double getWeight() {
    return report[offset + 11];
  }

  /** {@code maximum-applications} in effect for the queue. */
  public int getMaximumApplications() {
    return (int) report[offset + 12];
  }

  /** {@code user-limit-factor}. */
  public double getUserLimitFactor() {
    return report[offset + 13];
  }

  /** {@code minimum-user-limit-percent}. */
  public double getMinimumUserLimitPercent() {
    return report[offset + 14];
  }

  /** {@code maximum-am-resource-percent} in effect for the queue. */
  public double getMaximumAmResourcePercent() {
    return report[offset + 15];
  }

  /** {@code max-parallel-apps}, Integer.MAX_VALUE when unlimited. */
  public int getMaxParallelApps() {
    double v = report[offset + 16];
    return v < 0 ? Integer.MAX_VALUE : (int) v;
  }

  @Override
  public String toString() {
    return String.format("%s capacity=%.4f max=%.4f abs=%.4f absMax=%.4f used=%d MB",
        path, getCapacity(), getMaximumCapacity(), getAbsoluteCapacity(),
        getAbsoluteMaximumCapacity(), getUsedMemoryMb());
  }
}
