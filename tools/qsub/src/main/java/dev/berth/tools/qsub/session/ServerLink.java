package dev.berth.tools.qsub.session;

import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.ControlCharacters;
import dev.berth.proto.DeleteJob;
import dev.berth.proto.Error;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import java.io.PrintStream;

/**
 * The connection a session talks to the server on: the one the job was submitted on, and, if that
 * breaks while the job waits (the server restarted, or a standby took over), a new one. A call that
 * fails again on the new connection ends qsub.
 */
final class ServerLink implements AutoCloseable {
  private final InteractiveSession.Reconnect reconnect;
  private final PrintStream err;
  private final String program;
  private ServerConnection connection;
  private ServerConnection opened; // the one this link made, which it closes

  ServerLink(
      ServerConnection connection,
      InteractiveSession.Reconnect reconnect,
      PrintStream err,
      String program) {
    this.connection = connection;
    this.reconnect = reconnect;
    this.err = err;
    this.program = program;
  }

  /** The server's answer to {@code request}; a server that cannot be reached ends qsub. */
  Response call(Request.Builder request) throws Ended {
    try {
      Response response = connection.call(request);
      if (!isStepDown(response)) {
        return response;
      }
    } catch (ServerUnavailableException e) {
      // the connection broke: try a new one once
    }
    try {
      replace(reconnect.connect());
      return connection.call(request);
    } catch (ServerUnavailableException e) {
      err.println(program + ": " + ControlCharacters.escape(e.getMessage()));
      err.flush();
      throw new Ended(1);
    }
  }

  /** Deletes job {@code jobId}; the server's answer. */
  Response delete(String jobId) throws Ended {
    return call(Request.newBuilder().setDelete(DeleteJob.newBuilder().setJobId(jobId)));
  }

  /**
   * A job whose terminal qsub cannot use would only wait for it, holding its nodes, until its mom
   * gives up: it is deleted now.
   */
  void abandon(String jobId) {
    err.println(program + ": deleting job " + jobId + ", which cannot start without its terminal");
    err.flush();
    try {
      delete(jobId);
    } catch (Ended e) {
      // the server is gone too; it said so
    }
  }

  private void replace(ServerConnection fresh) {
    close();
    connection = fresh;
    opened = fresh;
  }

  private static boolean isStepDown(Response response) {
    return response.hasError() && response.getError().getCode() == Error.Code.SERVER_DOWN;
  }

  @Override
  public void close() {
    if (opened != null) {
      opened.close();
      opened = null;
    }
  }
}
