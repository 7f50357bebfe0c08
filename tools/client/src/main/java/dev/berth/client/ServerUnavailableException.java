package dev.berth.client;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/** The server could not be reached, or the connection broke before a complete reply. */
public final class ServerUnavailableException extends Exception {
  private static final long serialVersionUID = 1L;

  public ServerUnavailableException(Path socket, IOException cause) {
    this(List.of(socket), cause);
  }

  public ServerUnavailableException(List<Path> sockets, IOException cause) {
    super(
        "cannot talk to the Berth server at "
            + sockets.stream().map(Path::toString).collect(Collectors.joining(" or "))
            + ": "
            + cause.getMessage()
            + " (is it running? start it with `berth up`, or set BERTH_SERVER)",
        cause);
  }
}
