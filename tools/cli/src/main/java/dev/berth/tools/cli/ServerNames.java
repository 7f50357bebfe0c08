package dev.berth.tools.cli;

import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.BadValueException;
import dev.berth.core.JobIds;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.ServerStatus;
import dev.berth.proto.StatServer;
import java.util.Optional;

/**
 * The server's status, asked for once per run: its name turns what users type ({@code 12}, {@code
 * 12.head}) into canonical job ids ({@code 12.head.cluster.org}), as Torque's clients do with their
 * default server name.
 */
public final class ServerNames {
  private final ServerConnection transport;
  private ServerStatus status;
  private boolean asked;

  public ServerNames(ServerConnection transport) {
    this.transport = transport;
  }

  /** The server's status, or empty if the server refused to give it. */
  public Optional<ServerStatus> status() throws ServerUnavailableException {
    if (!asked) {
      asked = true;
      Request.Builder request = Request.newBuilder().setStatServer(StatServer.getDefaultInstance());
      Response response = transport.call(request);
      if (Replies.failure(response, Response.BodyCase.SERVER).isEmpty()) {
        status = response.getServer();
      }
    }
    return Optional.ofNullable(status);
  }

  /** The server's name, or the empty string if it is not known. */
  public String name() throws ServerUnavailableException {
    return status().map(ServerStatus::getName).orElse("");
  }

  /**
   * The canonical id for {@code text}; throws {@link BadValueException} if it is not a job id.
   * Without a known server name the id is checked and passed on as typed.
   */
  public String canonical(String text) throws ServerUnavailableException {
    String server = name();
    if (server.isEmpty()) {
      JobIds.canonical(text, "server"); // validates the form only
      return text.trim();
    }
    return JobIds.canonical(text, server);
  }
}
