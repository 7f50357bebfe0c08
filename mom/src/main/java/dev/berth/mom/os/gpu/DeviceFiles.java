package dev.berth.mom.os.gpu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/** A character device file's major and minor numbers, as stat(2) gives them. */
public final class DeviceFiles {
  private static final int S_IFMT = 0170000;
  private static final int S_IFCHR = 0020000;

  private DeviceFiles() {}

  /** Major and minor of a character device. */
  public record Numbers(int major, int minor) {}

  /**
   * The numbers of the character device at {@code path} (symbolic links followed).
   *
   * @throws IOException if it does not exist or is not a character device, naming it
   */
  public static Numbers of(Path path) throws IOException {
    int mode;
    long rdev;
    try {
      mode = (Integer) Files.getAttribute(path, "unix:mode");
      rdev = (Long) Files.getAttribute(path, "unix:rdev");
    } catch (IOException e) {
      throw new IOException(path + ": " + e.getMessage(), e);
    }
    if ((mode & S_IFMT) != S_IFCHR) {
      throw new IOException(path + " is not a character device");
    }
    return decode(rdev);
  }

  /** Whether {@code path} is a character device (without following a link). */
  static boolean isCharDevice(Path path) {
    try {
      int mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
      return (mode & S_IFMT) == S_IFCHR;
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    }
  }

  /** glibc's gnu_dev_major and gnu_dev_minor: 12 bits of major and 20 of minor, split. */
  public static Numbers decode(long rdev) {
    int major = (int) (((rdev >>> 8) & 0xfff) | ((rdev >>> 32) & ~0xfffL));
    int minor = (int) ((rdev & 0xff) | ((rdev >>> 12) & ~0xffL));
    return new Numbers(major, minor);
  }
}
