package dev.berth.server.mail;

/**
 * Where the server leaves the mail its committed events call for. Posting never blocks: an outbox
 * that cannot take more drops the letter (and says so in the log).
 */
public interface Outbox extends AutoCloseable {
  /** An outbox that sends nothing (tests, tools that run a server without mail). */
  Outbox NONE = letter -> {};

  void post(Letter letter);

  /** Sends what it can of what is queued, within a bound, and stops. */
  @Override
  default void close() {}
}
