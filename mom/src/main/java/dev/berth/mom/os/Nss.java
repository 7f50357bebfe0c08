package dev.berth.mom.os;

import java.io.IOException;

/** getpwnam_r, getgrouplist and getgrnam_r, through {@link NativeLibrary}. */
final class Nss {
  private Nss() {}

  /** {name, uid, gid, home, shell}, or null when there is no such user. */
  static native String[] user(String name) throws IOException;

  /** The user's groups, {@code gid} included. */
  static native int[] groups(String name, int gid) throws IOException;

  /** The group's id, or -1 when there is no such group. */
  static native int groupId(String name) throws IOException;
}
