package dev.berth.server.accounting;

import dev.berth.core.BadValueException;
import dev.berth.core.Durations;
import dev.berth.core.JobIds;
import dev.berth.core.Sizes;
import dev.berth.proto.Error;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.ResourceRequest;
import dev.berth.proto.ResourcesUsed;
import dev.berth.server.command.CommandException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Finished jobs as the accounting files keep them: each {@code E} record (a job that ran and ended)
 * read back into a job in state C, for {@code qstat -H} and {@code berth report --jobs}. The files
 * outlive the server's memory of a job (keep_completed) for as long as the site keeps them. Jobs
 * that never started (an {@code A} record, or deleted while queued) have no {@code E} record and
 * are not among them. A line that is not an {@code E} record, or whose numbers cannot be read, is
 * passed over.
 */
public final class FinishedJobs {
  /** The days a request without dates covers, today included (PBS Pro keeps 14 by default). */
  public static final int DEFAULT_DAYS = 14;

  /** The most days one request may cover. */
  public static final int MAX_DAYS = dev.berth.core.HistoryDays.MAX;

  private static final DateTimeFormatter DAY = DateTimeFormatter.BASIC_ISO_DATE;

  private FinishedJobs() {}

  /** The days from {@code from} to {@code to} (YYYYMMDD; empty: the last 14 days to today). */
  public static List<String> days(String from, String to, LocalDate today) {
    LocalDate last = to.isEmpty() ? today : day(to, "to");
    LocalDate first = from.isEmpty() ? last.minusDays(DEFAULT_DAYS - 1) : day(from, "from");
    if (first.isAfter(last)) {
      throw new CommandException(
          Error.Code.BAD_VALUE, "the history's first day " + first + " is after its last " + last);
    }
    if (first.plusDays(MAX_DAYS - 1).isBefore(last)) {
      throw new CommandException(
          Error.Code.BAD_VALUE,
          "ask for at most "
              + MAX_DAYS
              + " days of history at a time, not "
              + first
              + " to "
              + last);
    }
    List<String> days = new ArrayList<>();
    for (LocalDate d = first; !d.isAfter(last); d = d.plusDays(1)) {
      days.add(d.format(DAY));
    }
    return days;
  }

  private static LocalDate day(String text, String which) {
    try {
      if (text.length() == 8) {
        return LocalDate.parse(text, DAY);
      }
    } catch (DateTimeParseException e) {
      // said below
    }
    throw new CommandException(
        Error.Code.BAD_VALUE, "the history's " + which + " day is YYYYMMDD, not '" + text + "'");
  }

  /**
   * Which records a reader wants, told from a line before it is parsed: those of {@code users} and
   * of {@code ids} (empty: any).
   */
  public record Selection(java.util.Set<String> users, java.util.Set<String> ids) {
    public static final Selection ALL = new Selection(java.util.Set.of(), java.util.Set.of());

    /**
     * Whether the E record of job {@code id} whose attributes are {@code attributes} may be: a task
     * is named by its own id, its array's number, and a task of an sbatch array by its own job
     * number too.
     */
    boolean admits(String id, String attributes) {
      if (!ids.isEmpty() && !ids.contains(id) && !ids.contains(arrayNumber(id))) {
        String own = ownId(id, attributes);
        if (own == null || !ids.contains(own)) {
          return false;
        }
      }
      if (users.isEmpty()) {
        return true;
      }
      // the record starts with its user, as Torque's do (AccountingRecords' common block)
      if (!attributes.startsWith("user=")) {
        return true; // another layout: the parsed job is checked
      }
      int end = attributes.indexOf(' ', 5);
      return users.contains(end < 0 ? attributes.substring(5) : attributes.substring(5, end));
    }
  }

  /** A task {@code N[i].server} as Slurm's array id {@code N.server} names its tasks. */
  private static String arrayNumber(String id) {
    int open = id.indexOf('[');
    int close = id.indexOf(']', open + 1);
    return open < 0 || close < 0 ? id : id.substring(0, open) + id.substring(close + 1);
  }

  /**
   * The id {@code N.server} of a task of an sbatch array by its own job number (its task_number),
   * which Slurm's commands name it by; null for any other job.
   */
  private static String ownId(String id, String attributes) {
    String key = " " + AccountingRecords.TASK_NUMBER + "=";
    int at = attributes.indexOf(key);
    if (at < 0) {
      return null;
    }
    int from = at + key.length();
    int end = attributes.indexOf(' ', from);
    return attributes.substring(from, end < 0 ? attributes.length() : end)
        + "."
        + JobIds.server(id);
  }

  /**
   * The finished jobs of {@code days} in the accounting directory {@code dir}, in the order they
   * ended, that {@code selection} and then {@code wanted} keep: at most {@code max}, else refused
   * with a message that says how to ask for fewer.
   */
  public static List<Job> read(
      Path dir, List<String> days, Selection selection, Predicate<Job> wanted, int max) {
    List<Job> jobs = new ArrayList<>();
    for (String day : days) {
      try (BufferedReader in = AccountingFiles.lines(dir.resolve(day))) {
        String line;
        while ((line = in.readLine()) != null) {
          Optional<Job> job = ofLine(line, selection);
          if (job.isPresent() && wanted.test(job.get())) {
            if (jobs.size() == max) {
              throw new CommandException(
                  Error.Code.INVALID_REQUEST,
                  "more than "
                      + max
                      + " finished jobs in these days: ask for fewer days, users or jobs");
            }
            jobs.add(job.get());
          }
        }
      } catch (NoSuchFileException e) {
        // no job ended that day
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return jobs;
  }

  /** The job an accounting line's {@code E} record describes; empty for any other line. */
  static Optional<Job> ofLine(String line) {
    return ofLine(line, Selection.ALL);
  }

  /**
   * The job of an E record that {@code selection} admits. Read by hand, not by regular expressions:
   * a history is hundreds of thousands of these lines.
   */
  static Optional<Job> ofLine(String line, Selection selection) {
    int type = line.indexOf(';');
    if (type < 0
        || line.length() < type + 3
        || line.charAt(type + 1) != 'E'
        || line.charAt(type + 2) != ';') {
      return Optional.empty();
    }
    int idEnd = line.indexOf(';', type + 3);
    if (idEnd <= type + 3) {
      return Optional.empty();
    }
    String id = line.substring(type + 3, idEnd);
    String attributes = line.substring(idEnd + 1).strip();
    if (!selection.admits(id, attributes)) {
      return Optional.empty();
    }
    Map<String, String> a = new HashMap<>();
    int at = 0;
    int n = attributes.length();
    while (at < n) {
      int end = attributes.indexOf(' ', at);
      if (end < 0) {
        end = n;
      }
      int eq = attributes.indexOf('=', at);
      if (eq > at && eq < end) {
        a.put(attributes.substring(at, eq), attributes.substring(eq + 1, end));
      }
      at = end + 1;
    }
    try {
      return Optional.of(job(id, a));
    } catch (BadValueException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  private static Job job(String id, Map<String, String> a)
      throws BadValueException, NumberFormatException {
    long end = number(a, "end");
    Job.Builder job =
        Job.newBuilder()
            .setId(id)
            .setNumber(JobIds.number(id))
            .setServer(JobIds.server(id))
            .setName(a.getOrDefault("jobname", ""))
            .setOwner(a.getOrDefault("owner", ""))
            .setEuser(a.getOrDefault("user", ""))
            .setEgroup(a.getOrDefault("group", ""))
            .setAccount(a.getOrDefault("account", ""))
            .setQueue(a.getOrDefault("queue", ""))
            .setState(JobState.COMPLETED)
            .setCtime(number(a, "ctime"))
            .setQtime(number(a, "qtime"))
            .setEtime(number(a, "etime"))
            .setStartTime(number(a, "start"))
            .setCompTime(end)
            .setMtime(end)
            .setTaskNumber(number(a, AccountingRecords.TASK_NUMBER))
            .setRunCount((int) number(a, "start_count"))
            .setSessionId(number(a, "session"))
            .setExitStatus(Integer.parseInt(a.getOrDefault("Exit_status", "0")))
            .setResources(requested(a))
            .setResourcesUsed(used(a));
    int bracket = id.indexOf('[');
    if (bracket > 0 && id.indexOf(']') > bracket + 1) {
      job.setArrayIndex(Integer.parseInt(id.substring(bracket + 1, id.indexOf(']'))))
          .setArrayParent(id.substring(0, bracket + 1) + id.substring(id.indexOf(']')));
    }
    String execHost = a.get("exec_host");
    if (execHost != null) {
      job.addAllExecNodes(execNodes(execHost));
    }
    return job.build();
  }

  private static long number(Map<String, String> a, String name) {
    return Long.parseLong(a.getOrDefault(name, "0"));
  }

  private static ResourceRequest requested(Map<String, String> a) throws BadValueException {
    ResourceRequest.Builder r = ResourceRequest.newBuilder();
    String prefix = "Resource_List.";
    for (Map.Entry<String, String> e : a.entrySet()) {
      if (e.getKey().startsWith(prefix)) {
        r.putValues(e.getKey().substring(prefix.length()), e.getValue());
      }
    }
    String walltime = r.getValuesOrDefault("walltime", "");
    if (!walltime.isEmpty()) {
      r.setWalltime(Durations.parseSeconds(walltime));
    }
    String mem = r.getValuesOrDefault("mem", "");
    if (!mem.isEmpty()) {
      r.setMem(Sizes.parseBytes(mem));
    }
    return r.build();
  }

  /** resources_used as UsedResources writes it (cput in seconds in these files, as Torque's). */
  private static ResourcesUsed used(Map<String, String> a) throws BadValueException {
    String p = "resources_used.";
    ResourcesUsed.Builder u =
        ResourcesUsed.newBuilder()
            .setCput(seconds(a.getOrDefault(p + "cput", "0")))
            .setMem(bytes(a.get(p + "mem")))
            .setVmem(bytes(a.get(p + "vmem")))
            .setWalltime(seconds(a.getOrDefault(p + "walltime", "0")))
            .setOomKills(Integer.parseInt(a.getOrDefault(p + "oom_kills", "0")))
            .setGpus(Integer.parseInt(a.getOrDefault(p + "gpus", "0")))
            .setIoRead(bytes(a.get(p + "io_read")))
            .setIoWrite(bytes(a.get(p + "io_write")));
    if (a.containsKey(p + "gpupercent")) {
      u.setGpuPercent(Integer.parseInt(a.get(p + "gpupercent")))
          .setGpusSampled(Math.max(1, u.getGpus()))
          .setGpuMem(bytes(a.get(p + "gpumem")));
    }
    return u.build();
  }

  private static long seconds(String v) throws BadValueException {
    return v.indexOf(':') < 0 ? Long.parseLong(v) : Durations.parseSeconds(v);
  }

  private static long bytes(String v) throws BadValueException {
    return v == null || v.isEmpty() ? 0 : Sizes.parseBytes(v);
  }

  /** {@code n01/0-1+n02/0,2}: each node and its CPU ids; none where it cannot be read. */
  static List<NodeAllocation> execNodes(String execHost) {
    try {
      return parsedExecNodes(execHost);
    } catch (NumberFormatException e) {
      return List.of();
    }
  }

  private static List<NodeAllocation> parsedExecNodes(String execHost) {
    List<NodeAllocation> nodes = new ArrayList<>();
    for (String part : execHost.split("\\+")) {
      int slash = part.lastIndexOf('/');
      if (slash <= 0) {
        return List.of();
      }
      NodeAllocation.Builder n = NodeAllocation.newBuilder().setNode(part.substring(0, slash));
      for (String range : part.substring(slash + 1).split(",")) {
        String[] ends = range.split("-", 2);
        int from = Integer.parseInt(ends[0]);
        int to = ends.length == 2 ? Integer.parseInt(ends[1]) : from;
        if (to < from || to - from > 65536) {
          return List.of();
        }
        for (int cpu = from; cpu <= to; cpu++) {
          n.addCpus(cpu);
        }
      }
      nodes.add(n.build());
    }
    return nodes;
  }
}
