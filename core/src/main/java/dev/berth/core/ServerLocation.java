package dev.berth.core;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Where the server's client socket is. A root-run server listens on {@link #SYSTEM_SOCKET} so that
 * every local user can reach it (a home directory such as /root is not traversable); a server run
 * by another user listens in its home directory. Clients look, in order, at {@code BERTH_SERVER},
 * then {@code $BERTH_HOME/server.sock} when {@code BERTH_HOME} is set, then the system socket if it
 * exists, then {@code ~/.berth/server.sock}. {@code BERTH_SERVER} may list several sockets, comma
 * separated: those of an active server and its standbys, of which only the active one listens.
 */
public final class ServerLocation {
  public static final Path SYSTEM_SOCKET = Path.of("/run/berth/server.sock");
  public static final String SERVER_ENV = "BERTH_SERVER";
  public static final String HOME_ENV = "BERTH_HOME";

  private ServerLocation() {}

  /** The home directory for state: {@code $BERTH_HOME}, else {@code ~/.berth}. */
  public static Path home(Map<String, String> env) {
    String home = env.get(HOME_ENV);
    if (home != null && !home.isBlank()) {
      return Path.of(home).toAbsolutePath();
    }
    return Path.of(System.getProperty("user.home"), ".berth");
  }

  /** The socket a client should connect to (the first, when several are listed). */
  public static Path clientSocket(Map<String, String> env) {
    return clientSockets(env, SYSTEM_SOCKET).get(0);
  }

  /** {@link #clientSocket(Map)} with the system socket at {@code systemSocket}, for tests. */
  static Path clientSocket(Map<String, String> env, Path systemSocket) {
    return clientSockets(env, systemSocket).get(0);
  }

  /** The sockets a client should try, in order. */
  public static List<Path> clientSockets(Map<String, String> env) {
    return clientSockets(env, SYSTEM_SOCKET);
  }

  static List<Path> clientSockets(Map<String, String> env, Path systemSocket) {
    List<Path> listed =
        Arrays.stream(env.getOrDefault(SERVER_ENV, "").split(","))
            .map(String::strip)
            .filter(p -> !p.isEmpty())
            .map(Path::of)
            .toList();
    if (!listed.isEmpty()) {
      return listed;
    }
    if (env.get(HOME_ENV) == null && Files.exists(systemSocket)) {
      return List.of(systemSocket);
    }
    return List.of(home(env).resolve("server.sock"));
  }
}
