package org.capsched.yarn.conformance;

import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Locale;

import org.junit.Test;

/**
 * The soak ({@link FaultSoak}): a random workload with faults through a real RM whose
 * scheduler is ours, the core and the RM agreeing after every step, until the scheduler has
 * handled {@code capsched.soak.events} events — 25,000 in the test command; the long run,
 * {@code gradle :java-shim:soak [-Pevents=1000000]}, runs this test alone with more. The
 * report goes to build/reports/fault-soak.md.
 */
public class FaultSoakTest {
  @Test(timeout = 3_600_000)
  public void aLongWorkloadWithFaultsKeepsTheBooksWholeAfterEveryStep() throws Exception {
    long events = Long.getLong("capsched.soak.events", 25_000L);
    long firstSeed = Long.getLong("capsched.soak.seed", 1L);
    FaultSoak.Result result = FaultSoak.run(events, firstSeed);
    String report = String.format(Locale.ROOT, "# Fault soak from seed %d%n%n%s", firstSeed,
        result.describe());
    System.out.print(report);
    Path out = Paths.get(System.getProperty("capsched.report.dir", "build/reports"),
        "fault-soak.md");
    Files.createDirectories(out.getParent());
    Files.write(out, report.getBytes(StandardCharsets.UTF_8));
    assertTrue(report, result.events >= events);
    // Every kind of fault happened, so the run cannot pass without them.
    for (String kind : new String[] {"expire-am", "expire-container", "fail-am", "remove-node",
        "node-resource", "restart-node", "lose-node", "return-node", "restart-rm", "refresh", "move", "priority", "remove", "finish",
        "complete"}) {
      assertTrue("no " + kind + " step ran: " + result.stepKinds,
          result.stepKinds.getOrDefault(kind, 0L) > 0);
    }
    assertTrue("no lost node's container was recovered: " + report,
        result.recoveredFromReturns > 0);
    assertTrue("no restarted RM recovered a container: " + report,
        result.recoveredAfterRestarts > 0);
    for (String event : new String[] {"CONTAINER_EXPIRED", "NODE_REMOVED",
        "APP_ATTEMPT_REMOVED", "MARK_CONTAINER_FOR_PREEMPTION"}) {
      assertTrue("no " + event + " reached the scheduler: " + result.eventKinds,
          result.eventKinds.getOrDefault(event, 0L) > 0);
    }
  }
}
