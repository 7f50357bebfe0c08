package dev.berth.client;

/**
 * A command-line value that does not parse. The message says why without naming the option, since
 * the same value reads the same under different options (qsub's {@code -a}, pbs_rsub's {@code -R}
 * and {@code -E}): the command puts the option in front.
 */
public final class BadArgumentException extends Exception {
  private static final long serialVersionUID = 1L;

  public BadArgumentException(String message) {
    super(message);
  }
}
