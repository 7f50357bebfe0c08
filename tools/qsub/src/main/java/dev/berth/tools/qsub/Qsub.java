package dev.berth.tools.qsub;

import dev.berth.client.Connector;
import dev.berth.client.ExitCodes;
import dev.berth.client.Getopt;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.ControlCharacters;
import dev.berth.proto.Error;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.SubmitJob;
import dev.berth.tools.qsub.Submission.Prepared;
import dev.berth.tools.qsub.os.ProcessTerminal;
import dev.berth.tools.qsub.session.InteractiveSession;
import dev.berth.tools.qsub.session.Terminal;
import dev.berth.tools.qsub.session.Voice;
import java.util.Optional;

/**
 * {@code qsub [options] [script]}: submits a job script, read from the file operand or standard
 * input, with its {@code #PBS} directives and the command line turned into Torque job attributes
 * the way Torque 6's qsub does. Prints the new job's id unless {@code -z}.
 *
 * <p>With {@code -I} the job is interactive: qsub waits for it to start and then holds its terminal
 * session ({@link InteractiveSession}); {@code -x} runs the operand as a command instead of a login
 * shell.
 *
 * <p>Exit status: 0 on success; 2 for a problem with the command line or the script (nothing is
 * sent); 1 when the server cannot be reached; a server error's PBSE code % 256 otherwise. An
 * interactive job's session ends with the status of its shell or command.
 */
public final class Qsub {
  private static final String PROGRAM = "qsub";

  private Qsub() {}

  public static void main(String[] args) {
    System.exit(run(Invocation.ofProcess(PROGRAM, args)));
  }

  public static int run(Invocation inv) {
    return run(inv, SubmitContext.of(inv), Connector.SERVER, new ProcessTerminal(inv.in()));
  }

  static int run(Invocation inv, SubmitContext ctx, Connector connector) {
    return run(inv, ctx, connector, Terminal.NONE);
  }

  /**
   * @param terminal the user's terminal, for an interactive job's session (only touched then)
   */
  static int run(Invocation inv, SubmitContext ctx, Connector connector, Terminal terminal) {
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
      script = JobScript.read(cmd, inv);
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
    if (prepared.get().interactive() && !prepared.get().runsCommand() && !inv.origin().terminal()) {
      inv.err().print(NO_TERMINAL);
      return ExitCodes.UNAVAILABLE; // Torque's exit 1
    }
    try {
      ContainerChecks.check(
          prepared.get().request().getAttributesList(), inv.env(), inv.origin().files());
      if (!prepared.get().interactive()) {
        OutputChecks.check(prepared.get().request().getAttributesList(), ctx, inv.origin().files());
      }
    } catch (QsubException e) {
      inv.error(e.getMessage());
      inv.error("no job was submitted");
      return ExitCodes.USAGE;
    }
    return submit(inv, connector, prepared.get(), terminal);
  }

  /** Torque's words, tabs and all, when -I has no terminal to work with. */
  static final String NO_TERMINAL =
      "qsub:\tstandard input and output must be a terminal for \n"
          + "\tinteractive job submission\n";

  private static int submit(
      Invocation inv, Connector connector, Prepared prepared, Terminal terminal) {
    return send(
        inv,
        connector,
        prepared.request(),
        (server, response) -> {
          if (prepared.interactive() && response.hasSubmitted()) {
            String jobId = response.getSubmitted().getJobId();
            return new InteractiveSession(
                    jobId, inv.in(), inv.out(), inv.err(), term(inv), terminal, Voice.QSUB)
                .run(server, () -> connector.connect(inv));
          }
          return answer(inv, prepared, response);
        });
  }

  /** What the server's answer to a submission becomes, on the connection it came on. */
  interface Answered {
    int exitStatus(ServerConnection server, Response response) throws ServerUnavailableException;
  }

  /**
   * Sends the job (qsub's and sbatch's). With standby servers listed, a connection that breaks
   * before the reply (the server died; another takes over) is retried with the same submission id,
   * which the server answers with the job the first attempt made, if it made one: never two jobs,
   * never none that was acknowledged.
   */
  static int send(Invocation inv, Connector connector, SubmitJob job, Answered answered) {
    Request.Builder request =
        Request.newBuilder()
            .setSubmit(job.toBuilder().setSubmissionId(inv.origin().submissionId().get()));
    int attempts = inv.standbysListed() ? RETRIES_WITH_STANDBYS + 1 : 1;
    for (int attempt = 1; ; attempt++) {
      ServerConnection server;
      try {
        server = connector.connect(inv); // waits out a takeover when standbys are listed
      } catch (ServerUnavailableException e) {
        inv.error(e.getMessage());
        if (attempt > 1) {
          mayHaveBeenSubmitted(inv, request);
        }
        return ExitCodes.UNAVAILABLE;
      }
      try (server) {
        Response response = server.call(request);
        if (attempt < attempts && isStepDown(response)) {
          pause(); // a fenced server stepping down: its successor decides
          continue;
        }
        return answered.exitStatus(server, response);
      } catch (ServerUnavailableException e) {
        if (attempt >= attempts) {
          inv.error(e.getMessage());
          mayHaveBeenSubmitted(inv, request);
          return ExitCodes.UNAVAILABLE;
        }
        pause();
      }
    }
  }

  /** The TERM the session's terminal gets on the node: the user's, or Torque's {@code unknown}. */
  static String term(Invocation inv) {
    String term = inv.env().get("TERM");
    return term == null || term.isBlank() ? "unknown" : term;
  }

  /** The request went out and no answer came back: the job may exist. */
  private static void mayHaveBeenSubmitted(Invocation inv, Request.Builder request) {
    inv.error(
        "the job may have been submitted (submission id "
            + request.getSubmit().getSubmissionId()
            + "); check with qstat before submitting it again");
  }

  private static void pause() {
    try {
      Thread.sleep(RETRY_PAUSE_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static final long RETRY_PAUSE_MILLIS = 500;

  private static final int RETRIES_WITH_STANDBYS = 3;

  private static boolean isStepDown(Response response) {
    return response.getBodyCase() == Response.BodyCase.ERROR
        && response.getError().getCode() == Error.Code.SERVER_DOWN;
  }

  private static int answer(Invocation inv, Prepared prepared, Response response) {
    return switch (response.getBodyCase()) {
      case SUBMITTED -> {
        if (!prepared.quiet()) {
          inv.out().println(response.getSubmitted().getJobId());
        }
        yield ExitCodes.OK;
      }
      case ERROR -> {
        inv.error(
            "submit error (" + ControlCharacters.escape(response.getError().getMessage()) + ")");
        yield ExitCodes.of(response.getError());
      }
      default -> {
        inv.error("unexpected reply from the server: " + response.getBodyCase());
        yield ExitCodes.UNAVAILABLE;
      }
    };
  }
}
