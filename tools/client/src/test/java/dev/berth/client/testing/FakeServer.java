package dev.berth.client.testing;

import dev.berth.client.Connector;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.proto.Ack;
import dev.berth.proto.Error;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.ServerStatus;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A server in the test's hands, for the commands' tests: it answers each request with its handler,
 * records what it was sent (without the ids the client numbers requests with), counts connections
 * opened and closed, and can refuse connections. A test that needs a lost reply overrides {@link
 * #answer}.
 */
public class FakeServer implements Connector {
  private final List<Request> requests = new ArrayList<>();
  private Function<Request, Response> handler;
  private boolean down;
  private int connections;
  private int closed;

  public FakeServer(Function<Request, Response> handler) {
    this.handler = handler;
  }

  /** A server that acknowledges everything. */
  public FakeServer() {
    this(request -> ack());
  }

  /** A server named {@code name} that answers StatServer itself and the rest by {@code handler}. */
  public static FakeServer named(String name, Function<Request, Response> handler) {
    return new FakeServer(
        request ->
            request.hasStatServer()
                ? Response.newBuilder().setServer(ServerStatus.newBuilder().setName(name)).build()
                : handler.apply(request));
  }

  /** A server whose socket refuses every connection. */
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

  /** Answers from now on with {@code handler}. */
  public FakeServer handler(Function<Request, Response> handler) {
    this.handler = handler;
    return this;
  }

  /** The requests received, in order, without their ids. */
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

  /** The answer to {@code request}, already recorded; a test may fail here as a lost reply does. */
  protected Response answer(Request request) throws ServerUnavailableException {
    return handler.apply(request);
  }

  @Override
  public ServerConnection connect(Invocation invocation) throws ServerUnavailableException {
    if (down) {
      throw new ServerUnavailableException(
          Path.of("/run/berth/server.sock"), new IOException("Connection refused"));
    }
    connections++;
    return new ServerConnection() {
      @Override
      public Response call(Request.Builder request) throws ServerUnavailableException {
        Request sent = request.clearId().build();
        requests.add(sent);
        return answer(sent);
      }

      @Override
      public void close() {
        closed++;
      }
    };
  }
}
