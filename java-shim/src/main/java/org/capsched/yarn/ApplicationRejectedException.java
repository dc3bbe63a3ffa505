package org.capsched.yarn;

/**
 * The core refused an application: a submission (unknown, parent or STOPPED queue, a full
 * queue, a missing ACL) or a move into a leaf that does not admit it. The message is the
 * reason the user sees, worded as Apache's CapacityScheduler words it. Thrown by the native
 * core.
 */
public class ApplicationRejectedException extends Exception {
  private static final long serialVersionUID = 1L;

  /** A refusal with the reason the user sees. */
  public ApplicationRejectedException(String message) {
    super(message);
  }
}
