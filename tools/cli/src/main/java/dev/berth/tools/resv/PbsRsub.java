package dev.berth.tools.resv;

import dev.berth.client.ErrorText;
import dev.berth.client.ExitCodes;
import dev.berth.client.Getopt;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.ControlCharacters;
import dev.berth.proto.CreateReservation;
import dev.berth.proto.Error;
import dev.berth.proto.Request;
import dev.berth.proto.ReservationList;
import dev.berth.proto.ReservationStatus;
import dev.berth.proto.Response;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.cli.Replies;
import dev.berth.tools.cli.Usage;
import java.util.Optional;

/**
 * {@code pbs_rsub [-R start] [-E end] [-D duration] [-N name] [-U user,...] -l nodes=SPEC}: asks
 * for an advance reservation of whole nodes (OpenPBS's command; managers and operators only). The
 * server confirms it at once or refuses it, so it prints {@code R12.srv CONFIRMED} where OpenPBS
 * prints UNCONFIRMED and leaves the scheduler to decide later.
 */
public final class PbsRsub {
  private static final String USAGE =
      "usage: pbs_rsub [-R start_time] [-E end_time] [-D duration] [-N reservation_name]\n"
          + "                [-U auth_user_list] -l nodes=spec[,walltime=duration]\n";

  private PbsRsub() {}

  public static int run(Invocation invocation) {
    return run(invocation, CliContext.DEFAULT);
  }

  public static int run(Invocation invocation, CliContext context) {
    CreateReservation request;
    try {
      request = RsubOptions.parse(invocation.args(), context.clock().withZone(invocation.zone()));
    } catch (Getopt.UsageException e) {
      return Usage.refuse(invocation, e, USAGE);
    }
    try (ServerConnection transport = context.connector().connect(invocation)) {
      Response response = transport.call(Request.newBuilder().setCreateReservation(request));
      Optional<Error> failure = Replies.failure(response, Response.BodyCase.RESERVATIONS);
      if (failure.isPresent()) {
        invocation.err().println(ErrorText.general("pbs_rsub", failure.get()));
        return ExitCodes.of(failure.get());
      }
      print(response.getReservations(), invocation);
      return ExitCodes.OK;
    } catch (ServerUnavailableException e) {
      invocation.error(e.getMessage());
      return ExitCodes.UNAVAILABLE;
    }
  }

  /** The new reservation's id and state on stdout, the server's warnings about it on stderr. */
  private static void print(ReservationList list, Invocation invocation) {
    for (ReservationStatus status : list.getReservationsList()) {
      invocation
          .out()
          .println(
              ControlCharacters.escape(status.getReservation().getId())
                  + " "
                  + status.getReservation().getState());
    }
    for (String warning : list.getWarningsList()) {
      invocation.error("warning: " + ControlCharacters.escape(warning));
    }
  }
}
