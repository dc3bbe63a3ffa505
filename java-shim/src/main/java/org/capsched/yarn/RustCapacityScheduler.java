package org.capsched.yarn;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import org.apache.hadoop.conf.Configurable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueUserACLInfo;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.SchedulingRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.nodelabels.RMNodeLabelsManager;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.RMStateStore.RMState;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.records.ApplicationStateData;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.thirdparty.com.google.common.util.concurrent.SettableFuture;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerState;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerUtils;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ContainerExpiredSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ContainerPreemptEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeResourceUpdateSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeUpdateSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ReleaseContainerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;
import org.apache.hadoop.yarn.server.utils.BuilderUtils;
import org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator;
import org.apache.hadoop.yarn.util.resource.DominantResourceCalculator;
import org.apache.hadoop.yarn.util.resource.ResourceCalculator;
import org.apache.hadoop.yarn.util.resource.Resources;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Capacity Scheduler whose state and decisions live in Rust. Set it as
 * {@code yarn.resourcemanager.scheduler.class}; it reads the existing
 * {@code capacity-scheduler.xml}.
 *
 * <p>This class is a translation table: each RM call or scheduler event becomes one call on
 * {@link NativeScheduler}, and what the core returns is applied to the RM's own objects
 * (applications, attempts, nodes, RMContainers, QueueMetrics). It makes no scheduling
 * decision of its own.
 */
public class RustCapacityScheduler
    extends AbstractYarnScheduler<RustAppAttempt, FiCaSchedulerNode> implements Configurable {

  private static final Logger LOG = LoggerFactory.getLogger(RustCapacityScheduler.class);

  /** The file Apache's CapacityScheduler reads, and so do we. */
  public static final String CONFIGURATION_FILE = YarnConfiguration.CS_CONFIGURATION_FILE;

  private Configuration conf;
  private boolean usePortForNodeName;
  private NativeScheduler core;
  private volatile ResourceCalculator calculator = new DefaultResourceCalculator();
  private volatile QueueDirectory queues = QueueDirectory.EMPTY;
  private QueueViews views;
  private final Map<Integer, RustApplication> appsByKey = new ConcurrentHashMap<>();
  private final Map<Integer, RustSchedulerNode> nodesByKey = new ConcurrentHashMap<>();

  private ReleaseBatch releases;
  private AllocationApplier applier;

  public RustCapacityScheduler() {
    super(RustCapacityScheduler.class.getName());
  }

  // ----- lifecycle ----------------------------------------------------------------------

  @Override
  public void setConf(Configuration conf) {
    this.conf = conf;
  }

  @Override
  public Configuration getConf() {
    return conf;
  }

  @Override
  public void setRMContext(RMContext rmContext) {
    this.rmContext = rmContext;
  }

  @Override
  public void serviceInit(Configuration configuration) throws Exception {
    this.conf = configuration;
    this.applications = new ConcurrentHashMap<>();
    this.usePortForNodeName = configuration.getBoolean(
        YarnConfiguration.RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME,
        YarnConfiguration.DEFAULT_RM_SCHEDULER_USE_PORT_FOR_NODE_NAME);
    this.minimumAllocation = super.getMinimumAllocation();
    initMaximumResourceCapability(super.getMaximumAllocation());
    Resource max = getMaximumResourceCapability();
    ConfigurationInputs in = ConfigurationInputs.read(rmContext, configuration);
    long[] clusterSettings = {
        minimumAllocation.getMemorySize(), minimumAllocation.getVirtualCores(),
        max.getMemorySize(), max.getVirtualCores(),
        YarnConfiguration.isAclEnabled(configuration) ? 1 : 0 };
    long epoch = rmContext == null ? 0 : rmContext.getEpoch();
    core = new NativeScheduler(in.xml, in.source, clusterSettings, epoch, in.capacityProperties,
        in.systemProperties);
    releases = new ReleaseBatch(core);
    applier = new AllocationApplier(appsByKey, nodesByKey, releases);
    views = new QueueViews(core, () -> queues);
    rebuildQueues(configuration);
    LOG.info("Rust capacity scheduler started with {} from {}", queues, in.source);
    super.serviceInit(configuration);
    schedulingMonitorManager.initialize(rmContext, configuration);
  }

  @Override
  public void serviceStop() throws Exception {
    super.serviceStop();
    if (core != null) {
      core.close();
    }
  }

  @Override
  public void reinitialize(Configuration newConf, RMContext context) throws IOException {
    ConfigurationInputs in = ConfigurationInputs.read(rmContext, newConf);
    String warnings;
    try {
      warnings = core.refresh(in.xml, in.source, in.capacityProperties, in.systemProperties);
    } catch (SchedulerConfigurationException e) {
      throw new IOException("Failed to re-init queues from " + in.source + ": "
          + e.getMessage(), e);
    }
    if (!warnings.isEmpty()) {
      LOG.warn("Queue refresh from {} succeeded with warnings:\n{}", in.source, warnings);
    }
    rebuildQueues(newConf);
    super.reinitialize(newConf, context);
    LOG.info("Queues refreshed from {}: {}", in.source, queues);
  }

  @Override
  public void recover(RMState state) {
    // Applications are recovered through APP_ADDED / APP_ATTEMPT_ADDED with the recovering
    // flag, containers through the reports NodeManagers send when they register again
    // (recoverContainersOnNode, which calls recoverContainer below).
  }

  /**
   * Work-preserving RM restart: a container a re-registering NodeManager reported is
   * charged in the core like an allocation. The RM's own objects (node, attempt, metrics)
   * are recovered by the base class; it calls this through the queue.
   */
  void recoverContainer(SchedulerApplicationAttempt attempt, RMContainer rmContainer) {
    if (rmContainer.getState() == RMContainerState.COMPLETED) {
      return;
    }
    RustApplication app = (RustApplication) applications.get(attempt.getApplicationId());
    RustSchedulerNode node = (RustSchedulerNode) nodeTracker.getNode(
        rmContainer.getAllocatedNode());
    Container c = rmContainer.getContainer();
    SchedulerRequestKey key = rmContainer.getAllocatedSchedulerKey();
    boolean taken = app != null && node != null && core.recoverContainer(app.key(),
        c.getId().getContainerId(), node.key(), c.getResource().getMemorySize(),
        c.getResource().getVirtualCores(), key.getPriority().getPriority(),
        key.getAllocationRequestId());
    if (taken) {
      LOG.info("Recovered container {} of {} on {}", c.getId(), c.getResource(), c.getNodeId());
    } else {
      LOG.warn("Container {} reported by {} was not recovered: its application or node is "
          + "unknown, or it is known already", c.getId(), c.getNodeId());
    }
  }

  // ----- events -------------------------------------------------------------------------

  /**
   * One scheduler event, under the write lock and inside one release batch: the containers
   * it finishes (an attempt's or a lost node's, say) reach the core in one crossing, ahead
   * of any later core call that must see them.
   */
  @Override
  public void handle(SchedulerEvent event) {
    inBatch(() -> dispatch(event));
  }

  /**
   * Runs {@code work} under the write lock with a release batch open: the containers it
   * finishes reach the core in one crossing when it ends, unless a core call it makes
   * takes or flushes them sooner.
   */
  private void inBatch(Runnable work) {
    writeLock.lock();
    try {
      releases.open();
      try {
        work.run();
      } finally {
        releases.close();
      }
    } finally {
      writeLock.unlock();
    }
  }

  private void dispatch(SchedulerEvent event) {
    switch (event.getType()) {
    case NODE_ADDED: {
      NodeAddedSchedulerEvent e = (NodeAddedSchedulerEvent) event;
      addNode(e.getAddedRMNode());
      recoverContainersOnNode(e.getContainerReports(), e.getAddedRMNode());
      break;
    }
    case NODE_REMOVED:
      removeNode(((NodeRemovedSchedulerEvent) event).getRemovedRMNode());
      break;
    case NODE_RESOURCE_UPDATE: {
      NodeResourceUpdateSchedulerEvent e = (NodeResourceUpdateSchedulerEvent) event;
      updateNodeResource(e.getRMNode(), e.getResourceOption());
      break;
    }
    case NODE_UPDATE:
      nodeUpdate(((NodeUpdateSchedulerEvent) event).getRMNode());
      break;
    case APP_ADDED: {
      AppAddedSchedulerEvent e = (AppAddedSchedulerEvent) event;
      addApplication(e.getApplicationId(), e.getQueue(), e.getUser(),
          e.getApplicatonPriority(), e.getIsAppRecovering(), e.isUnmanagedAM());
      break;
    }
    case APP_REMOVED: {
      AppRemovedSchedulerEvent e = (AppRemovedSchedulerEvent) event;
      removeApplication(e.getApplicationID(), e.getFinalState());
      break;
    }
    case APP_ATTEMPT_ADDED: {
      AppAttemptAddedSchedulerEvent e = (AppAttemptAddedSchedulerEvent) event;
      addApplicationAttempt(e.getApplicationAttemptId(),
          e.getTransferStateFromPreviousAttempt(), e.getIsAttemptRecovering());
      break;
    }
    case APP_ATTEMPT_REMOVED: {
      AppAttemptRemovedSchedulerEvent e = (AppAttemptRemovedSchedulerEvent) event;
      removeApplicationAttempt(e.getApplicationAttemptID(), e.getFinalAttemptState(),
          e.getKeepContainersAcrossAppAttempts());
      break;
    }
    case CONTAINER_EXPIRED: {
      ContainerId id = ((ContainerExpiredSchedulerEvent) event).getContainerId();
      completedContainer(getRMContainer(id),
          SchedulerUtils.createAbnormalContainerStatus(id, SchedulerUtils.EXPIRED_CONTAINER),
          RMContainerEventType.EXPIRE);
      break;
    }
    case RELEASE_CONTAINER: {
      RMContainer container = ((ReleaseContainerEvent) event).getContainer();
      completedContainer(container, SchedulerUtils.createAbnormalContainerStatus(
          container.getContainerId(), SchedulerUtils.RELEASED_CONTAINER),
          RMContainerEventType.RELEASED);
      break;
    }
    case MARK_CONTAINER_FOR_PREEMPTION: {
      RMContainer container = ((ContainerPreemptEvent) event).getContainer();
      RustAppAttempt attempt = getCurrentAttemptForContainer(container.getContainerId());
      if (attempt != null) {
        attempt.markContainerForPreemption(container.getContainerId());
      }
      break;
    }
    case MARK_CONTAINER_FOR_KILLABLE: {
      RMContainer container = ((ContainerPreemptEvent) event).getContainer();
      completedContainer(container, SchedulerUtils.createPreemptedContainerStatus(
          container.getContainerId(), SchedulerUtils.PREEMPTED_CONTAINER),
          RMContainerEventType.KILL);
      break;
    }
    case KILL_RESERVED_CONTAINER: {
      RMContainer container = ((ContainerPreemptEvent) event).getContainer();
      completedContainer(container, SchedulerUtils.createAbnormalContainerStatus(
          container.getContainerId(), "Reservation killed by the ResourceManager"),
          RMContainerEventType.KILL);
      break;
    }
    default:
      // MARK_CONTAINER_FOR_NONKILLABLE concerns preemption, which this scheduler does not
      // do yet; queue-management events concern auto-created queues, which it does not
      // support.
      LOG.warn("Ignoring scheduler event {}", event.getType());
    }
  }

  private void addNode(RMNode rmNode) {
    Resource total = rmNode.getTotalCapability();
    String nodeName = usePortForNodeName ? rmNode.getNodeID().toString() : rmNode.getHostName();
    int key = core.addNode(rmNode.getNodeID().toString(), nodeName, rmNode.getRackName(),
        total.getMemorySize(), total.getVirtualCores());
    RustSchedulerNode node = new RustSchedulerNode(rmNode, usePortForNodeName, key);
    nodeTracker.addNode(node);
    nodesByKey.put(key, node);
    updateAvailableResourcesMetrics();
    LOG.info("Added node {} ({}) with {}; cluster resource {}", rmNode.getNodeAddress(),
        rmNode.getRackName(), total, getClusterResource());
  }

  private void removeNode(RMNode rmNode) {
    RustSchedulerNode node = (RustSchedulerNode) nodeTracker.getNode(rmNode.getNodeID());
    if (node == null) {
      return;
    }
    for (RMContainer container : node.getCopiedListOfRunningContainers()) {
      completedContainer(container, SchedulerUtils.createAbnormalContainerStatus(
          container.getContainerId(), SchedulerUtils.LOST_CONTAINER), RMContainerEventType.KILL);
    }
    RMContainer reserved = node.getReservedContainer();
    if (reserved != null) {
      completedContainer(reserved, SchedulerUtils.createAbnormalContainerStatus(
          reserved.getContainerId(), SchedulerUtils.LOST_CONTAINER), RMContainerEventType.KILL);
    }
    releases.flush();
    nodeTracker.removeNode(rmNode.getNodeID());
    nodesByKey.remove(node.key());
    long[] leftover = core.removeNode(node.key());
    if (leftover.length > 0) {
      LOG.warn("Node {} still held {} containers the RM did not know; they were released",
          rmNode.getNodeAddress(), leftover.length / 2);
    }
    updateAvailableResourcesMetrics();
  }

  @Override
  public void updateNodeResource(RMNode nm,
      org.apache.hadoop.yarn.api.records.ResourceOption resourceOption) {
    writeLock.lock();
    try {
      super.updateNodeResource(nm, resourceOption);
      RustSchedulerNode node = (RustSchedulerNode) nodeTracker.getNode(nm.getNodeID());
      if (node != null) {
        Resource total = node.getTotalResource();
        core.updateNodeResource(node.key(), total.getMemorySize(), total.getVirtualCores());
      }
      updateAvailableResourcesMetrics();
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * One heartbeat: the base class processes launched and completed containers (into the
   * release batch), then one native call reclaims them and returns every allocation for the
   * node, which the applier applies; decisions it cannot apply go back with the batch.
   */
  @Override
  protected void nodeUpdate(RMNode nm) {
    inBatch(() -> heartbeat(nm));
  }

  private void heartbeat(RMNode nm) {
    super.nodeUpdate(nm);
    RustSchedulerNode node = (RustSchedulerNode) nodeTracker.getNode(nm.getNodeID());
    boolean ready = !rmContext.isWorkPreservingRecoveryEnabled()
        || rmContext.isSchedulerReadyForAllocatingContainers();
    if (node == null || !ready) {
      // Closing the batch gives the finished containers back.
      return;
    }
    long[] finished = releases.take();
    long[] allocations = core.nodeUpdate(node.key(), finished);
    if (allocations.length > 0 || finished.length > 0) {
      applier.apply(node, allocations);
      updateAvailableResourcesMetrics();
    }
  }

  private void addApplication(ApplicationId id, String queueName, String user,
      Priority priority, boolean recovering, boolean unmanagedAM) {
    String[] groups = groupsOf(user);
    Resource am = amResource(id, unmanagedAM);
    if (priority == null) {
      priority = Priority.newInstance(0);
    }
    String[] out = new String[1];
    int key = core.submit(id.getClusterTimestamp(), id.getId(), queueName, user, groups,
        priority.getPriority(), recovering, am.getMemorySize(),
        am.getVirtualCores(), out);
    if (key < 0) {
      LOG.info("Rejected {}: {}", id, out[0]);
      rmContext.getDispatcher().getEventHandler()
          .handle(new RMAppEvent(id, RMAppEventType.APP_REJECTED, out[0]));
      return;
    }
    RustQueue queue = queues.byPath(out[0]);
    RustApplication app = new RustApplication(id, key, queue, user, priority, unmanagedAM);
    applications.put(id, app);
    appsByKey.put(key, app);
    queue.getMetrics().submitApp(user, unmanagedAM);
    LOG.info("Accepted application {} from user {} in queue {}", id, user, queue.getPath());
    if (!recovering) {
      rmContext.getDispatcher().getEventHandler()
          .handle(new RMAppEvent(id, RMAppEventType.APP_ACCEPTED));
    }
  }

  /** The ApplicationMaster's size as submitted (none for an unmanaged AM). */
  private Resource amResource(ApplicationId id, boolean unmanagedAM) {
    if (unmanagedAM || rmContext == null) {
      return Resources.none();
    }
    org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp app = rmContext.getRMApps().get(id);
    if (app == null || app.getAMResourceRequests() == null
        || app.getAMResourceRequests().isEmpty()) {
      return getMinimumResourceCapability();
    }
    return app.getAMResourceRequests().get(0).getCapability();
  }

  private void addApplicationAttempt(ApplicationAttemptId attemptId, boolean transferState,
      boolean recovering) {
    RustApplication app = (RustApplication) applications.get(attemptId.getApplicationId());
    if (app == null) {
      LOG.warn("Attempt {} added for unknown application", attemptId);
      return;
    }
    RustQueue queue = (RustQueue) app.getQueue();
    RustAppAttempt attempt = new RustAppAttempt(attemptId, app.getUser(), queue, rmContext,
        app.getPriority(), recovering);
    if (transferState) {
      attempt.transferStateFromPreviousAttempt(app.getCurrentAppAttempt());
    }
    app.setCurrentAppAttempt(attempt);
    core.addAttempt(app.key(), attemptId.getAttemptId());
    queue.getMetrics().submitAppAttempt(app.getUser(), app.isUnmanagedAM());
    if (!recovering) {
      rmContext.getDispatcher().getEventHandler()
          .handle(new RMAppAttemptEvent(attemptId, RMAppAttemptEventType.ATTEMPT_ADDED));
    }
  }

  private void removeApplicationAttempt(ApplicationAttemptId attemptId,
      RMAppAttemptState finalState, boolean keepContainers) {
    RustAppAttempt attempt = getApplicationAttempt(attemptId);
    RustApplication app = (RustApplication) applications.get(attemptId.getApplicationId());
    if (app == null || attempt == null) {
      LOG.warn("Unknown application attempt {} has completed", attemptId);
      return;
    }
    // Live containers first, then reservations, each in the attempt's map order, as Apache
    // kills them: the users' usage ratios are charged back in that order.
    for (RMContainer container : attempt.getLiveContainers()) {
      if (keepContainers && container.getState().equals(RMContainerState.RUNNING)) {
        continue;
      }
      completedContainer(container, SchedulerUtils.createAbnormalContainerStatus(
          container.getContainerId(), SchedulerUtils.COMPLETED_APPLICATION),
          RMContainerEventType.KILL);
    }
    for (RMContainer reserved : attempt.getReservedContainers()) {
      completedContainer(reserved, SchedulerUtils.createAbnormalContainerStatus(
          reserved.getContainerId(), "Application attempt ended"), RMContainerEventType.KILL);
    }
    releases.flush();
    core.removeAttempt(app.key());
    attempt.stop(finalState);
  }

  private void removeApplication(ApplicationId id, RMAppState finalState) {
    RustApplication app = (RustApplication) applications.remove(id);
    if (app == null) {
      LOG.warn("Unknown application {} removed", id);
      return;
    }
    appsByKey.remove(app.key());
    ((RustQueue) app.getQueue()).getAbstractUsersManager()
        .deactivateApplication(app.getUser(), id);
    app.stop(finalState);
    long[] leftover = core.removeApp(app.key());
    if (leftover.length > 0) {
      LOG.warn("Application {} still held {} containers at removal; they were released", id,
          leftover.length / 2);
    }
  }

  @Override
  protected void completedContainerInternal(RMContainer rmContainer,
      ContainerStatus containerStatus, RMContainerEventType event) {
    writeLock.lock();
    try {
      Container container = rmContainer.getContainer();
      ContainerId id = container.getId();
      applier.finish(rmContainer, containerStatus, event, getCurrentAttemptForContainer(id),
          getSchedulerNode(container.getNodeId()));
      RustApplication app = (RustApplication) applications.get(
          id.getApplicationAttemptId().getApplicationId());
      if (app != null) {
        releases.add(app.key(), id.getContainerId());
      }
      LOG.debug("Container {} finished ({})", id, event);
    } finally {
      writeLock.unlock();
    }
  }

  @Override
  public void killContainer(RMContainer container) {
    completedContainer(container, SchedulerUtils.createKilledContainerStatus(
        container.getContainerId(), "Killed by the ResourceManager"), RMContainerEventType.KILL);
  }

  // ----- the ApplicationMaster protocol -------------------------------------------------

  @Override
  public Allocation allocate(ApplicationAttemptId attemptId, List<ResourceRequest> ask,
      List<SchedulingRequest> schedulingRequests, List<ContainerId> release,
      List<String> blacklistAdditions, List<String> blacklistRemovals,
      ContainerUpdates updateRequests) {
    RustAppAttempt attempt = getApplicationAttempt(attemptId);
    RustApplication app = (RustApplication) applications.get(attemptId.getApplicationId());
    if (attempt == null || app == null
        || !attempt.getApplicationAttemptId().equals(attemptId)) {
      LOG.error("allocate() from unknown or previous attempt {}", attemptId);
      return EMPTY_ALLOCATION;
    }
    normalizeResourceRequests(ask);
    // One crossing for all the AM's releases, before the core sees its asks.
    inBatch(() -> releaseContainers(release, attempt));
    if (attempt.isStopped()) {
      return EMPTY_ALLOCATION;
    }
    attempt.rejectContainerUpdates(updateRequests);
    final long[][] headroom = new long[1][];
    final Asks asks = Asks.encode(ask);
    final String[] additions = names(blacklistAdditions);
    final String[] removals = names(blacklistRemovals);
    final boolean waitingForAm = attempt.isWaitingForAMContainer();
    attempt.updateRequests(ask, () -> headroom[0] = core.allocate(app.key(), asks.ints,
        asks.longs, asks.names, additions, removals, waitingForAm));
    attempt.updateBlacklist(blacklistAdditions, blacklistRemovals);
    Resource room = Resource.newInstance(headroom[0][0], (int) headroom[0][1]);
    attempt.setHeadroom(room);
    attempt.setApplicationHeadroomForMetrics(room);
    // SchedulingRequests never get here: the RM refuses them for a scheduler whose
    // placementConstraintEnabled() is false, and tells the AM why.
    return new Allocation(attempt.pullNewlyAllocatedContainers(), room, null, null, null,
        attempt.pullUpdatedNMTokens());
  }

  private static String[] names(List<String> list) {
    return list == null ? new String[0] : list.toArray(new String[0]);
  }

  /** Asks flattened for the JNI call. */
  private static final class Asks {
    final int[] ints;
    final long[] longs;
    final String[] names;

    private Asks(int n) {
      ints = new int[3 * n];
      longs = new long[3 * n];
      names = new String[n];
    }

    static Asks encode(List<ResourceRequest> requests) {
      Asks a = new Asks(requests.size());
      int i = 0;
      for (ResourceRequest r : requests) {
        a.ints[3 * i] = r.getPriority().getPriority();
        a.ints[3 * i + 1] = r.getNumContainers();
        a.ints[3 * i + 2] = r.getRelaxLocality() ? 1 : 0;
        a.longs[3 * i] = r.getAllocationRequestId();
        a.longs[3 * i + 1] = r.getCapability().getMemorySize();
        a.longs[3 * i + 2] = r.getCapability().getVirtualCores();
        a.names[i] = r.getResourceName();
        i++;
      }
      return a;
    }
  }

  // ----- moves and priorities ------------------------------------------------------------

  @Override
  public void preValidateMoveApplication(ApplicationId appId, String newQueue)
      throws YarnException {
    move(appId, newQueue, false);
  }

  /**
   * Moves an application (and everything it holds) to another leaf, if the core allows:
   * the RM's own attempt object then moves its metrics, pending asks and users-manager
   * entry the way it does for Apache's scheduler.
   */
  @Override
  public String moveApplication(ApplicationId appId, String newQueue) throws YarnException {
    return move(appId, newQueue, true);
  }

  private String move(ApplicationId appId, String target, boolean commit) throws YarnException {
    writeLock.lock();
    try {
      RustApplication app = (RustApplication) applications.get(appId);
      if (app == null) {
        throw new YarnException("App to be moved " + appId + " not found.");
      }
      String[] out = new String[1];
      switch (core.moveApplication(app.key(), target, commit, out)) {
      case NativeScheduler.MOVE_NO_SUCH_LEAF:
        throw new YarnException(out[0]);
      case NativeScheduler.MOVE_NOT_ADMITTED:
        // Apache's wording: the target queue's own refusal, as an access-control failure.
        throw new YarnException(new AccessControlException(out[0]));
      default:
        break;
      }
      RustQueue dest = queues.byPath(out[0]);
      if (commit && dest != app.getQueue()) {
        RustQueue source = (RustQueue) app.getQueue();
        RustAppAttempt attempt = app.getCurrentAppAttempt();
        if (attempt != null) {
          attempt.move(dest);
        } else {
          source.getMetrics().moveAppFrom(null, app.isUnmanagedAM());
          dest.getMetrics().moveAppTo(null, app.isUnmanagedAM());
        }
        app.setQueue(dest);
        LOG.info("Moved application {} from {} to {}", appId, source.getPath(), dest.getPath());
      }
      return out[0];
    } finally {
      writeLock.unlock();
    }
  }

  @Override
  public Priority checkAndGetApplicationPriority(Priority requested, UserGroupInformation user,
      String queuePath, ApplicationId applicationId) {
    int p = core.applicationPriority(queuePath == null ? "" : queuePath, requested != null,
        requested == null ? 0 : requested.getPriority(),
        getMaxClusterLevelAppPriority().getPriority());
    return Priority.newInstance(p);
  }

  /**
   * {@code yarn application -updatePriority}: the core re-orders the application in its
   * queue; the new priority is saved in the RM's state store, as Apache does, before the
   * RM reports success.
   */
  @Override
  public Priority updateApplicationPriority(Priority newPriority, ApplicationId applicationId,
      SettableFuture<Object> future, UserGroupInformation user) throws YarnException {
    writeLock.lock();
    try {
      RustApplication app = (RustApplication) applications.get(applicationId);
      if (app == null) {
        throw new YarnException("Application '" + applicationId
            + "' is not present, hence could not change priority.");
      }
      RMApp rmApp = rmContext.getRMApps().get(applicationId);
      Priority priority = checkAndGetApplicationPriority(newPriority, user, rmApp.getQueue(),
          applicationId);
      if (priority.equals(app.getPriority())) {
        future.set(null);
        return priority;
      }
      rmApp.getApplicationSubmissionContext().setPriority(priority);
      ApplicationStateData state = ApplicationStateData.newInstance(rmApp.getSubmitTime(),
          rmApp.getStartTime(), rmApp.getApplicationSubmissionContext(), rmApp.getUser(),
          rmApp.getRealUser(), rmApp.getCallerContext());
      state.setApplicationTimeouts(rmApp.getApplicationTimeouts());
      state.setLaunchTime(rmApp.getLaunchTime());
      rmContext.getStateStore().updateApplicationStateSynchronously(state, false, future);
      core.updatePriority(app.key(), priority.getPriority());
      app.setPriority(priority);
      LOG.info("Application {} now runs at priority {}", applicationId, priority.getPriority());
      return priority;
    } finally {
      writeLock.unlock();
    }
  }

  // ----- queues -------------------------------------------------------------------------

  /** Re-creates the queue directory from the core after a load or refresh. */
  private void rebuildQueues(Configuration configuration) {
    String[] strings = core.queueStrings();
    QueueDirectory old = queues;
    Map<String, RustQueue> byPath = new HashMap<>();
    List<RustQueue> inOrder = new ArrayList<>();
    boolean userMetrics = core.userMetricsEnabled();
    for (int i = 0; i < strings.length; i += NativeScheduler.QUEUE_STRINGS_STRIDE) {
      String path = strings[i];
      RustQueue queue = old.byPath(path);
      if (queue == null) {
        int dot = path.lastIndexOf('.');
        RustQueue parent = dot < 0 ? null : byPath.get(path.substring(0, dot));
        queue = new RustQueue(this, views, path, parent, userMetrics, configuration);
      }
      byPath.put(path, queue);
      inOrder.add(queue);
    }
    queues = new QueueDirectory(inOrder);
    String name = core.resourceCalculator();
    calculator = name.endsWith("DominantResourceCalculator")
        ? new DominantResourceCalculator() : new DefaultResourceCalculator();
  }

  @Override
  public QueueInfo getQueueInfo(String queueName, boolean includeChildQueues,
      boolean recursive) throws IOException {
    return views.find(queueName, includeChildQueues, recursive);
  }

  /** Every queue as the core sees it now, root first, each parent before its children. */
  public List<QueueSnapshot> getQueueSnapshots() {
    return views.snapshots();
  }

  @Override
  public List<QueueUserACLInfo> getQueueUserAclInfo() {
    UserGroupInformation user;
    try {
      user = UserGroupInformation.getCurrentUser();
    } catch (IOException e) {
      LOG.warn("Cannot determine the current user for queue ACLs", e);
      return Collections.emptyList();
    }
    return views.userAclInfo(user);
  }

  /**
   * The RM's access check (kill, view, move, submit to a move's target) for a scheduler
   * that is not Apache's: unlike Apache's CapacityQueueACLsManager, the RM's generic one
   * asks even when yarn.acl.enable is false, so the core then grants everything, as
   * Apache does. An unknown queue grants nothing.
   */
  @Override
  public boolean checkAccess(UserGroupInformation callerUGI, QueueACL acl, String queueName) {
    return views.hasAccess(callerUGI, acl, queueName, true);
  }

  @Override
  public List<ApplicationAttemptId> getAppsInQueue(String queueName) {
    return views.appsInQueue(queueName, applications.values());
  }

  /** The RM-side queues as the core last loaded them, for tests. */
  QueueDirectory queues() {
    return queues;
  }

  /**
   * Runs {@code inspection} on the core under the write lock, so that the core and the RM's
   * objects are seen at one moment; for tests that compare the two.
   */
  <T> T inspect(Function<NativeScheduler, T> inspection) {
    writeLock.lock();
    try {
      return inspection.apply(core);
    } finally {
      writeLock.unlock();
    }
  }

  @Override
  public QueueMetrics getRootQueueMetrics() {
    return queues.root().getMetrics();
  }

  private void updateAvailableResourcesMetrics() {
    QueueMetrics root = getRootQueueMetrics();
    root.setAvailableResourcesToQueue(
        Resources.subtract(getClusterResource(), root.getAllocatedResources()));
  }

  // ----- small RM contract items --------------------------------------------------------

  @Override
  public ResourceCalculator getResourceCalculator() {
    return calculator;
  }

  @Override
  public int getNumClusterNodes() {
    return nodeTracker.nodeCount();
  }

  @Override
  public RMContainer getRMContainer(ContainerId containerId) {
    RustAppAttempt attempt = getCurrentAttemptForContainer(containerId);
    return attempt == null ? null : attempt.getRMContainer(containerId);
  }

  private String[] groupsOf(String user) {
    if (!YarnConfiguration.isAclEnabled(conf)) {
      return new String[0];
    }
    return UserGroupInformation.createRemoteUser(user).getGroupNames();
  }
}
