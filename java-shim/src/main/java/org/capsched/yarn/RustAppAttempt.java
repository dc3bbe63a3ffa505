package org.capsched.yarn;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationResourceUsageReport;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeLabel;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.UpdateContainerError;
import org.apache.hadoop.yarn.api.records.UpdateContainerRequest;
import org.apache.hadoop.yarn.server.resourcemanager.RMAuditLogger;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerImpl;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerReservedEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CSAMContainerLaunchDiagnosticsConstants;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.ContainerRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement.AppPlacementAllocator;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;
import org.apache.hadoop.yarn.util.resource.ResourceCalculator;
import org.apache.hadoop.yarn.util.resource.Resources;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An application attempt as the RM tracks it. {@link #materialize} turns one container the
 * Rust core allocated into the RM's objects: the RMContainer, the attempt's live and newly
 * allocated lists, its request bookkeeping and the queue metrics.
 */
final class RustAppAttempt extends FiCaSchedulerApp {
  private static final Logger LOG = LoggerFactory.getLogger(RustAppAttempt.class);
  /** Apache's attempt's logger, under which the lines this attempt writes as it does go. */
  private static final Logger APP_LOG = LoggerFactory.getLogger(FiCaSchedulerApp.class);

  /** How long a sum of the running containers' resource-seconds serves: Apache's three seconds. */
  private static final long RESOURCE_SECONDS_CACHE_MS = 3000;

  /** Why container updates are refused, as the AM reads it in its allocate response. */
  static final String UPDATES_NOT_SUPPORTED = "Container updates (resource increase or decrease,"
      + " promotion or demotion) are not supported by RustCapacityScheduler";

  /** Where container numbers come from: the core, which numbers every container. */
  private final LongSupplier containerNumbers;
  /** Where asks the RM gives back to the attempt go: the core, as if the AM asked again. */
  private final Consumer<List<ResourceRequest>> restoredAsks;

  /** The running containers' resource-seconds as last summed ({@link #runningResourceSeconds}). */
  private Map<String, Long> lastResourceSeconds = new HashMap<>();
  /**
   * The core's queues while {@link #diagnoseAm} runs (the base class builds the message and
   * asks for its details).
   */
  private QueueView diagnosisView;
  /** The headroom the core last worked out, as it said it (a resource may be below zero). */
  private volatile Resource coreHeadroom = Resources.none();

  RustAppAttempt(ApplicationAttemptId attemptId, String user, RustQueue queue,
      RMContext rmContext, Priority priority, boolean recovering, LongSupplier containerNumbers,
      Consumer<List<ResourceRequest>> restoredAsks) {
    super(attemptId, user, queue, queue.getAbstractUsersManager(), rmContext, priority,
        recovering);
    this.containerNumbers = containerNumbers;
    this.restoredAsks = restoredAsks;
  }

  /**
   * Records the headroom the core worked out. The base class's setter floors every
   * resource at zero; Apache's attempt reports its headroom provider's figure instead, whose
   * memory is floored and whose other resources are not (where the calculator ignores
   * vcores the cluster's free vcores go below zero, and an AM is told so).
   */
  @Override
  public void setHeadroom(Resource headroom) {
    super.setHeadroom(headroom);
    coreHeadroom = Resources.clone(headroom);
  }

  /** The headroom as Apache's attempt reports it: memory floored at zero, nothing else. */
  @Override
  public Resource getHeadroom() {
    Resource headroom = Resources.clone(coreHeadroom);
    if (headroom.getMemorySize() < 0) {
      headroom.setMemorySize(0);
    }
    return headroom;
  }

  /**
   * A container killed before its AM pulled it (its node restarted, say): the RM puts the
   * asks it satisfied back into the attempt's request table, and the core gets the
   * outstanding counts at those places, so that it places the container again without the
   * AM asking.
   */
  @Override
  public void recoverResourceRequestsForContainer(ContainerRequest request) {
    writeLock.lock();
    try {
      super.recoverResourceRequestsForContainer(request);
      if (isStopped) {
        return;
      }
      List<ResourceRequest> outstanding = new ArrayList<>();
      for (ResourceRequest asked : request.getResourceRequests()) {
        ResourceRequest now = ResourceRequest.clone(asked);
        now.setNumContainers(getOutstandingAsksCount(SchedulerRequestKey.create(asked),
            asked.getResourceName()));
        outstanding.add(now);
      }
      restoredAsks.accept(outstanding);
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * A number for a container the RM makes itself, taken from the core's count so that no
   * container the core allocates later shares it (the RM's own counter, in its request
   * table, is not the one that numbers this scheduler's containers).
   */
  @Override
  public long getNewContainerId() {
    return containerNumbers.getAsLong();
  }

  /**
   * The attempt's usage as {@code yarn application -status}, the REST app view and the
   * RM's app metrics read it: Apache's report (containers, used and reserved resources,
   * resource-seconds of the running containers, share of the cluster) with the share of
   * the queue taken against the queue's guarantee, as Apache's CapacityScheduler reports
   * it. FiCaSchedulerApp's own version reaches that guarantee through a cast to Apache's
   * queue class, which the RM would meet here as a ClassCastException.
   */
  @Override
  public ApplicationResourceUsageReport getResourceUsageReport() {
    writeLock.lock();
    try {
      Resource used = Resources.clone(attemptResourceUsage.getAllUsed());
      Resource reserved = Resources.clone(attemptResourceUsage.getAllReserved());
      Resource cluster = rmContext.getScheduler().getClusterResource();
      ResourceCalculator calc = rmContext.getScheduler().getResourceCalculator();
      float queueShare = 0;
      float clusterShare = 0;
      if (!calc.isAllInvalidDivisor(cluster)) {
        Resource guarantee = Resources.multiply(cluster,
            ((RustQueue) getQueue()).absoluteCapacity());
        if (!calc.isAllInvalidDivisor(guarantee)) {
          queueShare = calc.divide(cluster, used, guarantee) * 100;
        }
        clusterShare = calc.divide(cluster, used, cluster) * 100;
      }
      Map<String, Long> preempted = new HashMap<>();
      preempted.put(ResourceInformation.MEMORY_MB.getName(), 0L);
      preempted.put(ResourceInformation.VCORES.getName(), 0L);
      return ApplicationResourceUsageReport.newInstance(liveContainers.size(),
          reservedContainers.size(), used, reserved, Resources.add(used, reserved),
          runningResourceSeconds(), queueShare, clusterShare, preempted);
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * What the core told this attempt about its activation while it waits for its AM
   * container ({@link Wire.AmDiagnosis} codes): the RM shows it as the application's
   * diagnostics, as Apache's leaf queue has it told. The details come from {@code view},
   * the core's queues of that moment.
   */
  void diagnoseAm(int code, QueueView view) {
    diagnosisView = view;
    try {
      diagnose(code);
    } finally {
      diagnosisView = null;
    }
  }

  private void diagnose(int code) {
    switch (code) {
    case Wire.AmDiagnosis.ACTIVATED:
      updateAMContainerDiagnostics(AMState.ACTIVATED, null);
      break;
    case Wire.AmDiagnosis.QUEUE_AM_LIMIT:
      updateAMContainerDiagnostics(AMState.INACTIVATED,
          CSAMContainerLaunchDiagnosticsConstants.QUEUE_AM_RESOURCE_LIMIT_EXCEED);
      break;
    case Wire.AmDiagnosis.USER_AM_LIMIT:
      updateAMContainerDiagnostics(AMState.INACTIVATED,
          CSAMContainerLaunchDiagnosticsConstants.USER_AM_RESOURCE_LIMIT_EXCEED);
      break;
    case Wire.AmDiagnosis.CLUSTER_EMPTY:
      updateAMContainerDiagnostics(AMState.INACTIVATED,
          CSAMContainerLaunchDiagnosticsConstants.CLUSTER_RESOURCE_EMPTY);
      break;
    default:
      LOG.warn("Unknown AM diagnosis code {} for {}", code, getApplicationAttemptId());
    }
  }

  /**
   * The details an AM's diagnostics give while it waits to be activated, in Apache's words,
   * from the core's report of the leaf (FiCaSchedulerApp's own reach into Apache's queue
   * class).
   */
  @Override
  protected void getPendingAppDiagnosticMessage(StringBuilder diagnostics) {
    QueueView view = diagnosisView != null ? diagnosisView : ((RustQueue) getQueue()).view();
    String path = ((RustQueue) getQueue()).getPath();
    QueueSnapshot leaf = view.queue(path);
    diagnostics.append(" Details : AM Partition = ").append(amPartition())
        .append("; AM Resource Request = ").append(getAMResource(getAppAMNodePartitionName()))
        .append("; Queue Resource Limit for AM = ").append(leaf.getAmResourceLimit())
        .append("; User AM Resource Limit of the queue = ")
        .append(view.userAmLimit(path, getUser()))
        .append("; Queue AM Resource Usage = ").append(leaf.getAmResourceUsed())
        .append("; ");
  }

  /** The details once activated, likewise. */
  @Override
  protected void getActivedAppDiagnosticMessage(StringBuilder diagnostics) {
    QueueView view = diagnosisView != null ? diagnosisView : ((RustQueue) getQueue()).view();
    QueueSnapshot leaf = view.queue(((RustQueue) getQueue()).getPath());
    // Apache's capacities are floats: shown as a float times 100.
    diagnostics.append(" Details : AM Partition = ").append(amPartition())
        .append(" ; Partition Resource = ").append(rmContext.getNodeLabelManager()
            .getResourceByLabel(getAppAMNodePartitionName(), Resources.none()))
        .append(" ; Queue's Absolute capacity = ")
        .append((float) leaf.getAbsoluteCapacity() * 100)
        .append(" % ; Queue's Absolute used capacity = ")
        .append((float) leaf.getAbsoluteUsedCapacity() * 100)
        .append(" % ; Queue's Absolute max capacity = ")
        .append((float) leaf.getAbsoluteMaximumCapacity() * 100)
        .append(" % ; Queue's capacity (absolute resource) = ")
        .append(leaf.getEffectiveMinResource())
        .append(" ; Queue's used capacity (absolute resource) = ")
        .append(Resource.newInstance(leaf.getUsedMemoryMb(), (int) leaf.getUsedVcores()))
        .append(" ; Queue's max capacity (absolute resource) = ")
        .append(leaf.getEffectiveMaxResource())
        .append(" ; ");
  }

  private String amPartition() {
    String partition = getAppAMNodePartitionName();
    return partition == null || partition.isEmpty()
        ? NodeLabel.DEFAULT_NODE_LABEL_PARTITION : partition;
  }

  /**
   * Per resource, what the live containers have held so far times how long, in seconds:
   * summed afresh at most every {@link #RESOURCE_SECONDS_CACHE_MS}, as Apache's attempt
   * sums them (its private {@code getRunningAggregateAppResourceUsage}, with the time of the
   * last sum in the field it inherits to this class). Every application report asks for it
   * twice, and a client listing applications asks for every running one, each walk over all
   * the attempt's live containers; between sums the reports carry the last one, up to three
   * seconds old, as Apache's do. A container that ends has the next report sum afresh (the
   * base class's {@code containerCompleted}, which ours calls, clears the time, so that the
   * ended container's seconds are counted once, with the attempt's finished ones). Called
   * under the attempt's lock.
   */
  private Map<String, Long> runningResourceSeconds() {
    long now = System.currentTimeMillis();
    if (now - lastMemoryAggregateAllocationUpdateTime > RESOURCE_SECONDS_CACHE_MS) {
      Map<String, Long> seconds = new HashMap<>();
      // Summed by the resource's index (every container's resources list the cluster's
      // types in one order), each container's seconds rounded down on their own as Apache
      // rounds them; a container listing other types is summed by name.
      ResourceInformation[] types = null;
      long[] sums = null;
      for (RMContainer c : liveContainers.values()) {
        long heldMillis = now - c.getCreationTime();
        ResourceInformation[] held = c.getContainer().getResource().getResources();
        if (types == null) {
          types = held;
          sums = new long[held.length];
        }
        if (held.length == sums.length) {
          for (int i = 0; i < held.length; i++) {
            sums[i] += held[i].getValue() * heldMillis / 1000;
          }
        } else {
          for (ResourceInformation r : held) {
            seconds.merge(r.getName(), r.getValue() * heldMillis / 1000, Long::sum);
          }
        }
      }
      for (int i = 0; types != null && i < types.length; i++) {
        seconds.merge(types[i].getName(), sums[i], Long::sum);
      }
      lastMemoryAggregateAllocationUpdateTime = now;
      lastResourceSeconds = seconds;
    }
    // A copy: the report writes into the map it is given (its memory and vcore seconds).
    return new HashMap<>(lastResourceSeconds);
  }

  /**
   * Answers every container update request of this allocate() call with an error: the
   * core does not resize, promote or demote containers.
   */
  void rejectContainerUpdates(ContainerUpdates updates) {
    if (updates == null) {
      return;
    }
    List<List<UpdateContainerRequest>> all = Arrays.asList(updates.getIncreaseRequests(),
        updates.getDecreaseRequests(), updates.getPromotionRequests(),
        updates.getDemotionRequests());
    for (List<UpdateContainerRequest> requests : all) {
      for (UpdateContainerRequest r : requests) {
        addToUpdateContainerErrors(UpdateContainerError.newInstance(UPDATES_NOT_SUPPORTED, r));
      }
    }
  }

  /**
   * Applies an AM's asks to the RM's request bookkeeping and then, under the same lock, to
   * the core, so that {@link #materialize} never sees the two disagree.
   */
  void updateRequests(List<ResourceRequest> asks, Runnable toCore) {
    writeLock.lock();
    try {
      if (!asks.isEmpty()) {
        updateResourceRequests(asks);
      }
      toCore.run();
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * The RM's own key for an ask's priority and request id, as the attempt's request table
   * holds it, so that a container shares its Priority with the ask as Apache's allocator
   * arranges; a new key if the ask has gone (materialize then refuses the container).
   */
  SchedulerRequestKey requestKey(int priority, long requestId) {
    for (SchedulerRequestKey key : appSchedulingInfo.getSchedulerKeys()) {
      if (key.getPriority().getPriority() == priority
          && key.getAllocationRequestId() == requestId && key.getContainerToUpdate() == null) {
        return key;
      }
    }
    return new SchedulerRequestKey(Priority.newInstance(priority), requestId, null);
  }

  /**
   * How local the asks for {@code schedulerKey} wanted a container on {@code node} to be:
   * node-local if one named the node, rack-local if one named its rack, else off-switch —
   * the request locality Apache's allocator records beside where the container went.
   */
  private NodeType requestedLocality(SchedulerRequestKey schedulerKey, RustSchedulerNode node) {
    if (getPendingAsk(schedulerKey, node.getNodeName()).getCount() > 0) {
      return NodeType.NODE_LOCAL;
    }
    if (getPendingAsk(schedulerKey, node.getRackName()).getCount() > 0) {
      return NodeType.RACK_LOCAL;
    }
    return NodeType.OFF_SWITCH;
  }

  /**
   * A node running {@code rmContainer} moved from partition {@code from} to {@code to}: what
   * the attempt holds (and, for its ApplicationMaster's container, its AM and the AM's
   * partition) moves with it, as Apache's attempt does. The queues' side is the core's.
   */
  @Override
  public void nodePartitionUpdated(RMContainer rmContainer, String from, String to) {
    Resource size = rmContainer.getAllocatedResource();
    attemptResourceUsage.decUsed(from, size);
    attemptResourceUsage.incUsed(to, size);
    if (rmContainer.isAMContainer()) {
      setAppAMNodePartitionName(to);
      attemptResourceUsage.decAMUsed(from, size);
      attemptResourceUsage.incAMUsed(to, size);
    }
  }

  /**
   * Records the reservation of {@code node} the core made for {@code schedulerKey}, the
   * reserved {@code container} not yet an RMContainer: on the attempt (its reservations,
   * its reserved usage), the node, and the queue's metrics, as Apache's attempt books a
   * first reservation (FiCaSchedulerApp's own method takes Apache's node class).
   */
  void reserve(SchedulerRequestKey schedulerKey, RustSchedulerNode node, Container container) {
    queue.getMetrics().reserveResource(node.getPartition(), getUser(),
        container.getResource());
    RMContainer reserved = super.reserve(node, schedulerKey, null, container);
    node.reserveResource(this, schedulerKey, reserved);
  }

  /**
   * Ends the attempt's reservation of {@code node} for {@code schedulerKey}, held as
   * {@code reserved}: off the attempt, the node, the queue's metrics and the queue's
   * reserved usage, as Apache's attempt ends one (writing the same line under its logger).
   * False if the attempt held no such reservation.
   */
  boolean unreserve(SchedulerRequestKey schedulerKey, RustSchedulerNode node,
      RMContainer reserved) {
    writeLock.lock();
    try {
      Map<NodeId, RMContainer> onNodes = reservedContainers.get(schedulerKey);
      RMContainer held = onNodes == null ? null : onNodes.remove(node.getNodeID());
      if (held == null || held.getContainer() == null
          || held.getContainer().getResource() == null) {
        return false;
      }
      if (onNodes.isEmpty()) {
        reservedContainers.remove(schedulerKey);
      }
      resetReReservations(schedulerKey);
      attemptResourceUsage.decReserved(node.getPartition(), held.getReservedResource());
      if (APP_LOG.isInfoEnabled()) {
        APP_LOG.info("Application " + getApplicationId() + " unreserved  on node " + node
            + ", currently has " + onNodes.size() + " at priority "
            + schedulerKey.getPriority() + "; currentReservation "
            + attemptResourceUsage.getReserved(node.getPartition()) + " on node-label="
            + node.getPartition());
      }
      node.unreserveResource(this);
      queue.getMetrics().unreserveResource(node.getPartition(), getUser(),
          reserved.getReservedResource());
      queue.decReservedResource(node.getPartition(), reserved.getReservedResource());
      return true;
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * Moves {@code reserved} from node {@code from} to node {@code to} (a preemption round's
   * {@code allow-move-reservation}), as Apache's attempt moves one: on both nodes, in the
   * attempt's reservations, and on the RMContainer. False, with nothing changed, if the
   * nodes are in different partitions, the attempt does not hold the reservation on
   * {@code from}, or {@code to} refuses it.
   */
  boolean moveReservation(RMContainer reserved, RustSchedulerNode from, RustSchedulerNode to) {
    writeLock.lock();
    try {
      if (!from.getPartition().equals(to.getPartition())) {
        APP_LOG.debug("Failed to move reservation, two nodes are in different partition");
        return false;
      }
      SchedulerRequestKey schedulerKey = reserved.getReservedSchedulerKey();
      Map<NodeId, RMContainer> onNodes = reservedContainers.get(schedulerKey);
      if (onNodes == null) {
        APP_LOG.debug("Cannot find reserved container map.");
        return false;
      }
      if (from.getReservedContainer() != reserved) {
        APP_LOG.debug("To-be-moved container already updated.");
        return false;
      }
      synchronized (to) {
        try {
          to.reserveResource(this, schedulerKey, reserved);
        } catch (IllegalStateException e) {
          APP_LOG.debug("Reserve on target node failed", e);
          return false;
        }
        from.setReservedContainer(null);
        onNodes.remove(from.getNodeID());
        reserved.handle(new RMContainerReservedEvent(reserved.getContainerId(),
            reserved.getReservedResource(), to.getNodeID(), schedulerKey));
        onNodes.put(to.getNodeID(), reserved);
        return true;
      }
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * Records a container the core allocated, on the attempt and on its node. Returns null if
   * the attempt stopped in the meantime; the caller then gives the container back to the
   * core.
   */
  RMContainer materialize(NodeType type, RustSchedulerNode node, SchedulerRequestKey schedulerKey,
      Container container) {
    writeLock.lock();
    try {
      // The AM may have withdrawn the ask between the core's decision and now.
      if (isStopped || getOutstandingAsksCount(schedulerKey) <= 0) {
        return null;
      }
      // The container carries the partition its request asked for, which differs from its
      // node's when a non-exclusive node lent its room (the queue's pending resources go
      // down in the requested partition, its usage up in the node's).
      AppPlacementAllocator<SchedulerNode> placement =
          appSchedulingInfo.getAppPlacementAllocator(schedulerKey);
      String requestedPartition = placement == null ? node.getPartition()
          : placement.getPrimaryRequestedNodePartition();
      RMContainerImpl rmContainer = new RMContainerImpl(container, schedulerKey,
          getApplicationAttemptId(), node.getNodeID(), appSchedulingInfo.getUser(), rmContext,
          requestedPartition);
      rmContainer.setQueueName(getQueueName());
      // Keeps the RM's view of outstanding requests (web UI, QueueMetrics pending) in step.
      // Done first: should the RM's request table refuse the placement, nothing has been
      // recorded yet, and the RM carries on without this container.
      NodeType requested = requestedLocality(schedulerKey, node);
      ContainerRequest request;
      try {
        request = appSchedulingInfo.allocate(type, node, schedulerKey, rmContainer);
      } catch (RuntimeException e) {
        LOG.error("The RM's request table of " + getApplicationAttemptId() + " refused a "
            + type + " container for " + schedulerKey + " on " + node.getNodeID()
            + "; giving it back to the scheduler", e);
        return null;
      }
      updateAMContainerDiagnostics(AMState.ASSIGNED, null);
      addToNewlyAllocatedContainers(node, rmContainer);
      ContainerId containerId = container.getId();
      liveContainers.put(containerId, rmContainer);
      attemptResourceUsage.incUsed(node.getPartition(), container.getResource());
      rmContainer.setContainerRequest(request);
      rmContainer.handle(new RMContainerEvent(containerId, RMContainerEventType.START));
      // On its node under the attempt's lock too, as Apache's attempt applies a placement:
      // its AM, which may release it as soon as it can pull it, finds it there.
      node.allocateContainer(rmContainer);
      // The attempt's locality statistics (yarn application -status, the app's REST view).
      incNumAllocatedContainers(type, requested);
      RMAuditLogger.logSuccess(getUser(), RMAuditLogger.AuditConstants.ALLOC_CONTAINER,
          "SchedulerApp", getApplicationId(), containerId, container.getResource(),
          getQueueName(), null);
      return rmContainer;
    } finally {
      writeLock.unlock();
    }
  }
}
