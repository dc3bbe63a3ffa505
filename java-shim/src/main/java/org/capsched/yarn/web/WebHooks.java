package org.capsched.yarn.web;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Points the RM's web UI at this scheduler's Scheduler page and REST view. The RM picks a
 * third-party scheduler's page from {@code yarn.http.rmwebapp.scheduler.page.class} (with
 * the key unset every request of {@code /cluster/scheduler} fails) and its REST root from
 * {@code yarn.webapp.custom.webservice.class} (without ours, {@code /ws/v1/cluster/scheduler}
 * answers 404 "Unknown scheduler configured"). Both are read from the RM's configuration
 * after the scheduler is set up, so the scheduler sets them there when the operator has
 * not: swapping the scheduler class is the only change an operator makes. A value the
 * operator set is kept, with a warning saying what it costs.
 */
public final class WebHooks {
  private static final Logger LOG = LoggerFactory.getLogger(WebHooks.class);

  private WebHooks() {
  }

  /** Sets the two keys on the RM's {@code conf} unless the operator set them. */
  public static void install(Configuration conf) {
    install(conf, YarnConfiguration.YARN_HTTP_WEBAPP_SCHEDULER_PAGE, RustSchedulerPage.class,
        "the Scheduler page (/cluster/scheduler) will not show the queues");
    install(conf, YarnConfiguration.YARN_WEBAPP_CUSTOM_WEBSERVICE_CLASS,
        RustRMWebServices.class, "GET /ws/v1/cluster/scheduler will answer 404 unless that "
            + "class serves it");
  }

  private static void install(Configuration conf, String key, Class<?> ours, String cost) {
    String set = conf.getTrimmed(key, "");
    if (set.isEmpty()) {
      conf.set(key, ours.getName(), "RustCapacityScheduler");
      LOG.info("{} set to {} for the RM's web UI", key, ours.getName());
    } else if (!set.equals(ours.getName())) {
      LOG.warn("{} is {}, not {}: {}", key, set, ours.getName(), cost);
    }
  }
}
