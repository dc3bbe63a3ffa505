package org.capsched.yarn;

import java.util.Collections;
import java.util.List;

import org.apache.hadoop.yarn.api.records.Resource;

/**
 * Every queue and every leaf's users as the core saw them at one moment (see
 * {@link RustCapacityScheduler#getQueueView()}).
 */
public final class QueueView {
  private final List<QueueSnapshot> queues;
  private final UserReport users;
  private final PartitionReport partitions;

  QueueView(List<QueueSnapshot> queues, UserReport users, PartitionReport partitions) {
    this.queues = Collections.unmodifiableList(queues);
    this.users = users;
    this.partitions = partitions;
  }

  /** Every queue, root first, each parent before its children. */
  public List<QueueSnapshot> queues() {
    return queues;
  }

  /** Every leaf's users, their leaves indexed as in {@link #queues()}. */
  public UserReport users() {
    return users;
  }

  /**
   * The queues' and users' labelled partitions, owners indexed as in {@link #queues()} and
   * {@link #users()}.
   */
  public PartitionReport partitions() {
    return partitions;
  }

  /** The queue at {@code path}; null for an unknown one. */
  public QueueSnapshot queue(String path) {
    int index = indexOf(path);
    return index < 0 ? null : queues.get(index);
  }

  /**
   * What one user's ApplicationMasters may hold in the leaf at {@code path}, with the user's
   * weight; for a user the leaf does not know, a user of weight 1's.
   */
  public Resource userAmLimit(String path, String user) {
    int index = indexOf(path);
    for (int u = 0; u < users.size(); u++) {
      if (users.queueIndex(u) == index && users.name(u).equals(user)) {
        return users.amLimit(u);
      }
    }
    return index < 0 ? Resource.newInstance(0, 0) : queues.get(index).getUserAmResourceLimit();
  }

  private int indexOf(String path) {
    for (int i = 0; i < queues.size(); i++) {
      if (queues.get(i).getPath().equals(path)) {
        return i;
      }
    }
    return -1;
  }
}
