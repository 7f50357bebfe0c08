package dev.berth.daemon;

import dev.berth.core.ServerLocation;
import dev.berth.security.Identity;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

/**
 * The home directory of one Berth installation and what lives in it: the journal, each mom's job
 * records, the pid file and the log. Job TMPDIRs live under /tmp instead, since users must reach
 * them and a home such as /root is closed to them.
 */
public record BerthHome(Path root) {
  public static BerthHome resolve(Path explicit, Map<String, String> env) {
    return new BerthHome(explicit != null ? explicit.toAbsolutePath() : ServerLocation.home(env));
  }

  public Path journal() {
    return root.resolve("journal");
  }

  public Path mom(String node) {
    return root.resolve("mom").resolve(node);
  }

  public Path pidFile() {
    return root.resolve("berth.pid");
  }

  /** What this home's server is doing: {@code active} or {@code standby} (replicated journal). */
  public Path roleFile() {
    return root.resolve("role");
  }

  /** Whether this home's server last said it stands by (its role file). */
  public boolean standingBy() {
    try {
      return java.nio.file.Files.readString(roleFile()).strip().equals("standby");
    } catch (java.io.IOException e) {
      return false;
    }
  }

  /** The credentials this home's daemons prove themselves with, and its CA if it has one. */
  public Path credentials() {
    return root.resolve("credentials");
  }

  /** The cluster's certificate authority, when this host is where it was made. */
  public Path authority() {
    return credentials().resolve("ca");
  }

  /** The credential of the daemon with {@code identity}: key.pem, cert.pem and ca.pem. */
  public Path credential(Identity identity) {
    return credentials().resolve(identity.role().word() + "-" + identity.name());
  }

  public Path log() {
    return root.resolve("berth.log");
  }

  /** Per-installation base for job TMPDIRs: /tmp/berth-HASH (HASH of the home path). */
  public Path jobTmp() {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(root.toString().getBytes(StandardCharsets.UTF_8));
      return Path.of("/tmp", "berth-" + HexFormat.of().formatHex(digest, 0, 4));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The client socket: a root-run server with the default home listens on the system socket every
   * user finds; any other installation listens in its home.
   */
  public Path socket(boolean defaultHome, boolean root) {
    return defaultHome && root ? ServerLocation.SYSTEM_SOCKET : this.root.resolve("server.sock");
  }
}
