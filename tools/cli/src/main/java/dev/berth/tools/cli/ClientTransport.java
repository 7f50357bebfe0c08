package dev.berth.tools.cli;

import dev.berth.client.BerthClient;
import dev.berth.client.ServerUnavailableException;
import dev.berth.proto.Request;
import dev.berth.proto.Response;

/** A {@link Transport} over the shared client library's Unix-socket connection. */
final class ClientTransport implements Transport {
  private final BerthClient client;

  ClientTransport(BerthClient client) {
    this.client = client;
  }

  @Override
  public Response call(Request.Builder request) throws ServerUnavailableException {
    return client.call(request);
  }

  @Override
  public void close() {
    client.close();
  }
}
