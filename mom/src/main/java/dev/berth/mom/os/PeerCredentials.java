package dev.berth.mom.os;

import java.io.IOException;
import java.nio.channels.SocketChannel;

/**
 * Who is at the other end of a Unix socket connection, as the kernel recorded it at connect time
 * (SO_PEERCRED): process, user and group ids. Nothing the peer sends can change these. Java's own
 * SO_PEERCRED option gives user and group names only, and the task manager must know the process.
 */
public final class PeerCredentials {
  public record Peer(long pid, long uid, long gid) {}

  private PeerCredentials() {}

  /** The connected peer of {@code channel}, a socket accepted from a Unix domain server. */
  public static Peer of(SocketChannel channel) throws IOException {
    NativeLibrary.require();
    long[] p = peer(channel);
    return new Peer(p[0], p[1], p[2]);
  }

  private static native long[] peer(SocketChannel channel) throws IOException;
}
