package org.capsched.yarn;

import static org.junit.Assert.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;

import org.apache.hadoop.yarn.FileSystemBasedConfigurationProvider;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.capsched.yarn.harness.RmHarness;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;
import org.junit.runners.Parameterized.Parameters;

/**
 * Where the RM finds capacity-scheduler.xml when its configuration lives in a file-system
 * based store (HA setups): the same for Apache's scheduler and ours.
 */
@RunWith(Parameterized.class)
public class ConfigurationStoreContractTest {
  @Parameters(name = "{0}")
  public static Collection<Object[]> schedulers() {
    return Arrays.asList(new Object[] {"Apache", CapacityScheduler.class},
        new Object[] {"Rust", RustCapacityScheduler.class});
  }

  private final Class<? extends ResourceScheduler> schedulerClass;

  public ConfigurationStoreContractTest(String name,
      Class<? extends ResourceScheduler> schedulerClass) {
    this.schedulerClass = schedulerClass;
  }

  private YarnConfiguration storeConfiguration(Path store) throws Exception {
    YarnConfiguration conf = RmHarness.configuration(schedulerClass, RmHarness.xml(
        "root.queues", "a,b", "root.a.capacity", "30", "root.b.capacity", "70")
        .getBytes(StandardCharsets.UTF_8));
    conf.set(YarnConfiguration.RM_CONFIGURATION_PROVIDER_CLASS,
        FileSystemBasedConfigurationProvider.class.getName());
    conf.set(YarnConfiguration.FS_BASED_RM_CONF_STORE, store.toUri().toString());
    return conf;
  }

  @Test(timeout = 120_000)
  public void aStoreWithoutTheFileLeavesItToTheClasspath() throws Exception {
    Path store = Files.createTempDirectory("capsched-conf-store-");
    MockRM rm = RmHarness.start(storeConfiguration(store));
    try {
      assertEquals(0.3f, rm.getResourceScheduler().getQueueInfo("a", false, false)
          .getCapacity(), 1e-6f);
    } finally {
      rm.stop();
    }
  }
}
