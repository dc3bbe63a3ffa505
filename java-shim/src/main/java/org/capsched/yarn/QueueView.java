package org.capsched.yarn;

import java.util.Collections;
import java.util.List;

/**
 * Every queue and every leaf's users as the core saw them at one moment (see
 * {@link RustCapacityScheduler#getQueueView()}).
 */
public final class QueueView {
  private final List<QueueSnapshot> queues;
  private final UserReport users;

  QueueView(List<QueueSnapshot> queues, UserReport users) {
    this.queues = Collections.unmodifiableList(queues);
    this.users = users;
  }

  /** Every queue, root first, each parent before its children. */
  public List<QueueSnapshot> queues() {
    return queues;
  }

  /** Every leaf's users, their leaves indexed as in {@link #queues()}. */
  public UserReport users() {
    return users;
  }
}
