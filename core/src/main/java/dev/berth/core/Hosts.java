package dev.berth.core;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/** The local host's name, as the kernel has it (what {@code hostname} prints). */
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
}
