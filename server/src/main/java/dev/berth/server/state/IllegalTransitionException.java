package dev.berth.server.state;

/**
 * An event that the current state does not allow (a job started twice, a node removed while it runs
 * jobs). The journal is then inconsistent with the code that reads it, so replay stops loudly with
 * the event's sequence number, kind and job or object.
 */
public final class IllegalTransitionException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public IllegalTransitionException(String message) {
    super(message);
  }
}
