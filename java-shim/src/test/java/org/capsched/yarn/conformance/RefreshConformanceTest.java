package org.capsched.yarn.conformance;

import static org.junit.Assert.assertEquals;

import java.io.IOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.capsched.yarn.RustCapacityScheduler;
import org.capsched.yarn.harness.RmHarness;
import org.junit.AfterClass;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;
import org.junit.runners.Parameterized.Parameters;

/**
 * `refreshQueues` rules against Apache: each case starts a real RM on one configuration and
 * refreshes it to another, with Apache's CapacityScheduler and with ours. Both must accept
 * or both must refuse the refresh; a refused refresh must leave the old queues in place.
 */
@RunWith(Parameterized.class)
public class RefreshConformanceTest {
  private static final List<String> REPORT = new ArrayList<>();

  private static String xml(String... kv) {
    return RmHarness.xml(kv);
  }

  private static final String AB = xml("root.queues", "a,b", "root.a.capacity", "50",
      "root.b.capacity", "50");
  private static final String AB_B_STOPPED = xml("root.queues", "a,b", "root.a.capacity", "50",
      "root.b.capacity", "50", "root.b.state", "STOPPED");
  private static final String AB_A_STOPPED = xml("root.queues", "a,b", "root.a.capacity", "50",
      "root.b.capacity", "50", "root.a.state", "STOPPED");

  @Parameters(name = "{0}")
  public static Collection<Object[]> cases() {
    return Arrays.asList(new Object[][] {
        {"add a queue", AB, xml("root.queues", "a,b,c", "root.a.capacity", "40",
            "root.b.capacity", "40", "root.c.capacity", "20")},
        {"change capacities and state", AB, xml("root.queues", "a,b", "root.a.capacity", "70",
            "root.b.capacity", "30", "root.b.state", "STOPPED")},
        {"remove a running queue", AB, xml("root.queues", "a", "root.a.capacity", "100")},
        {"remove a stopped queue", AB_B_STOPPED, xml("root.queues", "a", "root.a.capacity", "100")},
        {"move a queue", AB, xml("root.queues", "a", "root.a.capacity", "100",
            "root.a.queues", "b", "root.a.b.capacity", "100")},
        {"running leaf becomes a parent", AB, xml("root.queues", "a,b", "root.a.capacity", "50",
            "root.b.capacity", "50", "root.a.queues", "x", "root.a.x.capacity", "100")},
        {"stopped leaf becomes a parent", AB_A_STOPPED, xml("root.queues", "a,b",
            "root.a.capacity", "50", "root.b.capacity", "50", "root.a.queues", "x",
            "root.a.x.capacity", "100")},
        {"invalid capacities", AB, xml("root.queues", "a,b", "root.a.capacity", "60",
            "root.b.capacity", "50")},
    });
  }

  private final String name;
  private final String before;
  private final String after;

  public RefreshConformanceTest(String name, String before, String after) {
    this.name = name;
    this.before = before;
    this.after = after;
  }

  @Test
  public void refreshIsAcceptedOrRefusedAsApacheDoes() throws Exception {
    String apache = refresh(CapacityScheduler.class);
    String ours = refresh(RustCapacityScheduler.class);
    REPORT.add(String.format("%-32s apache: %s%n%-32s ours:   %s", name, apache, "", ours));
    assertEquals(name + ": apache " + apache + " / ours " + ours,
        apache.equals("accepted"), ours.equals("accepted"));
  }

  /** Starts an RM on {@link #before}, refreshes to {@link #after}; says what happened. */
  private String refresh(Class<? extends ResourceScheduler> scheduler) throws Exception {
    YarnConfiguration conf = RmHarness.configuration(scheduler,
        before.getBytes(StandardCharsets.UTF_8));
    MockRM rm = RmHarness.start(conf);
    try {
      rm.registerNode("node1:1234", 100 * 1024, 100);
      rm.drainEvents();
      URL file = conf.getClassLoader().getResource(YarnConfiguration.CS_CONFIGURATION_FILE);
      Files.write(Paths.get(file.toURI()), after.getBytes(StandardCharsets.UTF_8));
      try {
        rm.getResourceScheduler().reinitialize(new YarnConfiguration(conf), rm.getRMContext());
        return "accepted";
      } catch (IOException | RuntimeException e) {
        return "refused: " + RmHarness.reason(e);
      }
    } finally {
      rm.stop();
    }
  }

  @AfterClass
  public static void writeReport() throws IOException {
    Path dir = Paths.get(System.getProperty("capsched.report.dir", "build/reports"));
    Files.createDirectories(dir);
    Files.write(dir.resolve("refresh-conformance.txt"), REPORT);
  }
}
