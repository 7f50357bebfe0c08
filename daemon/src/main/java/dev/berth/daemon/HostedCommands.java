package dev.berth.daemon;

import dev.berth.client.ServerConnection;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.RunCommand;
import dev.berth.server.CommandHost;
import dev.berth.server.command.Caller;
import dev.berth.server.command.Decider;
import dev.berth.tools.hosted.HostedCommand;

/** The server's {@link CommandHost}: Berth's Java commands, run in-process for their caller. */
final class HostedCommands implements CommandHost {
  @Override
  public Response run(RunCommand command, Caller caller, Server server) {
    ServerConnection connection =
        new ServerConnection() {
          @Override
          public Response call(Request.Builder request) {
            return server.call(request.build());
          }

          @Override
          public void close() {
            // nothing to close: the requests are answered in-process
          }
        };
    return HostedCommand.run(command, caller.host(), connection, Decider::isQuery);
  }
}
