package dev.berth.tools.cli;

import dev.berth.client.ServerUnavailableException;
import dev.berth.proto.Request;
import dev.berth.proto.Response;

/** An open conversation with the server: one request, one response, in order. */
public interface Transport extends AutoCloseable {
  Response call(Request.Builder request) throws ServerUnavailableException;

  @Override
  void close();
}
