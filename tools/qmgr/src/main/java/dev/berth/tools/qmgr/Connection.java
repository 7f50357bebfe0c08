package dev.berth.tools.qmgr;

import dev.berth.client.BerthClient;
import dev.berth.client.Invocation;
import dev.berth.client.ServerUnavailableException;
import dev.berth.proto.Request;
import dev.berth.proto.Response;

/** qmgr's line to the server: {@link BerthClient} in use, a fake in tests. */
interface Connection extends AutoCloseable {

  Response call(Request.Builder request) throws ServerUnavailableException;

  @Override
  void close();

  /** Opens the connection when the first directive needs the server. */
  @FunctionalInterface
  interface Opener {
    Connection open() throws ServerUnavailableException;
  }

  /** The server the invocation's environment points at. */
  static Opener to(Invocation invocation) {
    return () -> {
      BerthClient client = invocation.connect();
      return new Connection() {
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
