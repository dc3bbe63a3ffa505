package org.capsched.yarn;

/**
 * A panic in the native core left its state half-updated, in this call or an earlier one.
 * Every later call fails with this exception; the scheduler hands the ResourceManager over
 * as after any fatal error (an {@code RMFatalEvent}: a standby takes over under HA, a
 * stand-alone RM stops with this explanation), since nothing the core says can be trusted.
 */
public class NativeSchedulerPoisonedException extends NativeSchedulerPanicException {
  private static final long serialVersionUID = 1L;

  /** The core is poisoned, with the message of the panic that poisoned it. */
  public NativeSchedulerPoisonedException(String message) {
    super(message);
  }
}
