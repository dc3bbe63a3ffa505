package org.capsched.yarn;

/**
 * The core's queue report, user report and their labelled partitions of one moment, read
 * under one lock: a view that shows them together (the scheduler page, the REST scheduler
 * view) is never torn between two states. Made by the native side.
 */
final class ViewReport {
  final QueueReport queues;
  final UserReport users;
  final PartitionReport partitions;

  ViewReport(QueueReport queues, UserReport users, PartitionReport partitions) {
    this.queues = queues;
    this.users = users;
    this.partitions = partitions;
  }
}
