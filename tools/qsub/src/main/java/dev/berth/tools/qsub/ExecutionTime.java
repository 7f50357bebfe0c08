package dev.berth.tools.qsub;

import dev.berth.client.BadArgumentException;
import dev.berth.client.LocalTimeArgument;
import java.time.Clock;

/**
 * qsub's {@code -a [[[[CC]YY]MM]DD]hhmm[.SS]}: the local time after which the job may run, read as
 * every PBS date argument is ({@link LocalTimeArgument}), a bad one reported against {@code -a}.
 */
final class ExecutionTime {
  private ExecutionTime() {}

  static long parse(String text, Clock clock) throws QsubException {
    try {
      return LocalTimeArgument.parse(text, clock);
    } catch (BadArgumentException e) {
      throw new QsubException("-a " + text + ": " + e.getMessage());
    }
  }
}
