package dev.berth.tools.jobctl;

import dev.berth.client.Invocation;
import dev.berth.proto.ReleaseJob;
import dev.berth.proto.Request;
import dev.berth.tools.cli.CliContext;

/** {@code qrls [-h u|o|s] job_identifier...}: releases holds (the user hold by default). */
public final class Qrls {
  private static final String USAGE = "usage: qrls [-h {uos}] job_identifier...\n";

  private Qrls() {}

  public static int run(Invocation invocation) {
    return run(invocation, CliContext.DEFAULT);
  }

  public static int run(Invocation invocation, CliContext context) {
    return HoldCommand.run(
        "qrls",
        USAGE,
        invocation,
        context,
        (id, types) ->
            Request.newBuilder()
                .setRelease(ReleaseJob.newBuilder().setJobId(id).setHoldTypes(types)));
  }
}
