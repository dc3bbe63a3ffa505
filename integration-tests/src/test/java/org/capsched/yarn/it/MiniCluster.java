package org.capsched.yarn.it;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.FileSystemBasedConfigurationProvider;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.capsched.yarn.RustCapacityScheduler;

/**
 * A real ResourceManager running {@link RustCapacityScheduler} and real NodeManagers, in
 * this JVM (Hadoop's MiniYARNCluster). capacity-scheduler.xml lives in a directory the RM
 * reads through its file-system based configuration provider, so tests can edit it under
 * the running RM and refresh.
 */
final class MiniCluster implements AutoCloseable {
  final MiniYARNCluster yarn;
  final Path confStore;

  private MiniCluster(MiniYARNCluster yarn, Path confStore) {
    this.yarn = yarn;
    this.confStore = confStore;
  }

  /** Starts a cluster of {@code nodes} NodeManagers with {@code capacitySchedulerXml}. */
  static MiniCluster start(String name, int nodes, Path capacitySchedulerXml) throws Exception {
    return start(name, nodes, capacitySchedulerXml, new Configuration(false));
  }

  /** The same, with {@code extra} yarn-site.xml settings on top. */
  static MiniCluster start(String name, int nodes, Path capacitySchedulerXml,
      Configuration extra) throws Exception {
    return start(name, 1, nodes, capacitySchedulerXml, extra);
  }

  /**
   * The same with {@code resourceManagers} RMs: more than one is an HA ensemble, the first
   * made active at start ({@code extra} says how they elect and where they keep state).
   */
  static MiniCluster start(String name, int resourceManagers, int nodes,
      Path capacitySchedulerXml, Configuration extra) throws Exception {
    Path store = Files.createTempDirectory("capsched-conf-");
    Files.copy(capacitySchedulerXml, store.resolve(RustCapacityScheduler.CONFIGURATION_FILE),
        StandardCopyOption.REPLACE_EXISTING);
    // The yarn-site.xml an earlier cluster wrote for its AMs is on this JVM's class path
    // too: this cluster's RM must not start from it.
    Files.deleteIfExists(amConfigurationFile().toPath());
    YarnConfiguration conf = new YarnConfiguration();
    conf.setClass(YarnConfiguration.RM_SCHEDULER, RustCapacityScheduler.class,
        ResourceScheduler.class);
    conf.set(YarnConfiguration.RM_CONFIGURATION_PROVIDER_CLASS,
        FileSystemBasedConfigurationProvider.class.getName());
    conf.set(YarnConfiguration.FS_BASED_RM_CONF_STORE, store.toUri().toString());
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 128);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, 2048);
    conf.setInt(YarnConfiguration.NM_PMEM_MB, 4096);
    conf.setInt(YarnConfiguration.NM_VCORES, 8);
    conf.setBoolean(YarnConfiguration.NM_PMEM_CHECK_ENABLED, false);
    conf.setBoolean(YarnConfiguration.NM_VMEM_CHECK_ENABLED, false);
    conf.setInt(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS, 100);
    // Container JVMs (the ApplicationMaster) need the same JDK 17 openings as the RM.
    conf.set(YarnConfiguration.NM_ADMIN_USER_ENV, "MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX,"
        + "JDK_JAVA_OPTIONS=" + System.getProperty("capsched.jdk.opens", ""));
    for (java.util.Map.Entry<String, String> e : extra) {
      conf.set(e.getKey(), e.getValue());
    }
    MiniYARNCluster yarn = new MiniYARNCluster(name, resourceManagers, nodes, 1, 1);
    yarn.init(conf);
    yarn.start();
    writeAmConfiguration(yarn.getConfig());
    return new MiniCluster(yarn, store);
  }

  /**
   * A DistributedShell client's arguments: {@code containers} containers of
   * {@code containerMb} running {@code command args} in {@code queue}, under an AM of
   * {@code masterMb} (one vcore each).
   */
  static String[] distributedShell(String queue, int containers, String command, String args,
      int masterMb, int containerMb) {
    return new String[] {
        "--jar", System.getProperty("capsched.distributedshell.jar"),
        "--queue", queue,
        "--num_containers", Integer.toString(containers),
        "--shell_command", command,
        "--shell_args", args,
        "--master_memory", Integer.toString(masterMb),
        "--master_vcores", "1",
        "--container_memory", Integer.toString(containerMb),
        "--container_vcores", "1",
    };
  }

  /** The sample configuration shipped in conf/. */
  static Path sampleConfiguration() {
    return Paths.get(System.getProperty("capsched.sample.conf", "../conf/capacity-scheduler.xml"));
  }

  /** The started cluster's configuration (with the real ports). */
  Configuration config() {
    return new YarnConfiguration(yarn.getConfig());
  }

  /** Replaces capacity-scheduler.xml in the RM's configuration store. */
  void writeCapacityScheduler(String xml) throws IOException {
    Path tmp = confStore.resolve("capacity-scheduler.xml.tmp");
    Files.write(tmp, xml.getBytes("UTF-8"));
    Files.move(tmp, confStore.resolve(RustCapacityScheduler.CONFIGURATION_FILE),
        StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** The id of NodeManager {@code index} (from 0), as the RM knows it. */
  org.apache.hadoop.yarn.api.records.NodeId nodeId(int index) {
    return yarn.getNodeManager(index).getNMContext().getNodeId();
  }

  RustCapacityScheduler scheduler() {
    return (RustCapacityScheduler) yarn.getResourceManager().getResourceScheduler();
  }

  /**
   * ApplicationMasters find the RM through yarn-site.xml on their classpath, which the
   * DistributedShell client gives them from this JVM's when running on a mini cluster.
   */
  private static void writeAmConfiguration(Configuration conf) throws IOException {
    try (OutputStream os = new FileOutputStream(amConfigurationFile())) {
      conf.writeXml(os);
    }
  }

  /** The yarn-site.xml ApplicationMasters read, in a directory on the test class path. */
  private static File amConfigurationFile() {
    String dir = System.getProperty("capsched.am.conf.dir");
    if (dir == null) {
      throw new IllegalStateException("capsched.am.conf.dir is not set; run through Gradle");
    }
    return new File(dir, "yarn-site.xml");
  }

  @Override
  public void close() {
    yarn.stop();
  }
}
