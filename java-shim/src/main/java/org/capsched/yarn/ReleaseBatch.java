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
 * <p>Each thread has a batch of its own: a node heartbeat (under the scheduler's write lock)
 * and an ApplicationMaster releasing its containers (under no scheduler lock, as Apache's
 * {@code allocate()} releases them) gather what they end apart, and each hands its own to
 * the core.
 */
final class ReleaseBatch {
  private final NativeScheduler core;
  private final ThreadLocal<Gathered> gathered = ThreadLocal.withInitial(Gathered::new);

  /** One thread's batch. */
  private static final class Gathered {
    long[] records = new long[3 * Wire.ContainerRef.STRIDE];
    int count;
    int depth;
  }

  /** An empty batch whose containers go to {@code core}. */
  ReleaseBatch(NativeScheduler core) {
    this.core = core;
  }

  /** Opens a batch; batches nest, and only closing the outermost one sends anything. */
  void open() {
    gathered.get().depth++;
  }

  /** Closes a batch; closing the outermost one sends what was gathered to the core. */
  void close() {
    Gathered g = gathered.get();
    if (--g.depth == 0) {
      flush(g);
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
    Gathered g = gathered.get();
    if (g.count + Wire.ContainerRef.STRIDE > g.records.length) {
      g.records = Arrays.copyOf(g.records, g.records.length * 2);
    }
    long[] records = g.records;
    records[g.count + Wire.ContainerRef.APP] = appKey;
    records[g.count + Wire.ContainerRef.ATTEMPT] = attempt;
    records[g.count + Wire.ContainerRef.NUMBER] = number;
    records[g.count + Wire.ContainerRef.KIND] = kind;
    g.count += Wire.ContainerRef.STRIDE;
    if (g.depth == 0) {
      flush(g);
    }
  }

  /** What was gathered, for a core call that releases them itself; the batch is emptied. */
  long[] take() {
    return take(gathered.get());
  }

  /** Sends what was gathered to the core now, if anything. */
  void flush() {
    flush(gathered.get());
  }

  private static long[] take(Gathered g) {
    long[] out = Arrays.copyOf(g.records, g.count);
    g.count = 0;
    return out;
  }

  private void flush(Gathered g) {
    if (g.count > 0) {
      core.release(take(g));
    }
  }
}
