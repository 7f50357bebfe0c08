package dev.berth.mom.output;

import dev.berth.core.HostPattern;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Where a job's stdout or stderr file is written on its mother superior: in place, when its host is
 * this one or a file system this node shares with that host holds the path (Torque's {@code
 * $usecp}); otherwise into the job's spool on this node, for delivery to that host after the job.
 *
 * @param localHosts the names this node answers to (its node name and host name)
 * @param shared the site's shared file systems, as {@code $usecp} rules
 * @param deliver whether output for other hosts is delivered at all; a mom that cannot (no
 *     credential) writes every path in place, as a single host would
 */
public record OutputRoutes(Set<String> localHosts, List<Shared> shared, boolean deliver) {
  public OutputRoutes {
    localHosts =
        localHosts.stream().map(h -> h.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
    shared = List.copyOf(shared);
  }

  /**
   * A {@code $usecp} rule: paths under {@code prefix} on hosts matching {@code hostPattern} are
   * under {@code localPrefix} here.
   */
  public record Shared(String hostPattern, String prefix, String localPrefix) {
    /**
     * Reads {@code HOST:PREFIX[=LOCAL]}, as {@code --usecp '*.example.org:/home'} or {@code --usecp
     * 'login1:/data=/mnt/login1/data'}.
     */
    public static Shared parse(String rule) {
      int colon = rule.indexOf(':');
      String rest = colon < 0 ? "" : rule.substring(colon + 1);
      int eq = rest.indexOf('=');
      String prefix = eq < 0 ? rest : rest.substring(0, eq);
      String local = eq < 0 ? prefix : rest.substring(eq + 1);
      if (colon <= 0 || !prefix.startsWith("/") || !local.startsWith("/")) {
        throw new IllegalArgumentException(
            "--usecp '"
                + rule
                + "' is not HOST:/PREFIX[=/LOCAL] (a host name or pattern, then absolute paths)");
      }
      return new Shared(rule.substring(0, colon), strip(prefix), strip(local));
    }

    private static String strip(String path) {
      return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    /** The local path of {@code path} on {@code host}, or null when this rule does not cover it. */
    String map(String host, String path) {
      if (!HostPattern.matches(hostPattern, host)) {
        return null;
      }
      if (prefix.equals("/")) {
        return localPrefix.equals("/") ? path : localPrefix + path;
      }
      if (path.equals(prefix) || path.startsWith(prefix + "/")) {
        return localPrefix + path.substring(prefix.length());
      }
      return null;
    }
  }

  /** Where one stream goes. */
  public sealed interface Route {}

  /** Written in place, at {@code path} on this node. */
  public record InPlace(String path) implements Route {}

  /** Spooled here, then delivered to {@code path} on {@code host}. */
  public record Delivered(String host, String path) implements Route {}

  /** Every path written where it says on this node, whatever its host (a single-host site). */
  public static OutputRoutes inPlace() {
    return new OutputRoutes(Set.of(), List.of(), false);
  }

  /** Routes of a node called {@code node} on the machine {@code hostname}, with {@code usecp}. */
  public static OutputRoutes of(String node, String hostname, List<String> usecp) {
    List<Shared> rules = new ArrayList<>();
    for (String rule : usecp) {
      rules.add(Shared.parse(rule));
    }
    return new OutputRoutes(new HashSet<>(List.of(node, hostname, "localhost")), rules, true);
  }

  /** The route of an Output_Path or Error_Path value, {@code [host:]path}. */
  public Route route(String attribute) {
    int colon = attribute.indexOf(':');
    String host = colon < 0 ? "" : attribute.substring(0, colon);
    String path = colon < 0 ? attribute : attribute.substring(colon + 1);
    if (!deliver || host.isEmpty() || localHosts.contains(host.toLowerCase(Locale.ROOT))) {
      return new InPlace(path);
    }
    for (Shared rule : shared) {
      String local = rule.map(host, path);
      if (local != null) {
        return new InPlace(local);
      }
    }
    return new Delivered(host, path);
  }
}
