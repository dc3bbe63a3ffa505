package org.capsched.yarn.harness;

import java.net.URL;

import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * A class loader that serves one file as capacity-scheduler.xml and everything else as its
 * parent does: given to a configuration (where Apache's scheduler and ours look for the
 * file), or to the thread that starts an RM (where a mutable configuration store looks
 * for the file it seeds itself from).
 */
public final class CapacitySchedulerXmlLoader extends ClassLoader {
  private final URL file;

  public CapacitySchedulerXmlLoader(ClassLoader parent, URL file) {
    super(parent);
    this.file = file;
  }

  @Override
  public URL getResource(String name) {
    return YarnConfiguration.CS_CONFIGURATION_FILE.equals(name) ? file : super.getResource(name);
  }
}
