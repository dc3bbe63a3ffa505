package org.capsched.yarn.web;

import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

import org.apache.hadoop.yarn.api.records.QueueState;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerHealth;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.MetricsOverviewTable;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.RMAppsBlock;
import org.apache.hadoop.yarn.util.Times;
import org.apache.hadoop.yarn.webapp.hamlet2.Hamlet;
import org.apache.hadoop.yarn.webapp.view.HtmlBlock;
import org.capsched.yarn.PartitionReport;
import org.capsched.yarn.QueueSnapshot;
import org.capsched.yarn.RustCapacityScheduler;
import org.capsched.yarn.UserReport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.google.inject.Inject;

/**
 * The Scheduler page's body: cluster metrics, the queue tree (each queue's state, a bar of
 * its guarantee, usage and maximum as shares of the cluster, its resources and
 * applications), each labelled partition's queues, the scheduler's health, each leaf's
 * limits and users, then the RM's applications table. Built
 * from one read of the core's reports; if that read fails the page says so and still
 * shows the rest.
 */
public class RustSchedulerBlock extends HtmlBlock {
  private static final Logger LOG = LoggerFactory.getLogger(RustSchedulerBlock.class);

  private final ResourceManager rm;

  @Inject
  RustSchedulerBlock(ResourceManager rm, ViewContext ctx) {
    super(ctx);
    this.rm = rm;
  }

  @Override
  protected void render(Block html) {
    html.__(MetricsOverviewTable.class);
    ResourceScheduler scheduler = rm.getResourceScheduler();
    SchedulerState state = null;
    if (scheduler instanceof RustCapacityScheduler) {
      try {
        state = SchedulerState.of((RustCapacityScheduler) scheduler);
      } catch (RuntimeException e) {
        LOG.warn("The scheduler page could not read the queues", e);
        html.p().__("The queues could not be read from the scheduler: " + e).__();
      }
    } else {
      html.p().__("This page shows RustCapacityScheduler's queues; the RM runs "
          + (scheduler == null ? "no scheduler" : scheduler.getClass().getName())).__();
    }
    if (state != null && state.size() > 0) {
      queues(html, state);
      partitions(html, state);
      health(html, state, scheduler.getRootQueueMetrics());
      leaves(html, state);
    }
    html.__(RMAppsBlock.class);
  }

  /**
   * The scheduler's health, as Apache's page shows it: totals since the RM started, the
   * last heartbeat's allocations, reservations and releases, and the last operation of
   * each kind.
   */
  private static void health(Block html, SchedulerState state, QueueMetrics root) {
    SchedulerHealth h = state.health();
    Hamlet.DIV<Hamlet> div = html.div("#health");
    div.h3("Scheduler health");
    div.table("#health-totals")
        .thead().tr().th("Containers allocated").th("Containers released")
            .th("Reservations fulfilled").th("Containers preempted").__().__()
        .tbody().tr()
            .td(Long.toString(root == null ? 0 : root.getAggregateAllocatedContainers()))
            .td(Long.toString(root == null ? 0 : root.getAggegatedReleasedContainers()))
            .td(String.valueOf(h.getAggregateFulFilledReservationsCount()))
            .td(String.valueOf(h.getAggregatePreemptionCount()))
        .__().__().__();
    div.table("#health-lastrun")
        .thead().tr().th("Last heartbeat").th("Allocations (count - resources)")
            .th("Reservations (count - resources)").th("Releases (count - resources)").__().__()
        .tbody().tr()
            .td(time(h.getLastSchedulerRunTime()))
            .td(h.getAllocationCount() + " - " + resource(h.getResourcesAllocated()))
            .td(h.getReservationCount() + " - " + resource(h.getResourcesReserved()))
            .td(h.getReleaseCount() + " - " + resource(h.getResourcesReleased()))
        .__().__().__();
    Hamlet.TBODY<Hamlet.TABLE<Hamlet.DIV<Hamlet>>> body = div.table("#health-operations")
        .thead().tr().th("Last").th("Time").th("Container").th("Node").th("Queue").__().__()
        .tbody();
    operation(body, "Allocation", h.getLastAllocationDetails());
    operation(body, "Reservation", h.getLastReservationDetails());
    operation(body, "Release", h.getLastReleaseDetails());
    operation(body, "Preemption", h.getLastPreemptionDetails());
    body.__().__().__();
  }

  private static void operation(Hamlet.TBODY<Hamlet.TABLE<Hamlet.DIV<Hamlet>>> body,
      String name, SchedulerHealth.DetailedInformation d) {
    body.tr().td(name)
        .td(d == null ? "N/A" : time(d.getTimestamp()))
        .td(d == null || d.getContainerId() == null ? "N/A" : d.getContainerId().toString())
        .td(d == null || d.getNodeId() == null ? "N/A" : d.getNodeId().toString())
        .td(d == null || d.getQueue() == null ? "N/A" : d.getQueue())
        .__();
  }

  /** A time as the RM's pages show times; "N/A" before the first. */
  private static String time(long millis) {
    return millis <= 0 ? "N/A" : Times.format(millis);
  }

  /** The tree as one table, each queue indented under its parent. */
  private static void queues(Block html, SchedulerState state) {
    Hamlet.DIV<Hamlet> div = html.div("#cs-wrapper.ui-widget");
    div.div(".ui-widget-header.ui-corner-top").__("Application Queues").__();
    div.div(".qlegend").b("Legend (shares of the cluster):")
        .span().$style("background:#e8e8e8").__().__("Max capacity")
        .span().$style("background:#b5d6f5").__().__("Capacity")
        .span().$style("background:#5a5").__().__("Used")
        .span().$style("background:#e8a33d").__().__("Used (over capacity)")
        .__();
    Hamlet.TBODY<Hamlet.TABLE<Hamlet.DIV<Hamlet>>> body = div.table("#queues")
        .thead().tr()
        .th("Queue").th("State").th(".bar", "Cluster share").th("Capacity")
        .th("Used").th("Abs. capacity").th("Abs. max").th("Resources used")
        .th("Active apps").th("Pending apps")
        .__().__()
        .tbody();
    row(body, state, 0, 0);
    body.__().__().__();
  }

  private static void row(Hamlet.TBODY<Hamlet.TABLE<Hamlet.DIV<Hamlet>>> body,
      SchedulerState state, int index, int depth) {
    QueueSnapshot q = state.queue(index);
    boolean leaf = state.isLeaf(index);
    double absCap = clamp(q.getAbsoluteCapacity());
    double absMax = clamp(q.getAbsoluteMaximumCapacity());
    double absUsed = clamp(q.getAbsoluteUsedCapacity());
    boolean over = q.getAbsoluteUsedCapacity() > q.getAbsoluteCapacity() + 1e-9;
    QueueState queueState = q.getState();
    body.tr(leaf ? ".queue.leaf" : ".queue").$id("q-" + q.getPath()).$title(q.getPath())
        .td().$style("padding-left:" + (0.5 + 1.5 * depth) + "em")
            .span(".q", q.getName()).__()
        .td().span(".qstate-" + queueState, queueState.toString()).__()
        .td().$class("bar").span().$class("qbar")
            .span().$class("max").$style(width(absMax)).__()
            .span().$class("cap").$style(width(absCap)).__()
            .span().$class(over ? "over" : "used").$style(width(absUsed)).__()
            .__().__()
        .td(percent(q.getCapacity()) + (q.getWeight() >= 0
            ? String.format(Locale.ROOT, " (weight %.2f)", q.getWeight()) : ""))
        .td(percent(q.getUsedCapacity()))
        .td(percent(q.getAbsoluteCapacity()))
        .td(percent(q.getAbsoluteMaximumCapacity()))
        .td(resource(q.getUsedMemoryMb(), q.getUsedVcores()))
        .td(leaf ? Integer.toString(q.getNumActiveApplications()) : "")
        .td(leaf ? Integer.toString(q.getNumPendingApplications()) : "")
        .__();
    for (int child : state.children(index)) {
      row(body, state, child, depth + 1);
    }
  }

  /**
   * The labelled partitions, one table each (as Apache's page has a tab per partition):
   * every queue the scheduler lists there, with its shares of the partition, what it holds
   * there and, for a leaf, its ApplicationMasters' share. Nothing on a cluster without
   * labels.
   */
  private static void partitions(Block html, SchedulerState state) {
    PartitionReport p = state.partitions();
    Set<String> labels = new TreeSet<>();
    for (int r = 0; r < p.size(); r++) {
      if (p.isQueue(r) && p.inCapacities(r)) {
        labels.add(p.label(r));
      }
    }
    if (labels.isEmpty()) {
      return;
    }
    Hamlet.DIV<Hamlet> div = html.div("#partitions");
    div.h3("Node label partitions");
    for (String label : labels) {
      Hamlet.TBODY<Hamlet.TABLE<Hamlet.DIV<Hamlet>>> body =
          div.h4("Partition: " + label).table(".partition").$id("partition-" + label)
              .thead().tr()
              .th("Queue").th("Capacity").th("Max capacity").th("Abs. capacity").th("Abs. max")
              .th("Used").th("Abs. used").th("Resources used").th("Reserved")
              .th("AM used").th("AM limit")
              .__().__()
              .tbody();
      for (int r = 0; r < p.size(); r++) {
        if (!p.isQueue(r) || !p.inCapacities(r) || !p.label(r).equals(label)) {
          continue;
        }
        int queue = p.owner(r);
        boolean leaf = state.isLeaf(queue);
        body.tr().$title(state.queue(queue).getPath())
            .td(state.queue(queue).getPath())
            .td(percent(p.capacity(r)))
            .td(percent(p.maximumCapacity(r) <= 0 ? 1 : p.maximumCapacity(r)))
            .td(percent(p.absoluteCapacity(r)))
            .td(percent(p.absoluteMaximumCapacity(r)))
            .td(percent(p.usedCapacity(r)))
            .td(percent(p.absoluteUsedCapacity(r)))
            .td(resource(p.used(r)))
            .td(resource(p.reserved(r)))
            .td(leaf ? resource(p.amUsed(r)) : "")
            .td(leaf ? resource(p.amLimit(r)) : "")
            .__();
      }
      body.__().__();
    }
    div.__();
  }

  /** Each leaf's limits and its users, one section per leaf. */
  private static void leaves(Block html, SchedulerState state) {
    Hamlet.DIV<Hamlet> div = html.div("#leaves");
    div.h3("Leaf queues");
    for (int i = 0; i < state.size(); i++) {
      if (!state.isLeaf(i)) {
        continue;
      }
      QueueSnapshot q = state.queue(i);
      Hamlet.DIV<Hamlet.DIV<Hamlet>> details = div.div(".leaf").$id("leaf-" + q.getPath());
      details.h4(q.getPath() + " — " + q.getState() + ", "
          + percent(q.getAbsoluteUsedCapacity()) + " of the cluster used");
      details.table(".qinfo")
          .tr().th("Effective capacity:").td(resource(q.getEffectiveMinResource())).__()
          .tr().th("Effective max capacity:").td(resource(q.getEffectiveMaxResource())).__()
          .tr().th("Used resources:").td(resource(q.getUsedMemoryMb(), q.getUsedVcores())).__()
          .tr().th("Reserved resources:").td(resource(q.getReserved())).__()
          .tr().th("Configured max AM resource:").td(percent(q.getMaximumAmResourcePercent())).__()
          .tr().th("Max AM resources:").td(resource(q.getAmResourceLimit())).__()
          .tr().th("Used AM resources:").td(resource(q.getAmResourceUsed())).__()
          .tr().th("Max AM resources per user:").td(resource(q.getUserAmResourceLimit())).__()
          .tr().th("Schedulable (active) applications:")
              .td(Integer.toString(q.getNumActiveApplications())).__()
          .tr().th("Non-schedulable (pending) applications:")
              .td(Integer.toString(q.getNumPendingApplications())).__()
          .tr().th("Max applications:").td(Integer.toString(q.getMaximumApplications())).__()
          .tr().th("Max applications per user:")
              .td(Integer.toString(q.getMaximumApplicationsPerUser())).__()
          .tr().th("Max parallel applications:").td(q.getMaxParallelApps() == Integer.MAX_VALUE
              ? "unlimited" : Integer.toString(q.getMaxParallelApps())).__()
          .tr().th("Minimum user limit percent:")
              .td(String.format(Locale.ROOT, "%.0f%%", q.getMinimumUserLimitPercent())).__()
          .tr().th("User limit factor:")
              .td(String.format(Locale.ROOT, "%.2f", q.getUserLimitFactor())).__()
          .tr().th("Max allocation:")
              .td(resource(q.getMaximumAllocationMb(), q.getMaximumAllocationVcores())).__()
          .__();
      users(details, state, i);
      details.__();
    }
    div.__();
  }

  private static void users(Hamlet.DIV<Hamlet.DIV<Hamlet>> details, SchedulerState state,
      int queue) {
    UserReport users = state.users();
    if (state.usersOf(queue).isEmpty()) {
      details.p().__("No active users.").__();
      return;
    }
    Hamlet.TBODY<Hamlet.TABLE<Hamlet.DIV<Hamlet.DIV<Hamlet>>>> body =
        details.table(".users.ui-widget-content")
            .thead().tr()
            .th("User Name").th("User Limit Resource").th("Weight").th("Used Resource")
            .th("Used AM Resource").th("Schedulable Apps").th("Non-Schedulable Apps")
            .__().__()
            .tbody();
    for (int u : state.usersOf(queue)) {
      body.tr()
          .td(users.name(u))
          .td(resource(users.limit(u)))
          .td(String.format(Locale.ROOT, "%.1f", users.weight(u)))
          .td(resource(users.used(u)))
          .td(resource(users.amUsed(u)))
          .td(Integer.toString(users.activeApplications(u)))
          .td(Integer.toString(users.pendingApplications(u)))
          .__();
    }
    body.__().__();
  }

  private static String resource(Resource r) {
    return resource(r.getMemorySize(), r.getVirtualCores());
  }

  private static String resource(long memoryMb, long vcores) {
    return "<memory:" + memoryMb + ", vCores:" + vcores + ">";
  }

  /** A share as a percentage with one decimal; "—" when it is not a number. */
  private static String percent(double share) {
    if (Double.isNaN(share) || Double.isInfinite(share)) {
      return "—";
    }
    return String.format(Locale.ROOT, "%.1f%%", share * 100);
  }

  private static String width(double share) {
    return String.format(Locale.ROOT, "width:%.1f%%", share * 100);
  }

  private static double clamp(double share) {
    return Double.isNaN(share) ? 0 : Math.min(Math.max(share, 0), 1);
  }
}
