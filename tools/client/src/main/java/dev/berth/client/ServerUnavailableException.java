package dev.berth.client;

import java.io.IOException;
import java.nio.file.Path;

/** The server could not be reached, or the connection broke before a complete reply. */
public final class ServerUnavailableException extends Exception {
  private static final long serialVersionUID = 1L;

  public ServerUnavailableException(Path socket, IOException cause) {
    super(
        "cannot talk to the Berth server at "
            + socket
            + ": "
            + cause.getMessage()
            + " (is it running? start it with `berth up`, or set BERTH_SERVER)",
        cause);
  }
}
