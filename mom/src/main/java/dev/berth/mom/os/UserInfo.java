package dev.berth.mom.os;

import java.util.List;

/** A local account as the mom runs jobs for it. */
public record UserInfo(
    String name, int uid, int gid, String home, String shell, List<Integer> groups) {
  public UserInfo {
    groups = List.copyOf(groups);
  }
}
