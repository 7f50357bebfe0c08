package dev.berth.core;

/**
 * A PBS value (a time, a size, a node spec, a job id, an array request) that does not parse. The
 * message names the value and what is wrong with it, so it can be shown to the user as is.
 */
public final class BadValueException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public BadValueException(String message) {
    super(message);
  }
}
