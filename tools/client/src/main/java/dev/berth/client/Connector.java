package dev.berth.client;

/** Opens a {@link ServerConnection} to the server an invocation points at. */
@FunctionalInterface
public interface Connector {
  /** The real server, found from the invocation's environment (see {@code ServerLocation}). */
  Connector SERVER = Invocation::connect;

  ServerConnection connect(Invocation invocation) throws ServerUnavailableException;
}
