package dev.berth.server.relay;

import dev.berth.server.endpoint.ClientEndpoint;
import dev.berth.server.endpoint.ClientLimits;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletionStage;

/**
 * A submit host's relay: the commands' socket on a login host, which the kernel tells who each
 * caller is (SO_PEERCRED), joined to the active server's relay port, where the relay's credential
 * tells the server which host speaks. The commands cannot tell it from a server's own socket, and
 * its users hold no secret of their own. Each user's clients are bounded as on a server's socket.
 */
public final class Relay implements AutoCloseable {
  private final Upstream upstream;
  private final ClientEndpoint endpoint;

  public Relay(Path socket, Upstream upstream, ClientLimits limits, String host)
      throws IOException {
    this.upstream = upstream;
    this.endpoint =
        new ClientEndpoint(
            socket, (request, caller) -> upstream.call(caller, request), limits, host);
  }

  public Path socket() {
    return endpoint.socket();
  }

  /** Completes with what stopped the socket, if anything does; the relay must not run on. */
  public CompletionStage<Throwable> failure() {
    return endpoint.failure();
  }

  @Override
  public void close() {
    endpoint.close();
    upstream.close();
  }
}
