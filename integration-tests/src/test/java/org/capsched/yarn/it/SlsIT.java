package org.capsched.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.Test;

/**
 * Apache's Scheduler Load Simulator runs our scheduler as it runs Apache's: the small
 * synthetic trace's jobs, through the simulator's real ResourceManager (its NodeManagers
 * heartbeating through the resource tracker, its ApplicationMasters calling the
 * ApplicationMasterService), all end with either scheduler, and ours allocates as many
 * containers as Apache's (the trace draws the same jobs and tasks for both from its seed).
 */
public class SlsIT {
  @Test
  public void theSimulatorRunsATraceOnOurSchedulerAsOnApaches() throws Exception {
    Path dir = Paths.get(System.getProperty("capsched.process.cluster.dir", "build/process-clusters"));
    int jobs = new ObjectMapper().readTree(Files.newInputStream(Sls.inputs().resolve("trace-small.json")))
        .get("num_jobs").asInt();
    Sls.Result ours = Sls.run(Sls.Scheduler.OURS, "trace-small.json", dir, 180);
    Sls.Result apache = Sls.run(Sls.Scheduler.APACHE, "trace-small.json", dir, 180);
    for (Sls.Result run : new Sls.Result[] {ours, apache}) {
      String where = " (" + run.summary.getProperty("scheduler") + "; its logs are in " + run.dir + ")";
      assertEquals("applications still running at the end" + where, 0, (int) run.number("remaining.apps"));
      assertEquals("jobs the simulator saw end" + where, jobs, run.jobRuntimesMs.size());
      assertTrue("containers beyond the AMs'" + where, run.number("containers.allocated") > jobs);
      assertTrue("allocate() calls the simulator timed" + where, run.number("allocate.count") > 0);
      assertTrue("node heartbeats the simulator timed" + where, run.number("handle.NODE_UPDATE.count") > 0);
    }
    assertEquals("the scheduler the simulator ran",
        "org.capsched.yarn.sls.SlsRustCapacityScheduler", ours.summary.getProperty("scheduler"));
    assertEquals("containers allocated, ours against Apache's (runs in " + ours.dir + " and "
        + apache.dir + ")", apache.number("containers.allocated"), ours.number("containers.allocated"), 0);
  }
}
