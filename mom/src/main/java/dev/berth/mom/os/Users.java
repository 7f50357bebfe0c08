package dev.berth.mom.os;

import java.util.Optional;

/** The node's user and group database (NSS: files, LDAP, ...). */
public interface Users {
  Optional<UserInfo> user(String name);

  Optional<Integer> groupId(String group);

  /** The user name of the mom's own process. */
  String self();
}
