package dev.berth.server.command;

/**
 * Who asks: a local user as the kernel reported it on the socket (never a name from the request), a
 * mom, the scheduler or the server itself.
 *
 * @param user user name
 * @param group primary group name of the calling process
 * @param host the host the caller is on
 */
public record Caller(String user, String group, String host) {
  public static final String SCHEDULER = "scheduler";

  public static Caller system(String name, String host) {
    return new Caller(name, "", host);
  }

  public boolean isRoot() {
    return user.equals("root");
  }

  /** user@host, as Torque writes owners and requesters. */
  public String principal() {
    return user + "@" + host;
  }
}
