package org.capsched.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.applications.distributedshell.Client;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.cli.RMAdminCLI;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.junit.Test;

/**
 * Node labels on a real cluster: two real NodeManagers, one labelled with
 * {@code yarn rmadmin}. A DistributedShell application asking for an exclusive label has
 * its containers placed on that NodeManager only, and the queue reports the label to
 * clients; one asking for no label borrows a non-exclusive label's idle NodeManager; and
 * labels the NodeManagers report themselves (distributed configuration) reach the core.
 */
public class NodeLabelsIT {
  private static final String CAPACITY_SCHEDULER = "<configuration>\n"
      + "  <property><name>yarn.scheduler.capacity.root.queues</name><value>work</value></property>\n"
      + "  <property><name>yarn.scheduler.capacity.root.work.capacity</name><value>100</value></property>\n"
      + "  <property><name>yarn.scheduler.capacity.root.work.accessible-node-labels</name>"
      + "<value>gpu</value></property>\n"
      + "  <property><name>yarn.scheduler.capacity.root.work.accessible-node-labels.gpu.capacity</name>"
      + "<value>100</value></property>\n"
      + "  <property><name>yarn.scheduler.capacity.maximum-am-resource-percent</name>"
      + "<value>0.5</value></property>\n"
      + "</configuration>\n";

  @Test(timeout = 300_000)
  public void containersAskingForALabelRunOnItsNodeManagerOnly() throws Exception {
    try (MiniCluster cluster = labelledCluster("labels", CAPACITY_SCHEDULER, "gpu", "gpu")) {
      Configuration conf = cluster.config();
      NodeId gpu = cluster.nodeId(1);
      NodeId plain = cluster.nodeId(0);

      try (YarnClient yarn = YarnClient.createYarnClient()) {
        yarn.init(conf);
        yarn.start();
        QueueInfo work = yarn.getQueueInfo("work");
        assertTrue("work reports " + work.getAccessibleNodeLabels(),
            work.getAccessibleNodeLabels().contains("gpu"));
      }

      // Three containers that sleep long enough to be seen where they run.
      Client client = new Client(conf);
      assertTrue("DistributedShell client rejected its arguments",
          client.init(shellAskingFor("gpu", 3, "8")));
      ExecutorService pool = Executors.newSingleThreadExecutor();
      try {
        Future<Boolean> run = pool.submit(client::run);
        // The three shell containers (and, its label taken from the application's, the AM)
        // run on the gpu NodeManager; the unlabelled one runs nothing.
        GenericTestUtils.waitFor(() -> containersOn(cluster, gpu) >= 3, 100, 120_000);
        assertEquals("the unlabelled NodeManager ran a container", 0, containersOn(cluster, plain));
        assertTrue("DistributedShell did not finish successfully", run.get());
      } finally {
        pool.shutdownNow();
      }
    }
  }

  /**
   * A non-exclusive label lends its idle NodeManager: a DistributedShell application that
   * asks for no label and wants more than the unlabelled NodeManager holds has its other
   * containers placed on the labelled one (after as many missed scheduling opportunities
   * as the cluster has NodeManagers), and finishes.
   */
  @Test(timeout = 300_000)
  public void aNonExclusiveLabelLendsItsIdleNodeManager() throws Exception {
    String xml = "<configuration>\n"
        + "  <property><name>yarn.scheduler.capacity.root.queues</name><value>work</value></property>\n"
        + "  <property><name>yarn.scheduler.capacity.root.work.capacity</name><value>100</value></property>\n"
        + "  <property><name>yarn.scheduler.capacity.root.work.user-limit-factor</name>"
        + "<value>4</value></property>\n"
        + "  <property><name>yarn.scheduler.capacity.maximum-am-resource-percent</name>"
        + "<value>0.5</value></property>\n"
        + "</configuration>\n";
    try (MiniCluster cluster = labelledCluster("lending", xml, "shared(exclusive=false)", "shared")) {
      Configuration conf = cluster.config();
      NodeId shared = cluster.nodeId(1);
      NodeId plain = cluster.nodeId(0);

      // Six 1 GB containers and a 512 MB AM: the unlabelled 4 GB NodeManager holds the AM
      // and three of them; the others can run only on the lent one.
      Client client = new Client(conf);
      assertTrue("DistributedShell client rejected its arguments",
          client.init(MiniCluster.distributedShell("work", 6, "sleep", "10", 512, 1024)));
      ExecutorService pool = Executors.newSingleThreadExecutor();
      try {
        Future<Boolean> run = pool.submit(client::run);
        GenericTestUtils.waitFor(() -> containersOn(cluster, shared) >= 1, 100, 120_000);
        assertTrue("the unlabelled NodeManager runs the AM and tasks",
            containersOn(cluster, plain) >= 2);
        assertTrue("DistributedShell did not finish successfully", run.get());
      } finally {
        pool.shutdownNow();
      }
    }
  }

  /**
   * Distributed node labels: each NodeManager reports its own partition (its
   * {@code yarn.nodemanager.node-labels.provider=config}), the RM's label manager hands the
   * reports to the scheduler, and a DistributedShell application asking for the label runs
   * there. The label is added to the cluster once the NodeManagers are up; they report it
   * again at their next resync.
   */
  @Test(timeout = 300_000)
  public void labelsReportedByNodeManagersReachTheScheduler() throws Exception {
    Path xml = schedulerFile(CAPACITY_SCHEDULER);
    Configuration extra = labelsEnabled();
    extra.set("yarn.node-labels.configuration-type", "distributed");
    extra.set("yarn.nodemanager.node-labels.provider", "config");
    extra.set("yarn.nodemanager.node-labels.provider.configured-node-partition", "gpu");
    extra.set("yarn.nodemanager.node-labels.provider.fetch-interval-ms", "1000");
    extra.set("yarn.nodemanager.node-labels.resync-interval-ms", "1000");
    try (MiniCluster cluster = MiniCluster.start("distributed-labels", 2, xml, extra)) {
      Configuration conf = cluster.config();
      RMAdminCLI admin = new RMAdminCLI(conf);
      assertEquals(0, admin.run(new String[] {"-addToClusterNodeLabels", "gpu"}));
      NodeId first = cluster.nodeId(0);
      NodeId second = cluster.nodeId(1);
      GenericTestUtils.waitFor(() -> "gpu".equals(partitionOf(cluster, first))
          && "gpu".equals(partitionOf(cluster, second)), 100, 60_000);

      Client client = new Client(conf);
      assertTrue("DistributedShell client rejected its arguments",
          client.init(shellAskingFor("gpu", 2, "5")));
      // Every node is in the gpu partition: the AM and both shell containers run there.
      assertTrue("DistributedShell did not finish successfully", client.run());
    }
  }

  /**
   * Two NodeManagers with node labels on, the cluster label {@code added} (as
   * {@code yarn rmadmin -addToClusterNodeLabels} takes it) put on the second.
   */
  private static MiniCluster labelledCluster(String name, String capacityScheduler, String added,
      String label) throws Exception {
    MiniCluster cluster = MiniCluster.start(name, 2, schedulerFile(capacityScheduler),
        labelsEnabled());
    try {
      NodeId node = cluster.nodeId(1);
      RMAdminCLI admin = new RMAdminCLI(cluster.config());
      assertEquals(0, admin.run(new String[] {"-addToClusterNodeLabels", added}));
      assertEquals(0, admin.run(new String[] {"-replaceLabelsOnNode", node + "=" + label}));
      GenericTestUtils.waitFor(() -> label.equals(partitionOf(cluster, node)), 100, 30_000);
      return cluster;
    } catch (Exception | AssertionError e) {
      cluster.close();
      throw e;
    }
  }

  /** {@code xml} as a capacity-scheduler.xml file. */
  private static Path schedulerFile(String xml) throws java.io.IOException {
    Path file = Files.createTempFile("capsched-labels-", ".xml");
    Files.write(file, xml.getBytes(StandardCharsets.UTF_8));
    return file;
  }

  /** yarn-site.xml settings with node labels on, kept in a store of the cluster's own. */
  private static Configuration labelsEnabled() throws java.io.IOException {
    Configuration extra = new Configuration(false);
    extra.setBoolean(YarnConfiguration.NODE_LABELS_ENABLED, true);
    extra.set(YarnConfiguration.FS_NODE_LABELS_STORE_ROOT_DIR,
        Files.createTempDirectory("capsched-labels-store-").toUri().toString());
    return extra;
  }

  /**
   * A DistributedShell application in queue work, its AM and {@code containers} shell
   * containers (each sleeping {@code seconds}) asking for {@code label}.
   */
  private static String[] shellAskingFor(String label, int containers, String seconds) {
    String[] args = MiniCluster.distributedShell("work", containers, "sleep", seconds, 256, 256);
    String[] withLabel = java.util.Arrays.copyOf(args, args.length + 2);
    withLabel[args.length] = "--node_label_expression";
    withLabel[args.length + 1] = label;
    return withLabel;
  }

  private static String partitionOf(MiniCluster cluster, NodeId node) {
    SchedulerNode n = cluster.scheduler().getSchedulerNode(node);
    return n == null ? null : n.getPartition();
  }

  private static int containersOn(MiniCluster cluster, NodeId node) {
    SchedulerNode n = cluster.scheduler().getSchedulerNode(node);
    return n == null ? 0 : n.getNumContainers();
  }
}
