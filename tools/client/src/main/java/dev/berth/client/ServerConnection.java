package dev.berth.client;

import dev.berth.proto.Request;
import dev.berth.proto.Response;

/**
 * An open conversation with the server: one request, one response, in order. {@link BerthClient} is
 * the real one; command tests hand in fakes.
 */
public interface ServerConnection extends AutoCloseable {
  Response call(Request.Builder request) throws ServerUnavailableException;

  @Override
  void close();
}
