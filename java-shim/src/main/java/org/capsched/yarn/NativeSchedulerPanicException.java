package org.capsched.yarn;

/**
 * The native core hit a bug (a Rust panic). The panic was caught at the JNI boundary and
 * turned into this exception, so the ResourceManager keeps running.
 */
public class NativeSchedulerPanicException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** A panic, with the panic's message. */
  public NativeSchedulerPanicException(String message) {
    super(message);
  }
}
