package dev.berth.server.command;

import dev.berth.core.HostPattern;
import dev.berth.core.ServerAttributeNames;
import dev.berth.server.command.config.ServerAttributes;
import dev.berth.server.state.ClusterState;
import java.util.List;

/**
 * Which submit hosts the server takes requests from, as Torque's {@code submit_hosts} and {@code
 * acl_hosts} say: a host that {@code submit_hosts} lists, or, with {@code acl_host_enable}, one
 * that {@code acl_hosts} admits; with {@code acl_host_enable}, a host that {@code acl_hosts} denies
 * is refused even if {@code submit_hosts} lists it. Entries are host names or patterns ({@code
 * *.example.org}, {@code login[1-4]}); {@code acl_hosts} entries may start with {@code +} or {@code
 * -}, the first that matches deciding. The server's own hosts need neither: their users come
 * through the local socket.
 */
public final class SubmitHosts {
  private SubmitHosts() {}

  /** Null when the relay of {@code host} may speak for its users; otherwise why not. */
  public static String refusal(ClusterState s, String host) {
    boolean aclEnabled = ServerAttributes.flag(s, ServerAttributeNames.ACL_HOST_ENABLE);
    Boolean acl =
        aclEnabled ? aclSays(ServerAttributes.get(s, ServerAttributeNames.ACL_HOSTS), host) : null;
    if (Boolean.FALSE.equals(acl)) {
      return "access from host "
          + host
          + " not allowed: the server's acl_hosts denies it (acl_host_enable is True)";
    }
    if (Boolean.TRUE.equals(acl)
        || listed(ServerAttributes.get(s, ServerAttributeNames.SUBMIT_HOSTS), host)) {
      return null;
    }
    return "access from host "
        + host
        + " not allowed: it is not in the server's submit_hosts (a manager adds it with qmgr -c"
        + " 'set server submit_hosts += "
        + host
        + "')";
  }

  private static boolean listed(String list, String host) {
    return list != null
        && AttributeSpec.items(list).stream().anyMatch(p -> HostPattern.matches(p, host));
  }

  /** What the first matching entry says: admit, deny, or nothing (null) when none matches. */
  private static Boolean aclSays(String list, String host) {
    if (list == null) {
      return null;
    }
    List<String> entries = AttributeSpec.items(list);
    for (String entry : entries) {
      boolean deny = entry.startsWith("-");
      String pattern = entry.startsWith("+") || deny ? entry.substring(1) : entry;
      if (!pattern.isEmpty() && HostPattern.matches(pattern, host)) {
        return !deny;
      }
    }
    return null;
  }
}
