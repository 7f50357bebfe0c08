package dev.berth.daemon;

import dev.berth.proto.Response;
import dev.berth.proto.RunCommand;
import dev.berth.server.CommandHost;
import dev.berth.server.command.Caller;
import dev.berth.server.command.Decider;
import dev.berth.tools.hosted.HostedCommand;

/** The server's {@link CommandHost}: Berth's Java commands, run in-process for their caller. */
final class HostedCommands implements CommandHost {
  @Override
  public Response run(RunCommand command, Caller caller, Server server, long outputBytes) {
    return HostedCommand.run(command, caller.host(), server::call, Decider::isQuery, outputBytes);
  }
}
