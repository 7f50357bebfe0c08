package dev.berth.tools.jobctl;

import dev.berth.client.Invocation;
import dev.berth.proto.HoldJob;
import dev.berth.proto.Request;
import dev.berth.tools.cli.CliContext;

/** {@code qhold [-h u|o|s] job_identifier...}: puts holds on jobs (a user hold by default). */
public final class Qhold {
  private static final String USAGE = "usage: qhold [-h hold_list] job_identifier...\n";

  private Qhold() {}

  public static int run(Invocation invocation) {
    return run(invocation, CliContext.DEFAULT);
  }

  public static int run(Invocation invocation, CliContext context) {
    return HoldCommand.run(
        "qhold",
        USAGE,
        invocation,
        context,
        (id, types) ->
            Request.newBuilder().setHold(HoldJob.newBuilder().setJobId(id).setHoldTypes(types)));
  }
}
