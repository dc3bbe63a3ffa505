package org.capsched.yarn;

import org.apache.hadoop.yarn.api.records.Resource;

/**
 * Every user of every leaf queue as the core reports it at one moment (Apache's
 * {@code UserInfo}): names in {@link #names}, amounts and counts in {@link #counts}
 * ({@link Wire.UserCounts}), weights in {@link #weights}, all at the user's index. Made by
 * the native side.
 */
public final class UserReport {
  private final String[] names;
  private final long[] counts;
  private final double[] weights;

  UserReport(String[] names, long[] counts, double[] weights) {
    this.names = names;
    this.counts = counts;
    this.weights = weights;
  }

  /** The number of users reported. */
  public int size() {
    return names.length;
  }

  /** The leaf's index in the queue report's order. */
  public int queueIndex(int user) {
    return (int) counts[user * Wire.UserCounts.STRIDE + Wire.UserCounts.QUEUE];
  }

  public String name(int user) {
    return names[user];
  }

  /** What the user's containers hold in the leaf, in every partition. */
  public Resource used(int user) {
    return resource(user, Wire.UserCounts.USED_MEMORY, Wire.UserCounts.USED_VCORES);
  }

  /** What the user's containers hold in the leaf's default partition. */
  public Resource usedInDefaultPartition(int user) {
    return resource(user, Wire.UserCounts.DEFAULT_USED_MEMORY,
        Wire.UserCounts.DEFAULT_USED_VCORES);
  }

  /** What the user's ApplicationMasters hold. */
  public Resource amUsed(int user) {
    return resource(user, Wire.UserCounts.AM_USED_MEMORY, Wire.UserCounts.AM_USED_VCORES);
  }

  /** The user's limit now, weight applied. */
  public Resource limit(int user) {
    return resource(user, Wire.UserCounts.LIMIT_MEMORY, Wire.UserCounts.LIMIT_VCORES);
  }

  public int activeApplications(int user) {
    return (int) counts[user * Wire.UserCounts.STRIDE + Wire.UserCounts.ACTIVE_APPLICATIONS];
  }

  public int pendingApplications(int user) {
    return (int) counts[user * Wire.UserCounts.STRIDE + Wire.UserCounts.PENDING_APPLICATIONS];
  }

  /** Whether the user shares the leaf now (one of Apache's "active users"). */
  public boolean isActive(int user) {
    return appsCountedActive(user) > 0;
  }

  /**
   * The user's applications that make it active (those Apache's queue metrics count as
   * active applications: asking, by Apache's rule, not simply activated).
   */
  public int appsCountedActive(int user) {
    return (int) counts[user * Wire.UserCounts.STRIDE + Wire.UserCounts.APPS_COUNTED_ACTIVE];
  }

  /** What any of the user's applications could still get in the leaf (its headroom). */
  public Resource headroom(int user) {
    return resource(user, Wire.UserCounts.HEADROOM_MEMORY, Wire.UserCounts.HEADROOM_VCORES);
  }

  /** What the user's ApplicationMasters may hold, its weight applied. */
  public Resource amLimit(int user) {
    return resource(user, Wire.UserCounts.AM_LIMIT_MEMORY, Wire.UserCounts.AM_LIMIT_VCORES);
  }

  public double weight(int user) {
    return weights[user];
  }

  private Resource resource(int user, int memory, int vcores) {
    int base = user * Wire.UserCounts.STRIDE;
    return Resource.newInstance(counts[base + memory], (int) counts[base + vcores]);
  }
}
