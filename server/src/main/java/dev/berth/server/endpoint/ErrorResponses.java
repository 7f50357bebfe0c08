package dev.berth.server.endpoint;

import dev.berth.proto.Error;
import dev.berth.proto.Response;

/** Error answers to clients, built in one place for the socket, the relay and the server. */
public final class ErrorResponses {
  private ErrorResponses() {}

  /** An error answering request {@code id} (0 where no request is known). */
  public static Response error(long id, Error.Code code, String message) {
    return Response.newBuilder()
        .setId(id)
        .setError(Error.newBuilder().setCode(code).setMessage(message))
        .build();
  }
}
