package org.capsched.yarn;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.LocalConfigurationProvider;
import org.apache.hadoop.yarn.conf.ConfigurationProvider;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;

/**
 * What the core builds its configuration from, gathered on the Java side at start and at
 * every refresh: the bytes of capacity-scheduler.xml as the RM's configuration provider
 * serves them, the {@code yarn.scheduler.capacity.*} keys set in the RM's own
 * configuration, and the JVM's system properties for {@code ${var}} expansion. As in
 * Apache, which adds capacity-scheduler.xml as one more resource of the RM's configuration,
 * the file overrides keys the RM read from its own files (yarn-site.xml), and keys set in
 * code (Hadoop's overlay, as an embedded MiniYARNCluster's tests set them) override the file.
 */
final class ConfigurationInputs {
  private static final String CAPACITY_PREFIX = "yarn.scheduler.capacity.";

  /** The file's bytes, parsed by the core. */
  final byte[] xml;
  /** Where the file came from, for messages. */
  final String source;
  /** The RM configuration's capacity keys from its files, as name/value pairs. */
  final String[] fileCapacityProperties;
  /** The RM configuration's capacity keys set in code, as name/value pairs. */
  final String[] codeCapacityProperties;
  /** The system properties, as name/value pairs. */
  final String[] systemProperties;

  private ConfigurationInputs(byte[] xml, String source, String[] fileCapacityProperties,
      String[] codeCapacityProperties, String[] systemProperties) {
    this.xml = xml;
    this.source = source;
    this.fileCapacityProperties = fileCapacityProperties;
    this.codeCapacityProperties = codeCapacityProperties;
    this.systemProperties = systemProperties;
  }

  /**
   * Reads every input now. {@code rmContext} may be null (a scheduler outside an RM); the
   * file then comes from {@code configuration}'s class path.
   *
   * @throws IOException if capacity-scheduler.xml cannot be found or read
   */
  static ConfigurationInputs read(RMContext rmContext, Configuration configuration)
      throws IOException {
    ConfigurationProvider provider = rmContext == null ? null
        : rmContext.getConfigurationProvider();
    return new ConfigurationInputs(readFile(provider, configuration),
        source(provider, configuration), capacityProperties(configuration, false),
        capacityProperties(configuration, true), systemProperties());
  }

  /**
   * Reads capacity-scheduler.xml the way Apache's scheduler does: through the RM's
   * configuration provider (the classpath by default, or the file-system based store).
   */
  private static byte[] readFile(ConfigurationProvider provider, Configuration configuration)
      throws IOException {
    String file = RustCapacityScheduler.CONFIGURATION_FILE;
    InputStream in;
    try {
      in = provider != null
          ? provider.getConfigurationInputStream(configuration, file)
          : configuration.getConfResourceAsInputStream(file);
    } catch (YarnException e) {
      throw new IOException("Cannot read " + file + ": " + e.getMessage(), e);
    }
    if (in == null) {
      throw new IOException(file + " was not found on the ResourceManager's "
          + "classpath (or in its configuration store); the Rust capacity scheduler needs it");
    }
    try (InputStream stream = in) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buf = new byte[8192];
      int n;
      while ((n = stream.read(buf)) > 0) {
        out.write(buf, 0, n);
      }
      return out.toByteArray();
    }
  }

  /** The file's URL on the classpath, or its path in the file-system based store. */
  private static String source(ConfigurationProvider provider, Configuration configuration) {
    String file = RustCapacityScheduler.CONFIGURATION_FILE;
    if (provider == null || provider instanceof LocalConfigurationProvider) {
      URL url = configuration.getResource(file);
      return url != null ? url.toString() : file;
    }
    return configuration.get(YarnConfiguration.FS_BASED_RM_CONF_STORE,
        YarnConfiguration.DEFAULT_FS_BASED_RM_CONF_STORE) + "/" + file;
  }

  /**
   * Capacity scheduler keys in the RM's own configuration: those set in code (Hadoop records
   * their source as "programmatically"), or those read from its files.
   */
  private static String[] capacityProperties(Configuration configuration, boolean setInCode) {
    List<String> pairs = new ArrayList<>();
    for (Map.Entry<String, String> e : configuration.getPropsWithPrefix(CAPACITY_PREFIX)
        .entrySet()) {
      String name = CAPACITY_PREFIX + e.getKey();
      String[] sources = configuration.getPropertySources(name);
      boolean inCode = sources != null && sources.length > 0
          && "programmatically".equals(sources[sources.length - 1]);
      if (inCode == setInCode) {
        pairs.add(name);
        pairs.add(e.getValue());
      }
    }
    return pairs.toArray(new String[0]);
  }

  /** System properties, consulted first by Hadoop's ${var} expansion. */
  private static String[] systemProperties() {
    Properties props = System.getProperties();
    List<String> pairs = new ArrayList<>();
    for (String name : props.stringPropertyNames()) {
      pairs.add(name);
      pairs.add(props.getProperty(name));
    }
    return pairs.toArray(new String[0]);
  }
}
