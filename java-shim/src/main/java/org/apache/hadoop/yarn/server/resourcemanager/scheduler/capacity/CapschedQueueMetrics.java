package org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.metrics2.MetricsCollector;
import org.apache.hadoop.metrics2.MetricsSystem;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Queue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;

/**
 * Apache's capacity-queue metrics (the {@code CSQueueMetrics} record JMX, the metrics
 * sinks and every dashboard read per queue and per user: UsedCapacity, GuaranteedMB,
 * AMResourceLimitMB, AvailableMB and the rest, with Apache's names) for the Rust
 * scheduler. The counters (applications, containers, allocated, pending and reserved
 * resources) are kept by the RM's own bookkeeping, as for Apache's scheduler. The gauges
 * Apache's scheduler sets as it works are derived from the core's reports instead, by a
 * refresher the scheduler gives: it runs whenever the record is read and brings every
 * queue's gauges up to date if the core changed since it last ran.
 *
 * <p>It lives in Apache's package because {@code CSQueueMetrics}' constructor is
 * package-private. Reading a gauge through its Java getter shows the value as of the last
 * read of a record.
 */
public final class CapschedQueueMetrics extends CSQueueMetrics {
  private static final Runnable NOTHING = () -> { };

  /** Whose refresher runs: this queue's own for a queue, its queue's for a user. */
  private final CapschedQueueMetrics queue;
  private volatile Runnable refresher = NOTHING;

  private CapschedQueueMetrics(MetricsSystem ms, String queueName, Queue parent,
      boolean enableUserMetrics, Configuration conf, CapschedQueueMetrics queue) {
    super(ms, queueName, parent, enableUserMetrics, conf);
    this.queue = queue == null ? this : queue;
  }

  /**
   * The metrics of the queue named {@code queueName} (Apache names queues by full path),
   * registered with the metrics system the first time, as Apache's
   * {@code CSQueueMetrics.forQueue} does. The same object serves every later scheduler
   * that asks for the name; {@code refresher} replaces the one given before.
   *
   * @throws IllegalStateException if another kind of metrics holds the name already
   */
  public static synchronized CapschedQueueMetrics forQueue(String queueName, Queue parent,
      boolean enableUserMetrics, Configuration conf, Runnable refresher) {
    QueueMetrics existing = getQueueMetrics().get(queueName);
    CapschedQueueMetrics metrics;
    if (existing instanceof CapschedQueueMetrics) {
      metrics = (CapschedQueueMetrics) existing;
    } else if (existing != null) {
      throw new IllegalStateException("The metrics of queue " + queueName + " are "
          + existing.getClass().getName() + ", registered by another scheduler in this "
          + "process; the Rust scheduler cannot take them over");
    } else {
      MetricsSystem ms = DefaultMetricsSystem.instance();
      metrics = new CapschedQueueMetrics(ms, queueName, parent, enableUserMetrics, conf, null);
      metrics.tag(QUEUE_INFO, queueName);
      ms.register(sourceName(queueName).toString(), "Metrics for queue: " + queueName, metrics);
      getQueueMetrics().put(queueName, metrics);
    }
    metrics.refresher = refresher;
    return metrics;
  }

  /** A user's metrics in this queue, made and registered as Apache's are. */
  @Override
  public synchronized QueueMetrics getUserMetrics(String userName) {
    if (users == null) {
      return null;
    }
    QueueMetrics metrics = users.get(userName);
    if (metrics == null) {
      CapschedQueueMetrics user =
          new CapschedQueueMetrics(metricsSystem, queueName, null, false, conf, this);
      user.tag(QUEUE_INFO, queueName);
      user.tag(USER_INFO, userName);
      users.put(userName, user);
      metricsSystem.register(sourceName(queueName).append(",user=").append(userName).toString(),
          "Metrics for user '" + userName + "' in queue '" + queueName + "'", user);
      metrics = user;
    }
    return metrics;
  }

  /** The record, its gauges brought up to date first. */
  @Override
  public void getMetrics(MetricsCollector collector, boolean all) {
    queue.refresher.run();
    super.getMetrics(collector, all);
  }

  /** What the queue's activated applications' ApplicationMasters hold now. */
  public void setAmResourceUsed(Resource used) {
    usedAMResourceMB.set(used.getMemorySize());
    usedAMResourceVCores.set(used.getVirtualCores());
  }

  /** What one user's ApplicationMasters hold now, in the user's metrics of this queue. */
  public void setUserAmResourceUsed(String user, Resource used) {
    QueueMetrics metrics = getUserMetrics(user);
    if (metrics != null) {
      ((CapschedQueueMetrics) metrics).setAmResourceUsed(used);
    }
  }
}
