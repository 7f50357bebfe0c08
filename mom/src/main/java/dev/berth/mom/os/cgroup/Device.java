package dev.berth.mom.os.cgroup;

/**
 * A character device as the devices controller names it: by major and minor number, so every path
 * to the same device (a copy made with mknod, a bind mount into a container) is the same device.
 */
public record Device(int major, int minor) {
  public Device {
    if (major < 0 || minor < 0) {
      throw new IllegalArgumentException("device numbers " + major + ":" + minor);
    }
  }

  /** The devices controller's rule for all access to this device: {@code c 195:0 rwm}. */
  String rule() {
    return "c " + major + ":" + minor + " rwm";
  }

  @Override
  public String toString() {
    return major + ":" + minor;
  }
}
