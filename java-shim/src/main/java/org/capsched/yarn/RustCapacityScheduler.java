package org.capsched.yarn;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import org.apache.hadoop.conf.Configurable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.Time;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.thirdparty.com.google.common.util.concurrent.SettableFuture;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeLabel;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueUserACLInfo;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceOption;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.SchedulingRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.RMFatalEvent;
import org.apache.hadoop.yarn.server.resourcemanager.RMFatalEventType;
import org.apache.hadoop.yarn.server.resourcemanager.nodelabels.RMNodeLabelsManager;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.RMStateStore.RMState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerState;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.MutableConfScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.MutableConfigurationProvider;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Queue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerUtils;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ContainerExpiredSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ContainerPreemptEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeLabelsUpdateSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeResourceUpdateSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeUpdateSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ReleaseContainerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEventType;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;
import org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator;
import org.apache.hadoop.yarn.util.resource.DominantResourceCalculator;
import org.apache.hadoop.yarn.util.resource.ResourceCalculator;
import org.apache.hadoop.yarn.util.resource.Resources;
import org.capsched.yarn.web.WebHooks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Capacity Scheduler whose state and decisions live in Rust. Set it as
 * {@code yarn.resourcemanager.scheduler.class}; it reads the existing
 * {@code capacity-scheduler.xml}.
 *
 * <p>This class is a translation table: each RM call or scheduler event becomes one call on
 * {@link NativeScheduler}, and what the core returns is handed to the class that applies it
 * to the RM's own objects: {@link AllocationApplier} (containers and reservations),
 * {@link ApplicationApplier} (applications and attempts), {@link NodeApplier} (nodes),
 * {@link QueueViews} (what clients
 * read about queues). Finished containers go back to the core through a
 * {@link ReleaseBatch}, and {@link ConfigurationSource} gathers what the core's
 * configuration is built from (capacity-scheduler.xml, or a mutable store). It makes no
 * scheduling decision of its own.
 */
public class RustCapacityScheduler
    extends AbstractYarnScheduler<RustAppAttempt, RustSchedulerNode>
    implements Configurable, MutableConfScheduler {

  private static final Logger LOG = LoggerFactory.getLogger(RustCapacityScheduler.class);

  /** Whether a recovered application whose queue is gone stops the RM from starting. */
  private static final String APPLICATION_FAIL_FAST = "yarn.scheduler.capacity.application.fail-fast";

  /** The file Apache's CapacityScheduler reads, and so do we. */
  public static final String CONFIGURATION_FILE = YarnConfiguration.CS_CONFIGURATION_FILE;

  private Configuration conf;
  private NativeScheduler core;
  private ConfigurationSource source;
  /** The configuration the core last accepted, as Hadoop's Configuration shows it. */
  private volatile Configuration accepted;
  /** See {@link #getDynamicQueueKeys}; replaced whenever the queue directory is. */
  private volatile String[] dynamicQueueKeys = new String[0];
  private volatile ResourceCalculator calculator = new DefaultResourceCalculator();
  private volatile QueueDirectory queues = QueueDirectory.EMPTY;
  /** The core's queue layout {@link #queues} was built for (-1: none yet). */
  private long queueLayout = -1;
  /** The core's version of the queues' labels last set on them and told to the RM. */
  private long queueLabelsVersion = -1;
  /** The queues' maximum allocations as last set, in {@link Wire.QueueMaximum} records. */
  private long[] queueMaximums = new long[0];
  /** See {@link #refreshHeldNanos()}. */
  private volatile long refreshHeldNanos;
  private final Map<Integer, RustApplication> appsByKey = new ConcurrentHashMap<>();
  private final Map<Integer, RustSchedulerNode> nodesByKey = new ConcurrentHashMap<>();

  private ReleaseBatch releases;
  private AllocationApplier allocations;
  private ApplicationApplier apps;
  private NodeApplier nodes;
  private AmHeartbeat am;
  private QueueViews views;
  /** Publishes the queues' metrics gauges from the core when a metrics record is read. */
  private QueueGauges gauges;
  /** What containers held when the root's AvailableMB was last set. */
  private volatile Resource publishedAllocated;
  /** Set once the RM has been handed over because the core is poisoned. */
  private final AtomicBoolean handedOver = new AtomicBoolean();

  /** A scheduler to be set up by the RM ({@link #serviceInit}). */
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

  /** Loads capacity-scheduler.xml into a new core and builds the RM-side queues from it. */
  @Override
  public void serviceInit(Configuration configuration) throws Exception {
    this.conf = configuration;
    this.applications = new ConcurrentHashMap<>();
    this.minimumAllocation = super.getMinimumAllocation();
    initMaximumResourceCapability(super.getMaximumAllocation());
    source = ConfigurationSource.open(rmContext, configuration);
    ConfigurationInputs in = source.read(configuration);
    long epoch = rmContext == null ? 0 : rmContext.getEpoch();
    core = new NativeScheduler(in.xml, in.source, clusterSettings(configuration), epoch,
        in.fileCapacityProperties, in.codeCapacityProperties, in.systemProperties);
    releases = new ReleaseBatch(core);
    allocations = new AllocationApplier(appsByKey, nodesByKey, releases, schedulerHealth,
        this::getLastNodeUpdateTime, this::killForRoom);
    apps = new ApplicationApplier(rmContext, core, applications, appsByKey);
    nodes = new NodeApplier(nodeTracker, nodesByKey, configuration.getBoolean(
        YarnConfiguration.RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME,
        YarnConfiguration.DEFAULT_RM_SCHEDULER_USE_PORT_FOR_NODE_NAME),
        labelManager(),
        (appKey, id) -> releases.add(appKey, id, Wire.ReleaseKind.NODE_FREED));
    views = new QueueViews(core, () -> queues, readLock);
    gauges = new QueueGauges(core, () -> queues, this::defaultPartitionResource,
        this::getClusterResource, () -> calculator, minimumAllocation);
    am = new AmHeartbeat(core, releases, this::releaseContainers);
    queueLayout = -1;
    queueLabelsVersion = -1;
    rebuildQueues(configuration);
    accepted = source.merged(in, configuration);
    if (rmContext != null && rmContext.getQueuePlacementManager() != null) {
      // The rule asks the core, which holds the rules of the configuration in force.
      rmContext.getQueuePlacementManager().updateRules(
          java.util.Collections.singletonList(new RustPlacementRule(core, configuration)));
    }
    LOG.info("Rust capacity scheduler started with {} from {}", queues, in.source);
    WebHooks.install(configuration);
    super.serviceInit(configuration);
    schedulingMonitorManager.initialize(rmContext,
        RustPreemptionPolicy.monitorsFor(configuration));
  }

  /**
   * Minimum and maximum allocation, whether ACLs are on and whether an ApplicationMaster may
   * be placed on a non-exclusive node lent to the default partition, as the core takes them.
   */
  private long[] clusterSettings(Configuration configuration) {
    // The configured maximum. (Asking the node tracker for the maximum allowed allocation
    // here, before it knows work-preserving-recovery.scheduling-wait-ms, would end its
    // wait for NodeManagers at once: asks would be held to the largest node registered so
    // far from the RM's first seconds, where Apache's scheduler allows the configured
    // maximum.)
    Resource max = super.getMaximumAllocation();
    return new long[] {minimumAllocation.getMemorySize(), minimumAllocation.getVirtualCores(),
        max.getMemorySize(), max.getVirtualCores(),
        YarnConfiguration.isAclEnabled(configuration) ? 1 : 0,
        configuration.getBoolean(YarnConfiguration.AM_ALLOW_NON_EXCLUSIVE_ALLOCATION, false)
            ? 1 : 0};
  }

  /** Stops the scheduler and frees the core. */
  @Override
  public void serviceStop() throws Exception {
    super.serviceStop();
    if (source != null) {
      source.close();
    }
    if (core != null) {
      core.close();
    }
  }

  /**
   * {@code yarn rmadmin -refreshQueues}: the core validates and swaps in the new
   * configuration, or refuses it whole (an IOException naming every problem). The file is
   * read and validated without any lock; the core's swap and the rebuild of the RM-side
   * queues happen together under the write lock, so no event or submission sees a core
   * tree and a queue directory from different configurations.
   */
  @Override
  public void reinitialize(Configuration newConf, RMContext context) throws IOException {
    ConfigurationInputs in = source.read(newConf);
    // What the configuration views show once the file is in force (Hadoop's parse of it
    // over the RM's configuration), worked out beside the core's reading: neither needs the
    // other, nor any lock.
    CompletableFuture<Configuration> merging = CompletableFuture.supplyAsync(() -> {
      try {
        return source.merged(in, newConf);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    String[] warnings;
    try {
      NativeScheduler.PreparedRefresh refresh;
      try {
        refresh = core.prepareRefresh(in.xml, in.source, in.fileCapacityProperties,
            in.codeCapacityProperties, in.systemProperties);
      } catch (SchedulerConfigurationException e) {
        // The file itself is refused; the core has loaded the configuration in force again.
        writeLock.lock();
        try {
          reloaded();
        } finally {
          writeLock.unlock();
        }
        throw refused(in, e);
      }
      try (NativeScheduler.PreparedRefresh prepared = refresh) {
        // Before the lock, which holds up every event.
        Configuration merged = merged(merging);
        writeLock.lock();
        long locked = System.nanoTime();
        try {
          try {
            warnings = prepared.commit();
          } catch (SchedulerConfigurationException e) {
            reloaded();
            throw refused(in, e);
          }
          rebuildQueues(newConf);
          accepted = merged;
          tellAmDiagnoses();
        } finally {
          refreshHeldNanos = System.nanoTime() - locked;
          writeLock.unlock();
        }
      }
    } catch (NativeSchedulerPoisonedException e) {
      handOver(e);
      throw e;
    }
    for (String warning : warnings) {
      LOG.warn("Queue refresh from {}: {}", in.source, warning);
    }
    super.reinitialize(RustPreemptionPolicy.monitorsFor(newConf), context);
    LOG.info("Queues refreshed from {} (the scheduler held for {} ms): {}", in.source,
        String.format(Locale.ROOT, "%.3f", refreshHeldNanos / 1e6), queues);
  }

  /**
   * How long the last refresh held the scheduler's lock (and so every heartbeat,
   * submission and {@code allocate()} waiting on it), in nanoseconds: what the RM log's
   * "Queues refreshed" line says, and what the benchmark reports as the refresh stall.
   */
  long refreshHeldNanos() {
    return refreshHeldNanos;
  }

  /**
   * After a refused refresh the core has loaded the configuration in force again (as
   * Apache's scheduler does): what it says of its created queues may have changed with it,
   * and the limits worked out again may have activated applications. Under the write lock.
   */
  private void reloaded() {
    rebuildQueues(conf);
    tellAmDiagnoses();
  }

  /** The merged configuration {@code merging} works out, or what stopped it. */
  private static Configuration merged(CompletableFuture<Configuration> merging)
      throws IOException {
    try {
      return merging.join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof UncheckedIOException) {
        throw ((UncheckedIOException) cause).getCause();
      }
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      if (cause instanceof Error) {
        throw (Error) cause;
      }
      throw new IOException(cause);
    }
  }

  private static IOException refused(ConfigurationInputs in, SchedulerConfigurationException e) {
    return new IOException("Failed to re-init queues from " + in.source + ": " + e.getMessage(), e);
  }

  /**
   * The core is poisoned (a panic left its state half-updated): the RM is handed over as
   * after any fatal error, once — under HA a standby takes over with a fresh scheduler; a
   * stand-alone RM stops, with this explanation. Every call to the core fails meanwhile.
   */
  private void handOver(NativeSchedulerPoisonedException e) {
    if (!handedOver.compareAndSet(false, true)) {
      return;
    }
    String explanation = "The Rust capacity scheduler's core can no longer be trusted: "
        + e.getMessage();
    LOG.error(explanation, e);
    if (rmContext != null && rmContext.getDispatcher() != null) {
      rmContext.getDispatcher().getEventHandler().handle(
          new RMFatalEvent(RMFatalEventType.CRITICAL_THREAD_CRASH, e, explanation));
    }
  }

  /**
   * Nothing to do here: applications are recovered through APP_ADDED / APP_ATTEMPT_ADDED
   * with the recovering flag, containers through the reports NodeManagers send when they
   * register again (recoverContainersOnNode, which calls {@link #recoverContainer}).
   */
  @Override
  public void recover(RMState state) {
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
    RustSchedulerNode node = nodeTracker.getNode(rmContainer.getAllocatedNode());
    Container c = rmContainer.getContainer();
    SchedulerRequestKey key = rmContainer.getAllocatedSchedulerKey();
    boolean taken = app != null && node != null && core.recoverContainer(app.key(),
        c.getId().getApplicationAttemptId().getAttemptId(), c.getId().getContainerId(), node.key(), c.getResource().getMemorySize(),
        c.getResource().getVirtualCores(), key.getPriority().getPriority(),
        key.getAllocationRequestId(), rmContainer.isAMContainer());
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
    try {
      inBatch(() -> {
        dispatch(event);
        if (event.getType() != SchedulerEventType.NODE_UPDATE) {
          // (A heartbeat activates nothing.)
          tellAmDiagnoses();
        }
      });
    } catch (NativeSchedulerPoisonedException e) {
      // Not rethrown: the RM's scheduler dispatcher would exit the process without a word;
      // the fatal event hands it over as Hadoop expects.
      handOver(e);
    } catch (NativeSchedulerPanicException e) {
      // A panic before the core changed anything (its state is whole): this event fails,
      // the RM and later events go on.
      LOG.error("Scheduler event {} failed in the native core, which is unchanged: {}",
          event, e.getMessage(), e);
    }
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
      updateAvailableIfAllocationChanged();
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * Tells the applications waiting for their AM container what the core told them about
   * their activation since the last call: the RM shows it as their diagnostics, as it shows
   * Apache's leaf queue's.
   */
  private void tellAmDiagnoses() {
    long[] records = core.amDiagnoses();
    if (records.length > 0) {
      apps.diagnoseAms(records, views.view());
    }
  }

  /** Hands an event to what handles its type. */
  private void dispatch(SchedulerEvent event) {
    switch (event.getType()) {
    case NODE_ADDED:
      addNode((NodeAddedSchedulerEvent) event);
      break;
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
    case APP_ADDED:
      addApplication((AppAddedSchedulerEvent) event);
      break;
    case APP_REMOVED:
      removeApplication((AppRemovedSchedulerEvent) event);
      break;
    case APP_ATTEMPT_ADDED:
      addApplicationAttempt((AppAttemptAddedSchedulerEvent) event);
      break;
    case APP_ATTEMPT_REMOVED:
      removeApplicationAttempt((AppAttemptRemovedSchedulerEvent) event);
      break;
    case CONTAINER_EXPIRED: {
      ContainerId id = ((ContainerExpiredSchedulerEvent) event).getContainerId();
      completedContainer(getRMContainer(id),
          SchedulerUtils.createAbnormalContainerStatus(id, SchedulerUtils.EXPIRED_CONTAINER),
          RMContainerEventType.EXPIRE);
      break;
    }
    case RELEASE_CONTAINER:
      end(((ReleaseContainerEvent) event).getContainer(), SchedulerUtils.RELEASED_CONTAINER,
          RMContainerEventType.RELEASED);
      break;
    case MARK_CONTAINER_FOR_PREEMPTION:
      markForPreemption(((ContainerPreemptEvent) event).getContainer());
      break;
    case MARK_CONTAINER_FOR_KILLABLE:
      killable(((ContainerPreemptEvent) event).getContainer());
      break;
    case KILL_RESERVED_CONTAINER:
      end(((ContainerPreemptEvent) event).getContainer(), SchedulerUtils.UNRESERVED_CONTAINER,
          RMContainerEventType.KILL);
      break;
    case NODE_LABELS_UPDATE:
      nodesRelabelled((NodeLabelsUpdateSchedulerEvent) event);
      break;
    default:
      // MARK_CONTAINER_FOR_NONKILLABLE: no RM code sends it (Apache's policy never takes
      // a killable mark back); queue-management events concern auto-created queues, which
      // this scheduler does not support.
      LOG.warn("Ignoring scheduler event {}", event.getType());
    }
  }

  /**
   * The RM's label manager announced nodes again: their labels changed, or their resources
   * did ({@code yarn rmadmin -updateNodeResource}), or they registered. As Apache's
   * scheduler does, each such node's reservation is dropped, so that the application finds
   * its place again at its next turn, and the node takes its labels (its partition is the
   * first), its running containers' attempts moving what they hold there with it. Then, with the reservations given back, the core learns the cluster's labels and
   * each node's partition, and works the queues' capacities and limits out again, as
   * Apache's {@code updateClusterResource}.
   */
  private void nodesRelabelled(NodeLabelsUpdateSchedulerEvent event) {
    Map<NodeId, Set<String>> updated = event.getUpdatedNodeToLabels();
    int[] keys = new int[updated.size()];
    String[] partitions = new String[updated.size()];
    Set<String> touched = new HashSet<>();
    int n = 0;
    for (Map.Entry<NodeId, Set<String>> e : updated.entrySet()) {
      RustSchedulerNode node = nodeTracker.getNode(e.getKey());
      if (node == null) {
        continue;
      }
      if (node.getReservedContainer() != null) {
        end(node.getReservedContainer(), SchedulerUtils.UNRESERVED_CONTAINER,
            RMContainerEventType.KILL);
      }
      String from = node.getPartition();
      String to = e.getValue().isEmpty() ? RMNodeLabelsManager.NO_LABEL
          : e.getValue().iterator().next();
      for (RMContainer running : node.getCopiedListOfRunningContainers()) {
        RustAppAttempt attempt = getApplicationAttempt(running.getApplicationAttemptId());
        if (attempt != null) {
          attempt.nodePartitionUpdated(running, from, to);
        }
      }
      touched.add(from);
      node.updateLabels(e.getValue());
      touched.add(node.getPartition());
      keys[n] = node.key();
      partitions[n++] = node.getPartition();
    }
    releases.flush();
    // The RM's own record of which nodes each partition holds, as Apache's scheduler keeps it.
    Map<String, Set<NodeId>> members = labelManager().getLabelsToNodes(touched);
    for (String partition : touched) {
      Set<NodeId> in = members.get(partition);
      if (in != null) {
        nodeTracker.updateNodesPerPartition(partition, in);
      }
    }
    List<NodeLabel> clusterLabels = labelManager().getClusterNodeLabels();
    String[] names = new String[clusterLabels.size()];
    int[] exclusive = new int[clusterLabels.size()];
    for (int i = 0; i < names.length; i++) {
      names[i] = clusterLabels.get(i).getName();
      exclusive[i] = clusterLabels.get(i).isExclusive() ? 1 : 0;
    }
    core.relabelNodes(names, exclusive, Arrays.copyOf(keys, n), Arrays.copyOf(partitions, n));
  }

  /** The RM's node-label manager; null in an RM context without one. */
  RMNodeLabelsManager labelManager() {
    return rmContext == null ? null : rmContext.getNodeLabelManager();
  }

  /**
   * What the nodes without a label offer, as the RM's label manager counts them: the
   * resource the default partition's capacities are shares of (the cluster while no node
   * has a label).
   */
  private Resource defaultPartitionResource() {
    RMNodeLabelsManager labels = labelManager();
    Resource cluster = getClusterResource();
    return labels == null ? cluster : labels.getResourceByLabel(RMNodeLabelsManager.NO_LABEL, cluster);
  }

  /** Whether the cluster's label {@code label} is exclusive (a label is, unless made otherwise). */
  private boolean isExclusive(String label) {
    RMNodeLabelsManager labels = labelManager();
    if (label.isEmpty() || labels == null) {
      return true;
    }
    try {
      return labels.isExclusiveNodeLabel(label);
    } catch (IOException e) {
      LOG.warn("Cannot tell whether node label {} is exclusive; taking it to be", label, e);
      return true;
    }
  }

  private void addNode(NodeAddedSchedulerEvent event) {
    RMNode rmNode = event.getAddedRMNode();
    Resource total = rmNode.getTotalCapability();
    Set<String> labels = rmNode.getNodeLabels();
    String partition = labels == null || labels.isEmpty()
        ? RMNodeLabelsManager.NO_LABEL : labels.iterator().next();
    nodes.added(rmNode, core.addNode(rmNode.getNodeID().toString(), nodes.nameOf(rmNode),
        rmNode.getRackName(), total.getMemorySize(), total.getVirtualCores(), partition,
        isExclusive(partition)));
    updateAvailableResourcesMetrics();
    recoverContainersOnNode(event.getContainerReports(), rmNode);
  }

  private void removeNode(RMNode rmNode) {
    RustSchedulerNode node = nodeTracker.getNode(rmNode.getNodeID());
    if (node == null) {
      return;
    }
    for (RMContainer container : node.getCopiedListOfRunningContainers()) {
      end(container, SchedulerUtils.LOST_CONTAINER, RMContainerEventType.KILL);
    }
    RMContainer reserved = node.getReservedContainer();
    if (reserved != null) {
      end(reserved, SchedulerUtils.LOST_CONTAINER, RMContainerEventType.KILL);
    }
    releases.flush();
    nodes.removed(node, core.removeNode(node.key()));
    updateAvailableResourcesMetrics();
  }

  /** {@code yarn rmadmin -updateNodeResource}: the node's new size, for the RM and the core. */
  @Override
  public void updateNodeResource(RMNode nm, ResourceOption resourceOption) {
    writeLock.lock();
    try {
      super.updateNodeResource(nm, resourceOption);
      RustSchedulerNode node = nodeTracker.getNode(nm.getNodeID());
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
    setLastNodeUpdateTime(Time.now());
    super.nodeUpdate(nm);
    RustSchedulerNode node = nodeTracker.getNode(nm.getNodeID());
    boolean ready = !rmContext.isWorkPreservingRecoveryEnabled()
        || rmContext.isSchedulerReadyForAllocatingContainers();
    if (node == null || !ready) {
      // Closing the batch gives the finished containers back.
      return;
    }
    long[] finished = releases.take();
    long[] decided = core.nodeUpdate(node.key(), finished);
    allocations.apply(node, decided, getLastNodeUpdateTime());
  }

  /**
   * A NodeManager reports a container running: from now its node keeps the container's
   * share after its application lets go of it, until the NodeManager reports it gone, and
   * the core, which decides when a killable container is killed for room, must know.
   */
  @Override
  protected void containerLaunchedOnNode(ContainerId containerId, SchedulerNode node) {
    super.containerLaunchedOnNode(containerId, node);
    RustApplication app =
        (RustApplication) applications.get(containerId.getApplicationAttemptId().getApplicationId());
    if (app != null && getCurrentAttemptForContainer(containerId) != null) {
      releases.add(app.key(), containerId, Wire.ReleaseKind.LAUNCHED);
    }
  }

  private void addApplication(AppAddedSchedulerEvent e) {
    Submission sub = Submission.of(e, rmContext, conf, getMinimumResourceCapability());
    try {
      int key = core.submit(sub.id.getClusterTimestamp(), sub.id.getId(), sub.queue, sub.user,
          sub.groups, sub.priority.getPriority(), sub.recovering, sub.placed,
          sub.am.getMemorySize(), sub.am.getVirtualCores(), sub.amLabel);
      String path = core.applicationQueue(key);
      if (queues.byPath(path) == null) {
        // The submission created its queue (auto-queue-creation-v2).
        rebuildQueues(conf);
      }
      apps.admitted(sub, key, queues.byPath(path));
    } catch (ApplicationRejectedException rejection) {
      if (queues.size() != core.queuePaths().length) {
        // It created queues and was then refused: they stay, as in Apache.
        rebuildQueues(conf);
      }
      if (sub.recovering) {
        apps.refusedOnRecovery(sub.id, sub.queue, queues.resolve(sub.queue) != null,
            sub.placed, conf.getBoolean(APPLICATION_FAIL_FAST, false));
      } else {
        apps.rejected(sub.id, rejection.getMessage());
      }
    }
  }

  private void addApplicationAttempt(AppAttemptAddedSchedulerEvent e) {
    ApplicationAttemptId attemptId = e.getApplicationAttemptId();
    RustApplication app = (RustApplication) applications.get(attemptId.getApplicationId());
    if (app == null) {
      LOG.warn("Attempt {} added for unknown application", attemptId);
      return;
    }
    apps.newAttempt(app, attemptId, e.getTransferStateFromPreviousAttempt(),
        e.getIsAttemptRecovering());
    // The epoch now, as Apache's attempt reads it when it is made: the RM sets it when it
    // becomes active and recovers (after this scheduler was built), and the new attempt's
    // container numbers start above every number an earlier RM gave out.
    core.addAttempt(app.key(), attemptId.getAttemptId(), e.getTransferStateFromPreviousAttempt(),
        rmContext == null ? 0 : rmContext.getEpoch());
    apps.attemptAdded(app, attemptId, e.getIsAttemptRecovering());
  }

  private void removeApplicationAttempt(AppAttemptRemovedSchedulerEvent e) {
    ApplicationAttemptId attemptId = e.getApplicationAttemptID();
    RustAppAttempt attempt = getApplicationAttempt(attemptId);
    RustApplication app = (RustApplication) applications.get(attemptId.getApplicationId());
    if (app == null || attempt == null) {
      LOG.warn("Unknown application attempt {} has completed", attemptId);
      return;
    }
    // Live containers first, then reservations, each in the attempt's map order, as Apache
    // kills them: the users' usage ratios are charged back in that order.
    for (RMContainer container : attempt.getLiveContainers()) {
      if (!e.getKeepContainersAcrossAppAttempts()
          || !container.getState().equals(RMContainerState.RUNNING)) {
        end(container, SchedulerUtils.COMPLETED_APPLICATION, RMContainerEventType.KILL);
      }
    }
    for (RMContainer reserved : attempt.getReservedContainers()) {
      end(reserved, "Application attempt ended", RMContainerEventType.KILL);
    }
    releases.flush();
    core.removeAttempt(app.key());
    attempt.stop(e.getFinalAttemptState());
  }

  private void removeApplication(AppRemovedSchedulerEvent e) {
    RustApplication app = apps.removed(e.getApplicationID(), e.getFinalState());
    if (app == null) {
      return;
    }
    long[] leftover = core.removeApp(app.key());
    if (leftover.length > 0) {
      LOG.warn("Application {} still held {} containers at removal; they were released",
          e.getApplicationID(), leftover.length / Wire.ContainerRef.STRIDE);
    }
  }

  /**
   * One round of the deletion of idle auto-created queues ({@link RustQueueDeletionPolicy}):
   * the core deletes the created queues that stayed unused past their expiration time, and
   * the queue directory follows (their metrics stay registered, as Apache's do).
   */
  void deleteExpiredQueues() {
    writeLock.lock();
    try {
      String[] deleted = core.deleteExpiredQueues();
      if (deleted.length > 0) {
        rebuildQueues(conf);
        LOG.info("Deleted idle auto-created queue(s): {}", String.join(", ", deleted));
      }
    } catch (NativeSchedulerPoisonedException e) {
      handOver(e);
      throw e;
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * One round of the queue-management monitor ({@link RustQueueManagementPolicy}): the core
   * moves managed parents' guarantees between their leaves, and the queue directory follows.
   */
  void manageQueues() {
    writeLock.lock();
    try {
      if (core.manageQueues()) {
        rebuildQueues(conf);
      }
    } catch (NativeSchedulerPoisonedException e) {
      handOver(e);
      throw e;
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * One round of capacity preemption ({@link RustPreemptionPolicy}): the core decides which
   * containers to mark, kill or unreserve, and each decision goes to the RM's dispatcher as
   * the event Apache's policy sends, to be applied on the scheduler's event thread. A
   * container that ended meanwhile is passed over.
   */
  void preempt(long now) {
    long[] actions;
    try {
      actions = core.preemptionRound(now);
    } catch (NativeSchedulerPoisonedException e) {
      handOver(e);
      throw e;
    }
    for (int i = 0; i < actions.length; i += Wire.PreemptionAction.STRIDE) {
      RustApplication app = appsByKey.get((int) actions[i + Wire.PreemptionAction.APP]);
      if (app == null) {
        continue;
      }
      ContainerId id = ContainerId.newContainerId(ApplicationAttemptId.newInstance(
          app.getApplicationId(), (int) actions[i + Wire.PreemptionAction.ATTEMPT]),
          actions[i + Wire.PreemptionAction.NUMBER]);
      int kind = (int) actions[i + Wire.PreemptionAction.KIND];
      if (kind == Wire.PreemptionKind.MOVE_RESERVATION) {
        moveReservation(app, id, (int) actions[i + Wire.PreemptionAction.NODE],
            (int) actions[i + Wire.PreemptionAction.TARGET]);
        continue;
      }
      RMContainer container;
      SchedulerEventType type;
      if (kind == Wire.PreemptionKind.KILL_RESERVED) {
        RustSchedulerNode node = nodesByKey.get((int) actions[i + Wire.PreemptionAction.NODE]);
        container = node == null ? null : node.getReservedContainer();
        type = SchedulerEventType.KILL_RESERVED_CONTAINER;
      } else {
        container = getRMContainer(id);
        type = kind == Wire.PreemptionKind.KILL ? SchedulerEventType.MARK_CONTAINER_FOR_KILLABLE
            : SchedulerEventType.MARK_CONTAINER_FOR_PREEMPTION;
      }
      if (container == null || !container.getContainerId().equals(id)) {
        continue;
      }
      LOG.debug("Preemption: {} {}", type, id);
      rmContext.getDispatcher().getEventHandler().handle(
          new ContainerPreemptEvent(container.getApplicationAttemptId(), container, type));
    }
  }

  /**
   * The preemption policy's kill wait for {@code container} is over: the core kills it now,
   * or, with lazy preemption, marks it killable, to be killed when its room is needed.
   */
  private void killable(RMContainer container) {
    ContainerId id = container.getContainerId();
    RustApplication app = (RustApplication) applications.get(
        id.getApplicationAttemptId().getApplicationId());
    if (app == null || core.containerKillable(app.key(),
        id.getApplicationAttemptId().getAttemptId(), id.getContainerId())) {
      killContainer(container);
    }
  }

  /**
   * A killable container the core killed (lazy preemption): to make room on its node, or to
   * bring a parent back within its maximum.
   */
  private void killForRoom(ContainerId id) {
    RMContainer container = getRMContainer(id);
    if (container != null) {
      killContainer(container);
    }
  }

  /**
   * A preemption round moves reservation {@code id} from one node to another
   * ({@code allow-move-reservation}), at once, as Apache's policy has its scheduler do: the
   * core and the RM's objects (the nodes, the attempt's reservations, the RMContainer).
   */
  private void moveReservation(RustApplication app, ContainerId id, int fromKey, int toKey) {
    writeLock.lock();
    try {
      RustSchedulerNode from = nodesByKey.get(fromKey);
      RustSchedulerNode to = nodesByKey.get(toKey);
      RustAppAttempt attempt = app.getCurrentAppAttempt();
      RMContainer reserved = from == null ? null : from.getReservedContainer();
      if (to == null || attempt == null || reserved == null
          || !reserved.getContainerId().equals(id) || to.getReservedContainer() != null) {
        return;
      }
      if (core.moveReservation(app.key(), id.getApplicationAttemptId().getAttemptId(),
          id.getContainerId(), fromKey, toKey)) {
        if (attempt.moveReservation(reserved, from, to)) {
          LOG.info("Moved reserved container {} from {} to {}", id, from.getNodeID(),
              to.getNodeID());
        } else {
          LOG.error("The core moved reserved container {} to {} but the RM's objects refused;"
              + " the two now disagree", id, to.getNodeID());
        }
      }
    } finally {
      writeLock.unlock();
    }
  }

  private void markForPreemption(RMContainer container) {
    RustAppAttempt attempt = getCurrentAttemptForContainer(container.getContainerId());
    if (attempt != null) {
      attempt.markContainerForPreemption(container.getContainerId());
    }
  }

  /** Ends {@code container} with an abnormal exit status saying {@code why}. */
  /**
   * An AM's releases, from its {@code allocate()}: those the RM knows now end without the
   * scheduler's lock; one it does not know yet (a container of the attempt's NodeManager not
   * yet recovered after a restart) is looked up again under the write lock, which recovery
   * holds, so that it is either ended or left for recovery to end — never lost between the
   * two.
   */
  @Override
  public void releaseContainers(List<ContainerId> containers,
      SchedulerApplicationAttempt attempt) {
    List<ContainerId> known = new ArrayList<>(containers.size());
    List<ContainerId> unknown = new ArrayList<>(0);
    for (ContainerId id : containers) {
      (getRMContainer(id) == null ? unknown : known).add(id);
    }
    super.releaseContainers(known, attempt);
    if (!unknown.isEmpty()) {
      writeLock.lock();
      try {
        super.releaseContainers(unknown, attempt);
      } finally {
        writeLock.unlock();
      }
    }
  }

  private void end(RMContainer container, String why, RMContainerEventType event) {
    completedContainer(container, SchedulerUtils.createAbnormalContainerStatus(
        container.getContainerId(), why), event);
  }

  /**
   * A container (or reservation) is over: the applier takes it off the RM's objects and
   * the calling thread's release batch gives it back to the core. As in Apache's scheduler,
   * no scheduler-wide lock: an AM's release comes here from its {@code allocate()} while
   * nodes heartbeat, and the objects it changes guard themselves.
   */
  @Override
  protected void completedContainerInternal(RMContainer rmContainer,
      ContainerStatus containerStatus, RMContainerEventType event) {
    Container container = rmContainer.getContainer();
    ContainerId id = container.getId();
    allocations.finish(rmContainer, containerStatus, event,
        (RustApplication) applications.get(id.getApplicationAttemptId().getApplicationId()),
        getCurrentAttemptForContainer(id),
        getSchedulerNode(container.getNodeId()));
    LOG.debug("Container {} finished ({})", id, event);
  }

  /**
   * Kills a container on the RM's behalf (a node over its new size too long, a test): as
   * with Apache's scheduler, it ends as preempted, so the attempt it ends does not count
   * against the application's maximum attempts.
   */
  @Override
  public void killContainer(RMContainer container) {
    completedContainer(container, SchedulerUtils.createPreemptedContainerStatus(
        container.getContainerId(), SchedulerUtils.PREEMPTED_CONTAINER),
        RMContainerEventType.KILL);
  }

  // ----- the ApplicationMaster protocol -------------------------------------------------

  /**
   * An AM's heartbeat: its releases, asks and blacklist changes go to the core in one
   * crossing, which answers with its headroom; it takes away whatever heartbeats have
   * allocated to it since.
   */
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
    try {
      return allocateFor(attempt, app, ask, release, blacklistAdditions, blacklistRemovals,
          updateRequests);
    } catch (NativeSchedulerPoisonedException e) {
      handOver(e);
      throw e;
    }
  }

  private Allocation allocateFor(RustAppAttempt attempt, RustApplication app,
      List<ResourceRequest> ask, List<ContainerId> release, List<String> blacklistAdditions,
      List<String> blacklistRemovals, ContainerUpdates updateRequests) {
    normalizeResourceRequests(ask, app.getQueue().getQueueName());
    long[] released = am.release(release, attempt);
    if (attempt.isStopped()) {
      am.stopped(released);
      updateAvailableIfAllocationChanged();
      return EMPTY_ALLOCATION;
    }
    attempt.rejectContainerUpdates(updateRequests);
    am.update(app, attempt, released, ask, blacklistAdditions, blacklistRemovals);
    updateAvailableIfAllocationChanged();
    // SchedulingRequests never get here: the RM refuses them for a scheduler whose
    // placementConstraintEnabled() is false, and tells the AM why. The attempt's answer
    // carries the new containers, the headroom the core gave, the containers the RM asked
    // back (an over-committed node), and those recovered from earlier attempts.
    return attempt.getAllocation(getResourceCalculator(), getClusterResource(),
        getMinimumResourceCapability());
  }

  // ----- moves and priorities ------------------------------------------------------------

  /** Whether the application may move to {@code newQueue}; throws the reason if not. */
  @Override
  public void preValidateMoveApplication(ApplicationId appId, String newQueue)
      throws YarnException {
    move(appId, newQueue, false);
  }

  /**
   * Moves an application (and everything it holds) to another leaf, if the core allows;
   * returns the leaf's full path.
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
      String path = core.moveApplication(app.key(), target, commit);
      if (commit) {
        // A parent the move pushed over its maximum killed killable containers under it
        // (lazy preemption), as Apache's does while the containers move.
        long[] killed = core.takeKilled();
        for (int i = 0; i < killed.length; i += Wire.ContainerRef.STRIDE) {
          RustApplication owner = appsByKey.get((int) killed[i + Wire.ContainerRef.APP]);
          if (owner != null) {
            killForRoom(ContainerId.newContainerId(ApplicationAttemptId.newInstance(
                owner.getApplicationId(), (int) killed[i + Wire.ContainerRef.ATTEMPT]),
                killed[i + Wire.ContainerRef.NUMBER]));
          }
        }
        apps.moved(app, queues.byPath(path));
        tellAmDiagnoses();
      }
      return path;
    } catch (NoSuchLeafQueueException e) {
      throw new YarnException(e.getMessage());
    } catch (ApplicationRejectedException e) {
      // Apache's wording: the target queue's own refusal, as an access-control failure.
      throw new YarnException(new AccessControlException(e.getMessage()));
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * A new submission to {@code queuePath} (the RM calls this for new submissions only):
   * the priority it runs at ({@link #allowedPriority}), then the submit ACL
   * ({@link #refuseSubmissionWithoutAccess}), in the RM's order for Apache's scheduler.
   */
  @Override
  public Priority checkAndGetApplicationPriority(Priority requested, UserGroupInformation user,
      String queuePath, ApplicationId applicationId) throws YarnException {
    Priority priority = allowedPriority(requested, user, queuePath, applicationId);
    refuseSubmissionWithoutAccess(user, queuePath, applicationId);
    return priority;
  }

  /**
   * The priority an application submitted (or updated) to {@code queuePath} runs at: the
   * requested one, or the user's default in the leaf's {@code acl_application_max_priority},
   * or the queue's default; capped at the cluster's maximum. With ACLs on, a user the leaf's
   * priority ACLs do not allow that priority is refused, in Apache's words.
   */
  private Priority allowedPriority(Priority requested, UserGroupInformation user,
      String queuePath, ApplicationId applicationId) throws YarnException {
    long answer = core.applicationPriority(queuePath == null ? "" : queuePath, requested != null,
        requested == null ? 0 : requested.getPriority(),
        getMaxClusterLevelAppPriority().getPriority(),
        user == null ? null : user.getShortUserName(),
        user == null ? null : user.getGroupNames());
    Priority priority = Priority.newInstance((int) (answer >> 1));
    if ((answer & 1) == 0) {
      throw new YarnException(new AccessControlException("User " + user
          + " does not have permission to submit/update " + applicationId + " for " + priority));
    }
    return priority;
  }

  /**
   * The submit ACL, checked while the client waits, as the RM checks it for Apache's
   * scheduler: the RM calls {@link #checkAndGetApplicationPriority} for a new submission
   * (not a recovered one) just before its own ACL check, which it makes only for Apache's
   * class. A user who may neither submit to nor administer the queue named (when one
   * resolves, or the queue the submission would create, by its templates' ACLs and its
   * parents') gets Apache's {@code AccessControlException} from the submission call itself;
   * without this the application would be accepted and then fail. The core checks again
   * when the application arrives.
   */
  private void refuseSubmissionWithoutAccess(UserGroupInformation user, String queuePath,
      ApplicationId applicationId) throws YarnException {
    if (user == null || queuePath == null) {
      return;
    }
    RustQueue queue = queues.resolve(queuePath);
    boolean refused = queue != null
        ? !checkAccess(user, QueueACL.SUBMIT_APPLICATIONS, queue.getPath())
            && !checkAccess(user, QueueACL.ADMINISTER_QUEUE, queue.getPath())
        // A queue the submission would create: its templates' ACLs and its parents'.
        : YarnConfiguration.isAclEnabled(conf)
            && core.creationDenied(queuePath, user.getShortUserName(), user.getGroupNames());
    if (refused) {
      throw new YarnException(new AccessControlException("User " + user.getShortUserName()
          + " does not have permission to submit " + applicationId + " to queue " + queuePath));
    }
  }

  /**
   * The lifetime (seconds) an application submitted to {@code queueName} gets, as the RM's
   * lifetime monitor will enforce it: the one asked for, or the leaf's
   * {@code default-application-lifetime}, capped at its {@code maximum-application-lifetime}.
   */
  @Override
  public long checkAndGetApplicationLifetime(String queueName, long lifetime) {
    return core.applicationLifetime(queueName == null ? "" : queueName, lifetime);
  }

  /**
   * A leaf's {@code maximum-application-lifetime} in seconds, which caps
   * {@code yarn application -updateLifetime}; -1 for a name that is not a leaf.
   */
  @Override
  public long getMaximumApplicationLifetime(String queueName) {
    return core.maximumApplicationLifetime(queueName == null ? "" : queueName);
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
      Priority priority = allowedPriority(newPriority, user, rmApp.getQueue(),
          applicationId);
      if (priority.equals(app.getPriority())) {
        future.set(null);
        return priority;
      }
      apps.savePriority(rmApp, priority, future);
      core.updatePriority(app.key(), priority.getPriority());
      apps.reprioritised(app, priority);
      tellAmDiagnoses();
      return priority;
    } finally {
      writeLock.unlock();
    }
  }

  // ----- queues -------------------------------------------------------------------------

  /**
   * Re-creates the queue directory from the core after a load or refresh (unless the
   * queues' paths and order stayed the same: the directory then stays as well).
   */
  private void rebuildQueues(Configuration configuration) {
    boolean userMetrics = core.userMetricsEnabled();
    dynamicQueueKeys = core.dynamicQueueKeys();
    long layout = core.queueLayout();
    long labelsVersion = core.queueLabelsVersion();
    boolean rebuilt = layout != queueLayout;
    if (rebuilt) {
      queues = queues.rebuilt(core.queuePaths(), (path, parent) ->
          new RustQueue(this, views, path, parent, userMetrics, configuration, gauges::refresh));
    }
    long[] maximums = core.queueMaximumAllocations();
    // Every queue's maximum as it was (the usual refresh): nothing to set. This runs rarely
    // and so mostly interpreted, where a thousand queues' Resources take a millisecond.
    if (rebuilt || !Arrays.equals(maximums, queueMaximums)) {
      for (int i = 0; i < queues.size(); i++) {
        int at = i * Wire.QueueMaximum.STRIDE;
        queues.at(i).setMaximumAllocation(Resource.newInstance(
            maximums[at + Wire.QueueMaximum.MEMORY], (int) maximums[at + Wire.QueueMaximum.VCORES]));
      }
      queueMaximums = maximums;
    }
    // Each queue's node labels, and the RM's label manager told which queues use which
    // labels (it refuses to remove a label a queue may access), as Apache's scheduler does;
    // nothing to do when no queue's labels changed (the usual refresh: with a thousand
    // queues, the work below, mostly interpreted, holds every heartbeat up a millisecond).
    if (rebuilt || labelsVersion != queueLabelsVersion) {
      setQueueLabels();
    }
    // Only now: a directory rebuilt but left without its maximums or labels (a core call
    // above failed) is set up whole at the next rebuild.
    queueLayout = layout;
    queueLabelsVersion = labelsVersion;
    String name = core.resourceCalculator();
    calculator = name.endsWith("DominantResourceCalculator")
        ? new DominantResourceCalculator() : new DefaultResourceCalculator();
  }

  /** Sets every queue's labels as the core has them, and tells the RM's label manager. */
  private void setQueueLabels() {
    String[] labels = core.queueNodeLabels();
    Map<String, Set<String>> queueToLabels = new HashMap<>();
    for (int i = 0; i < queues.size(); i++) {
      Set<String> accessible = new HashSet<>();
      for (String label : labels[2 * i].split(",")) {
        if (!label.isEmpty()) {
          accessible.add(label);
        }
      }
      String defaultExpression = labels[2 * i + 1];
      queues.at(i).setNodeLabels(Collections.unmodifiableSet(accessible),
          defaultExpression.isEmpty() ? null : defaultExpression);
      queueToLabels.put(queues.at(i).getPath(), accessible);
    }
    if (labelManager() != null) {
      labelManager().reinitializeQueueLabels(queueToLabels);
    }
  }

  /** {@code yarn queue -status}: a queue by full path or unambiguous short name. */
  @Override
  public QueueInfo getQueueInfo(String queueName, boolean includeChildQueues,
      boolean recursive) throws IOException {
    return views.find(queueName, includeChildQueues, recursive);
  }

  /** Every queue as the core sees it now, root first, each parent before its children. */
  public List<QueueSnapshot> getQueueSnapshots() {
    return views.snapshots();
  }

  /**
   * Every queue and every leaf's users as the core sees them now, in one reading: what a
   * view showing both (the scheduler page, the REST scheduler view) builds from, so that a
   * leaf's usage is always its users' sum.
   */
  public QueueView getQueueView() {
    return views.view();
  }

  /**
   * Whether the core has activated the application (it is past its leaf's ApplicationMaster
   * and application limits and may be given containers); false for an unknown one.
   */
  public boolean isApplicationActivated(ApplicationId id) {
    RustApplication app = (RustApplication) applications.get(id);
    return app != null && core.applicationActive(app.key());
  }

  /**
   * Every leaf's users as the core sees them now; each names its leaf by its index in
   * {@link #getQueueSnapshots()}'s order.
   */
  public UserReport getUserReport() {
    return core.userReport();
  }

  /**
   * What the applications of the queue at {@code path} and its descendants ask for, as
   * the RM's request bookkeeping reports it to the queue; none for an unknown queue.
   */
  public Resource getQueuePendingResource(String path) {
    return getQueuePendingResource(path, RMNodeLabelsManager.NO_LABEL);
  }

  /** {@link #getQueuePendingResource(String)} in the partition labelled {@code label}. */
  public Resource getQueuePendingResource(String path, String label) {
    RustQueue queue = queues.byPath(path);
    return queue == null ? Resource.newInstance(0, 0) : queue.pendingResource(label);
  }

  /** {@code mapred queue -showacls}: the calling user's ACLs on every queue, as configured. */
  @Override
  public List<QueueUserACLInfo> getQueueUserAclInfo() {
    return views.userAclInfo();
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

  /** The attempts of the applications in a queue and below it; null for an unknown queue. */
  @Override
  public List<ApplicationAttemptId> getAppsInQueue(String queueName) {
    return views.appsInQueue(queueName, applications.values());
  }

  /**
   * The largest container an application of {@code queueName} may ask for: the queue's
   * {@code maximum-allocation-*} within what the registered nodes allow, as Apache's
   * scheduler answers the RM's request validation; the cluster's for an unknown queue.
   */
  @Override
  public Resource getMaximumResourceCapability(String queueName) {
    Resource cluster = getMaximumResourceCapability();
    RustQueue queue = queueName == null || queueName.isEmpty() ? null
        : queues.resolve(queueName);
    return queue == null ? cluster
        : Resources.componentwiseMin(queue.maximumAllocation(), cluster);
  }

  /** The RM-side queues as the core last loaded them, for tests. */
  QueueDirectory queues() {
    return queues;
  }

  // ----- mutable configuration (yarn.scheduler.configuration.store.class) -----------------

  /** True when the configuration lives in a store that REST and yarn schedulerconf change. */
  @Override
  public boolean isConfigurationMutable() {
    return source.isMutable();
  }

  /** The store's provider, which the RM's REST, admin and HA code drive; null for the file. */
  @Override
  public MutableConfigurationProvider getMutableConfProvider() {
    return source.provider();
  }

  /** The configuration the core runs with now. */
  @Override
  public Configuration getConfiguration() {
    return new Configuration(accepted);
  }

  /**
   * The configuration keys of the queues created at run time ({@code [name, value, …]}),
   * which Apache's queues hold in their own copies of the configuration: for views that
   * describe those queues from configuration.
   */
  public String[] getDynamicQueueKeys() {
    return dynamicQueueKeys.clone();
  }

  /** The same, not copied: a new object after each refresh (the preemption policy's cue). */
  Configuration acceptedConfiguration() {
    return accepted;
  }

  /** A queue by full path or unambiguous short name (the queue-admin ACL policy asks). */
  @Override
  public Queue getQueue(String queueName) {
    return queueName == null ? null : queues.resolve(queueName);
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

  /** The root queue's metrics, which add up every queue's. */
  @Override
  public QueueMetrics getRootQueueMetrics() {
    return queues.root().getMetrics();
  }

  /**
   * The root's AvailableMB and AvailableVCores: what the cluster has that containers do not
   * hold, kept current as nodes and containers come and go. (The RM's cluster metrics add
   * it to the allocated resources to show the cluster's total for any scheduler but
   * Apache's, so reserved resources count as available here; the other queues' gauges are
   * published when read, see QueueGauges.)
   */
  private void updateAvailableResourcesMetrics() {
    QueueMetrics root = getRootQueueMetrics();
    Resource allocated = root.getAllocatedResources();
    // (Through the partition's setter, as Apache's scheduler sets it: the default
    // partition's records, the root's there and the partition's own, get it too.)
    root.setAvailableResourcesToQueue(RMNodeLabelsManager.NO_LABEL,
        Resources.subtract(getClusterResource(), allocated));
    publishedAllocated = allocated;
  }

  /**
   * The same after an event or AM heartbeat that left the cluster's size as it was: only
   * if what containers hold has changed since (setting the gauge costs more than a no-op
   * heartbeat).
   */
  private void updateAvailableIfAllocationChanged() {
    QueueMetrics root = getRootQueueMetrics();
    Resource published = publishedAllocated;
    if (published == null || root.getAllocatedMB() != published.getMemorySize()
        || root.getAllocatedVirtualCores() != published.getVirtualCores()) {
      updateAvailableResourcesMetrics();
    }
  }

  // ----- small RM contract items --------------------------------------------------------

  /** The calculator the configuration names (Default or Dominant). */
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
}
