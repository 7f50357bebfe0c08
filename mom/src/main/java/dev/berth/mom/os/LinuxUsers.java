package dev.berth.mom.os;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Users and groups as the node's NSS serves them (files, LDAP, SSSD), looked up in-process through
 * the C library, so that jobs run as exactly the account the node's login would give.
 */
public final class LinuxUsers implements Users {
  /** Loads the mom's native library (see {@link NativeLibrary}) if no one has yet. */
  public LinuxUsers(Path nativeLibrary) {
    NativeLibrary.load(nativeLibrary);
  }

  @Override
  public Optional<UserInfo> user(String name) {
    if (!name.matches("[A-Za-z0-9_.][A-Za-z0-9_.\\-]*\\$?")) {
      return Optional.empty();
    }
    try {
      String[] f = Nss.user(name);
      if (f == null) {
        return Optional.empty();
      }
      int gid = Integer.parseInt(f[2]);
      List<Integer> groups = new ArrayList<>();
      for (int g : Nss.groups(f[0], gid)) {
        groups.add(g);
      }
      return Optional.of(new UserInfo(f[0], Integer.parseInt(f[1]), gid, f[3], f[4], groups));
    } catch (IOException | NumberFormatException e) {
      // An account the mom cannot resolve completely (ids beyond int, groups it cannot list) is
      // one it will not run jobs as.
      return Optional.empty();
    }
  }

  @Override
  public Optional<Integer> groupId(String group) {
    if (!group.matches("[A-Za-z0-9_.][A-Za-z0-9_.\\-]*")) {
      return Optional.empty();
    }
    try {
      int gid = Nss.groupId(group);
      return gid < 0 ? Optional.empty() : Optional.of(gid);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  @Override
  public String self() {
    return System.getProperty("user.name");
  }
}
