package dev.berth.mom.os;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Who is at the other end of a Unix socket connection, as the kernel recorded it at connect time
 * (SO_PEERCRED): process, user and group ids. Nothing the peer sends can change these. Needs the
 * small JNI library built next to berth-starter (mom/src/main/c/berth-native.c).
 */
public final class PeerCredentials {
  public record Peer(long pid, long uid, long gid) {}

  private static volatile boolean loaded;

  private PeerCredentials() {}

  /** Loads the library once per JVM; later calls with any path do nothing. */
  public static synchronized void load(Path library) {
    if (loaded) {
      return;
    }
    if (!Files.isReadable(library)) {
      throw new IllegalArgumentException(
          "the native library " + library + " is missing (build the mom module)");
    }
    System.load(library.toAbsolutePath().toString());
    loaded = true;
  }

  /** Whether the library is loaded, so that peers can be identified. */
  public static boolean loaded() {
    return loaded;
  }

  /** The connected peer of {@code channel}, a socket accepted from a Unix domain server. */
  public static Peer of(SocketChannel channel) throws IOException {
    if (!loaded) {
      throw new IllegalStateException("PeerCredentials.load was not called");
    }
    long[] p = peer(channel);
    return new Peer(p[0], p[1], p[2]);
  }

  private static native long[] peer(SocketChannel channel) throws IOException;
}
