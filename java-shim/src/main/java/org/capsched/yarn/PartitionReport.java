package org.capsched.yarn;

import org.apache.hadoop.yarn.api.records.Resource;

/**
 * The labelled partitions the scheduler views list for each queue and each leaf's user, as
 * the core reports them at one moment (Apache's per-partition entries of a queue's
 * capacities and resources, and of a user's resources): one row each, labels in
 * {@link #labels}, amounts and flags in {@link #counts} ({@link Wire.PartitionCounts}),
 * fractions in {@link #figures} ({@link Wire.PartitionFigures}). The default partition's
 * figures are the queue's and the user's own. Made by the native side.
 */
public final class PartitionReport {
  private final String[] labels;
  private final long[] counts;
  private final double[] figures;

  PartitionReport(String[] labels, long[] counts, double[] figures) {
    this.labels = labels;
    this.counts = counts;
    this.figures = figures;
  }

  /** The number of rows. */
  public int size() {
    return labels.length;
  }

  /** The row's partition label. */
  public String label(int row) {
    return labels[row];
  }

  /** Whether the row is a queue's (else a user's). */
  public boolean isQueue(int row) {
    return count(row, Wire.PartitionCounts.KIND) == Wire.PartitionKind.QUEUE;
  }

  /** The queue's index in the queue report's order, or the user's in the user report's. */
  public int owner(int row) {
    return (int) count(row, Wire.PartitionCounts.OWNER);
  }

  /** A queue's row listed among its capacities. */
  public boolean inCapacities(int row) {
    return flag(row, Wire.PartitionFlags.CAPACITIES);
  }

  /** A queue's row listed among its resources (usage). */
  public boolean inUsage(int row) {
    return flag(row, Wire.PartitionFlags.USAGE);
  }

  /** The queue has {@code accessible-node-labels.<label>.*} keys (the root: some queue has). */
  public boolean isConfigured(int row) {
    return flag(row, Wire.PartitionFlags.CONFIGURED);
  }

  public Resource used(int row) {
    return resource(row, Wire.PartitionCounts.USED_MEMORY);
  }

  public Resource reserved(int row) {
    return resource(row, Wire.PartitionCounts.RESERVED_MEMORY);
  }

  public Resource amUsed(int row) {
    return resource(row, Wire.PartitionCounts.AM_USED_MEMORY);
  }

  public Resource amLimit(int row) {
    return resource(row, Wire.PartitionCounts.AM_LIMIT_MEMORY);
  }

  public Resource userAmLimit(int row) {
    return resource(row, Wire.PartitionCounts.USER_AM_LIMIT_MEMORY);
  }

  public Resource effectiveMin(int row) {
    return resource(row, Wire.PartitionCounts.EFFECTIVE_MIN_MEMORY);
  }

  public Resource effectiveMax(int row) {
    return resource(row, Wire.PartitionCounts.EFFECTIVE_MAX_MEMORY);
  }

  /**
   * The maximum there as configured, or inherited from the parent by a queue given an
   * absolute resource; null for none.
   */
  public Resource configuredMax(int row) {
    return count(row, Wire.PartitionCounts.CONFIGURED_MAX_MEMORY) == 0 ? null
        : resource(row, Wire.PartitionCounts.CONFIGURED_MAX_MEMORY);
  }

  public double capacity(int row) {
    return figure(row, Wire.PartitionFigures.CAPACITY);
  }

  public double maximumCapacity(int row) {
    return figure(row, Wire.PartitionFigures.MAXIMUM_CAPACITY);
  }

  public double absoluteCapacity(int row) {
    return figure(row, Wire.PartitionFigures.ABSOLUTE_CAPACITY);
  }

  public double absoluteMaximumCapacity(int row) {
    return figure(row, Wire.PartitionFigures.ABSOLUTE_MAXIMUM_CAPACITY);
  }

  public double usedCapacity(int row) {
    return figure(row, Wire.PartitionFigures.USED_CAPACITY);
  }

  public double absoluteUsedCapacity(int row) {
    return figure(row, Wire.PartitionFigures.ABSOLUTE_USED_CAPACITY);
  }

  public double maximumAmResourcePercent(int row) {
    return figure(row, Wire.PartitionFigures.MAXIMUM_AM_RESOURCE_PERCENT);
  }

  /** The label's capacity given as a weight; -1 otherwise. */
  public double weight(int row) {
    return figure(row, Wire.PartitionFigures.WEIGHT);
  }

  /** That weight over the weights the queue's siblings give there (0 without one). */
  public double normalizedWeight(int row) {
    return figure(row, Wire.PartitionFigures.NORMALIZED_WEIGHT);
  }

  private long count(int row, int field) {
    return counts[row * Wire.PartitionCounts.STRIDE + field];
  }

  private boolean flag(int row, int flag) {
    return (count(row, Wire.PartitionCounts.FLAGS) & flag) != 0;
  }

  private double figure(int row, int field) {
    return figures[row * Wire.PartitionFigures.STRIDE + field];
  }

  private Resource resource(int row, int memoryField) {
    return Resource.newInstance(count(row, memoryField), (int) count(row, memoryField + 1));
  }
}
