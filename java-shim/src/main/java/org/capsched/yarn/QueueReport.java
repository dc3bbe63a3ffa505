package org.capsched.yarn;

/**
 * Every queue as the core reports it at one moment, one record per queue in tree order:
 * fractions and factors in {@link #figures} ({@link Wire.QueueFigures}), amounts, counts
 * and links in {@link #counts} ({@link Wire.QueueCounts}). Made by the native side.
 */
final class QueueReport {
  final double[] figures;
  final long[] counts;

  QueueReport(double[] figures, long[] counts) {
    this.figures = figures;
    this.counts = counts;
  }

  /** The number of queues reported. */
  int size() {
    return counts.length / Wire.QueueCounts.STRIDE;
  }
}
