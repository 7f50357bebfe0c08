package dev.berth.tools.qstat;

import dev.berth.client.ErrorText;
import dev.berth.client.ExitCodes;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.proto.Error;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.ServerStatus;
import dev.berth.proto.StatServer;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.cli.Replies;
import dev.berth.tools.format.AttrDocuments;
import dev.berth.tools.format.AttrText;
import dev.berth.tools.format.JsonWriter;
import java.io.PrintStream;
import java.util.Optional;

/** qstat -B: the server's status. Server-name operands are accepted; Berth has one server. */
final class QstatServer {
  private final Invocation invocation;
  private final CliContext context;
  private final QstatOptions options;
  private final ServerConnection transport;

  QstatServer(
      Invocation invocation, CliContext context, QstatOptions options, ServerConnection transport) {
    this.invocation = invocation;
    this.context = context;
    this.options = options;
    this.transport = transport;
  }

  int run() throws ServerUnavailableException {
    Response response =
        transport.call(Request.newBuilder().setStatServer(StatServer.getDefaultInstance()));
    Optional<Error> failure = Replies.failure(response, Response.BodyCase.SERVER);
    if (failure.isPresent()) {
      invocation.err().println(ErrorText.general("qstat", failure.get()));
      return ExitCodes.of(failure.get());
    }
    ServerStatus server = response.getServer();
    PrintStream out = invocation.out();
    if (options.output() == QstatOptions.Output.JSON) {
      JsonWriter json =
          JobDocuments.header(server.getName(), context.version().get(), context.nowSeconds())
              .beginObject("Server")
              .beginObject(server.getName());
      AttrDocuments.json(json, ServerFormats.attributes(server), invocation.zone());
      out.print(json.endObject().endObject().endObject());
    } else if (options.full()) {
      int linesize = options.style().oneLine() ? AttrText.NO_FOLD : AttrText.LINESIZE;
      out.print(
          AttrText.block(
              "Server: " + server.getName(),
              ServerFormats.attributes(server),
              invocation.zone(),
              linesize));
    } else {
      out.print(ServerFormats.header());
      out.print(ServerFormats.row(server));
    }
    return ExitCodes.OK;
  }
}
