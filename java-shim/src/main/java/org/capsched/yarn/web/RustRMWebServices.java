package org.capsched.yarn.web;

import javax.servlet.http.HttpServletResponse;
import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.MediaType;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.http.JettyUtils;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.RMWSConsts;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.RMWebServices;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.CapschedSchedulerInfos;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.SchedulerTypeInfo;
import org.capsched.yarn.RustCapacityScheduler;

import com.google.inject.Inject;
import com.google.inject.Singleton;

/**
 * The RM's REST API ({@code /ws/v1/cluster}) with the scheduler view answered for
 * RustCapacityScheduler in Apache's CapacityScheduler shape; every other endpoint is the
 * RM's own. The RM uses it when {@code yarn.webapp.custom.webservice.class} names it,
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
}
