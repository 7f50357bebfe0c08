package dev.berth.client;

/** The task manager refused a request (a {@code TmError}); the message is the server's. */
public final class TmException extends Exception {
  private static final long serialVersionUID = 1L;

  public TmException(String message) {
    super(message);
  }
}
