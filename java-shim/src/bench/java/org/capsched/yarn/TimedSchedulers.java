package org.capsched.yarn;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEventType;

/**
 * Apache's CapacityScheduler and ours, each timing its node heartbeats and its refreshes as
 * the RM's dispatcher and a refresh call them, for {@link ConcurrentWorkload}'s refresh
 * mode: how long a refresh holds up the heartbeats that place containers while the RM runs
 * its whole load. The schedulers are otherwise untouched.
 */
public final class TimedSchedulers {
  /** Every NODE_UPDATE handled while recording: start and end, System.nanoTime. */
  static final List<long[]> HEARTBEATS = Collections.synchronizedList(new ArrayList<>());
  /** Every refresh while recording: start, end, and how long it held the scheduler's lock. */
  static final List<long[]> REFRESHES = Collections.synchronizedList(new ArrayList<>());
  static volatile boolean recording;

  private TimedSchedulers() {
  }

  /** Hands {@code event} to {@code scheduler}, timing it if it is a node heartbeat. */
  private static void handle(SchedulerEvent event, Consumer<SchedulerEvent> scheduler) {
    long start = System.nanoTime();
    scheduler.accept(event);
    if (recording && event.getType() == SchedulerEventType.NODE_UPDATE) {
      HEARTBEATS.add(new long[] {start, System.nanoTime()});
    }
  }

  private static void refresh(long start, long heldNanos) {
    if (recording) {
      REFRESHES.add(new long[] {start, System.nanoTime(), heldNanos});
    }
  }

  /** Apache's, whose reinitialize holds its write lock from start to end. */
  public static final class Apache extends CapacityScheduler {
    @Override
    public void handle(SchedulerEvent event) {
      TimedSchedulers.handle(event, super::handle);
    }

    @Override
    public void reinitialize(Configuration conf, RMContext context) throws IOException {
      long start = System.nanoTime();
      super.reinitialize(conf, context);
      refresh(start, System.nanoTime() - start);
    }
  }

  /** Ours, which holds its lock for the second half of a refresh only. */
  public static final class Ours extends RustCapacityScheduler {
    @Override
    public void handle(SchedulerEvent event) {
      TimedSchedulers.handle(event, super::handle);
    }

    @Override
    public void reinitialize(Configuration conf, RMContext context) throws IOException {
      long start = System.nanoTime();
      super.reinitialize(conf, context);
      refresh(start, refreshHeldNanos());
    }
  }
}
