package dev.berth.core;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Host names: the local host's, as the kernel has it (what {@code hostname} prints), what a host
 * name may look like, and a free port on the loopback address.
 */
public final class Hosts {
  /** Letters, digits, {@code - _ .}; not starting with a dot or dash (RFC 1123, plus {@code _}). */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.\\-]{0,252}");

  private Hosts() {}

  /** Whether {@code name} can be a host name (one that a path or an owner may carry). */
  public static boolean isName(String name) {
    return NAME.matcher(name).matches();
  }

  public static String localName() {
    try {
      String name = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
      if (!name.isEmpty()) {
        return name;
      }
    } catch (IOException e) {
      // not Linux, or /proc not mounted: fall back below
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "localhost";
    }
  }

  /** A TCP port on 127.0.0.1 that nothing listens on now (for a broker or cluster member). */
  public static int freeLoopbackPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
