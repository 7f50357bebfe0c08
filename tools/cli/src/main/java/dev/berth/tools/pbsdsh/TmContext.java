package dev.berth.tools.pbsdsh;

/**
 * What pbsdsh and pbs_tmrsh need besides their invocation (whose environment names the task
 * manager's socket): how signals reach them and who is running them. Tests pass their own.
 */
public record TmContext(SignalTrap signals, String userName) {
  public static final TmContext DEFAULT =
      new TmContext(SignalTrap.OS, System.getProperty("user.name"));

  /** The environment variable the mom sets in every job to its task manager's socket. */
  public static final String SOCKET_VARIABLE = "BERTH_TM_SOCKET";
}
