package dev.berth.security.net;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Who a connection counts against: the address it comes from, except that every address of this
 * host (loopback, any of 127.0.0.0/8, the host's own addresses) is one source, {@link #THIS_HOST}.
 * A local user can open connections from any of those addresses, and must not get a share for each.
 */
public final class Sources {
  /** The source of every connection that comes from this host. */
  public static final String THIS_HOST = "this host";

  /** How long the list of this host's addresses is taken as it is before it is read again. */
  private static final long REFRESH_NANOS = 10_000_000_000L;

  private static volatile Set<InetAddress> local = Set.of();
  private static volatile long readAt;

  private Sources() {}

  /** The source of a connection from {@code address}. */
  public static String of(InetAddress address) {
    if (address.isLoopbackAddress() || address.isAnyLocalAddress() || isLocal(address)) {
      return THIS_HOST;
    }
    return address instanceof Inet6Address
        ? "[" + address.getHostAddress() + "]"
        : address.getHostAddress();
  }

  private static boolean isLocal(InetAddress address) {
    long now = System.nanoTime();
    if (readAt == 0 || now - readAt > REFRESH_NANOS) {
      local = addresses();
      readAt = now;
    }
    return local.contains(address);
  }

  private static Set<InetAddress> addresses() {
    try {
      return NetworkInterface.networkInterfaces()
          .flatMap(NetworkInterface::inetAddresses)
          .collect(Collectors.toUnmodifiableSet());
    } catch (SocketException e) {
      return Set.of(); // no interfaces to read: only loopback counts as this host
    }
  }
}
