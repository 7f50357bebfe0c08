package dev.berth.tools.qsub;

import dev.berth.client.BerthClient;
import dev.berth.client.Invocation;
import dev.berth.client.ServerUnavailableException;
import dev.berth.proto.Request;
import dev.berth.proto.Response;

/**
 * The server as qsub and qalter use it: one connection, one request at a time. The real one is a
 * {@link BerthClient}; tests hand in a fake.
 */
interface JobServer extends AutoCloseable {
  Response call(Request.Builder request) throws ServerUnavailableException;

  @Override
  void close();

  /** Opens a connection when the command is ready to send. */
  @FunctionalInterface
  interface Connector {
    JobServer connect() throws ServerUnavailableException;
  }

  /** Connects to the server the invocation's environment points at. */
  static Connector of(Invocation inv) {
    return () -> {
      BerthClient client = inv.connect();
      return new JobServer() {
        @Override
        public Response call(Request.Builder request) throws ServerUnavailableException {
          return client.call(request);
        }

        @Override
        public void close() {
          client.close();
        }
      };
    };
  }
}
