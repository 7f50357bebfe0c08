package dev.berth.mom.job;

import dev.berth.core.pbs.ExitStatus;
import dev.berth.proto.ResourcesUsed;

/**
 * The line berth-starter writes when a job process ends: {@code exit CODE CPU_US MAXRSS_KB}, {@code
 * signal SIG CPU_US MAXRSS_KB} or {@code failed MESSAGE}.
 */
public record StarterStatus(Kind kind, int value, long cpuMicros, long maxRssKb, String message) {
  public enum Kind {
    EXIT,
    SIGNAL,
    FAILED
  }

  public static StarterStatus parse(String line) {
    String text = line.strip();
    if (text.startsWith("failed ")) {
      return new StarterStatus(Kind.FAILED, 0, 0, 0, text.substring("failed ".length()));
    }
    String[] f = text.split(" ");
    try {
      Kind kind =
          switch (f[0]) {
            case "exit" -> Kind.EXIT;
            case "signal" -> Kind.SIGNAL;
            default -> throw new IllegalArgumentException(f[0]);
          };
      long cpu = f.length > 2 ? Long.parseLong(f[2]) : 0;
      long rss = f.length > 3 ? Long.parseLong(f[3]) : 0;
      return new StarterStatus(kind, Integer.parseInt(f[1]), cpu, rss, "");
    } catch (RuntimeException e) {
      return new StarterStatus(Kind.FAILED, 0, 0, 0, "unreadable starter status '" + text + "'");
    }
  }

  /** Torque's exit_status: the exit code, 256 + signal, or -1 when the job never started. */
  public int exitStatus() {
    return switch (kind) {
      case EXIT -> value;
      case SIGNAL -> ExitStatus.killedBy(value);
      case FAILED -> ExitStatus.EXEC_FAILED.code();
    };
  }

  public ResourcesUsed usage(long walltimeSeconds) {
    return ResourcesUsed.newBuilder()
        .setCput(cpuMicros / 1_000_000)
        .setMem(maxRssKb * 1024)
        .setWalltime(walltimeSeconds)
        .build();
  }
}
