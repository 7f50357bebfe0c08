package dev.berth.tools.jobctl;

import dev.berth.client.ErrorText;
import dev.berth.client.ExitCodes;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.BadValueException;
import dev.berth.proto.Error;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.cli.Replies;
import dev.berth.tools.cli.ServerNames;
import java.util.List;
import java.util.Optional;

/**
 * The loop the job commands (qdel, qhold, qrls, qsig, qrun, qrerun, qmove, qchkpt) share, as
 * Torque's commands run it: one request per job id, an error line per failure ({@code qhold:
 * Unknown Job Id Error 12.srv}), and the exit status of the last failure (1 for a malformed id), or
 * 0. qorder, whose one request names two jobs, checks both ids first and sends it once.
 */
final class JobRequests {
  /** Builds the request for one canonical job id. */
  @FunctionalInterface
  interface RequestFor {
    Request.Builder build(String jobId);
  }

  private final String program;
  private final Invocation invocation;
  private final ServerConnection transport;
  private final ServerNames names;
  private int status = ExitCodes.OK;

  JobRequests(String program, Invocation invocation, ServerConnection transport) {
    this.program = program;
    this.invocation = invocation;
    this.transport = transport;
    this.names = new ServerNames(transport);
  }

  /**
   * Connects and sends the request for each job {@code texts} names, in order; returns the exit
   * status ({@link ExitCodes#UNAVAILABLE} when the server cannot be reached).
   */
  static int sendEach(
      String program,
      Invocation invocation,
      CliContext context,
      List<String> texts,
      RequestFor request) {
    try (ServerConnection transport = context.connector().connect(invocation)) {
      JobRequests requests = new JobRequests(program, invocation, transport);
      for (String text : texts) {
        requests.send(text, request);
      }
      return requests.status();
    } catch (ServerUnavailableException e) {
      invocation.error(e.getMessage());
      return ExitCodes.UNAVAILABLE;
    }
  }

  ServerConnection transport() {
    return transport;
  }

  int status() {
    return status;
  }

  /** Sends the request for the job {@code text} names, reporting a failure. */
  void send(String text, RequestFor request) throws ServerUnavailableException {
    Optional<String> id = canonical(text);
    if (id.isPresent()) {
      sendCanonical(id.get(), request);
    }
  }

  /**
   * The canonical id {@code text} names, or empty after reporting it as malformed ({@code qorder:
   * illegally formed job identifier: 1x}, exit status 1).
   */
  Optional<String> canonical(String text) throws ServerUnavailableException {
    try {
      return Optional.of(names.canonical(text));
    } catch (BadValueException e) {
      invocation.err().println(program + ": illegally formed job identifier: " + text);
      status = 1;
      return Optional.empty();
    }
  }

  /** Sends the request for the job with the canonical id {@code id}, reporting a failure. */
  void sendCanonical(String id, RequestFor request) throws ServerUnavailableException {
    Response response = transport.call(request.build(id));
    Replies.failure(response, Response.BodyCase.ACK).ifPresent(error -> report(error, id));
  }

  /**
   * Sends the request for one job of {@code qdel all}: jobs the caller may not touch, or that ended
   * meanwhile, are passed over in silence.
   */
  void sendAllMember(String id, RequestFor request) throws ServerUnavailableException {
    Response response = transport.call(request.build(id));
    Optional<Error> failure = Replies.failure(response, Response.BodyCase.ACK);
    if (failure.isPresent()) {
      Error.Code code = failure.get().getCode();
      if (code != Error.Code.PERMISSION
          && code != Error.Code.UNKNOWN_JOB
          && code != Error.Code.BAD_STATE) {
        report(failure.get(), id);
      }
    }
  }

  private void report(Error error, String id) {
    invocation.err().println(ErrorText.forJob(program, error, id));
    status = ExitCodes.of(error);
  }
}
