package dev.berth.tools.qsub;

/**
 * A problem with the command line, a directive or the script that stops the submission before
 * anything reaches the server. The message is complete and shown to the user as is, after the
 * program name and, for a directive, its line number.
 */
final class QsubException extends Exception {
  private static final long serialVersionUID = 1L;

  QsubException(String message) {
    super(message);
  }
}
