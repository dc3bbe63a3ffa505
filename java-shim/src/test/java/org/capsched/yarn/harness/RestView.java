package org.capsched.yarn.harness;

import java.io.StringWriter;
import java.nio.file.Paths;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.JAXBContextResolver;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.CapacitySchedulerInfo;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.CapschedSchedulerInfos;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.FairSchedulerInfo;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.SchedulerTypeInfo;
import org.capsched.yarn.RustCapacityScheduler;
import org.capsched.yarn.web.SchedulerState;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.sun.jersey.api.json.JSONJAXBContext;
import com.sun.jersey.api.json.JSONMarshaller;

/**
 * The REST scheduler view ({@code GET /ws/v1/cluster/scheduler}) of either scheduler, as
 * the RM's web services write it (the same DAOs through the RM's own JSON context), and its
 * fields flattened to "queue path | field = value" facts for a side-by-side comparison.
 * Fields that cannot match are listed with the reason in
 * {@code integration-tests/scenarios/rest-view-exceptions.txt}, and left out.
 */
public final class RestView {
  /** Array elements are named by the first of these fields they have. */
  private static final String[] ELEMENT_KEYS = {"queueName", "username", "partitionName",
      "accessType", "resourceName", "name", "operation"};
  /** Apache's document can carry NaN (absolute-resource shares of an empty cluster). */
  private static final ObjectMapper JSON = JsonMapper.builder()
      .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();
  /** The share fields, not compared on an empty cluster (see QueueProbe). */
  private static final java.util.Set<String> SHARES = new java.util.HashSet<>(
      java.util.Arrays.asList("capacity", "usedCapacity", "maxCapacity", "absoluteCapacity",
          "absoluteUsedCapacity", "absoluteMaxCapacity"));
  private static JSONMarshaller marshaller;
  /** Fields (their paths inside a queue's entry) left out, with the reason in the file. */
  private static final FieldExceptions EXCEPTIONS = new FieldExceptions(Paths.get(
      System.getProperty("capsched.rest.exceptions",
          "../integration-tests/scenarios/rest-view-exceptions.txt")));

  private RestView() {
  }

  /** The document the RM would answer now, as JSON. */
  public static String json(ResourceScheduler scheduler) throws Exception {
    SchedulerTypeInfo info;
    if (scheduler instanceof RustCapacityScheduler) {
      info = CapschedSchedulerInfos.of(SchedulerState.of((RustCapacityScheduler) scheduler));
    } else if (scheduler instanceof FairScheduler) {
      info = new SchedulerTypeInfo(new FairSchedulerInfo((FairScheduler) scheduler));
    } else {
      CapacityScheduler cs = (CapacityScheduler) scheduler;
      info = new SchedulerTypeInfo(new CapacitySchedulerInfo(cs.getRootQueue(), cs));
    }
    StringWriter out = new StringWriter();
    synchronized (RestView.class) {
      marshaller().marshallToJSON(info, out);
    }
    return out.toString();
  }

  private static synchronized JSONMarshaller marshaller() throws Exception {
    if (marshaller == null) {
      marshaller = ((JSONJAXBContext) new JAXBContextResolver(new Configuration(false))
          .getContext(SchedulerTypeInfo.class)).createJSONMarshaller();
    }
    return marshaller;
  }

  /**
   * The document's fields as "rest QUEUE-PATH | FIELD" → value, less the listed
   * exceptions; arrays of named things are keyed by name, not position.
   */
  public static Map<String, String> facts(ResourceScheduler scheduler) throws Exception {
    JsonNode root = JSON.readTree(json(scheduler)).path("scheduler").path("schedulerInfo");
    Map<String, String> out = new TreeMap<>();
    flatten(root, "root", "", out);
    if (scheduler.getClusterResource().getMemorySize() == 0) {
      // Shares of an empty cluster: Apache's absolute-resource queues report 0, NaN or a
      // ratio of configured vectors by calculator (README: differences); ours 0.
      out.keySet().removeIf(k -> SHARES.contains(k.substring(Math.max(k.lastIndexOf('.'),
          k.indexOf(" | ") + 2) + 1)));
    }
    return out;
  }

  private static void flatten(JsonNode node, String queue, String field, Map<String, String> out) {
    if (node.isObject()) {
      if (node.has("queuePath") && !field.isEmpty() && node.has("queueName")) {
        queue = node.path("queuePath").asText();
        field = "";
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        flatten(e.getValue(), queue, field.isEmpty() ? e.getKey() : field + "." + e.getKey(), out);
      }
    } else if (node.isArray()) {
      int i = 0;
      for (JsonNode element : node) {
        if (isIdleUser(element)) {
          // A user with nothing in the leaf: Apache lists it (with zeros) for a while,
          // ours does not (README: differences); QueueProbe leaves it out too.
          continue;
        }
        flatten(element, queue, field + "[" + elementName(element, i++) + "]", out);
      }
    } else if (!excepted(field)) {
      out.put("rest " + queue + " | " + field, value(node));
    }
  }

  private static boolean isIdleUser(JsonNode element) {
    return element.has("username") && element.path("resourcesUsed").path("memory").asLong() == 0
        && element.path("resourcesUsed").path("vCores").asLong() == 0
        && element.path("AMResourceUsed").path("memory").asLong() == 0
        && element.path("numActiveApplications").asInt() == 0
        && element.path("numPendingApplications").asInt() == 0;
  }

  /** Queues are flattened under their own path, so a child's "queues.queue[x]" prefix goes. */
  private static String elementName(JsonNode element, int index) {
    for (String key : ELEMENT_KEYS) {
      if (element.has(key) && element.path(key).isValueNode()) {
        return element.path(key).asText();
      }
    }
    return Integer.toString(index);
  }

  /**
   * Numbers to two decimals: the document's shares are percentages in floats, which the
   * two schedulers reach in different orders of arithmetic (Apache divides floats, ours
   * doubles) and so can part in the seventh digit; the harness compares shares to the
   * same precision elsewhere (QueueProbe: fractions to four decimals).
   */
  private static String value(JsonNode node) {
    if (node.isFloatingPointNumber()) {
      return String.format(java.util.Locale.ROOT, "%.2f", node.asDouble());
    }
    return node.asText();
  }

  private static boolean excepted(String field) {
    return EXCEPTIONS.excepts(field);
  }
}
