package dev.berth.tools.testing;

import dev.berth.client.Connector;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.proto.Ack;
import dev.berth.proto.Error;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.ServerStatus;
import dev.berth.tools.cli.CliContext;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A server in the test's hands: it answers each request with {@code handler}, records what it was
 * sent, and can refuse connections.
 */
public final class FakeServer {
  /** The instant the fake clock shows: Mon Nov 30 10:00:00 2026 UTC. */
  public static final long NOW = 1796032800L;

  public static final String VERSION = "test-1.0";

  private final List<Request> requests = new ArrayList<>();
  private Function<Request, Response> handler;
  private boolean down;
  private int connections;
  private int closed;

  public FakeServer(Function<Request, Response> handler) {
    this.handler = handler;
  }

  /**
   * A server named {@code srv} that answers StatServer itself and everything else by {@code
   * handler}.
   */
  public static FakeServer named(String name, Function<Request, Response> handler) {
    return new FakeServer(
        request ->
            request.hasStatServer()
                ? Response.newBuilder().setServer(ServerStatus.newBuilder().setName(name)).build()
                : handler.apply(request));
  }

  public static FakeServer unreachable() {
    FakeServer server = new FakeServer(request -> Response.getDefaultInstance());
    server.down = true;
    return server;
  }

  public static Response error(Error.Code code, String message) {
    return Response.newBuilder()
        .setError(Error.newBuilder().setCode(code).setMessage(message))
        .build();
  }

  public static Response ack() {
    return Response.newBuilder().setAck(Ack.getDefaultInstance()).build();
  }

  public void handler(Function<Request, Response> handler) {
    this.handler = handler;
  }

  /** The requests received, without their ids. */
  public List<Request> requests() {
    return requests;
  }

  /** The requests other than StatServer (which commands send to learn the server's name). */
  public List<Request> commandRequests() {
    return requests.stream().filter(r -> !r.hasStatServer()).toList();
  }

  public int connections() {
    return connections;
  }

  public int closed() {
    return closed;
  }

  public CliContext context() {
    Connector connector =
        invocation -> {
          if (down) {
            throw new ServerUnavailableException(
                Path.of("/tmp/test.sock"), new IOException("Connection refused"));
          }
          connections++;
          return new ServerConnection() {
            @Override
            public Response call(Request.Builder request) {
              Request built = request.clearId().build();
              requests.add(built);
              return handler.apply(built);
            }

            @Override
            public void close() {
              closed++;
            }
          };
        };
    return new CliContext(
        connector, Clock.fixed(Instant.ofEpochSecond(NOW), ZoneOffset.UTC), () -> VERSION);
  }
}
