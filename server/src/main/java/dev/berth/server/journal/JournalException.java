package dev.berth.server.journal;

/**
 * The journal cannot be read or written as it must be: damaged, truncated, out of space. The
 * message says what was found and what an administrator can do.
 */
public final class JournalException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public JournalException(String message) {
    super(message);
  }

  public JournalException(String message, Throwable cause) {
    super(message, cause);
  }
}
