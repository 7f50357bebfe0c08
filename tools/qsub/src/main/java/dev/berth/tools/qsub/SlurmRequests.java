package dev.berth.tools.qsub;

import dev.berth.core.slurm.SlurmJobs;
import java.time.Clock;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * sbatch's options that become one of Torque's attributes each: {@code --dependency} as {@code
 * depend}, {@code --begin} as {@code Execution_Time}, {@code --mail-type} as {@code Mail_Points},
 * {@code --gres=gpu:N} and {@code --gpus-per-node} as the GPUs of each node. What Berth cannot
 * express is refused by name.
 */
final class SlurmRequests {
  private SlurmRequests() {}

  /**
   * {@code --dependency}: Slurm's {@code after}, {@code afterany}, {@code afterok} and {@code
   * afternotok} on jobs ({@code 12}, an array task {@code 12_3}), and {@code singleton} (the server
   * waits on the owner's earlier jobs of the same name), items joined by {@code ,} (all must hold),
   * as Torque's {@code depend}; OR ({@code ?}), {@code aftercorr} and {@code +minutes} are refused.
   *
   * @param option how the command names the option in its refusals ({@code --dependency},
   *     scontrol's {@code Dependency})
   * @param by who refuses in them ({@code Berth's sbatch})
   */
  static String depend(String option, String by, String text) throws SbatchException {
    String given = option + "=" + text;
    if (text.contains("?")) {
      throw SbatchException.failed(
          given + ": '?' (any of them) is not supported by " + by + " yet");
    }
    List<String> items = new ArrayList<>();
    for (String item : text.split(",")) {
      String[] parts = item.strip().split(":");
      String type = parts[0];
      if (type.equals("singleton") && parts.length == 1) {
        items.add(type);
        continue;
      }
      if (!Set.of("after", "afterany", "afterok", "afternotok").contains(type)) {
        throw SbatchException.failed(
            given
                + ": "
                + (type.isEmpty() ? "an empty item" : type)
                + " is not supported by "
                + by
                + " yet (after, afterany, afterok, afternotok and singleton are)");
      }
      if (parts.length < 2) {
        throw SbatchException.failed("Batch job submission failed: Job dependency problem");
      }
      StringBuilder torque = new StringBuilder(type);
      for (int i = 1; i < parts.length; i++) {
        String id = parts[i];
        if (!id.matches("\\d+(_\\d+)?")) {
          throw SbatchException.failed(
              given
                  + ": job '"
                  + id
                  + "' ("
                  + by
                  + " takes job ids as 12 and array tasks as 12_3)");
        }
        torque.append(':').append(SlurmJobs.toBerth(id));
      }
      items.add(torque.toString());
    }
    return String.join(",", items);
  }

  private static final Pattern NOW_PLUS =
      Pattern.compile("now(?:\\+(\\d+)(seconds?|minutes?|hours?|days?|weeks?)?)?");

  /**
   * {@code --begin}: {@code now[+N[second|minute|hour|day|week][s]]}, {@code today}, {@code
   * tomorrow}, {@code midnight}, {@code noon}, {@code HH:MM[:SS]} (today, or tomorrow once past),
   * {@code YYYY-MM-DD[THH:MM[:SS]]}; epoch seconds.
   *
   * @throws SbatchException {@code Invalid --begin specification}, exit 255, for any other form
   */
  static long begin(String text, Clock clock) throws SbatchException {
    String t = text.strip().toLowerCase(Locale.ROOT);
    ZonedDateTime now = ZonedDateTime.now(clock);
    Matcher m = NOW_PLUS.matcher(t);
    if (m.matches()) {
      long n = m.group(1) == null ? 0 : Long.parseLong(m.group(1));
      String unit = m.group(2) == null ? "second" : m.group(2);
      long seconds =
          switch (unit.replaceFirst("s$", "")) {
            case "minute" -> n * 60;
            case "hour" -> n * 3600;
            case "day" -> n * 86_400;
            case "week" -> n * 604_800;
            default -> n;
          };
      return now.toEpochSecond() + seconds;
    }
    try {
      ZonedDateTime at =
          switch (t) {
            case "today", "midnight" ->
                now.toLocalDate()
                    .plusDays(t.equals("midnight") ? 1 : 0)
                    .atStartOfDay(now.getZone());
            case "tomorrow" -> now.toLocalDate().plusDays(1).atStartOfDay(now.getZone());
            case "noon" -> next(now, LocalTime.NOON);
            default -> {
              if (t.matches("\\d{1,2}:\\d{2}(:\\d{2})?")) {
                yield next(now, LocalTime.parse(t.length() < 5 ? "0" + t : t));
              }
              if (t.contains("t")) {
                String full = t.length() == 16 ? t + ":00" : t;
                yield LocalDateTime.parse(full.toUpperCase(Locale.ROOT)).atZone(now.getZone());
              }
              yield LocalDate.parse(t).atStartOfDay(now.getZone());
            }
          };
      return at.toEpochSecond();
    } catch (DateTimeParseException e) {
      throw SbatchException.badOption("Invalid --begin specification");
    }
  }

  /** The next time of day {@code time}: today, or tomorrow if it has passed. */
  private static ZonedDateTime next(ZonedDateTime now, LocalTime time) {
    ZonedDateTime today = now.toLocalDate().atTime(time).atZone(now.getZone());
    return today.isAfter(now) ? today : today.plusDays(1);
  }

  /**
   * {@code --mail-type} as Torque's mail points: NONE no mail, BEGIN, END, FAIL (alone: mail on
   * abort and at the end only when the exit status is not 0), ALL, REQUEUE and INVALID_DEPEND
   * (Berth's abort mail covers both); TIME_LIMIT*, STAGE_OUT and ARRAY_TASKS are refused.
   */
  static String mailPoints(String text) throws SbatchException {
    Set<String> types = new LinkedHashSet<>();
    for (String t : text.split(",")) {
      types.add(t.strip().toUpperCase(Locale.ROOT));
    }
    StringBuilder points = new StringBuilder();
    for (String t : types) {
      switch (t) {
        case "NONE" -> {}
        case "BEGIN" -> points.append('b');
        case "END" -> points.append('e');
        case "FAIL", "REQUEUE", "INVALID_DEPEND" -> points.append('a');
        case "ALL" -> points.append("abe");
        default ->
            throw t.matches("TIME_LIMIT(_\\d+)?|STAGE_OUT|ARRAY_TASKS")
                ? SbatchException.failed(
                    "--mail-type=" + t + " is not supported by Berth's sbatch yet")
                : SbatchException.badOption("Invalid --mail-type specification");
      }
    }
    String p =
        points
            .chars()
            .distinct()
            .sorted()
            .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
            .toString();
    if (types.contains("FAIL") && !types.contains("END") && !types.contains("ALL")) {
      if (p.contains("b")) {
        throw SbatchException.failed(
            "--mail-type="
                + text
                + ": BEGIN with FAIL but not END cannot be honoured by Berth yet");
      }
      return "aef"; // the end's mail only when the exit status is not 0
    }
    return p.isEmpty() ? "n" : p;
  }

  /** {@code --gres}: {@code gpu} or {@code gpu:N}, GPUs on each node; other resources refused. */
  static int gpusOfGres(String text) throws SbatchException {
    String[] parts = text.strip().split(":");
    if (!parts[0].equals("gpu") || parts.length > 2) {
      throw SbatchException.failed(
          "--gres="
              + text
              + ": Berth's sbatch takes gpu or gpu:N (no other generic resource, no GPU type yet)");
    }
    return parts.length == 1 ? 1 : count("gres", parts[1]);
  }

  /**
   * {@code --gpus=N}, the job's GPUs in all (a type, {@code a100:4}, is refused), as the same
   * number on each of its {@code nodes}: Berth gives every node of a job as many GPUs, so N must be
   * a multiple of the nodes.
   */
  static int gpusPerNode(String text, int nodes) throws SbatchException {
    if (text.contains(":")) {
      throw SbatchException.failed(
          "--gpus=" + text + ": GPU types are not supported by Berth's sbatch yet (a number is)");
    }
    int total = count("gpus", text);
    if (total % nodes != 0) {
      throw SbatchException.failed(
          "--gpus="
              + total
              + " over "
              + nodes
              + " nodes: Berth gives each node of a job as many GPUs, so give a multiple of the"
              + " nodes (or --gpus-per-node)");
    }
    return total / nodes;
  }

  static int count(String option, String text) throws SbatchException {
    if (!text.matches("\\d{1,4}") || Integer.parseInt(text) < 1) {
      throw SbatchException.failed("Invalid numeric value \"" + text + "\" for --" + option + ".");
    }
    return Integer.parseInt(text);
  }
}
