package org.capsched.yarn;

/**
 * The capacity scheduler configuration was rejected. The message lists every problem, each
 * naming the queue path, the key and the offending value. Thrown by the native core.
 */
public class SchedulerConfigurationException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** A refusal whose message lists every problem. */
  public SchedulerConfigurationException(String message) {
    super(message);
  }
}
