package dev.berth.tools.qsub;

import dev.berth.client.Connector;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** A server in memory: records requests and answers each with {@code reply}. */
class FakeServer implements ServerConnection {
  final List<Request> requests = new ArrayList<>();
  int connections;
  boolean closed;
  private final Function<Request, Response> reply;

  FakeServer(Function<Request, Response> reply) {
    this.reply = reply;
  }

  Connector connector() {
    return inv -> {
      connections++;
      return this;
    };
  }

  static Connector unavailable() {
    return inv -> {
      throw new ServerUnavailableException(
          java.nio.file.Path.of("/run/berth/server.sock"),
          new java.io.IOException("Connection refused"));
    };
  }

  @Override
  public Response call(Request.Builder request) throws ServerUnavailableException {
    Request built = request.build();
    requests.add(built);
    return reply.apply(built).toBuilder().setId(built.getId()).build();
  }

  @Override
  public void close() {
    closed = true;
  }
}
