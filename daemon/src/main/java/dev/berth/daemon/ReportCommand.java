package dev.berth.daemon;

import dev.berth.server.accounting.UsageReport;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What was used over a range of days, per user, group, account and queue, from accounting files
 * (this server's, or any in Torque's format).
 */
@Command(
    name = "report",
    description = "Summarise usage per user, group, account and queue from accounting files.")
final class ReportCommand implements Callable<Integer> {
  private static final Pattern DAY = Pattern.compile("\\d{8}");

  @Mixin HomeOptions home;

  @Option(
      names = "--from",
      paramLabel = "YYYYMMDD",
      description = "First day (default: the first).")
  String from = "00000000";

  @Option(names = "--to", paramLabel = "YYYYMMDD", description = "Last day (default: the last).")
  String to = "99999999";

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description = "The accounting files (default: the server's, HOME/accounting).")
  Path dir;

  @Option(names = "--json", description = "JSON instead of tables.")
  boolean json;

  @Override
  public Integer call() throws IOException {
    for (String day : List.of(from, to)) {
      if (!DAY.matcher(day).matches()) {
        System.err.println("berth report: '" + day + "' is not a day as YYYYMMDD");
        return 2;
      }
    }
    Path files = dir != null ? dir : home.home().accounting();
    if (!Files.isDirectory(files)) {
      System.err.println("berth report: no accounting files in " + files);
      return 1;
    }
    UsageReport report = new UsageReport();
    List<Path> days;
    try (Stream<Path> listed = Files.list(files)) {
      days =
          listed
              .filter(p -> DAY.matcher(p.getFileName().toString()).matches())
              .filter(p -> p.getFileName().toString().compareTo(from) >= 0)
              .filter(p -> p.getFileName().toString().compareTo(to) <= 0)
              .sorted()
              .toList();
    }
    for (Path day : days) {
      // Torque writes names byte for byte: what is not UTF-8 is read as U+FFFD, not refused
      try (BufferedReader lines =
          new BufferedReader(
              new InputStreamReader(
                  Files.newInputStream(day),
                  StandardCharsets.UTF_8
                      .newDecoder()
                      .onMalformedInput(CodingErrorAction.REPLACE)
                      .onUnmappableCharacter(CodingErrorAction.REPLACE)))) {
        lines.lines().forEach(report::add);
      }
    }
    String first = days.isEmpty() ? from : days.get(0).getFileName().toString();
    String last = days.isEmpty() ? to : days.get(days.size() - 1).getFileName().toString();
    System.out.print(json ? report.json(first, last) : report.text(first, last));
    return 0;
  }
}
