package dev.berth.tools.hosted;

import com.google.protobuf.ByteString;
import dev.berth.client.ExitCodes;
import dev.berth.client.Invocation;
import dev.berth.client.Origin;
import dev.berth.client.ServerConnection;
import dev.berth.core.AttributeNames;
import dev.berth.core.ControlCharacters;
import dev.berth.proto.CommandReply;
import dev.berth.proto.Error;
import dev.berth.proto.LocalFile;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.RunCommand;
import dev.berth.proto.SubmitJob;
import dev.berth.tools.Command;
import dev.berth.tools.Main;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Runs a command for the native command client (berth-cmd, tools/tm) inside the server: the same
 * Java command a process would run, parsing the same options and printing the same text, with the
 * client's arguments, working directory, environment, time zone and files, and the server answering
 * its requests in-process as the caller the kernel or a relay named. What it printed and its exit
 * status go back to the client; when it reaches for input the client has not sent, the reply says
 * what to send instead, and for what only a process on the client's terminal can do (qmgr's prompt,
 * qsub -I's session) it asks the client to run the Java command. A server stepping down (fenced by
 * a standby) answers for the whole command, so that the client sends it to the next server as the
 * Java command would have.
 */
public final class HostedCommand {
  private HostedCommand() {}

  /**
   * @param command what the client sent
   * @param host the caller's host (qsub's output paths and PBS_O_HOST): the server's own for the
   *     client socket, the submit host a relay speaks for
   * @param server answers the command's requests as the caller
   * @param query whether a request only reads (a command that needs more input after a request that
   *     changed something would run twice; that is a bug, reported as such)
   * @param outputBytes the most the command may print: a longer output is not sent, its refusal is
   */
  public static Response run(
      RunCommand command,
      String host,
      Function<Request, Response> server,
      Predicate<Request> query,
      long outputBytes) {
    RecordedOutput output = new RecordedOutput(outputBytes);
    Command target = Main.commands().get(command.getName());
    String refusal = refusal(command, target);
    if (refusal != null) {
      output.err().print(command.getName() + ": " + refusal + "\n");
      return Response.newBuilder().setCommand(reply(output, ExitCodes.USAGE)).build();
    }
    Path cwd = Path.of(command.getCwd());
    Watched watched = new Watched(server, query);
    Origin origin =
        new Origin(
            () -> host,
            zone(command.getZone()),
            command.getTerminal(),
            new ClientFiles(command, cwd),
            inv -> watched,
            () ->
                command.getSubmissionId().isEmpty()
                    ? UUID.randomUUID().toString()
                    : command.getSubmissionId());
    Invocation invocation =
        new Invocation(
            command.getName(),
            List.copyOf(command.getArgsList()),
            new ClientEnvironment(command),
            cwd,
            ClientInput.of(command),
            output.out(),
            output.err(),
            origin);
    CommandReply reply;
    try {
      int status = target.run(invocation);
      reply = output.overflowed() ? tooLong(command, outputBytes) : reply(output, status);
      OptionalInt again =
          status == 0 && !output.overflowed()
              ? Main.repeatAfter(command.getName(), invocation.args())
              : OptionalInt.empty();
      if (again.isPresent()) { // squeue -i: the client asks again, so that this run ends
        reply = reply.toBuilder().setRepeatAfterSeconds(again.getAsInt()).build();
      }
    } catch (NeedsInput needs) {
      if (watched.changed) {
        throw new IllegalStateException(
            command.getName() + " asked for more input after changing something", needs);
      }
      reply = CommandReply.newBuilder().setNeeds(needs.needs()).build();
    } catch (SteppingDown down) {
      return Response.newBuilder().setError(down.error).build();
    }
    return Response.newBuilder().setCommand(reply).build();
  }

  /** In place of an output longer than the server sends back: why it is not there. */
  private static CommandReply tooLong(RunCommand command, long outputBytes) {
    String message =
        command.getName()
            + ": the output would be larger than "
            + (outputBytes % (1 << 20) == 0 ? (outputBytes >> 20) + " MiB" : outputBytes + " bytes")
            + ", the most the server sends back for one command; ask for less at a time\n";
    return CommandReply.newBuilder()
        .addOutput(
            CommandReply.Output.newBuilder()
                .setStderr(true)
                .setData(ByteString.copyFromUtf8(message)))
        .setExitStatus(1)
        .build();
  }

  /** Why the server will not run {@code command}, or null. */
  private static String refusal(RunCommand command, Command target) {
    if (target == null) {
      return "not a command the server runs";
    }
    String cwd = command.getCwd();
    if (!cwd.startsWith("/") || cwd.indexOf('\0') >= 0) {
      return "the working directory '"
          + ControlCharacters.escape(cwd)
          + "' is not an absolute path";
    }
    for (LocalFile file : command.getFilesList()) {
      if (file.getPath().indexOf('\0') >= 0) {
        return "the file name '" + ControlCharacters.escape(file.getPath()) + "' holds a NUL";
      }
    }
    return null;
  }

  /** The client host's zone; UTC when it named none Java knows, as a JVM without one does. */
  private static ZoneId zone(String name) {
    try {
      return name.isEmpty() ? ZoneOffset.UTC : ZoneId.of(name);
    } catch (DateTimeException e) {
      return ZoneOffset.UTC;
    }
  }

  private static CommandReply reply(RecordedOutput output, int status) {
    return CommandReply.newBuilder().addAllOutput(output.chunks()).setExitStatus(status).build();
  }

  /**
   * Whether a submission is of an interactive job (qsub -I, also from a {@code #PBS -I} in the
   * script), whose session needs a process on the client's terminal: the C client runs the Java
   * qsub for it. Any {@code interactive} attribute counts; the Java qsub sorts out its value.
   */
  private static boolean isInteractive(SubmitJob submit) {
    return submit.getAttributesList().stream()
        .anyMatch(a -> a.getName().equals(AttributeNames.INTERACTIVE));
  }

  /** The server is stepping down: its successor should run the command. */
  private static final class SteppingDown extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient Error error;

    SteppingDown(Error error) {
      super(error.getMessage(), null, false, false);
      this.error = error;
    }
  }

  /** The server, noting whether the command has asked it to change anything. */
  private static final class Watched implements ServerConnection {
    private final Function<Request, Response> server;
    private final Predicate<Request> query;
    private boolean changed;

    Watched(Function<Request, Response> server, Predicate<Request> query) {
      this.server = server;
      this.query = query;
    }

    @Override
    public Response call(Request.Builder request) {
      Request built = request.build();
      if (built.hasSubmit() && isInteractive(built.getSubmit())) {
        throw NeedsInput.interaction(); // before it is sent: the Java qsub submits and attaches
      }
      if (!query.test(built)) {
        changed = true;
      }
      Response response = server.apply(built);
      if (response.hasError() && response.getError().getCode() == Error.Code.SERVER_DOWN) {
        throw new SteppingDown(response.getError());
      }
      return response;
    }

    @Override
    public void close() {
      // the server's own connection outlives every command
    }
  }
}
