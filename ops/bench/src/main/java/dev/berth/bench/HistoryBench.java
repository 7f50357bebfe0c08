package dev.berth.bench;

import dev.berth.client.BerthClient;
import dev.berth.proto.JobHistory;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Finished jobs over 100,000 accounting records: a real server whose accounting directory holds
 * 100,000 {@code E} records of 100 users over the last 14 days (7,143 a day, written in the
 * server's format before it starts), asked for one user's history (1,000 jobs) and for everyone's,
 * through its socket and through {@code qstat -H} and {@code berth report --jobs} as processes.
 * Each figure is the median of five rounds after a first (cold) one, printed beside it; every
 * answer's job count is checked.
 */
final class HistoryBench {
  static final int JOBS = 100_000;
  static final int USERS = 100;
  static final int DAYS = 14;
  static final int ROUNDS = 5;

  private HistoryBench() {}

  static void run(Path root) throws Exception {
    try (BenchServer server = new BenchServer(root, Trust.TLS)) {
      long bytes = write(server.home.resolve("accounting"));
      server.start();
      System.out.printf(
          "history: %,d E records of %d users in %d day files (%.1f MB) under %s%n",
          JOBS, USERS, DAYS, bytes / 1e6, server.home.resolve("accounting"));
      measure("server answer, one user's jobs (1,000)", () -> ask(server, List.of("u042")), 1000);
      measure("server answer, one job by id", () -> askId(server, "50042.bench"), 1);
      measure(
          "qstat -H -u u042 (a process)",
          () -> lines(run(root, server, "qstat", "-H", "-u", "u042")) - 5, // the -a header
          1000);
      measure(
          "berth report --jobs --user u042 (a process)",
          () -> lines(run(root, server, "berth", "report", "--jobs", "--user", "u042")) - 1,
          1000);
      measure("server answer, everyone's jobs (100,000)", () -> ask(server, List.of()), JOBS);
    }
  }

  interface Count {
    long jobs() throws Exception;
  }

  private static void measure(String what, Count count, long expected) throws Exception {
    List<Double> ms = new ArrayList<>();
    for (int round = 0; round <= ROUNDS; round++) {
      long start = System.nanoTime();
      long jobs = count.jobs();
      ms.add((System.nanoTime() - start) / 1e6);
      if (jobs != expected) {
        throw new IllegalStateException(what + ": " + jobs + " jobs, not " + expected);
      }
    }
    double cold = ms.remove(0);
    Collections.sort(ms);
    System.out.printf(
        "%-48s cold %8.1f ms   warm median %8.1f ms (%d rounds)%n",
        what, cold, ms.get(ms.size() / 2), ROUNDS);
  }

  private static long ask(BenchServer server, List<String> users) throws Exception {
    try (BerthClient c = BerthClient.connect(server.socket)) {
      Response r =
          c.call(Request.newBuilder().setJobHistory(JobHistory.newBuilder().addAllUsers(users)));
      if (r.hasError()) {
        throw new IllegalStateException(r.getError().getMessage());
      }
      return r.getJobs().getJobsCount();
    }
  }

  private static long askId(BenchServer server, String id) throws Exception {
    try (BerthClient c = BerthClient.connect(server.socket)) {
      Response r =
          c.call(Request.newBuilder().setJobHistory(JobHistory.newBuilder().addJobIds(id)));
      if (r.hasError()) {
        throw new IllegalStateException(r.getError().getMessage());
      }
      return r.getJobs().getJobsCount();
    }
  }

  private static String run(Path root, BenchServer server, String command, String... args)
      throws IOException, InterruptedException {
    List<String> argv =
        new ArrayList<>(List.of(root.resolve("ops/bin").resolve(command).toString()));
    argv.addAll(List.of(args));
    if (command.equals("berth")) {
      argv.addAll(List.of("--socket", server.socket.toString()));
    }
    ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
    pb.environment().put("BERTH_SERVER", server.socket.toString());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IllegalStateException(String.join(" ", argv) + ":\n" + out);
    }
    return out;
  }

  private static long lines(String text) {
    return text.lines().count();
  }

  /** The records, as the server writes them (AccountingRecords), a day's in one file. */
  private static long write(Path dir) throws IOException {
    Files.createDirectories(dir);
    LocalDate today = LocalDate.now(ZoneId.systemDefault());
    DateTimeFormatter stamp = DateTimeFormatter.ofPattern("MM/dd/yyyy");
    long bytes = 0;
    int perDay = (JOBS + DAYS - 1) / DAYS;
    for (int day = 0; day < DAYS; day++) {
      LocalDate date = today.minusDays(DAYS - 1 - day);
      long epoch = date.atStartOfDay(ZoneId.systemDefault()).toEpochSecond();
      Path file = dir.resolve(date.format(DateTimeFormatter.BASIC_ISO_DATE));
      try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
        for (int i = day * perDay; i < Math.min(JOBS, (day + 1) * perDay); i++) {
          String user = String.format("u%03d", i % USERS);
          long start = epoch + (i % perDay);
          String line =
              String.format(
                  "%s 00:00:00;E;%d.bench;user=%s group=%s jobname=job%d queue=batch ctime=%d"
                      + " qtime=%d etime=%d start_count=1 start=%d owner=%s@login1"
                      + " exec_host=n%03d/0-3+n%03d/0-3 Resource_List.neednodes=2:ppn=4"
                      + " Resource_List.nodect=2 Resource_List.nodes=2:ppn=4"
                      + " Resource_List.walltime=01:00:00 session=%d total_execution_slots=8"
                      + " unique_node_count=2 end=%d Exit_status=%d resources_used.cput=%d"
                      + " resources_used.mem=%dkb resources_used.vmem=0kb"
                      + " resources_used.walltime=00:10:00%n",
                  date.format(stamp),
                  i,
                  user,
                  user,
                  i,
                  start - 60,
                  start - 60,
                  start - 60,
                  start,
                  user,
                  i % 500,
                  (i + 1) % 500,
                  1000 + i,
                  start + 600,
                  i % 3,
                  4800,
                  1024 + i % 4096);
          out.write(line);
          bytes += line.length();
        }
      }
    }
    return bytes;
  }
}
