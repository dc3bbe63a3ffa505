package org.capsched.yarn;

import java.util.Arrays;

import org.apache.hadoop.yarn.api.records.ContainerId;

/**
 * Containers the RM is done with (completed, released, expired, lost with their node, killed
 * with their attempt), on their way back to the core as {@link Wire.ContainerRef} records.
 * While a batch is open they are gathered, and reach the core in one {@code release}
 * crossing when the outermost batch closes, or sooner: a heartbeat {@link #take}s them into
 * its own crossing, and {@link #flush} sends them before a core call that must see them.
 * With no batch open, each goes at once.
 *
 * <p>Not thread-safe: every caller holds the scheduler's write lock, and a batch is opened
 * and closed within one hold of it, so no other thread ever finds a batch open.
 */
final class ReleaseBatch {
  private final NativeScheduler core;
  private long[] records = new long[3 * Wire.ContainerRef.STRIDE];
  private int count;
  private int depth;

  /** An empty batch whose containers go to {@code core}. */
  ReleaseBatch(NativeScheduler core) {
    this.core = core;
  }

  /** Opens a batch; batches nest, and only closing the outermost one sends anything. */
  void open() {
    depth++;
  }

  /** Closes a batch; closing the outermost one sends what was gathered to the core. */
  void close() {
    if (--depth == 0) {
      flush();
    }
  }

  /**
   * Container {@code id} of application {@code appKey} has gone as far as {@code kind} (a
   * {@link Wire.ReleaseKind}) says.
   */
  void add(int appKey, ContainerId id, int kind) {
    add(appKey, id.getApplicationAttemptId().getAttemptId(), id.getContainerId(), kind);
  }

  /** Container {@code number} of attempt {@code attempt} of application {@code appKey}. */
  void add(int appKey, int attempt, long number, int kind) {
    if (count + Wire.ContainerRef.STRIDE > records.length) {
      records = Arrays.copyOf(records, records.length * 2);
    }
    records[count + Wire.ContainerRef.APP] = appKey;
    records[count + Wire.ContainerRef.ATTEMPT] = attempt;
    records[count + Wire.ContainerRef.NUMBER] = number;
    records[count + Wire.ContainerRef.KIND] = kind;
    count += Wire.ContainerRef.STRIDE;
    if (depth == 0) {
      flush();
    }
  }

  /** What was gathered, for a core call that releases them itself; the batch is emptied. */
  long[] take() {
    long[] out = Arrays.copyOf(records, count);
    count = 0;
    return out;
  }

  /** Sends what was gathered to the core now, if anything. */
  void flush() {
    if (count > 0) {
      core.release(take());
    }
  }
}
