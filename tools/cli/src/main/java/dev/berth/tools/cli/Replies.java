package dev.berth.tools.cli;

import dev.berth.proto.Error;
import dev.berth.proto.Response;
import java.util.Optional;

/** Checks a response against the body a request expects. */
public final class Replies {
  private Replies() {}

  /**
   * The error this response carries, a protocol error if its body is not {@code expected} (an
   * {@code Ack} is accepted wherever no particular body is needed: pass {@code ACK}), or empty.
   */
  public static Optional<Error> failure(Response response, Response.BodyCase expected) {
    if (response.hasError()) {
      return Optional.of(response.getError());
    }
    if (response.getBodyCase() == expected) {
      return Optional.empty();
    }
    return Optional.of(
        Error.newBuilder()
            .setCode(Error.Code.PROTOCOL)
            .setMessage(
                "unexpected reply from the server: "
                    + response.getBodyCase()
                    + " instead of "
                    + expected)
            .build());
  }
}
