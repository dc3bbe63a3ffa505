package org.capsched.yarn;

/**
 * The core's queue report and user report of one moment, read under one lock: a view that
 * shows both (the scheduler page, the REST scheduler view) is never torn between two states.
 * Made by the native side.
 */
final class ViewReport {
  final QueueReport queues;
  final UserReport users;

  ViewReport(QueueReport queues, UserReport users) {
    this.queues = queues;
    this.users = users;
  }
}
