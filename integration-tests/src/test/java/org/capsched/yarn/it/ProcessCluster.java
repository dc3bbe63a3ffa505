package org.capsched.yarn.it;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;

/**
 * A ResourceManager and stock NodeManagers, each in its own JVM started from Hadoop's jars
 * and ours, as an operator runs them: the RM reads {@code conf/yarn-site.xml} (which sets
 * only the scheduler class, the addresses and sizes) and a capacity-scheduler.xml from its
 * own configuration directory, first on its classpath. Ports are chosen free at start, so
 * tests may run beside the run command's cluster. Used where a cluster in the test's own
 * JVM cannot stand in: the RM's and the NodeManagers' web applications share Guice's
 * servlet pipeline within one JVM, so a MiniYARNCluster's RM web server answers with the
 * last NodeManager's routes.
 */
final class ProcessCluster implements AutoCloseable {
  private static final String RM_MAIN = "org.apache.hadoop.yarn.server.resourcemanager.ResourceManager";
  private static final String NM_MAIN = "org.apache.hadoop.yarn.server.nodemanager.NodeManager";

  final Path dir;
  final int webPort;
  final Configuration clientConf;
  private final List<Process> processes = new ArrayList<>();

  private ProcessCluster(Path dir, int webPort, Configuration clientConf) {
    this.dir = dir;
    this.webPort = webPort;
    this.clientConf = clientConf;
  }

  /** The RM's web address, such as http://localhost:40123. */
  String webUrl() {
    return "http://localhost:" + webPort;
  }

  /**
   * Starts an RM with {@code capacitySchedulerXml} and {@code nodes} NodeManagers, and
   * waits until every NodeManager has registered.
   */
  static ProcessCluster start(String name, int nodes, Path capacitySchedulerXml)
      throws Exception {
    return start(name, nodes, capacitySchedulerXml, java.util.Collections.emptyMap());
  }

  /** The same, with {@code settings} added to every daemon's yarn-site.xml. */
  static ProcessCluster start(String name, int nodes, Path capacitySchedulerXml,
      Map<String, String> settings) throws Exception {
    Path dir = Paths.get(System.getProperty("capsched.process.cluster.dir", "build/process-clusters"))
        .resolve(name + "-" + System.currentTimeMillis()).toAbsolutePath();
    Files.createDirectories(dir);
    Map<String, String> rm = new LinkedHashMap<>();
    // Every port at once: one chosen and let go before the RM binds it could be handed out
    // again to a NodeManager (the RM then fails to bind it).
    java.util.Iterator<Integer> ports = Ports.free(5 + 3 * nodes).iterator();
    int web = ports.next();
    rm.put("yarn.resourcemanager.address", "localhost:" + ports.next());
    rm.put("yarn.resourcemanager.scheduler.address", "localhost:" + ports.next());
    rm.put("yarn.resourcemanager.resource-tracker.address", "localhost:" + ports.next());
    rm.put("yarn.resourcemanager.admin.address", "localhost:" + ports.next());
    rm.put("yarn.resourcemanager.webapp.address", "localhost:" + web);
    rm.put("yarn.nodemanager.admin-env", "MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX,JDK_JAVA_OPTIONS="
        + System.getProperty("capsched.jdk.opens", ""));
    rm.putAll(settings);
    Path rmConf = configurationDirectory(dir.resolve("rm-conf"), rm, capacitySchedulerXml);
    writeLog4j(rmConf, dir.resolve("resourcemanager-log4j.log"));
    ProcessCluster cluster = new ProcessCluster(dir, web, load(rmConf));
    try {
      cluster.launch("resourcemanager", rmConf, RM_MAIN);
      for (int n = 1; n <= nodes; n++) {
        Map<String, String> nm = new LinkedHashMap<>(rm);
        nm.put("yarn.nodemanager.address", "localhost:" + ports.next());
        nm.put("yarn.nodemanager.localizer.address", "localhost:" + ports.next());
        nm.put("yarn.nodemanager.webapp.address", "localhost:" + ports.next());
        nm.put("yarn.nodemanager.local-dirs", dir.resolve("nm" + n + "/local").toString());
        nm.put("yarn.nodemanager.log-dirs", dir.resolve("nm" + n + "/logs").toString());
        Path nmConf = configurationDirectory(dir.resolve("nm" + n + "-conf"), nm,
            capacitySchedulerXml);
        cluster.launch("nodemanager" + n, nmConf, NM_MAIN);
      }
      cluster.awaitNodes(nodes);
      return cluster;
    } catch (Exception | AssertionError e) {
      cluster.close();
      throw e;
    }
  }

  /** conf/yarn-site.xml with {@code overrides} on top, beside a core-site.xml and the queues. */
  private static Path configurationDirectory(Path dir, Map<String, String> overrides,
      Path capacitySchedulerXml) throws IOException {
    Files.createDirectories(dir);
    Configuration site = new Configuration(false);
    site.addResource(new org.apache.hadoop.fs.Path(projectConf("yarn-site.xml").toUri()));
    for (Map.Entry<String, String> e : overrides.entrySet()) {
      site.set(e.getKey(), e.getValue());
    }
    write(site, dir.resolve("yarn-site.xml"));
    Configuration core = new Configuration(false);
    core.set("fs.defaultFS", "file:///");
    write(core, dir.resolve("core-site.xml"));
    Files.copy(capacitySchedulerXml, dir.resolve("capacity-scheduler.xml"));
    return dir;
  }

  /**
   * The RM's log4j configuration, as a deployment's log4j.properties sets it: records of
   * every logger at INFO and above into one file, with the usual layout.
   */
  static void writeLog4j(Path confDir, Path logFile) throws IOException {
    String props = "log4j.rootLogger=INFO,RMFILE\n"
        + "log4j.appender.RMFILE=org.apache.log4j.FileAppender\n"
        + "log4j.appender.RMFILE.File=" + logFile + "\n"
        + "log4j.appender.RMFILE.layout=org.apache.log4j.PatternLayout\n"
        + "log4j.appender.RMFILE.layout.ConversionPattern=%d{ISO8601} %p %c: %m%n\n";
    Files.write(confDir.resolve("log4j.properties"), props.getBytes(StandardCharsets.UTF_8));
  }

  /** The RM's log file (log4j's), and what its process wrote to standard out and error. */
  Path rmLog4jFile() {
    return dir.resolve("resourcemanager-log4j.log");
  }

  Path rmConsoleFile() {
    return dir.resolve("resourcemanager.log");
  }

  private static Path projectConf(String file) {
    Path sample = MiniCluster.sampleConfiguration();
    return sample.resolveSibling(file);
  }

  private static Configuration load(Path confDir) {
    Configuration conf = new Configuration(false);
    conf.addResource(new org.apache.hadoop.fs.Path(confDir.resolve("yarn-site.xml").toUri()));
    conf.addResource(new org.apache.hadoop.fs.Path(confDir.resolve("core-site.xml").toUri()));
    return conf;
  }

  static void write(Configuration conf, Path file) throws IOException {
    try (OutputStream out = Files.newOutputStream(file)) {
      conf.writeXml(out);
    }
  }

  private void launch(String name, Path confDir, String main) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(Arrays.asList(System.getProperty("capsched.jdk.opens", "").trim().split("\\s+")));
    cmd.add("-Xmx512m");
    cmd.add("-Dhadoop.log.dir=" + dir.resolve(name));
    cmd.add("-Djava.library.path=" + System.getProperty("java.library.path", ""));
    cmd.add("-cp");
    cmd.add(confDir + File.pathSeparator + System.getProperty("capsched.cluster.classpath"));
    cmd.add(main);
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.redirectErrorStream(true);
    pb.redirectOutput(dir.resolve(name + ".log").toFile());
    processes.add(pb.start());
  }

  /** Waits up to two minutes for the RM to report {@code nodes} active NodeManagers. */
  private void awaitNodes(int nodes) throws Exception {
    String[] last = {""};
    Wait.until(120_000, () -> {
      for (Process p : processes) {
        if (!p.isAlive()) {
          throw new AssertionError("a daemon exited (" + p.exitValue() + "); logs in " + dir);
        }
      }
      try {
        Http.Response metrics = Http.get(webUrl() + "/ws/v1/cluster/metrics", "application/json");
        last[0] = metrics.body;
        return metrics.code == 200 && last[0].contains("\"activeNodes\":" + nodes + ",");
      } catch (IOException notYet) {
        last[0] = notYet.toString();
        return false;
      }
    }, () -> nodes + " NodeManagers registered (" + last[0] + "); logs in " + dir);
  }

  @Override
  public void close() {
    for (Process p : processes) {
      p.destroy();
    }
    for (Process p : processes) {
      try {
        if (!p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        p.destroyForcibly();
      }
    }
  }
}
