package dev.berth.tools.jobctl;

import dev.berth.client.Getopt;
import dev.berth.client.Invocation;
import dev.berth.proto.CheckpointJob;
import dev.berth.proto.Request;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.cli.Usage;

/**
 * {@code qchkpt job_identifier...}: asks the server to checkpoint jobs. Berth checkpoints no job,
 * so the server answers each with Torque's {@code job is not checkpointable} (an unknown job as
 * usual); the command is here so that scripts calling it get Torque's answer and status.
 */
public final class Qchkpt {
  private static final String USAGE = "usage: qchkpt job_identifier...\n";

  private Qchkpt() {}

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
    return JobRequests.sendEach(
        "qchkpt",
        invocation,
        context,
        parsed.operands(),
        jobId -> Request.newBuilder().setCheckpoint(CheckpointJob.newBuilder().setJobId(jobId)));
  }
}
