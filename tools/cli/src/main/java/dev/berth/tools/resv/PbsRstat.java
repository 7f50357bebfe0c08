package dev.berth.tools.resv;

import dev.berth.client.ErrorText;
import dev.berth.client.ExitCodes;
import dev.berth.client.Getopt;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.ControlCharacters;
import dev.berth.proto.Error;
import dev.berth.proto.Request;
import dev.berth.proto.ReservationList;
import dev.berth.proto.ReservationStatus;
import dev.berth.proto.Response;
import dev.berth.proto.StatReservations;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.cli.Replies;
import dev.berth.tools.cli.Usage;
import dev.berth.tools.format.AttrText;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;

/**
 * {@code pbs_rstat [-B | -S | -f] [resv_id...]}: lists advance reservations as OpenPBS does, every
 * one or those named (as typed: the server takes {@code R12} and {@code R12.srv}). {@code -S}, the
 * default, is a table; {@code -B} only their ids; {@code -f} (or {@code -F}) every attribute. The
 * last of these options decides, as in OpenPBS.
 */
public final class PbsRstat {
  private static final String USAGE = "usage: pbs_rstat [-B | -S | -f] [resv_id...]\n";

  private enum Layout {
    BRIEF,
    SHORT,
    FULL
  }

  private PbsRstat() {}

  public static int run(Invocation invocation) {
    return run(invocation, CliContext.DEFAULT);
  }

  public static int run(Invocation invocation, CliContext context) {
    Getopt.Result parsed;
    try {
      parsed = Getopt.parse("BfFS", invocation.args());
    } catch (Getopt.UsageException e) {
      return Usage.refuse(invocation, e, USAGE);
    }
    try (ServerConnection transport = context.connector().connect(invocation)) {
      Response response =
          transport.call(
              Request.newBuilder()
                  .setStatReservations(StatReservations.newBuilder().addAllIds(parsed.operands())));
      Optional<Error> failure = Replies.failure(response, Response.BodyCase.RESERVATIONS);
      if (failure.isPresent()) {
        invocation.err().println(ErrorText.general("pbs_rstat", failure.get()));
        return ExitCodes.of(failure.get());
      }
      ReservationList list = response.getReservations();
      ZoneId zone = invocation.zone();
      invocation.out().print(text(layout(parsed.options()), list, context.nowSeconds(), zone));
      return ExitCodes.OK;
    } catch (ServerUnavailableException e) {
      invocation.error(e.getMessage());
      return ExitCodes.UNAVAILABLE;
    }
  }

  private static Layout layout(List<Getopt.Option> options) {
    Layout layout = Layout.SHORT;
    for (Getopt.Option option : options) {
      layout = option.is('B') ? Layout.BRIEF : option.is('S') ? Layout.SHORT : Layout.FULL;
    }
    return layout;
  }

  private static String text(Layout layout, ReservationList list, long now, ZoneId zone) {
    if (layout == Layout.SHORT) {
      return ResvTable.text(list.getReservationsList(), now, zone);
    }
    StringBuilder out = new StringBuilder();
    for (ReservationStatus status : list.getReservationsList()) {
      String title = "Resv ID: " + status.getReservation().getId();
      out.append(
          layout == Layout.BRIEF
              ? ControlCharacters.escape(title) + "\n"
              : AttrText.block(
                  title, ResvAttributes.of(status, list.getServer()), zone, AttrText.NO_FOLD));
    }
    return out.toString();
  }
}
