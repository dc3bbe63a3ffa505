package org.capsched.yarn;

import java.io.Closeable;
import java.io.IOException;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.MutableConfigurationProvider;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.conf.MutableCSConfigurationProvider;

/**
 * Where the scheduler's configuration comes from, chosen by
 * {@code yarn.scheduler.configuration.store.class} as Apache's CapacityScheduler chooses:
 * {@code file} (the default) reads capacity-scheduler.xml through the RM's configuration
 * provider; {@code memory}, {@code leveldb}, {@code zk} and {@code fs} keep it in that
 * store, seeded from capacity-scheduler.xml on first start and changed through
 * {@code /ws/v1/cluster/scheduler-conf} and {@code yarn schedulerconf} (the RM applies a
 * change by reinitializing the scheduler, and keeps it only if the core accepts it). The
 * store is Apache's own provider: the RM's REST, admin and HA code drive it unchanged.
 */
final class ConfigurationSource implements Closeable {
  private final RMContext rmContext;
  /** The mutable store's provider; null when capacity-scheduler.xml is read. */
  private final MutableCSConfigurationProvider store;
  private final String storeKind;

  private ConfigurationSource(RMContext rmContext, MutableCSConfigurationProvider store,
      String storeKind) {
    this.rmContext = rmContext;
    this.store = store;
    this.storeKind = storeKind;
  }

  /**
   * The source {@code configuration} names, its store opened (and seeded if new).
   *
   * @throws IOException for an unknown store kind or a store that cannot be opened
   */
  static ConfigurationSource open(RMContext rmContext, Configuration configuration)
      throws IOException {
    String kind = configuration.get(YarnConfiguration.SCHEDULER_CONFIGURATION_STORE_CLASS,
        YarnConfiguration.DEFAULT_CONFIGURATION_STORE);
    switch (kind) {
    case YarnConfiguration.FILE_CONFIGURATION_STORE:
      return new ConfigurationSource(rmContext, null, kind);
    case YarnConfiguration.MEMORY_CONFIGURATION_STORE:
    case YarnConfiguration.LEVELDB_CONFIGURATION_STORE:
    case YarnConfiguration.ZK_CONFIGURATION_STORE:
    case YarnConfiguration.FS_CONFIGURATION_STORE:
      if (rmContext == null) {
        throw new IOException("A " + kind + " scheduler configuration store ("
            + YarnConfiguration.SCHEDULER_CONFIGURATION_STORE_CLASS
            + ") needs the ResourceManager's context");
      }
      MutableCSConfigurationProvider store = new MutableCSConfigurationProvider(rmContext);
      store.init(configuration);
      return new ConfigurationSource(rmContext, store, kind);
    default:
      throw new IOException("Invalid configuration store class: " + kind + " ("
          + YarnConfiguration.SCHEDULER_CONFIGURATION_STORE_CLASS + " takes "
          + YarnConfiguration.FILE_CONFIGURATION_STORE + ", "
          + YarnConfiguration.MEMORY_CONFIGURATION_STORE + ", "
          + YarnConfiguration.LEVELDB_CONFIGURATION_STORE + ", "
          + YarnConfiguration.ZK_CONFIGURATION_STORE + " or "
          + YarnConfiguration.FS_CONFIGURATION_STORE + ")");
    }
  }

  /** True when the configuration lives in a mutable store. */
  boolean isMutable() {
    return store != null;
  }

  /** The mutable store's provider, as the RM drives it; null when the file is read. */
  MutableConfigurationProvider provider() {
    return store;
  }

  /** What the core is to build its configuration from now, under {@code configuration}. */
  ConfigurationInputs read(Configuration configuration) throws IOException {
    if (store == null) {
      return ConfigurationInputs.read(rmContext, configuration);
    }
    return ConfigurationInputs.fromStore(store.getConfiguration(), configuration,
        "the " + storeKind + " scheduler configuration store");
  }

  /**
   * The configuration {@code in} makes under {@code configuration}, as Apache's scheduler
   * shows it: the store's entries over the RM's keys, or the file's between the RM's files
   * and the keys set in code.
   */
  Configuration merged(ConfigurationInputs in, Configuration configuration)
      throws IOException {
    if (store != null) {
      return store.loadConfiguration(new Configuration(configuration));
    }
    return in.merged(configuration);
  }

  @Override
  public void close() throws IOException {
    if (store != null) {
      store.close();
    }
  }
}
