package dev.berth.server;

import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.RunCommand;
import dev.berth.server.command.Caller;

/**
 * Runs whole commands the native command client sends (RunCommand): the Java commands, which this
 * module does not know; the daemon supplies them.
 */
public interface CommandHost {
  /** Answers a request of the command, as its caller; blocks until the answer. */
  interface Server {
    Response call(Request request);
  }

  /**
   * Runs {@code command} for {@code caller}: a response whose body is the command's reply, or an
   * error that stopped it (the server stepping down).
   *
   * @param server answers the requests the command makes, as {@code caller}
   * @param outputBytes the most the command may print; what would print more is refused
   */
  Response run(RunCommand command, Caller caller, Server server, long outputBytes);
}
