package dev.berth.tools.sprio;

import dev.berth.client.GnuOptions.Arg;
import dev.berth.client.GnuOptions.Option;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.ServerAttributeNames;
import dev.berth.core.pbs.AttributeTable;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.SchedulingPriority;
import dev.berth.proto.StatJobs;
import dev.berth.proto.StatServer;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.slurm.SlurmCommandLine;
import dev.berth.tools.slurm.SlurmFormat;
import dev.berth.tools.slurm.SlurmFormat.Field;
import dev.berth.tools.slurm.SlurmJob;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code sprio}: the priority of each pending job and the weighted factors it is the sum of, from
 * the scheduler's multifactor priority (qstat -f's sched_priority), in Slurm 22.05's layouts. The
 * factors are Slurm's: AGE, FAIRSHARE, JOBSIZE, PARTITION (the queue's Priority) and SITE, which is
 * the part of the job's {@code qsub -p} (Berth's users set it, where Slurm's site factor is an
 * administrator's); ASSOC, QOS, NICE and TRES are 0 or empty, as Berth has none. Like Slurm's, only
 * jobs that wait to be scheduled are listed (not held ones), a column for each factor whose weight
 * is not 0.
 */
public final class Sprio {
  private static final List<Option> OPTIONS =
      List.of(
          new Option("noheader", 'h', Arg.NONE),
          new Option("jobs", 'j', Arg.OPTIONAL),
          new Option("long", 'l', Arg.NONE),
          new Option("cluster", 'M', Arg.REQUIRED),
          new Option("clusters", 'M', Arg.REQUIRED),
          new Option("norm", 'n', Arg.NONE),
          new Option("format", 'o', Arg.REQUIRED),
          new Option("sort", 'S', Arg.REQUIRED),
          new Option("partition", 'p', Arg.REQUIRED),
          new Option("user", 'u', Arg.REQUIRED),
          new Option("users", 'u', Arg.REQUIRED),
          new Option("verbose", 'v', Arg.NONE),
          new Option("version", 'V', Arg.NONE),
          new Option("weights", 'w', Arg.NONE),
          new Option("federation", (char) 0, Arg.NONE),
          new Option("help", (char) 0, Arg.NONE),
          new Option("local", (char) 0, Arg.NONE),
          new Option("sib", (char) 0, Arg.NONE),
          new Option("sibling", (char) 0, Arg.NONE),
          new Option("usage", (char) 0, Arg.NONE));

  private static final Set<String> HONOURED =
      Set.of(
          "noheader",
          "jobs",
          "long",
          "norm",
          "format",
          "partition",
          "user",
          "users",
          "version",
          "weights",
          "help",
          "usage");

  static final String USAGE =
      "Usage: sprio [-j jid[s]] [-u user_name[s]] [-o format] [-p partitions]\n"
          + "   [--federation] [--local] [--sibling] [--usage] [-hlnvVw]";

  /** The largest priority, by which {@code %y} divides (Slurm's 32-bit priorities). */
  private static final double MAX_PRIORITY = 4294967295.0;

  /** The weights of the factors, from the server's priority_weight_* (their defaults if unset). */
  record Weights(long site, long age, long fairShare, long jobSize, long partition) {
    static Weights of(Map<String, String> server) {
      return new Weights(
          weight(server, ServerAttributeNames.PRIORITY_WEIGHT_USER),
          weight(server, ServerAttributeNames.PRIORITY_WEIGHT_AGE),
          weight(server, ServerAttributeNames.PRIORITY_WEIGHT_FAIRSHARE),
          weight(server, ServerAttributeNames.PRIORITY_WEIGHT_JOB_SIZE),
          weight(server, ServerAttributeNames.PRIORITY_WEIGHT_QUEUE));
    }

    private static long weight(Map<String, String> server, String name) {
      String value =
          server.getOrDefault(name, AttributeTable.SERVER.defaults().getOrDefault(name, "0"));
      try {
        return Long.parseLong(value.strip());
      } catch (NumberFormatException e) {
        return 0;
      }
    }
  }

  /**
   * A line: a job's factors, or ({@code job} null) the weights themselves, which {@code -w} prints
   * under the header with {@code Weights} for a job id.
   */
  record Line(SlurmJob job, Weights weights) {
    String value(char letter) {
      if (job == null) {
        return weight(letter);
      }
      Job j = job.job();
      SchedulingPriority p = j.getSchedPriority();
      return switch (letter) {
        case 'i' -> job.id();
        case 'r' -> j.getQueue();
        case 'u' -> j.getEuser();
        case 'c' -> j.getServer();
        case 'Y' -> Long.toString(p.getTotal());
        case 'y' -> String.format(Locale.ROOT, "%16.14f", p.getTotal() / MAX_PRIORITY);
        case 'S' -> Long.toString(p.getUser());
        case 'A' -> Long.toString(p.getAge());
        case 'a' -> normal(p.getAge(), weights.age());
        case 'F' -> Long.toString(p.getFairShare());
        case 'f' -> normal(p.getFairShare(), weights.fairShare());
        case 'J' -> Long.toString(p.getJobSize());
        case 'j' -> normal(p.getJobSize(), weights.jobSize());
        case 'P' -> Long.toString(p.getQueue());
        case 'p' -> normal(p.getQueue(), weights.partition());
        case 'B', 'Q', 'N' -> "0";
        case 'b', 'q' -> normal(0, 0);
        default -> ""; // T, t: no TRES factors
      };
    }

    private String weight(char letter) {
      return switch (letter) {
        case 'i' -> "Weights";
        case 'S' -> Long.toString(weights.site());
        case 'A', 'a' -> Long.toString(weights.age());
        case 'F', 'f' -> Long.toString(weights.fairShare());
        case 'J', 'j' -> Long.toString(weights.jobSize());
        case 'P', 'p' -> Long.toString(weights.partition());
        case 'B', 'b', 'Q', 'q' -> "0";
        default -> "";
      };
    }

    private static String normal(long part, long weight) {
      return String.format(Locale.ROOT, "%.7f", weight == 0 ? 0.0 : (double) part / weight);
    }
  }

  /** sprio's fields: header and letter. */
  private static final Map<Character, String> HEADERS =
      Map.ofEntries(
          Map.entry('i', "JOBID"),
          Map.entry('r', "PARTITION"),
          Map.entry('u', "USER"),
          Map.entry('c', "CLUSTER"),
          Map.entry('Y', "PRIORITY"),
          Map.entry('y', "PRIORITY"),
          Map.entry('S', "SITE"),
          Map.entry('A', "AGE"),
          Map.entry('a', "AGE"),
          Map.entry('B', "ASSOC"),
          Map.entry('b', "ASSOC"),
          Map.entry('F', "FAIRSHARE"),
          Map.entry('f', "FAIRSHARE"),
          Map.entry('J', "JOBSIZE"),
          Map.entry('j', "JOBSIZE"),
          Map.entry('P', "PARTITION"),
          Map.entry('p', "PARTITION"),
          Map.entry('Q', "QOS"),
          Map.entry('q', "QOS"),
          Map.entry('N', "NICE"),
          Map.entry('T', "TRES"),
          Map.entry('t', "TRES"));

  private Sprio() {}

  public static int run(Invocation inv) {
    return run(inv, CliContext.DEFAULT);
  }

  public static int run(Invocation inv, CliContext context) {
    SlurmCommandLine.Read read =
        SlurmCommandLine.read(inv, OPTIONS, HONOURED, Map.of("users", "user"), USAGE);
    if (read.done().isPresent()) {
      return read.done().getAsInt();
    }
    Map<String, String> given = read.options();
    List<String> operands = new ArrayList<>(read.operands());
    String jobs = given.get("jobs");
    if (given.containsKey("jobs") && (jobs == null || jobs.isEmpty()) && !operands.isEmpty()) {
      jobs = operands.remove(0); // Slurm's sprio takes -j's list from the next word too
    }
    if (!operands.isEmpty()) {
      inv.err().println("sprio: error: Unrecognized option: " + operands.get(0));
      inv.out().println(USAGE);
      return 1;
    }
    if (given.containsKey("long") && given.containsKey("format")) {
      inv.err()
          .println(
              "sprio: fatal: Options -o(--format) and -l(--long) are mutually exclusive. Please"
                  + " remove one and retry.");
      return 1;
    }
    List<Job> all;
    Weights weights;
    try (ServerConnection server = context.connector().connect(inv)) {
      Response s = server.call(Request.newBuilder().setStatServer(StatServer.getDefaultInstance()));
      Response r =
          server.call(
              Request.newBuilder()
                  .setStatJobs(StatJobs.newBuilder().setIncludeSubjobs(true).setBrief(true)));
      if (SlurmCommandLine.refused(inv, s) || SlurmCommandLine.refused(inv, r)) {
        return 1;
      }
      weights = Weights.of(s.getServer().getAttributesMap());
      all = r.getJobs().getJobsList();
    } catch (ServerUnavailableException e) {
      inv.err().println("sprio: error: " + e.getMessage());
      return 1;
    }
    SlurmFormat<Line> format;
    try {
      format = SlurmFormat.parse(layout(given, weights), fields(), "sprio");
    } catch (IllegalArgumentException e) {
      inv.err().println("sprio: error: " + e.getMessage());
      return 1;
    }
    List<String> ids = SlurmCommandLine.list(jobs);
    List<String> users = SlurmCommandLine.list(given.get("user"));
    List<String> partitions = SlurmCommandLine.list(given.get("partition"));
    long now = context.nowSeconds();
    List<Line> lines = new ArrayList<>();
    for (Job job : all) {
      SlurmJob j = new SlurmJob(job, now);
      if (job.getState() != JobState.QUEUED
          || SlurmJob.arrayParent(job)
          || job.getSchedPriority().getTotal() == 0
          || !ids.isEmpty() && ids.stream().noneMatch(j::answersTo)
          || !users.isEmpty() && !users.contains(job.getEuser())
          || !partitions.isEmpty() && !partitions.contains(job.getQueue())) {
        continue;
      }
      lines.add(new Line(j, weights));
    }
    lines.sort(
        Comparator.comparingLong((Line l) -> l.job().job().getNumber())
            .thenComparingInt(l -> l.job().job().getArrayIndex()));
    if (!ids.isEmpty() && lines.isEmpty()) {
      inv.out().println("Unable to find jobs matching user/id(s) specified");
      return 0;
    }
    if (!given.containsKey("noheader")) {
      inv.out().println(format.header());
    }
    if (given.containsKey("weights")) {
      inv.out().println(format.row(new Line(null, weights)));
      return 0;
    }
    for (Line line : lines) {
      inv.out().println(format.row(line));
    }
    return 0;
  }

  private static Map<Character, Field<Line>> fields() {
    Map<Character, Field<Line>> fields = new java.util.HashMap<>();
    HEADERS.forEach(
        (letter, header) -> fields.put(letter, new Field<>(header, l -> l.value(letter))));
    return fields;
  }

  /** {@code -o}, or Slurm's layouts: a column for each factor whose weight is not 0. */
  private static String layout(Map<String, String> given, Weights w) {
    if (given.containsKey("format")) {
      return given.get("format");
    }
    boolean norm = given.containsKey("norm");
    boolean user = given.containsKey("user");
    if (given.containsKey("long")) {
      return norm
          ? "%.15i %9r %.8u %10y %10a %10b %10f %10j %10p %10q %20t"
          : "%.15i %9r %.8u %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q %.11N %.20T";
    }
    StringBuilder f = new StringBuilder("%.15i %9r");
    if (user) {
      f.append(" %.8u");
    }
    f.append(norm ? " %10y" : " %.10Y %.10S");
    if (w.age() != 0) {
      f.append(norm ? " %10a" : " %.10A");
    }
    if (w.fairShare() != 0) {
      f.append(norm ? " %10f" : " %.10F");
    }
    if (w.jobSize() != 0) {
      f.append(norm ? " %10j" : " %.10J");
    }
    if (w.partition() != 0) {
      f.append(norm ? " %10p" : " %.10P");
    }
    return f.toString();
  }
}
