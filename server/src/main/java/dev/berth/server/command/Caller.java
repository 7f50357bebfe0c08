package dev.berth.server.command;

/**
 * Who asks: a local user as the kernel reported it on the socket (never a name from the request), a
 * user of a submit host as that host's relay reported it, a mom, the scheduler or the server
 * itself.
 *
 * @param user user name
 * @param group primary group name of the calling process
 * @param host the host the caller is on: the server's for the client socket, the name in the
 *     relay's credential for a submit host
 * @param relayed whether a submit host's relay speaks for the caller (the server's kernel did not
 *     see it)
 */
public record Caller(String user, String group, String host, boolean relayed) {
  public static final String SCHEDULER = "scheduler";

  /** A caller on the server's own host. */
  public Caller(String user, String group, String host) {
    this(user, group, host, false);
  }

  public static Caller system(String name, String host) {
    return new Caller(name, "", host);
  }

  /** A user of the submit host {@code host}, as its relay reported them. */
  public static Caller relayed(String user, String group, String host) {
    return new Caller(user, group, host, true);
  }

  public boolean isRoot() {
    return user.equals("root");
  }

  /** user@host, as Torque writes owners and requesters. */
  public String principal() {
    return user + "@" + host;
  }
}
