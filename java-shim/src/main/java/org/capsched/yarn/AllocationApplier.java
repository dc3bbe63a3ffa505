package org.capsched.yarn;

import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import org.apache.hadoop.util.Time;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.nodelabels.RMNodeLabelsManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerFinishedEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerHealth;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;
import org.apache.hadoop.yarn.server.utils.BuilderUtils;
import org.apache.hadoop.yarn.util.resource.Resources;

/**
 * Makes the RM's objects (RMContainers, attempts, nodes, and through them the queue
 * metrics) say what the core decided: a container allocated, a node reserved, a reservation
 * given up or turned into a container, a killable container killed to make room; and takes
 * a finished container off them. A decision
 * that can no longer be applied, because its attempt ended or its ask was withdrawn since
 * the core made it, goes back to the core through the release batch.
 *
 * <p>A heartbeat's decisions are applied under the scheduler's write lock. A finished
 * container may be taken off from any thread ({@link #finish} changes only objects that
 * guard themselves: the attempt, the node, the metrics, the health record, the calling
 * thread's release batch), as Apache's scheduler ends containers alongside heartbeats.
 */
final class AllocationApplier {
  private final Map<Integer, RustApplication> appsByKey;
  private final Map<Integer, RustSchedulerNode> nodesByKey;
  private final ReleaseBatch releases;
  /** The RM's record of the scheduler's last run and operations (the REST health block). */
  private final SchedulerHealth health;
  /** When the last heartbeat came (a release is recorded at that time, as Apache does). */
  private final LongSupplier lastNodeUpdateTime;
  /** Ends a container as preempted, as the scheduler's {@code killContainer} does. */
  private final Consumer<ContainerId> preempt;

  /**
   * An applier that finds applications and nodes by the core's keys in the two maps (the
   * scheduler's own, kept current by it), gives stale decisions to {@code releases},
   * keeps the RM's scheduler-health record {@code health} and ends containers the core
   * kills through {@code preempt}.
   */
  AllocationApplier(Map<Integer, RustApplication> appsByKey,
      Map<Integer, RustSchedulerNode> nodesByKey, ReleaseBatch releases,
      SchedulerHealth health, LongSupplier lastNodeUpdateTime, Consumer<ContainerId> preempt) {
    this.appsByKey = appsByKey;
    this.nodesByKey = nodesByKey;
    this.releases = releases;
    this.health = health;
    this.lastNodeUpdateTime = lastNodeUpdateTime;
    this.preempt = preempt;
  }

  /**
   * Applies what the core decided on one heartbeat at {@code now}, one
   * {@link Wire.Allocation} record per decision: new containers, reservations made, given
   * up, or turned into containers, killable containers killed; and records the run in the
   * scheduler-health record.
   */
  void apply(RustSchedulerNode heartbeatNode, long[] allocations, long now) {
    HeartbeatRun run = new HeartbeatRun();
    for (int i = 0; i < allocations.length; i += Wire.Allocation.STRIDE) {
      // Usually the heartbeating node; another one when a reservation there is dropped.
      RustSchedulerNode node =
          nodesByKey.getOrDefault((int) allocations[i + Wire.Allocation.NODE], heartbeatNode);
      int appKey = (int) allocations[i + Wire.Allocation.APP];
      int attemptId = (int) allocations[i + Wire.Allocation.ATTEMPT];
      long number = allocations[i + Wire.Allocation.NUMBER];
      int kind = (int) allocations[i + Wire.Allocation.KIND];
      RustApplication app = appsByKey.get(appKey);
      if (kind == Wire.Kind.PREEMPT) {
        // Lazy preemption: a killable container (of any attempt) makes room; the core has
        // taken it off its books but for its node's share, which the release settles.
        if (app != null) {
          preempt.accept(ContainerId.newContainerId(
              ApplicationAttemptId.newInstance(app.getApplicationId(), attemptId), number));
        }
        continue;
      }
      RustAppAttempt attempt = app == null ? null : app.getCurrentAppAttempt();
      if (attempt == null || attempt.getApplicationAttemptId().getAttemptId() != attemptId) {
        // The attempt went away since the core decided: give back what it was given.
        if (kind != Wire.Kind.UNRESERVE) {
          releases.add(appKey, attemptId, number, Wire.ReleaseKind.DONE);
        }
        continue;
      }
      SchedulerRequestKey key = attempt.requestKey(
          (int) allocations[i + Wire.Allocation.PRIORITY],
          allocations[i + Wire.Allocation.ALLOCATION_REQUEST_ID]);
      if (kind == Wire.Kind.UNRESERVE || kind == Wire.Kind.ALLOCATE_RESERVED) {
        RMContainer reserved = node.getReservedContainer();
        if (reserved != null) {
          attempt.unreserve(key, node, reserved);
        }
        if (kind == Wire.Kind.UNRESERVE) {
          continue;
        }
      }
      ContainerId id = ContainerId.newContainerId(attempt.getApplicationAttemptId(), number);
      Resource size = Resource.newInstance(allocations[i + Wire.Allocation.MEMORY],
          (int) allocations[i + Wire.Allocation.VCORES]);
      Container container = BuilderUtils.newContainer(id, node.getNodeID(),
          node.getRMNode().getHttpAddress(), size, key.getPriority(), null,
          key.getAllocationRequestId());
      if (kind == Wire.Kind.RESERVE) {
        attempt.reserve(key, node, container);
        run.reserved(node, id, app, size);
        continue;
      }
      NodeType locality = Wire.nodeType(allocations[i + Wire.Allocation.LOCALITY]);
      RMContainer rmContainer = attempt.materialize(locality, node, key, container);
      if (rmContainer == null) {
        // The AM withdrew the ask since the core decided: give it back.
        releases.add(appKey, attemptId, number, Wire.ReleaseKind.DONE);
        continue;
      }
      run.allocated(node, id, app, size, kind == Wire.Kind.ALLOCATE_RESERVED);
    }
    run.record(now);
  }

  /**
   * A preempted container in its leaf's (and so its ancestors') metrics, as Apache's leaf
   * counts it: one more container, its size, and its size times how long it ran.
   */
  private static void countPreempted(QueueMetrics metrics, RMContainer rmContainer) {
    long ranMillis = rmContainer.getFinishTime() - rmContainer.getCreationTime();
    Resource size = rmContainer.getAllocatedResource();
    metrics.preemptContainer();
    metrics.updatePreemptedMemoryMBSeconds(size.getMemorySize() * ranMillis / 1000);
    metrics.updatePreemptedVcoreSeconds(size.getVirtualCores() * ranMillis / 1000);
    metrics.updatePreemptedResources(size);
    metrics.updatePreemptedSecondsForCustomResources(size, ranMillis / 1000);
    metrics.updatePreemptedForCustomResources(size);
  }

  /** The last release or preemption, for the scheduler-health record, as Apache keeps it. */
  private void recordEnded(RMContainer rmContainer, ContainerStatus status, RustApplication app) {
    String queue = app == null ? null : app.getQueue().getQueueName();
    if (status.getExitStatus() == ContainerExitStatus.PREEMPTED) {
      health.updatePreemption(Time.now(), rmContainer.getAllocatedNode(),
          rmContainer.getContainerId(), queue);
      health.updateSchedulerPreemptionCounts(1);
    } else {
      health.updateRelease(lastNodeUpdateTime.getAsLong(), rmContainer.getAllocatedNode(),
          rmContainer.getContainerId(), queue);
    }
  }

  /**
   * What one heartbeat allocated and reserved, for the RM's scheduler-health record as
   * Apache's scheduler keeps it: the last allocation and reservation (node, container,
   * queue), the run's counts and resources, reservations fulfilled.
   */
  private final class HeartbeatRun {
    private long allocations;
    private long reservations;
    private long fulfilled;
    private final Resource allocated = Resource.newInstance(0, 0);
    private final Resource reserved = Resource.newInstance(0, 0);
    private NodeId allocatedOn;
    private ContainerId lastAllocated;
    private String allocatedQueue;
    private NodeId reservedOn;
    private ContainerId lastReserved;
    private String reservedQueue;

    void allocated(RustSchedulerNode node, ContainerId id, RustApplication app, Resource size,
        boolean fulfilsReservation) {
      allocations++;
      Resources.addTo(allocated, size);
      allocatedOn = node.getNodeID();
      lastAllocated = id;
      allocatedQueue = app.getQueue().getQueueName();
      if (fulfilsReservation) {
        fulfilled++;
      }
    }

    void reserved(RustSchedulerNode node, ContainerId id, RustApplication app, Resource size) {
      reservations++;
      Resources.addTo(reserved, size);
      reservedOn = node.getNodeID();
      lastReserved = id;
      reservedQueue = app.getQueue().getQueueName();
    }

    void record(long now) {
      if (lastAllocated != null) {
        health.updateAllocation(now, allocatedOn, lastAllocated, allocatedQueue);
      }
      if (lastReserved != null) {
        health.updateReservation(now, reservedOn, lastReserved, reservedQueue);
      }
      health.updateSchedulerAllocationCounts(allocations);
      health.updateSchedulerReservationCounts(reservations);
      if (fulfilled > 0) {
        health.updateSchedulerFulfilledReservationCounts(fulfilled);
      }
      health.updateSchedulerRunDetails(now, allocated, reserved);
    }
  }

  /**
   * Takes a container that has finished (or a reservation that has ended) off its
   * application's attempt and its node, any of which may be gone already (null), and
   * gives it back to the core: all of it, or, while it still runs on its node (its
   * application let go of it, the NodeManager has not reported it gone), all but the
   * node's share.
   */
  void finish(RMContainer rmContainer, ContainerStatus status, RMContainerEventType event,
      RustApplication app, RustAppAttempt attempt, RustSchedulerNode node) {
    ContainerId id = rmContainer.getContainer().getId();
    boolean nodeHolds = false;
    boolean released = false;
    if (rmContainer.getState() == RMContainerState.RESERVED) {
      // A reservation ends: the node is free again for everyone.
      if (attempt != null && node != null) {
        attempt.unreserve(rmContainer.getReservedSchedulerKey(), node, rmContainer);
      }
      rmContainer.handle(new RMContainerFinishedEvent(id, status, event));
    } else {
      if (attempt != null) {
        // Released in the partition it was charged to: its node's (Apache's scheduler moves
        // a relabelled node's containers with it).
        String partition = node != null ? node.getPartition()
            : rmContainer.getNodeLabelExpression() == null ? RMNodeLabelsManager.NO_LABEL
            : rmContainer.getNodeLabelExpression();
        released = attempt.containerCompleted(rmContainer, status, event, partition);
      }
      // Counted whether or not the attempt still held it, as Apache's leaf counts a
      // preemption and its scheduler records a release (a kill that comes after the AM
      // released the container, the containers of a lost node).
      if (app != null && status.getExitStatus() == ContainerExitStatus.PREEMPTED) {
        countPreempted(app.getQueue().getMetrics(), rmContainer);
      }
      recordEnded(rmContainer, status, app);
      if (!released && attempt != null && rmContainer.completed()) {
        // Ended before: by another thread (its AM released it while a heartbeat killed it
        // for room; the attempt lets go of a container once, under its own lock) or by an
        // earlier event. Its node and the core heard of it then.
        return;
      }
      if (node != null && app != null) {
        nodeHolds = node.release(id, app.key());
      } else if (node != null) {
        node.releaseContainer(id, false);
      }
    }
    if (app != null) {
      releases.add(app.key(), id,
          nodeHolds ? Wire.ReleaseKind.NODE_HOLDS : Wire.ReleaseKind.DONE);
    }
  }
}
