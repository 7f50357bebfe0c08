package dev.berth.tools.jobctl;

import dev.berth.client.Getopt;
import dev.berth.client.Invocation;
import dev.berth.proto.Request;
import dev.berth.proto.RerunJob;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.cli.Usage;

/**
 * {@code qrerun [-f] job_identifier...}: kills running jobs and queues them again once their nodes
 * let them go (operators and managers only, rerunnable jobs only; the server checks). {@code -f}
 * (Torque's rerun of a job whose mom does not answer) is accepted for Torque's scripts and asks for
 * nothing more: Berth's server marks a node that does not answer down, which queues its rerunnable
 * jobs again, and a job must not be queued while a copy may still run. Torque's {@code all}
 * (requeue every running job without asking the moms) is not supported: it is refused before
 * anything is sent.
 */
public final class Qrerun {
  private static final String USAGE = "usage: qrerun [-f] job_identifier...\n";

  /** Torque's qrerun exits 1 for what it cannot do on the client side, as for a malformed id. */
  private static final int REFUSED = 1;

  private Qrerun() {}

  public static int run(Invocation invocation) {
    return run(invocation, CliContext.DEFAULT);
  }

  public static int run(Invocation invocation, CliContext context) {
    Getopt.Result parsed;
    try {
      parsed = Getopt.parse("f", invocation.args());
      if (parsed.operands().isEmpty()) {
        throw new Getopt.UsageException(null);
      }
    } catch (Getopt.UsageException e) {
      return Usage.refuse(invocation, e, USAGE);
    }
    if (parsed.operands().stream().anyMatch(id -> id.equalsIgnoreCase("all"))) {
      invocation.error("\"all\" is not supported: name the jobs (qselect -s R | xargs qrerun)");
      return REFUSED;
    }
    return JobRequests.sendEach(
        "qrerun",
        invocation,
        context,
        parsed.operands(),
        jobId -> Request.newBuilder().setRerun(RerunJob.newBuilder().setJobId(jobId)));
  }
}
