package org.capsched.yarn;

/**
 * A move named no leaf queue: no queue has that name, several do, or it is a parent. The
 * message is the reason the user sees. Thrown by the native core.
 */
public class NoSuchLeafQueueException extends Exception {
  private static final long serialVersionUID = 1L;

  /** A refusal with the reason the user sees. */
  public NoSuchLeafQueueException(String message) {
    super(message);
  }
}
