package dev.berth.tools.resv;

import dev.berth.client.BadArgumentException;
import dev.berth.client.Getopt;
import dev.berth.client.LocalTimeArgument;
import dev.berth.client.ResourceListArgument;
import dev.berth.core.BadValueException;
import dev.berth.core.Durations;
import dev.berth.proto.CreateReservation;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * pbs_rsub's command line read into the request it sends. Only the window is checked here, as far
 * as the command line alone can tell (an end or a duration must be given); whether it is free, and
 * whether an end and a duration given together agree, is the server's to judge.
 */
final class RsubOptions {
  private RsubOptions() {}

  /** The request; {@code clock} gives now and the zone that -R and -E are read in. */
  static CreateReservation parse(List<String> args, Clock clock) throws Getopt.UsageException {
    Getopt.Result parsed = Getopt.parse("D:E:l:N:R:U:", args);
    if (!parsed.operands().isEmpty()) {
      throw new Getopt.UsageException("unexpected argument '" + parsed.operands().get(0) + "'");
    }
    CreateReservation.Builder request = CreateReservation.newBuilder();
    String start = null;
    String end = null;
    for (Getopt.Option option : parsed.options()) {
      String value = option.value();
      switch (option.name()) {
        case 'R' -> start = value;
        case 'E' -> end = value;
        case 'D' -> request.setDuration(duration("-D", value));
        case 'N' -> request.setName(value);
        case 'U' -> users(request, value);
        default -> resources(request, value);
      }
    }
    if (start != null) {
      request.setStart(time("-R", start, clock));
    }
    if (end != null) {
      // An end without a date is the first such time after the start, not after now.
      Clock atStart =
          start == null
              ? clock
              : Clock.fixed(Instant.ofEpochSecond(request.getStart()), clock.getZone());
      request.setEnd(time("-E", end, atStart));
    }
    if (request.getNodes().isEmpty()) {
      throw new Getopt.UsageException("-l nodes= is required");
    }
    if (request.getEnd() == 0 && request.getDuration() == 0) {
      throw new Getopt.UsageException("give an end time (-E) or a duration (-D or -l walltime=)");
    }
    return request.build();
  }

  private static long time(String option, String text, Clock clock) throws Getopt.UsageException {
    try {
      return LocalTimeArgument.parse(text, clock);
    } catch (BadArgumentException e) {
      throw new Getopt.UsageException(option + " " + text + ": " + e.getMessage());
    }
  }

  private static long duration(String option, String text) throws Getopt.UsageException {
    long seconds;
    try {
      seconds = Durations.parseSeconds(text);
    } catch (BadValueException e) {
      throw new Getopt.UsageException(option + ": " + e.getMessage());
    }
    if (seconds <= 0) {
      throw new Getopt.UsageException(option + " " + text + ": the duration must be positive");
    }
    return seconds;
  }

  private static void users(CreateReservation.Builder request, String list) {
    for (String user : list.split(",")) {
      if (!user.isBlank()) {
        request.addUsers(user.strip());
      }
    }
  }

  /** {@code -l nodes=SPEC,walltime=DURATION}: the only resources a reservation takes. */
  private static void resources(CreateReservation.Builder request, String value)
      throws Getopt.UsageException {
    List<Map.Entry<String, String>> items;
    try {
      items = ResourceListArgument.parse(value);
    } catch (BadArgumentException e) {
      throw new Getopt.UsageException("-l " + e.getMessage());
    }
    for (Map.Entry<String, String> item : items) {
      switch (item.getKey()) {
        case "nodes" -> request.setNodes(item.getValue());
        case "walltime" -> request.setDuration(duration("-l walltime", item.getValue()));
        default ->
            throw new Getopt.UsageException(
                "-l " + item.getKey() + ": a reservation takes only nodes= and walltime=");
      }
    }
  }
}
