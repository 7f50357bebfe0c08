package dev.berth.tools.resv;

import dev.berth.client.ErrorText;
import dev.berth.client.ExitCodes;
import dev.berth.client.Getopt;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.ControlCharacters;
import dev.berth.proto.DeleteReservation;
import dev.berth.proto.Error;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.cli.Replies;
import dev.berth.tools.cli.Usage;
import java.util.Optional;

/**
 * {@code pbs_rdel resv_id...}: ends reservations now (OpenPBS's command); the server deletes their
 * queued jobs and kills their running ones. Like qdel it tries every id, prints a line for each
 * failure and exits with the last failure's status; it prints nothing when all went well.
 */
public final class PbsRdel {
  private static final String USAGE = "usage: pbs_rdel resv_identifier...\n";

  private PbsRdel() {}

  public static int run(Invocation invocation) {
    return run(invocation, CliContext.DEFAULT);
  }

  public static int run(Invocation invocation, CliContext context) {
    Getopt.Result parsed;
    try {
      parsed = Getopt.parse("", invocation.args());
      if (parsed.operands().isEmpty()) {
        throw new Getopt.UsageException(null);
      }
    } catch (Getopt.UsageException e) {
      return Usage.refuse(invocation, e, USAGE);
    }
    int status = ExitCodes.OK;
    try (ServerConnection transport = context.connector().connect(invocation)) {
      for (String id : parsed.operands()) {
        Response response =
            transport.call(
                Request.newBuilder()
                    .setDeleteReservation(DeleteReservation.newBuilder().setId(id)));
        Optional<Error> failure = Replies.failure(response, Response.BodyCase.ACK);
        if (failure.isPresent()) {
          invocation
              .err()
              .println(ErrorText.forJob("pbs_rdel", failure.get(), ControlCharacters.escape(id)));
          status = ExitCodes.of(failure.get());
        }
      }
      return status;
    } catch (ServerUnavailableException e) {
      invocation.error(e.getMessage());
      return ExitCodes.UNAVAILABLE;
    }
  }
}
