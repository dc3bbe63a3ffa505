package org.capsched.yarn.web;

import java.io.IOException;
import java.util.Set;

import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.QueryParam;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.MediaType;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.http.JettyUtils;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.RMWSConsts;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.RMWebServices;
import org.apache.hadoop.yarn.webapp.BadRequestException;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.AppsInfo;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.CapschedSchedulerInfos;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.SchedulerTypeInfo;
import org.capsched.yarn.RustCapacityScheduler;

import com.google.inject.Inject;
import com.google.inject.Singleton;

/**
 * The RM's REST API ({@code /ws/v1/cluster}) with the scheduler view answered for
 * RustCapacityScheduler in Apache's CapacityScheduler shape, and the application list's
 * queue checked as for Apache's; every other endpoint is the RM's own. The RM uses it when {@code yarn.webapp.custom.webservice.class} names it,
 * which the scheduler sets when the operator has not (see {@link WebHooks}).
 */
@Singleton
@Path(RMWSConsts.RM_WEB_SERVICE_PATH)
public class RustRMWebServices extends RMWebServices {
  private final ResourceManager rm;
  private @Context HttpServletResponse response;

  @Inject
  public RustRMWebServices(ResourceManager rm, Configuration conf) {
    super(rm, conf);
    this.rm = rm;
  }

  /**
   * {@code GET /ws/v1/cluster/scheduler}: the queue tree, as Apache's CapacityScheduler
   * gives it; the RM's own answer for any other scheduler.
   */
  @GET
  @Path(RMWSConsts.SCHEDULER)
  @Produces({MediaType.APPLICATION_JSON + "; " + JettyUtils.UTF_8,
      MediaType.APPLICATION_XML + "; " + JettyUtils.UTF_8})
  @Override
  public SchedulerTypeInfo getSchedulerInfo() {
    ResourceScheduler scheduler = rm.getResourceScheduler();
    if (!(scheduler instanceof RustCapacityScheduler)) {
      return super.getSchedulerInfo();
    }
    if (response != null) {
      // As the RM's readable endpoints do: the content type is the one negotiated.
      response.setContentType(null);
    }
    return CapschedSchedulerInfos.of(SchedulerState.of((RustCapacityScheduler) scheduler));
  }

  /**
   * {@code GET /ws/v1/cluster/apps}: the RM's own answer, after refusing an unknown
   * {@code queue} the way the RM does for Apache's CapacityScheduler (400, "Unknown queue:
   * NAME") — the RM checks that only when its scheduler is a CapacityScheduler.
   */
  @GET
  @Path(RMWSConsts.APPS)
  @Produces({MediaType.APPLICATION_JSON + "; " + JettyUtils.UTF_8,
      MediaType.APPLICATION_XML + "; " + JettyUtils.UTF_8})
  @Override
  public AppsInfo getApps(@Context HttpServletRequest hsr,
      @QueryParam(RMWSConsts.STATE) String stateQuery,
      @QueryParam(RMWSConsts.STATES) Set<String> statesQuery,
      @QueryParam(RMWSConsts.FINAL_STATUS) String finalStatusQuery,
      @QueryParam(RMWSConsts.USER) String userQuery,
      @QueryParam(RMWSConsts.QUEUE) String queueQuery,
      @QueryParam(RMWSConsts.LIMIT) String limit,
      @QueryParam(RMWSConsts.STARTED_TIME_BEGIN) String startedBegin,
      @QueryParam(RMWSConsts.STARTED_TIME_END) String startedEnd,
      @QueryParam(RMWSConsts.FINISHED_TIME_BEGIN) String finishBegin,
      @QueryParam(RMWSConsts.FINISHED_TIME_END) String finishEnd,
      @QueryParam(RMWSConsts.APPLICATION_TYPES) Set<String> applicationTypes,
      @QueryParam(RMWSConsts.APPLICATION_TAGS) Set<String> applicationTags,
      @QueryParam(RMWSConsts.NAME) String name,
      @QueryParam(RMWSConsts.DESELECTS) Set<String> unselectedFields) {
    ResourceScheduler scheduler = rm.getResourceScheduler();
    if (scheduler instanceof RustCapacityScheduler && queueQuery != null
        && !queueQuery.isEmpty()) {
      try {
        scheduler.getQueueInfo(queueQuery, false, false);
      } catch (IOException unknown) {
        throw new BadRequestException(unknown.getMessage());
      }
    }
    return super.getApps(hsr, stateQuery, statesQuery, finalStatusQuery, userQuery,
        queueQuery, limit, startedBegin, startedEnd, finishBegin, finishEnd, applicationTypes,
        applicationTags, name, unselectedFields);
  }
}
