package dev.berth.security;

/** A peer, certificate or letter that Berth does not accept, with the reason. */
public final class NotTrustedException extends Exception {
  public NotTrustedException(String message) {
    super(message);
  }
}
