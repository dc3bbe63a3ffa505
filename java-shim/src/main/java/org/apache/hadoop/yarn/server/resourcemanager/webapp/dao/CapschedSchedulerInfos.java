package org.apache.hadoop.yarn.server.resourcemanager.webapp.dao;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.apache.hadoop.security.authorize.AccessControlList;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.nodelabels.CommonNodeLabelsManager;
import org.apache.hadoop.yarn.security.AccessType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerHealth;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceUsage;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.AutoCreatedQueueTemplate;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration.AbsoluteResourceType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapschedUserInfos;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueueCapacityVector;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueuePath;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.UserInfo;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.conf.QueueCapacityConfigParser;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.LeafQueueTemplateInfo.ConfItem;
import org.apache.hadoop.yarn.util.resource.Resources;
import org.capsched.yarn.PartitionReport;
import org.capsched.yarn.QueueSnapshot;
import org.capsched.yarn.UserReport;
import org.capsched.yarn.web.SchedulerState;

/**
 * The REST scheduler view ({@code GET /ws/v1/cluster/scheduler}) of RustCapacityScheduler
 * in Apache's CapacityScheduler shape: the same DAO classes, so the document carries
 * {@code "type":"capacityScheduler"} and every field name YARN UI2 and operators' tools
 * read. The DAOs' constructors take Apache's queue objects and their no-argument
 * constructors are package-private, so this factory lives in their package inside
 * capsched's jar; every figure comes from the core's report ({@link SchedulerState}).
 */
public final class CapschedSchedulerInfos {
  /** Apache's label for the default partition. */
  private static final String DEFAULT_PARTITION = CommonNodeLabelsManager.NO_LABEL;
  /** The resource names an absolute capacity may give, as Apache's queues read them. */
  private static final Set<String> ABSOLUTE_RESOURCE_TYPES = absoluteResourceTypes();

  private CapschedSchedulerInfos() {
  }

  /** The whole view: the root and its tree. */
  public static SchedulerTypeInfo of(SchedulerState state) {
    CapacitySchedulerInfo root = new CapacitySchedulerInfo();
    QueueSnapshot q = state.queue(0);
    CapacitySchedulerConfiguration conf = state.configuration();
    root.schedulerName = "Capacity Scheduler";
    root.queueName = q.getName();
    setRootPath(root, q.getPath());
    root.capacity = percent(q.getCapacity());
    root.usedCapacity = percent(q.getUsedCapacity());
    root.maxCapacity = percent(maximum(q.getMaximumCapacity()));
    root.weight = (float) q.getWeight();
    root.normalizedWeight = state.normalizedWeight(0);
    root.queueCapacityVectorInfo = capacityVector(conf, q.getPath());
    root.maxParallelApps = q.getMaxParallelApps();
    root.capacities = capacities(state, 0, false);
    root.queues = children(state, 0);
    root.health = health(state.health());
    root.maximumAllocation = new ResourceInfo(maximumAllocation(q));
    root.queueAcls = new QueueAclsInfo();
    root.queueAcls.addAll(acls(conf, q.getPath()));
    root.queuePriority = conf.getQueuePriority(q.getPath()).getPriority();
    root.orderingPolicyInfo = q.getQueueOrderingPolicy();
    root.mode = mode(conf, q);
    root.queueType = "parent";
    root.creationMethod = q.getCreationMethod();
    root.autoCreationEligibility = q.getAutoCreationEligibility();
    root.defaultNodeLabelExpression = conf.getDefaultNodeLabelExpression(q.getPath());
    AutoCreatedQueueTemplate template =
        new AutoCreatedQueueTemplate(conf, new QueuePath(q.getPath()));
    root.autoQueueTemplateProperties = templateInfo(template.getTemplateProperties());
    root.autoQueueParentTemplateProperties = templateInfo(template.getParentOnlyProperties());
    root.autoQueueLeafTemplateProperties = templateInfo(template.getLeafOnlyProperties());
    return new SchedulerTypeInfo(root);
  }

  /**
   * The children of {@code parent}, leaves first, as Apache lists them (JAXB's JSON
   * "type" field stays a string only when every leaf is written before the parents).
   */
  private static CapacitySchedulerQueueInfoList children(SchedulerState state, int parent) {
    CapacitySchedulerQueueInfoList list = new CapacitySchedulerQueueInfoList();
    List<Integer> parents = new ArrayList<>();
    for (int child : state.children(parent)) {
      if (state.isLeaf(child)) {
        list.addToQueueInfoList(leaf(state, child));
      } else {
        parents.add(child);
      }
    }
    for (int child : parents) {
      list.addToQueueInfoList(parent(state, child));
    }
    return list;
  }

  private static CapacitySchedulerQueueInfo parent(SchedulerState state, int index) {
    CapacitySchedulerQueueInfo info = new CapacitySchedulerQueueInfo();
    fill(info, state, index, false);
    info.orderingPolicyInfo = state.queue(index).getQueueOrderingPolicy();
    info.queues = children(state, index);
    templates(info, state.configuration(), state.queue(index).getPath());
    return info;
  }

  /**
   * A parent's auto-creation templates as Apache's parents resolve them (explicit path
   * first, then wildcards), the common, parent-only and leaf-only ones.
   */
  private static void templates(CapacitySchedulerQueueInfo info,
      CapacitySchedulerConfiguration conf, String path) {
    AutoCreatedQueueTemplate template = new AutoCreatedQueueTemplate(conf, new QueuePath(path));
    info.autoQueueTemplateProperties = templateInfo(template.getTemplateProperties());
    info.autoQueueParentTemplateProperties = templateInfo(template.getParentOnlyProperties());
    info.autoQueueLeafTemplateProperties = templateInfo(template.getLeafOnlyProperties());
  }

  private static AutoQueueTemplatePropertiesInfo templateInfo(Map<String, String> entries) {
    AutoQueueTemplatePropertiesInfo out = new AutoQueueTemplatePropertiesInfo();
    for (Map.Entry<String, String> e : entries.entrySet()) {
      out.add(new ConfItem(e.getKey(), e.getValue()));
    }
    return out;
  }

  private static CapacitySchedulerLeafQueueInfo leaf(SchedulerState state, int index) {
    CapacitySchedulerLeafQueueInfo info = new CapacitySchedulerLeafQueueInfo();
    fill(info, state, index, true);
    QueueSnapshot q = state.queue(index);
    CapacitySchedulerConfiguration conf = state.configuration();
    String path = q.getPath();
    info.numActiveApplications = q.getNumActiveApplications();
    info.numPendingApplications = q.getNumPendingApplications();
    // Apache counts a leaf's reservations among its containers, in every partition.
    info.numContainers = q.getNumContainers();
    info.maxApplications = q.getMaximumApplications();
    info.maxApplicationsPerUser = q.getMaximumApplicationsPerUser();
    info.userLimit = (float) q.getMinimumUserLimitPercent();
    info.userLimitFactor = (float) q.getUserLimitFactor();
    info.configuredMaxAMResourceLimit = (float) q.getMaximumAmResourcePercent();
    info.AMResourceLimit = new ResourceInfo(q.getAmResourceLimit());
    info.usedAMResource = new ResourceInfo(q.getAmResourceUsed());
    info.users = new UsersInfo(users(state, index));
    // As Apache: the first user's AM limit (its weight applied), the queue's without users.
    info.userAMResourceLimit = info.users.getUsersList().isEmpty()
        ? new ResourceInfo(q.getAmResourceLimit())
        : info.users.getUsersList().get(0).getResourceUsageInfo()
            .getPartitionResourceUsageInfo(DEFAULT_PARTITION).getAMLimit();
    info.preemptionDisabled = q.isPreemptionDisabled();
    info.intraQueuePreemptionDisabled = q.isIntraQueuePreemptionDisabled();
    info.orderingPolicyInfo = conf.get(
        CapacitySchedulerConfiguration.getQueuePrefix(path)
            + CapacitySchedulerConfiguration.ORDERING_POLICY,
        CapacitySchedulerConfiguration.DEFAULT_APP_ORDERING_POLICY).trim();
    info.orderingPolicyDisplayName = info.orderingPolicyInfo;
    Integer priority = conf.getDefaultApplicationPriorityConfPerQueue(path);
    info.defaultPriority = priority == null ? 0 : priority;
    info.isAutoCreatedLeafQueue = q.isAutoCreatedLeaf();
    info.maxApplicationLifetime = q.getMaximumApplicationLifetime();
    info.defaultApplicationLifetime = q.getDefaultApplicationLifetime();
    return info;
  }

  /** What parents and leaves share (Apache's CapacitySchedulerQueueInfo constructor). */
  private static void fill(CapacitySchedulerQueueInfo info, SchedulerState state, int index,
      boolean leaf) {
    QueueSnapshot q = state.queue(index);
    CapacitySchedulerConfiguration conf = state.configuration();
    String path = q.getPath();
    info.queuePath = path;
    info.queueName = q.getName();
    info.capacity = percent(q.getCapacity());
    info.usedCapacity = percent(q.getUsedCapacity());
    info.maxCapacity = shownAsIs(maximum(q.getMaximumCapacity()));
    info.absoluteCapacity = percent(clamp(q.getAbsoluteCapacity()));
    info.absoluteMaxCapacity = shownAsIs(clamp(q.getAbsoluteMaximumCapacity()));
    info.absoluteUsedCapacity = percent(clamp(q.getAbsoluteUsedCapacity()));
    info.weight = (float) q.getWeight();
    info.normalizedWeight = state.normalizedWeight(index);
    info.numApplications = q.getNumApplications();
    info.maxParallelApps = q.getMaxParallelApps();
    QueueMetrics metrics = state.metrics(index);
    if (metrics != null) {
      info.allocatedContainers = metrics.getAllocatedContainers();
      info.pendingContainers = metrics.getPendingContainers();
      info.reservedContainers = metrics.getReservedContainers();
    }
    info.state = q.getState();
    info.defaultNodeLabelExpression = conf.getDefaultNodeLabelExpression(path);
    // Sorted, as Apache lists them.
    info.nodeLabels = new ArrayList<>(new java.util.TreeSet<>(state.accessibleLabels(index)));
    info.resourcesUsed = new ResourceInfo(used(q));
    info.capacities = capacities(state, index, leaf);
    info.resources = new ResourcesInfo(usage(state, index, leaf), leaf);
    info.minEffectiveCapacity = new ResourceInfo(q.getEffectiveMinResource());
    info.maxEffectiveCapacity = new ResourceInfo(q.getEffectiveMaxResource());
    info.maximumAllocation = new ResourceInfo(maximumAllocation(q));
    info.queueAcls = new QueueAclsInfo();
    info.queueAcls.addAll(acls(conf, path));
    info.queuePriority = conf.getQueuePriority(path).getPriority();
    info.mode = mode(conf, q);
    info.queueType = leaf ? "leaf" : "parent";
    info.creationMethod = q.getCreationMethod();
    info.autoCreationEligibility = q.getAutoCreationEligibility();
    info.isAbsoluteResource = "absolute".equals(info.mode);
    info.autoCreateChildQueueEnabled = conf.isAutoCreateChildQueueEnabled(path);
    info.leafQueueTemplate = new LeafQueueTemplateInfo(conf, path);
  }

  /**
   * The queue's capacities in each partition its view lists: the default one and the
   * labelled ones the core reports, in the order Apache's hash set of labels gives them.
   */
  private static QueueCapacitiesInfo capacities(SchedulerState state, int index,
      boolean leaf) {
    PartitionReport partitions = state.partitions();
    Map<String, Integer> rows = new HashMap<>();
    for (int r = 0; r < partitions.size(); r++) {
      if (partitions.isQueue(r) && partitions.owner(r) == index && partitions.inCapacities(r)) {
        rows.put(partitions.label(r), r);
      }
    }
    Set<String> labels = new HashSet<>(rows.keySet());
    labels.add(DEFAULT_PARTITION);
    QueueCapacitiesInfo out = new QueueCapacitiesInfo();
    for (String label : labels) {
      out.add(label.equals(DEFAULT_PARTITION) ? partitionCapacities(state, index, leaf)
          : labelledCapacities(state, index, leaf, rows.get(label)));
    }
    return out;
  }

  /** A labelled partition's capacities (row {@code r} of the core's partition report). */
  private static PartitionQueueCapacitiesInfo labelledCapacities(SchedulerState state,
      int index, boolean leaf, int r) {
    PartitionReport p = state.partitions();
    CapacitySchedulerConfiguration conf = state.configuration();
    String path = state.queue(index).getPath();
    String label = p.label(r);
    boolean configured = p.isConfigured(r);
    QueueCapacityVector vector = configured
        ? new QueueCapacityConfigParser().parse(conf.get(
            CapacitySchedulerConfiguration.getNodeLabelPrefix(path, label)
                + CapacitySchedulerConfiguration.CAPACITY), path)
        : new QueueCapacityVector();
    Resource none = Resource.newInstance(0, 0);
    // A queue without keys for the label has Apache's empty quotas there: Resources.none()
    // itself, whose resource types' allocation bounds the view shows.
    Resource effectiveMin = configured ? p.effectiveMin(r) : Resources.none();
    Resource effectiveMax = configured ? p.effectiveMax(r) : Resources.none();
    Resource configuredMax = configured && p.configuredMax(r) != null ? p.configuredMax(r)
        : Resources.none();
    return new PartitionQueueCapacitiesInfo(label, new QueueCapacityVectorInfo(vector),
        percent(p.capacity(r)), percent(p.usedCapacity(r)),
        shownAsIs(maximum(p.maximumCapacity(r))), percent(clamp(p.absoluteCapacity(r))),
        percent(clamp(p.absoluteUsedCapacity(r))),
        shownAsIs(clamp(p.absoluteMaximumCapacity(r))),
        leaf ? percent(p.maximumAmResourcePercent(r)) : 0f, (float) p.weight(r),
        (float) p.normalizedWeight(r),
        configured ? conf.getMinimumResourceRequirement(label, path, ABSOLUTE_RESOURCE_TYPES)
            : none,
        configuredMax, effectiveMin, effectiveMax);
  }

  /** The default partition's capacities. */
  private static PartitionQueueCapacitiesInfo partitionCapacities(SchedulerState state,
      int index, boolean leaf) {
    QueueSnapshot q = state.queue(index);
    CapacitySchedulerConfiguration conf = state.configuration();
    return new PartitionQueueCapacitiesInfo(DEFAULT_PARTITION,
        capacityVector(conf, q.getPath()), percent(q.getCapacity()),
        percent(q.getUsedCapacity()), shownAsIs(maximum(q.getMaximumCapacity())),
        percent(clamp(q.getAbsoluteCapacity())), percent(clamp(q.getAbsoluteUsedCapacity())),
        shownAsIs(clamp(q.getAbsoluteMaximumCapacity())),
        leaf ? percent(q.getMaximumAmResourcePercent()) : 0f,
        (float) q.getWeight(), state.normalizedWeight(index),
        configuredMinimum(conf, q),
        conf.getMaximumResourceRequirement(DEFAULT_PARTITION, q.getPath(),
            ABSOLUTE_RESOURCE_TYPES),
        q.getEffectiveMinResource(), q.getEffectiveMaxResource());
  }

  /**
   * The minimum resources configured for the queue; none for a managed parent's leaf that
   * holds no guarantee now, as Apache zeroes such a leaf's configured minimum.
   */
  private static Resource configuredMinimum(CapacitySchedulerConfiguration conf,
      QueueSnapshot q) {
    if (q.isAutoCreatedLeaf() && q.getAbsoluteCapacity() == 0) {
      return Resource.newInstance(0, 0);
    }
    return conf.getMinimumResourceRequirement(DEFAULT_PARTITION, q.getPath(),
        ABSOLUTE_RESOURCE_TYPES);
  }

  /**
   * The queue's resources in each partition its view lists (the default one and the
   * labelled ones the core reports), the AM's share too for a leaf.
   */
  private static ResourceUsage usage(SchedulerState state, int index, boolean leaf) {
    QueueSnapshot q = state.queue(index);
    ResourceUsage usage = new ResourceUsage();
    usage.setUsed(used(q));
    usage.setReserved(q.getReserved());
    usage.setPending(state.pending(index));
    if (leaf) {
      // By partition: ResourceUsage.setUserAMLimit(Resource) sets the AM limit instead.
      usage.setAMUsed(DEFAULT_PARTITION, q.getAmResourceUsed());
      usage.setAMLimit(DEFAULT_PARTITION, q.getAmResourceLimit());
      usage.setUserAMLimit(DEFAULT_PARTITION, q.getUserAmResourceLimit());
    }
    PartitionReport p = state.partitions();
    for (int r = 0; r < p.size(); r++) {
      if (!p.isQueue(r) || p.owner(r) != index || !p.inUsage(r)) {
        continue;
      }
      String label = p.label(r);
      usage.setUsed(label, p.used(r));
      usage.setReserved(label, p.reserved(r));
      // A copy: the RM's request bookkeeping's own record carries allocation bounds that
      // Apache's queue usage does not.
      Resource pending = state.pending(index, label);
      usage.setPending(label, Resource.newInstance(pending.getMemorySize(),
          pending.getVirtualCores()));
      if (leaf) {
        usage.setAMUsed(label, p.amUsed(r));
        usage.setAMLimit(label, p.amLimit(r));
        usage.setUserAMLimit(label, p.userAmLimit(r));
      }
    }
    return usage;
  }

  /** The leaf's users, as Apache's UsersManager lists them. */
  private static ArrayList<UserInfo> users(SchedulerState state, int index) {
    UserReport report = state.users();
    Resource userAmLimit = state.queue(index).getUserAmResourceLimit();
    ArrayList<UserInfo> out = new ArrayList<>();
    PartitionReport partitions = state.partitions();
    for (int u : state.usersOf(index)) {
      ResourceUsage usage = new ResourceUsage();
      usage.setUsed(report.usedInDefaultPartition(u));
      usage.setAMUsed(report.amUsed(u));
      usage.setAMLimit(DEFAULT_PARTITION, Resources.multiply(userAmLimit, report.weight(u)));
      for (int r = 0; r < partitions.size(); r++) {
        if (!partitions.isQueue(r) && partitions.owner(r) == u) {
          String label = partitions.label(r);
          usage.setUsed(label, partitions.used(r));
          usage.setAMUsed(label, partitions.amUsed(r));
          usage.setAMLimit(label, partitions.amLimit(r));
        }
      }
      out.add(CapschedUserInfos.of(report.name(u), report.used(u),
          report.activeApplications(u), report.pendingApplications(u), report.amUsed(u),
          report.limit(u), usage, (float) report.weight(u), report.isActive(u)));
    }
    return out;
  }

  /** The queue's ACLs, as configured, sorted by access type as Apache sorts them. */
  private static ArrayList<QueueAclInfo> acls(CapacitySchedulerConfiguration conf, String path) {
    ArrayList<QueueAclInfo> out = new ArrayList<>();
    for (Map.Entry<AccessType, AccessControlList> e : conf.getAcls(path).entrySet()) {
      out.add(new QueueAclInfo(e.getKey().toString(), e.getValue().getAclString()));
    }
    out.add(new QueueAclInfo(AccessType.APPLICATION_MAX_PRIORITY.toString(),
        conf.get(CapacitySchedulerConfiguration.getQueuePrefix(path)
            + "acl_application_max_priority", CapacitySchedulerConfiguration.ALL_ACL)));
    out.sort(Comparator.comparing(QueueAclInfo::getAccessType));
    return out;
  }

  private static QueueCapacityVectorInfo capacityVector(CapacitySchedulerConfiguration conf,
      String path) {
    String configured = conf.get(CapacitySchedulerConfiguration.getQueuePrefix(path)
        + CapacitySchedulerConfiguration.CAPACITY);
    if (path.equals(CapacitySchedulerConfiguration.ROOT) && configured == null) {
      configured = "100";
    }
    // A queue without a capacity key (one with shares of labels only, say) has Apache's
    // empty vector.
    return new QueueCapacityVectorInfo(configured == null ? new QueueCapacityVector()
        : new QueueCapacityConfigParser().parse(configured, path));
  }

  /** Apache's mode names: how the queue's capacity is configured. */
  private static String mode(CapacitySchedulerConfiguration conf, QueueSnapshot q) {
    String configured = conf.get(CapacitySchedulerConfiguration.getQueuePrefix(q.getPath())
        + CapacitySchedulerConfiguration.CAPACITY);
    if (configured != null && configured.trim().startsWith("[")) {
      return "absolute";
    }
    return q.getWeight() >= 0 ? "weight" : "percentage";
  }

  private static Set<String> absoluteResourceTypes() {
    Set<String> out = new HashSet<>();
    for (AbsoluteResourceType type : AbsoluteResourceType.values()) {
      out.add(type.toString().toLowerCase(Locale.ROOT));
    }
    return out;
  }

  private static Resource used(QueueSnapshot q) {
    return Resource.newInstance(q.getUsedMemoryMb(), (int) q.getUsedVcores());
  }

  private static Resource maximumAllocation(QueueSnapshot q) {
    return Resource.newInstance(q.getMaximumAllocationMb(), (int) q.getMaximumAllocationVcores());
  }

  /**
   * The scheduler-health block, in Apache's shape, from the RM's record the scheduler
   * keeps as Apache's does: the last allocation, release, preemption and reservation, and
   * the last heartbeat's counts and resources.
   */
  private static CapacitySchedulerHealthInfo health(SchedulerHealth ht) {
    CapacitySchedulerHealthInfo info = new CapacitySchedulerHealthInfo();
    info.lastrun = ht.getLastSchedulerRunTime();
    info.operationsInfo = new ArrayList<>();
    info.operationsInfo.add(new CapacitySchedulerHealthInfo.OperationInformation(
        "last-allocation", ht.getLastAllocationDetails()));
    info.operationsInfo.add(new CapacitySchedulerHealthInfo.OperationInformation(
        "last-release", ht.getLastReleaseDetails()));
    info.operationsInfo.add(new CapacitySchedulerHealthInfo.OperationInformation(
        "last-preemption", ht.getLastPreemptionDetails()));
    info.operationsInfo.add(new CapacitySchedulerHealthInfo.OperationInformation(
        "last-reservation", ht.getLastReservationDetails()));
    info.lastRunDetails = new ArrayList<>();
    info.lastRunDetails.add(new CapacitySchedulerHealthInfo.LastRunDetails("releases",
        ht.getReleaseCount(), ht.getResourcesReleased()));
    info.lastRunDetails.add(new CapacitySchedulerHealthInfo.LastRunDetails("allocations",
        ht.getAllocationCount(), ht.getResourcesAllocated()));
    info.lastRunDetails.add(new CapacitySchedulerHealthInfo.LastRunDetails("reservations",
        ht.getReservationCount(), ht.getResourcesReserved()));
    return info;
  }

  /**
   * A share as the view shows it: a percentage, in floats as Apache keeps them. A share
   * that is not a number (an absolute-resource queue's before any NodeManager registers)
   * reads 0: JSON has no NaN, and a client's parser would refuse the whole document.
   */
  private static float percent(double share) {
    return Double.isNaN(share) ? 0f : (float) share * 100;
  }

  /**
   * A share as a percentage, NaN kept: an absolute-resource queue's maximum in a partition
   * whose nodes offer nothing is nothing over nothing, which Apache derives and shows as NaN.
   */
  private static float shownAsIs(double share) {
    return (float) share * 100;
  }

  /** Apache shows a maximum of 0 or above 1 as 1 (100%). */
  private static double maximum(double share) {
    float f = (float) share;
    return f < CapacitySchedulerQueueInfo.EPSILON || f > 1f ? 1.0 : f;
  }

  private static double clamp(double share) {
    return Math.min(Math.max((float) share, 0f), 1f);
  }

  /** CapacitySchedulerInfo keeps the root's path in a private field with no setter. */
  private static void setRootPath(CapacitySchedulerInfo info, String path) {
    try {
      Field field = CapacitySchedulerInfo.class.getDeclaredField("queuePath");
      field.setAccessible(true);
      field.set(info, path);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("CapacitySchedulerInfo has no queuePath field", e);
    }
  }
}
