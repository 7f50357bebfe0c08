package dev.berth.server.command;

import dev.berth.core.BadValueException;
import dev.berth.core.Durations;
import dev.berth.core.NodeSpec;
import dev.berth.core.Sizes;
import dev.berth.proto.Error;
import dev.berth.proto.ResourceRequest;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The resources a job may request (Torque 6's resource table), how each value is checked, and how
 * it is shown. Unlike Torque, which keeps unknown names as opaque strings, Berth refuses a name it
 * does not know: a typo such as {@code walltim} or an OpenPBS {@code select} would otherwise be
 * silently ignored and the job would run with defaults.
 */
public final class ResourceRules {
  private enum Kind {
    TIME,
    SIZE,
    COUNT,
    NODES,
    NICE,
    TEXT
  }

  private static final Map<String, Kind> KINDS =
      Map.ofEntries(
          Map.entry("nodes", Kind.NODES),
          Map.entry("ncpus", Kind.COUNT),
          Map.entry("procs", Kind.COUNT),
          Map.entry("gpus", Kind.COUNT),
          Map.entry("mem", Kind.SIZE),
          Map.entry("pmem", Kind.SIZE),
          Map.entry("vmem", Kind.SIZE),
          Map.entry("pvmem", Kind.SIZE),
          Map.entry("file", Kind.SIZE),
          Map.entry("walltime", Kind.TIME),
          Map.entry("cput", Kind.TIME),
          Map.entry("pcput", Kind.TIME),
          Map.entry("nice", Kind.NICE),
          Map.entry("arch", Kind.TEXT),
          Map.entry("opsys", Kind.TEXT),
          Map.entry("software", Kind.TEXT),
          Map.entry("gres", Kind.TEXT),
          Map.entry("feature", Kind.TEXT),
          Map.entry("naccesspolicy", Kind.TEXT),
          Map.entry("other", Kind.TEXT),
          Map.entry("qos", Kind.TEXT),
          Map.entry("partition", Kind.TEXT),
          Map.entry("epilogue", Kind.TEXT),
          Map.entry("prologue", Kind.TEXT),
          Map.entry("host", Kind.TEXT));

  /** Names users bring from other systems, with what to write instead. */
  private static final Map<String, String> HINTS =
      Map.of(
          "select", "this is OpenPBS syntax; Berth follows Torque: use -l nodes=N:ppn=M[,mem=...]",
          "place", "this is OpenPBS syntax; Berth follows Torque: use -l nodes=N:ppn=M",
          "ngpus", "request GPUs per node with -l gpus=G or -l nodes=N:gpus=G",
          "storage", "this is an NCI Gadi resource; Berth has no storage resource",
          "jobfs", "this is an NCI Gadi resource; Berth has no jobfs resource",
          "wd",
              "-l wd is PBS Pro's 'start in the submit directory'; use -d $PWD or cd $PBS_O_WORKDIR",
          "mpiprocs", "this is OpenPBS syntax; use -l nodes=N:ppn=M");

  private static final long MAX_SECONDS = Long.MAX_VALUE / 1000;

  private ResourceRules() {}

  static Set<String> known() {
    return new TreeSet<>(KINDS.keySet());
  }

  /** The value as qstat shows it; throws for an unknown name or a malformed value. */
  public static String normalize(String name, String value) {
    Kind kind = KINDS.get(name);
    if (kind == null) {
      String hint = HINTS.get(name);
      throw new CommandException(
          Error.Code.UNKNOWN_RESOURCE,
          "unknown resource '"
              + name
              + "'"
              + (hint != null ? ": " + hint : "")
              + " (known resources: "
              + String.join(", ", known())
              + ")");
    }
    try {
      return switch (kind) {
        case TIME -> Durations.format(seconds(value));
        case SIZE -> Sizes.parse(value).toString();
        case COUNT -> Integer.toString(positive(name, value));
        case NODES -> {
          NodeSpec.parse(value);
          yield value.trim();
        }
        case NICE -> Integer.toString(nice(value));
        case TEXT -> nonEmpty(name, value);
      };
    } catch (BadValueException | NumberFormatException e) {
      throw badValue(name, value, e.getMessage());
    }
  }

  /** Sets the typed field for a normalized resource value. */
  public static void setTyped(ResourceRequest.Builder r, String name, String value) {
    switch (name) {
      case "nodes" -> r.clearNodeGroups().addAllNodeGroups(NodeSpec.parse(value).groups());
      case "ncpus" -> r.setNcpus(Integer.parseInt(value));
      case "procs" -> r.setProcs(Integer.parseInt(value));
      case "gpus" -> r.setGpus(Integer.parseInt(value));
      case "mem" -> r.setMem(Sizes.parseBytes(value));
      case "pmem" -> r.setPmem(Sizes.parseBytes(value));
      case "vmem" -> r.setVmem(Sizes.parseBytes(value));
      case "pvmem" -> r.setPvmem(Sizes.parseBytes(value));
      case "walltime" -> r.setWalltime(Durations.parseSeconds(value));
      case "cput" -> r.setCput(Durations.parseSeconds(value));
      case "pcput" -> r.setPcput(Durations.parseSeconds(value));
      default -> {
        // kept only as text
      }
    }
  }

  /** A comparable magnitude for limits (resources_max/min), or -1 if the kind has none. */
  public static long magnitude(String name, String value) {
    Kind kind = KINDS.get(name);
    if (kind == null) {
      return -1;
    }
    return switch (kind) {
      case TIME -> Durations.parseSeconds(value);
      case SIZE -> Sizes.parseBytes(value);
      case COUNT, NICE -> Long.parseLong(value);
      case NODES -> NodeSpec.parse(value).nodeCount();
      case TEXT -> -1;
    };
  }

  public static CommandException badValue(String name, String value, String why) {
    return new CommandException(
        Error.Code.BAD_VALUE, "illegal value for resource " + name + "=" + value + ": " + why);
  }

  /**
   * A nice value a job may run at: 0 to 19. Torque passes a negative one to nice() as root, so any
   * user could run ahead of the node's other work; here only the scheduler decides who goes first.
   */
  private static int nice(String value) {
    int nice = Integer.parseInt(value.trim());
    if (nice < 0 || nice > 19) {
      throw new BadValueException(
          "a job's nice value is 0 to 19 (a job may lower its priority, not raise it)");
    }
    return nice;
  }

  /** A time in seconds that also fits in milliseconds, as moms time a walltime in milliseconds. */
  private static long seconds(String value) {
    long seconds = Durations.parseSeconds(value);
    if (seconds > MAX_SECONDS) {
      throw new BadValueException("a time may be at most " + MAX_SECONDS + " seconds");
    }
    return seconds;
  }

  private static int positive(String name, String value) {
    int n = Integer.parseInt(value.trim());
    if (n < 1) {
      throw new BadValueException(name + " must be at least 1");
    }
    return n;
  }

  private static String nonEmpty(String name, String value) {
    if (value.isBlank()) {
      throw new BadValueException(name + " needs a value");
    }
    return value.trim();
  }
}
