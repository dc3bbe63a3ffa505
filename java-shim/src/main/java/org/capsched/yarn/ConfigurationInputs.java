package org.capsched.yarn;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

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
  /**
   * The RM configuration's keys the core reads: the capacity scheduler's, the capacity
   * preemption policy's with the monitor switch (Apache's policy reads them from the
   * scheduler's configuration, so they may sit in either file), and the placement rule
   * engines with the application-name rules.
   */
  private static final String[] PREFIXES = {"yarn.scheduler.capacity.",
      "yarn.resourcemanager.monitor.capacity.preemption.",
      "yarn.resourcemanager.scheduler.monitor.enable",
      "yarn.scheduler.queue-placement-rules"};

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
    String file = RustCapacityScheduler.CONFIGURATION_FILE;
    InputStream fromStore = null;
    if (provider != null && !(provider instanceof LocalConfigurationProvider)) {
      try {
        fromStore = provider.getConfigurationInputStream(configuration, file);
      } catch (YarnException e) {
        throw new IOException("Cannot read " + file + " from the ResourceManager's"
            + " configuration store: " + e.getMessage(), e);
      }
    }
    byte[] xml;
    String source;
    if (fromStore != null) {
      xml = readAll(fromStore);
      source = configuration.get(YarnConfiguration.FS_BASED_RM_CONF_STORE,
          YarnConfiguration.DEFAULT_FS_BASED_RM_CONF_STORE) + "/" + file;
    } else {
      // The classpath, as with Apache's scheduler: by default, and when the file-system
      // based store holds no capacity-scheduler.xml.
      InputStream onClasspath = configuration.getConfResourceAsInputStream(file);
      if (onClasspath == null) {
        throw new IOException(file + " was not found on the ResourceManager's classpath"
            + (provider instanceof LocalConfigurationProvider || provider == null ? ""
                : " or in its configuration store")
            + "; the Rust capacity scheduler needs it");
      }
      xml = readAll(onClasspath);
      URL url = configuration.getResource(file);
      source = url != null ? url.toString() : file;
    }
    return new ConfigurationInputs(xml, source, capacityProperties(configuration, false),
        capacityProperties(configuration, true), systemProperties());
  }

  /**
   * The inputs when the configuration lives in a mutable store: the store's entries, in
   * place of the file and over every capacity key of the RM's own configuration (even
   * those set in code), as Apache's store-backed provider layers them.
   */
  static ConfigurationInputs fromStore(Configuration storeEntries, Configuration configuration,
      String source) throws IOException {
    ByteArrayOutputStream xml = new ByteArrayOutputStream();
    storeEntries.writeXml(xml);
    List<String> rmKeys = new ArrayList<>(Arrays.asList(capacityProperties(configuration, false)));
    rmKeys.addAll(Arrays.asList(capacityProperties(configuration, true)));
    return new ConfigurationInputs(xml.toByteArray(), source, rmKeys.toArray(new String[0]),
        new String[0], systemProperties());
  }

  /**
   * These inputs as one Hadoop Configuration over {@code configuration} (the RM's): the
   * file's keys over those of the RM's files, under those set in code.
   */
  Configuration merged(Configuration configuration) {
    Configuration file = new Configuration(false);
    file.addResource(new ByteArrayInputStream(xml), source);
    Set<String> setInCode = new HashSet<>();
    for (int i = 0; i < codeCapacityProperties.length; i += 2) {
      setInCode.add(codeCapacityProperties[i]);
    }
    Configuration out = new Configuration(configuration);
    for (Map.Entry<String, String> e : file) {
      if (!setInCode.contains(e.getKey())) {
        out.set(e.getKey(), e.getValue(), source);
      }
    }
    return out;
  }

  private static byte[] readAll(InputStream in) throws IOException {
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

  /**
   * Capacity scheduler keys in the RM's own configuration: those set in code (Hadoop records
   * their source as "programmatically"), or those read from its files.
   */
  private static String[] capacityProperties(Configuration configuration, boolean setInCode) {
    List<String> pairs = new ArrayList<>();
    for (String prefix : PREFIXES) {
      for (Map.Entry<String, String> e : configuration.getPropsWithPrefix(prefix).entrySet()) {
        String name = prefix + e.getKey();
        String[] sources = configuration.getPropertySources(name);
        boolean inCode = sources != null && sources.length > 0
            && "programmatically".equals(sources[sources.length - 1]);
        if (inCode == setInCode) {
          pairs.add(name);
          pairs.add(e.getValue());
        }
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
