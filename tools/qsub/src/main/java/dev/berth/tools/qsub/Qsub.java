package dev.berth.tools.qsub;

import dev.berth.client.Connector;
import dev.berth.client.ExitCodes;
import dev.berth.client.Getopt;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.tools.qsub.Submission.Prepared;
import java.util.Optional;

/**
 * {@code qsub [options] [script]}: submits a job script, read from the file operand or standard
 * input, with its {@code #PBS} directives and the command line turned into Torque job attributes
 * the way Torque 6's qsub does. Prints the new job's id unless {@code -z}.
 *
 * <p>Exit status: 0 on success; 2 for a problem with the command line or the script (nothing is
 * sent); 1 when the server cannot be reached; a server error's PBSE code % 256 otherwise.
 */
public final class Qsub {
  private static final String PROGRAM = "qsub";

  private Qsub() {}

  public static void main(String[] args) {
    System.exit(run(Invocation.ofProcess(PROGRAM, args)));
  }

  public static int run(Invocation inv) {
    return run(inv, SubmitContext.of(inv), Connector.SERVER);
  }

  static int run(Invocation inv, SubmitContext ctx, Connector connector) {
    QsubCommandLine cmd;
    try {
      cmd = QsubCommandLine.parse(inv.args());
    } catch (Getopt.UsageException e) {
      inv.error(e.getMessage());
      inv.err().println(QsubFlags.QSUB_USAGE);
      return ExitCodes.USAGE;
    }
    Optional<String> longOption = cmd.longOption();
    if (longOption.isPresent()) {
      return VersionInfo.answer(inv, longOption.get(), QsubFlags.QSUB_USAGE);
    }
    JobScript script;
    try {
      script = JobScript.read(cmd.scriptPath(), inv);
    } catch (QsubException e) {
      inv.error(e.getMessage());
      return ExitCodes.USAGE;
    }
    Diagnostics diagnostics = new Diagnostics();
    Optional<Prepared> prepared = Submission.prepare(cmd, script, ctx, diagnostics);
    diagnostics.printWarnings(PROGRAM, inv.err());
    if (prepared.isEmpty()) {
      diagnostics.printErrors(PROGRAM, inv.err());
      inv.error("no job was submitted");
      return ExitCodes.USAGE;
    }
    return submit(inv, connector, prepared.get());
  }

  private static int submit(Invocation inv, Connector connector, Prepared prepared) {
    try (ServerConnection server = connector.connect(inv)) {
      Response response = server.call(Request.newBuilder().setSubmit(prepared.request()));
      return switch (response.getBodyCase()) {
        case SUBMITTED -> {
          if (!prepared.quiet()) {
            inv.out().println(response.getSubmitted().getJobId());
          }
          yield ExitCodes.OK;
        }
        case ERROR -> {
          inv.error("submit error (" + response.getError().getMessage() + ")");
          yield ExitCodes.of(response.getError());
        }
        default -> {
          inv.error("unexpected reply from the server: " + response.getBodyCase());
          yield ExitCodes.UNAVAILABLE;
        }
      };
    } catch (ServerUnavailableException e) {
      inv.error(e.getMessage());
      return ExitCodes.UNAVAILABLE;
    }
  }
}
