package org.capsched.yarn;

import java.util.List;
import java.util.function.BiConsumer;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;

/**
 * One ApplicationMaster heartbeat as the core sees it: the containers the AM released (let
 * go by the RM's objects, and handed to the core with the asks rather than on their own),
 * its asks and blacklist changes given to the RM's request table and to the core together,
 * and the headroom the core answers recorded on the attempt. Like Apache's
 * {@code allocate()}, it takes no scheduler-wide lock: the RM's objects it changes guard
 * themselves (the attempt, its containers, their nodes), and the core has its own.
 */
final class AmHeartbeat {
  private static final long[] NO_CONTAINERS = new long[0];

  private final NativeScheduler core;
  private final ReleaseBatch releases;
  private final BiConsumer<List<ContainerId>, RustAppAttempt> releaseContainers;

  /**
   * Heartbeats into {@code core}; {@code releaseContainers} is the RM's own release of an
   * AM's containers (which ends them on the RM's objects, into this thread's batch of
   * {@code releases}).
   */
  AmHeartbeat(NativeScheduler core, ReleaseBatch releases,
      BiConsumer<List<ContainerId>, RustAppAttempt> releaseContainers) {
    this.core = core;
    this.releases = releases;
    this.releaseContainers = releaseContainers;
  }

  /**
   * The RM's objects let go of the released containers now; returns them as
   * {@link Wire.ContainerRef} records for the core. A node heartbeat may be placing
   * containers meanwhile: the core, not yet told, sees the released room as taken until
   * this heartbeat's crossing, and a container the heartbeat ends at the same time (killed
   * for room) is ended once, by whichever gets to it first.
   */
  long[] release(List<ContainerId> release, RustAppAttempt attempt) {
    if (release.isEmpty()) {
      return NO_CONTAINERS;
    }
    releases.open();
    try {
      releaseContainers.accept(release, attempt);
      return releases.take();
    } finally {
      releases.close();
    }
  }

  /** The attempt has stopped: the core hears of its released containers on their own. */
  void stopped(long[] released) {
    if (released.length > 0) {
      core.release(released);
    }
  }

  /**
   * Gives the released containers, the asks and the blacklist changes to the core in one
   * crossing, and the asks and blacklist to the RM's request table under the attempt's lock
   * (so the two agree); records the headroom the core answers on the attempt, whose
   * allocation (and the RM's metrics) report it.
   */
  void update(RustApplication app, RustAppAttempt attempt, long[] released,
      List<ResourceRequest> ask, List<String> blacklistAdditions,
      List<String> blacklistRemovals) {
    long[][] headroom = new long[1][];
    Asks asks = Asks.encode(ask);
    String[] additions = names(blacklistAdditions);
    String[] removals = names(blacklistRemovals);
    boolean waitingForAm = attempt.isWaitingForAMContainer();
    attempt.updateRequests(ask, () -> headroom[0] = core.allocate(app.key(), released,
        asks.ints, asks.longs, asks.names, asks.labels, additions, removals, waitingForAm));
    attempt.updateBlacklist(blacklistAdditions, blacklistRemovals);
    attempt.setHeadroom(Resource.newInstance(headroom[0][0], (int) headroom[0][1]));
  }

  private static String[] names(List<String> list) {
    return list == null ? new String[0] : list.toArray(new String[0]);
  }
}
