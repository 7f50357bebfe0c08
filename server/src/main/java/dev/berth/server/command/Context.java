package dev.berth.server.command;

/**
 * What a decision may read besides the state: the time, taken once per command by the server's
 * clock (so apply never reads a clock), and the server's name.
 */
public record Context(long nowMillis, String serverName) {
  public long nowSeconds() {
    return nowMillis / 1000;
  }
}
