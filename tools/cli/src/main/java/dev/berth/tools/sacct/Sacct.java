package dev.berth.tools.sacct;

import dev.berth.client.GnuOptions.Arg;
import dev.berth.client.GnuOptions.Option;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.HistoryDays;
import dev.berth.core.slurm.SlurmJobs;
import dev.berth.proto.Job;
import dev.berth.proto.JobHistory;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatJobs;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.slurm.PrintFields;
import dev.berth.tools.slurm.SlurmCommandLine;
import dev.berth.tools.slurm.SlurmJob;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code sacct}: jobs as Slurm's sacct lists them from its accounting database: the jobs the server
 * holds now and, from its accounting files ({@code qstat -H}'s history), those that ended in the
 * window ({@code -S}, {@code -E}; by default since midnight, or the last year with {@code -j}); the
 * caller's own unless {@code -u} or {@code -a} asks for others (and the server lets them see
 * those). One line per job: Berth keeps no job steps, so there are no {@code .batch} lines, as with
 * {@code -X}. Options and fields Berth does not honour yet are refused by name.
 */
public final class Sacct {
  private static final List<Option> OPTIONS =
      List.of(
          new Option("allusers", 'a', Arg.NONE),
          new Option("accounts", 'A', Arg.REQUIRED),
          new Option("allocations", 'X', Arg.NONE),
          new Option("brief", 'b', Arg.NONE),
          new Option("clusters", 'M', Arg.REQUIRED),
          new Option("completion", 'c', Arg.NONE),
          new Option("duplicates", 'D', Arg.NONE),
          new Option("endtime", 'E', Arg.REQUIRED),
          new Option("format", 'o', Arg.REQUIRED),
          new Option("gid", 'g', Arg.REQUIRED),
          new Option("group", (char) 0, Arg.REQUIRED),
          new Option("help", 'h', Arg.NONE),
          new Option("helpformat", 'e', Arg.NONE),
          new Option("jobs", 'j', Arg.REQUIRED),
          new Option("json", (char) 0, Arg.NONE),
          new Option("long", 'l', Arg.NONE),
          new Option("name", (char) 0, Arg.REQUIRED),
          new Option("nodelist", 'N', Arg.REQUIRED),
          new Option("noheader", 'n', Arg.NONE),
          new Option("parsable", 'p', Arg.NONE),
          new Option("parsable2", 'P', Arg.NONE),
          new Option("partition", 'r', Arg.REQUIRED),
          new Option("qos", 'q', Arg.REQUIRED),
          new Option("starttime", 'S', Arg.REQUIRED),
          new Option("state", 's', Arg.REQUIRED),
          new Option("truncate", 'T', Arg.NONE),
          new Option("uid", (char) 0, Arg.REQUIRED),
          new Option("usage", (char) 0, Arg.NONE),
          new Option("user", 'u', Arg.REQUIRED),
          new Option("verbose", 'v', Arg.NONE),
          new Option("version", 'V', Arg.NONE),
          new Option("wckeys", 'W', Arg.REQUIRED),
          new Option("yaml", (char) 0, Arg.NONE));

  private static final Set<String> HONOURED =
      Set.of(
          "allusers",
          "accounts",
          "allocations",
          "brief",
          "endtime",
          "format",
          "help",
          "helpformat",
          "jobs",
          "name",
          "noheader",
          "parsable",
          "parsable2",
          "partition",
          "starttime",
          "state",
          "usage",
          "user",
          "version");

  static final String USAGE =
      "Usage: sacct [-a] [-A accounts] [-b] [-E end] [-j jobs] [-n] [-o fields] [-p | -P]\n"
          + "             [-r partitions] [-S start] [-s states] [-u users] [-X] [--name names]";

  private Sacct() {}

  public static int run(Invocation inv) {
    return run(inv, CliContext.DEFAULT);
  }

  public static int run(Invocation inv, CliContext context) {
    SlurmCommandLine.Read read = SlurmCommandLine.read(inv, OPTIONS, HONOURED, Map.of(), USAGE);
    if (read.done().isPresent()) {
      return read.done().getAsInt();
    }
    Map<String, String> given = read.options();
    ZoneId zone = inv.zone();
    if (given.containsKey("helpformat")) {
      inv.out().println(String.join(" ", SacctFields.names()));
      return 0;
    }
    SacctFields fields;
    long start;
    long end;
    Set<SlurmJob.State> states;
    long now = context.nowSeconds();
    try {
      String format =
          given.containsKey("format")
              ? given.get("format")
              : given.containsKey("brief") ? SacctFields.BRIEF : SacctFields.DEFAULT;
      fields = SacctFields.parse(format, zone);
      LocalDate today = LocalDate.ofInstant(Instant.ofEpochSecond(now), zone);
      start =
          given.containsKey("starttime")
              ? time(given.get("starttime"), now, zone, "--starttime")
              : given.containsKey("jobs")
                  ? today.minusDays(HistoryDays.MAX - 1).atStartOfDay(zone).toEpochSecond()
                  : today.atStartOfDay(zone).toEpochSecond();
      end = given.containsKey("endtime") ? time(given.get("endtime"), now, zone, "--endtime") : now;
      LocalDate last = LocalDate.ofInstant(Instant.ofEpochSecond(Math.max(start, end)), zone);
      LocalDate first = last.minusDays(HistoryDays.MAX - 1);
      if (LocalDate.ofInstant(Instant.ofEpochSecond(start), zone).isBefore(first)) {
        // Slurm's database has no such bound (Toil asks for -S 1970-01-01): the latest days
        inv.err()
            .println(
                "sacct: warning: Berth reads at most "
                    + HistoryDays.MAX
                    + " days of finished jobs at a time: those that ended before "
                    + first
                    + " are not listed");
        start = first.atStartOfDay(zone).toEpochSecond();
      }
      states = states(given.get("state"));
    } catch (IllegalArgumentException e) {
      inv.err().println("sacct: error: " + e.getMessage());
      return 1;
    }
    List<String> users = SlurmCommandLine.list(given.get("user"));
    if (users.isEmpty() && !given.containsKey("allusers")) {
      users = List.of(SlurmCommandLine.caller(inv));
    }
    List<String> ids = SlurmCommandLine.list(given.get("jobs"));
    Map<String, Job> jobs = new LinkedHashMap<>();
    DateTimeFormatter day = DateTimeFormatter.BASIC_ISO_DATE;
    try (ServerConnection server = context.connector().connect(inv)) {
      JobHistory.Builder history =
          JobHistory.newBuilder()
              .setFrom(day.format(LocalDate.ofInstant(Instant.ofEpochSecond(start), zone)))
              .setTo(
                  day.format(
                      LocalDate.ofInstant(Instant.ofEpochSecond(Math.max(start, end)), zone)))
              .addAllUsers(users);
      ids.forEach(id -> history.addJobIds(SlurmJobs.toBerth(id)));
      for (Request.Builder request :
          List.of(
              Request.newBuilder().setJobHistory(history),
              Request.newBuilder()
                  .setStatJobs(StatJobs.newBuilder().setIncludeSubjobs(true).setBrief(true)))) {
        Response r = server.call(request);
        if (SlurmCommandLine.refused(inv, r)) {
          return 1;
        }
        for (Job job : r.getJobs().getJobsList()) {
          jobs.put(job.getId(), job); // the server's own record wins over the file's
        }
      }
    } catch (ServerUnavailableException e) {
      inv.err().println("sacct: error: " + e.getMessage());
      return 1;
    }
    List<SlurmJob> shown = new ArrayList<>();
    for (Job job : jobs.values()) {
      if (SlurmJob.arrayParent(job)) {
        continue; // its tasks are listed
      }
      SlurmJob j = new SlurmJob(job, now);
      // named jobs whenever they ran; the others when in the window: submitted before its end,
      // and running still or ended after its start
      boolean inWindow =
          !ids.isEmpty()
              || job.getCtime() <= end && (job.getCompTime() == 0 || job.getCompTime() >= start);
      if (inWindow
          && (users.isEmpty() || users.contains(job.getEuser()))
          && (ids.isEmpty() || ids.stream().anyMatch(j::answersTo))
          && (states == null || states.contains(j.state()))
          && SlurmCommandLine.admits(given.get("partition"), job.getQueue())
          && SlurmCommandLine.admits(given.get("accounts"), job.getAccount())
          && SlurmCommandLine.admits(given.get("name"), job.getName())) {
        shown.add(j);
      }
    }
    shown.sort(
        Comparator.comparingLong((SlurmJob j) -> j.job().getNumber())
            .thenComparingInt(j -> j.job().getArrayIndex()));
    String mode =
        given.containsKey("parsable2")
            ? PrintFields.PARSABLE2
            : given.containsKey("parsable") ? PrintFields.PARSABLE : PrintFields.COLUMNS;
    if (!given.containsKey("noheader")) {
      fields.header(mode).forEach(inv.out()::println);
    }
    for (SlurmJob j : shown) {
      inv.out().println(fields.row(j, mode));
    }
    return 0;
  }

  /**
   * {@code -S}, {@code -E}: {@code YYYY-MM-DD[THH:MM[:SS]]}, {@code now}, {@code today}, {@code
   * midnight}; Slurm's other forms are refused by name.
   */
  static long time(String text, long now, ZoneId zone, String option) {
    String t = text.strip().toLowerCase(Locale.ROOT);
    if (t.equals("now")) {
      return now;
    }
    if (t.equals("today") || t.equals("midnight")) {
      return LocalDate.ofInstant(Instant.ofEpochSecond(now), zone)
          .atStartOfDay(zone)
          .toEpochSecond();
    }
    try {
      if (text.contains("T")) {
        String full = text.length() == 16 ? text + ":00" : text;
        return LocalDateTime.parse(full).atZone(zone).toEpochSecond();
      }
      return LocalDate.parse(text).atStartOfDay(zone).toEpochSecond();
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          option
              + "="
              + text
              + ": Berth's sacct takes YYYY-MM-DD[THH:MM[:SS]], now, today or midnight");
    }
  }

  /** {@code -s}: states by their long or short names (any case). */
  private static Set<SlurmJob.State> states(String list) {
    if (list == null) {
      return null;
    }
    Set<SlurmJob.State> states = EnumSet.noneOf(SlurmJob.State.class);
    for (String name : list.split(",")) {
      SlurmJob.State s = SlurmJob.State.named(name.strip());
      if (s == null) {
        throw new IllegalArgumentException("Invalid state: " + name.strip());
      }
      states.add(s);
    }
    return states;
  }
}
