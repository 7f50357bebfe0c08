package dev.berth.daemon;

import dev.berth.client.BerthClient;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.ServerLocation;
import dev.berth.proto.Job;
import dev.berth.proto.JobHistory;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.server.accounting.AccountingFiles;
import dev.berth.server.accounting.FinishedJobs;
import dev.berth.server.accounting.JobReport;
import dev.berth.server.accounting.UsageReport;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What was used over a range of days, per user, group, account and queue, from accounting files
 * (this server's, or any in Torque's format); or, with --jobs, each finished job, from the server
 * (which shows every user their own) or from the files.
 */
@Command(
    name = "report",
    description = {
      "Summarise usage per user, group, account and queue from accounting files; with --jobs, list"
          + " each finished job."
    })
final class ReportCommand implements Callable<Integer> {
  private static final Pattern DAY = Pattern.compile("\\d{8}");
  private static final String FIRST = "00000000";
  private static final String LAST = "99999999";

  @Mixin HomeOptions home;

  @Option(
      names = "--from",
      paramLabel = "YYYYMMDD",
      description = "First day (default: the first).")
  String from = FIRST;

  @Option(names = "--to", paramLabel = "YYYYMMDD", description = "Last day (default: the last).")
  String to = LAST;

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description = "The accounting files (default: the server's, HOME/accounting).")
  Path dir;

  @Option(names = "--json", description = "JSON instead of tables.")
  boolean json;

  @Option(
      names = "--jobs",
      description =
          "One line per finished job (id, name, user, queue, state, exit status, start, end,"
              + " elapsed, CPU time, peak memory, nodes) instead of totals: from the server, which"
              + " shows users their own jobs and operators everyone's (default days: the last"
              + " 14), or from --dir.")
  boolean jobs;

  @Option(
      names = "--user",
      split = ",",
      paramLabel = "USER",
      description = "With --jobs: only these users' jobs.")
  List<String> users = new ArrayList<>();

  @Option(
      names = "--socket",
      paramLabel = "PATH",
      description = "With --jobs: the server's socket (default: the one the commands use).")
  Path socket;

  @Override
  public Integer call() throws IOException {
    for (String day : List.of(from, to)) {
      if (!DAY.matcher(day).matches()) {
        System.err.println("berth report: '" + day + "' is not a day as YYYYMMDD");
        return 2;
      }
    }
    if (jobs) {
      return dir != null ? jobsFromFiles(dir) : jobsFromServer();
    }
    if (!users.isEmpty() || socket != null) {
      System.err.println("berth report: --user and --socket go with --jobs");
      return 2;
    }
    Path files = dir != null ? dir : home.home().accounting();
    if (!Files.isDirectory(files)) {
      System.err.println("berth report: no accounting files in " + files);
      return 1;
    }
    UsageReport report = new UsageReport();
    List<Path> days = days(files);
    for (Path day : days) {
      try (BufferedReader lines = AccountingFiles.lines(day)) {
        lines.lines().forEach(report::add);
      }
    }
    String first = days.isEmpty() ? from : days.get(0).getFileName().toString();
    String last = days.isEmpty() ? to : days.get(days.size() - 1).getFileName().toString();
    System.out.print(json ? report.json(first, last) : report.text(first, last));
    return 0;
  }

  /** The day files of {@code files} from --from to --to, in order. */
  private List<Path> days(Path files) throws IOException {
    try (Stream<Path> listed = Files.list(files)) {
      return listed
          .filter(p -> DAY.matcher(p.getFileName().toString()).matches())
          .filter(p -> p.getFileName().toString().compareTo(from) >= 0)
          .filter(p -> p.getFileName().toString().compareTo(to) <= 0)
          .sorted()
          .toList();
    }
  }

  /** --jobs --dir: the finished jobs of the files, whoever may read them. */
  private int jobsFromFiles(Path files) throws IOException {
    if (!Files.isDirectory(files)) {
      System.err.println("berth report: no accounting files in " + files);
      return 1;
    }
    List<String> days = days(files).stream().map(p -> p.getFileName().toString()).toList();
    List<Job> found =
        FinishedJobs.read(
            files,
            days,
            new FinishedJobs.Selection(java.util.Set.copyOf(users), java.util.Set.of()),
            job -> users.isEmpty() || users.contains(job.getEuser()),
            Integer.MAX_VALUE);
    print(
        found,
        days.isEmpty() ? from : days.get(0),
        days.isEmpty() ? to : days.get(days.size() - 1));
    return 0;
  }

  /** --jobs: the finished jobs the server shows the caller (its own; operators everyone's). */
  private int jobsFromServer() {
    Path sock = socket != null ? socket : ServerLocation.clientSocket(System.getenv());
    JobHistory.Builder history =
        JobHistory.newBuilder()
            .setFrom(from.equals(FIRST) ? "" : from)
            .setTo(to.equals(LAST) ? "" : to)
            .addAllUsers(users);
    try (BerthClient client = BerthClient.connect(sock)) {
      Response r = client.call(Request.newBuilder().setJobHistory(history));
      if (r.hasError()) {
        System.err.println("berth report: " + r.getError().getMessage());
        return 1;
      }
      print(r.getJobs().getJobsList(), history.getFrom(), history.getTo());
      return 0;
    } catch (ServerUnavailableException e) {
      System.err.println("berth report: no server answers on " + sock + ": " + e.getMessage());
      return 1;
    }
  }

  private void print(List<Job> found, String first, String last) {
    System.out.print(
        json ? JobReport.json(found, first, last) : JobReport.text(found, ZoneId.systemDefault()));
  }
}
