package dev.berth.daemon;

import dev.berth.mom.SiteScripts;
import dev.berth.mom.os.HookFiles;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/** A mom's prologues, epilogues and health check (Torque's mom_priv and $node_check_script). */
final class SiteScriptOptions {
  /** Where a site's mom finds its scripts unless told: Torque's mom_priv, in /etc. */
  static final Path SITE_HOOKS = Path.of("/etc/berth/mom_priv");

  @Option(
      names = "--hook-dir",
      paramLabel = "DIR",
      description =
          "Where the site's prologue, epilogue, prologue.user, epilogue.user and .parallel scripts"
              + " are (Torque's mom_priv; berth mom: /etc/berth/mom_priv unless given, berth up"
              + " and serve: none). Each must be the mom's user's (root's at a site) and writable"
              + " by no one else.")
  Path hookDir;

  @Option(
      names = "--hook-timeout",
      defaultValue = "300",
      paramLabel = "SECONDS",
      description = "How long each prologue or epilogue may run (Torque's $prologalarm).")
  int hookTimeout;

  @Option(
      names = "--health-check",
      paramLabel = "SCRIPT",
      description =
          "The node health check (Torque's $node_check_script), run as the mom's user (root at a"
              + " site): output starting with ERROR takes the node offline with that message,"
              + " until it passes again.")
  Path healthCheck;

  @Option(
      names = "--health-check-interval",
      defaultValue = "1",
      paramLabel = "N[,jobstart][,jobend]",
      description =
          "Run the health check at every Nth status report (--heartbeat; 0: not periodically),"
              + " and before each job starts and after each ends here if named (Torque's"
              + " $node_check_interval).")
  String healthCheckInterval;

  /** The options as berth up passes them on to berth serve: only those given. */
  java.util.List<String> arguments() {
    java.util.List<String> args = new java.util.ArrayList<>();
    if (hookDir != null) {
      args.addAll(java.util.List.of("--hook-dir", hookDir.toAbsolutePath().toString()));
    }
    args.addAll(java.util.List.of("--hook-timeout", Integer.toString(hookTimeout)));
    if (healthCheck != null) {
      args.addAll(java.util.List.of("--health-check", healthCheck.toAbsolutePath().toString()));
    }
    args.addAll(java.util.List.of("--health-check-interval", healthCheckInterval));
    return args;
  }

  /**
   * The scripts, checked: the hooks in --hook-dir, else in {@code defaultDir} (null: none), and the
   * health check.
   */
  SiteScripts scripts(Path defaultDir) throws HookFiles.Refused {
    if (hookTimeout <= 0) {
      throw new IllegalArgumentException("--hook-timeout: " + hookTimeout + " is not above 0");
    }
    Path dir = hookDir != null ? hookDir : defaultDir;
    if (dir != null && !dir.isAbsolute()) {
      throw new IllegalArgumentException("--hook-dir: " + dir + " is not an absolute path");
    }
    Path check = null;
    if (healthCheck != null) {
      Path absolute = healthCheck.toAbsolutePath();
      check =
          HookFiles.find(absolute.getParent(), absolute.getFileName().toString(), false)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException("--health-check: " + absolute + " is missing"));
    }
    int every;
    boolean atStart = false;
    boolean atEnd = false;
    String[] parts = healthCheckInterval.split(",");
    try {
      every = Integer.parseInt(parts[0].trim());
    } catch (NumberFormatException e) {
      every = -1;
    }
    for (int i = 1; i < parts.length; i++) {
      switch (parts[i].trim()) {
        case "jobstart" -> atStart = true;
        case "jobend" -> atEnd = true;
        default -> every = -1;
      }
    }
    if (every < 0) {
      throw new IllegalArgumentException(
          "--health-check-interval: '"
              + healthCheckInterval
              + "' is not N[,jobstart][,jobend] with N a count of status reports");
    }
    return new SiteScripts(dir, Duration.ofSeconds(hookTimeout), check, every, atStart, atEnd);
  }
}
