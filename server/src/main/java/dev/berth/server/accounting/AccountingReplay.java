package dev.berth.server.accounting;

import com.google.protobuf.ByteString;
import dev.berth.proto.AccountingFile;
import dev.berth.proto.AccountingReply;
import dev.berth.proto.AccountingRequest;
import dev.berth.proto.Error;
import dev.berth.server.command.CommandException;
import dev.berth.server.journal.Journal;
import dev.berth.server.state.ClusterState;
import java.nio.charset.StandardCharsets;
import java.time.ZoneId;
import java.util.regex.Pattern;

/**
 * The accounting files of a range of days, made again from the journal: every event from the first
 * applied in turn, through the same {@link AccountingRecords} as the live server, so the files are
 * the bytes it wrote (or would have written, had its disk been there).
 */
public final class AccountingReplay {
  private static final Pattern DAY = Pattern.compile("\\d{8}");

  /** The most text one answer holds; a longer range is asked for in parts. */
  static final int MAX_BYTES = 64 << 20;

  /** Stops a replay whose server stops. */
  private static final class Stopped extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Stopped(String why) {
      super(why, null, false, false);
    }
  }

  private AccountingReplay() {}

  public static AccountingReply files(Journal journal, AccountingRequest request, ZoneId zone) {
    String from = day("from", request.getFrom(), "00000000");
    String to = day("to", request.getTo(), "99999999");
    if (from.compareTo(to) > 0) {
      throw new CommandException(
          Error.Code.BAD_VALUE, "the range " + from + "-" + to + " ends before it begins");
    }
    AccountingDays days =
        new AccountingDays(
            ClusterState.EMPTY,
            zone,
            name -> name.compareTo(from) >= 0 && name.compareTo(to) <= 0,
            MAX_BYTES);
    try {
      journal.replay(
          0,
          e -> {
            if (Thread.currentThread().isInterrupted()) {
              throw new Stopped("the server stops");
            }
            days.add(e);
          });
    } catch (AccountingDays.TooLong e) {
      throw new CommandException(
          Error.Code.SYSTEM,
          "the days from "
              + from
              + " to "
              + to
              + " hold more than "
              + (MAX_BYTES >> 20)
              + " MiB of records; ask for fewer days at a time (--from, --to)");
    } catch (Stopped s) {
      throw new CommandException(Error.Code.SYSTEM, s.getMessage());
    }
    AccountingReply.Builder reply = AccountingReply.newBuilder();
    days.days()
        .forEach(
            (name, text) ->
                reply.addFiles(
                    AccountingFile.newBuilder()
                        .setName(name)
                        .setText(ByteString.copyFrom(text.toString(), StandardCharsets.UTF_8))));
    return reply.build();
  }

  private static String day(String what, String value, String open) {
    if (value.isEmpty()) {
      return open;
    }
    if (!DAY.matcher(value).matches()) {
      throw new CommandException(
          Error.Code.BAD_VALUE, what + " '" + value + "' is not a day as YYYYMMDD");
    }
    return value;
  }
}
