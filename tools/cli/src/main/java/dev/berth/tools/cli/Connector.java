package dev.berth.tools.cli;

import dev.berth.client.Invocation;
import dev.berth.client.ServerUnavailableException;

/** Opens a {@link Transport} to the server an invocation points at. */
@FunctionalInterface
public interface Connector {
  /** The real server, found from the invocation's environment (see {@code ServerLocation}). */
  Connector SERVER = invocation -> new ClientTransport(invocation.connect());

  Transport connect(Invocation invocation) throws ServerUnavailableException;
}
