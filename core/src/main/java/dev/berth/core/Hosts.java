package dev.berth.core;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The local host: its name, as the kernel has it (what {@code hostname} prints), and a free port on
 * its loopback address.
 */
public final class Hosts {
  private Hosts() {}

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
