package dev.berth.daemon;

import dev.berth.core.ServerLocation;
import dev.berth.security.Identity;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The home directory of one Berth installation and what lives in it: the journal, each mom's job
 * records, credentials, the pid file and the log, all private to the user running Berth. Job
 * TMPDIRs live under /tmp instead, since users must reach them and a home such as /root is closed
 * to them.
 */
public record BerthHome(Path root) {
  public static BerthHome resolve(Path explicit, Map<String, String> env) {
    return new BerthHome(explicit != null ? explicit.toAbsolutePath() : ServerLocation.home(env));
  }

  public Path journal() {
    return root.resolve("journal");
  }

  /** The server's accounting files, Torque's server_priv/accounting: one a day, YYYYMMDD. */
  public Path accounting() {
    return root.resolve("accounting");
  }

  /** A standby's and a Kafka-journal server's local copy of the journal topic. */
  public Path journalCopy() {
    return root.resolve("kafka-journal");
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

  /** Serial numbers of certificates this host no longer trusts (berth credential revoke). */
  public Path revoked() {
    return credentials().resolve("revoked");
  }

  /** The credential of the daemon with {@code identity}: key.pem, cert.pem and ca.pem. */
  public Path credential(Identity identity) {
    return credentials().resolve(identity.role().word() + "-" + identity.name());
  }

  public Path log() {
    return root.resolve("berth.log");
  }

  /**
   * Per-installation base for job TMPDIRs, which users must reach and a home such as /root is
   * closed to: a directory with a random name in /tmp, made by the first daemon of this home that
   * needs it and recorded in the home, so that no one can make it first. A recorded base that is
   * gone, or that is no longer this user's own real directory, is replaced by a new one.
   */
  public Path jobTmp() throws IOException {
    Path record = root.resolve("jobtmp");
    try (FileChannel lock =
            FileChannel.open(
                root.resolve("jobtmp.lock"),
                Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PRIVATE_FILE));
        FileLock held = lock.lock()) {
      if (Files.exists(record)) {
        Path base = Path.of(Files.readString(record).strip());
        if (Files.isDirectory(base, LinkOption.NOFOLLOW_LINKS)
            && Files.getOwner(base, LinkOption.NOFOLLOW_LINKS)
                .getName()
                .equals(System.getProperty("user.name"))) {
          return base;
        }
      }
      Path base = Files.createTempDirectory(Path.of("/tmp"), "berth-jobs-");
      writePrivate(record, base + "\n");
      return base;
    }
  }

  /**
   * Makes the home private to the user running Berth: the home itself only traversable by others
   * (its client socket may be there), its journal, journal copy, node records and credentials
   * root-only directories, and its log, pid and role files root-only.
   */
  public void secure() throws IOException {
    Files.createDirectories(root);
    Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx--x--x"));
    for (Path dir : List.of(root.resolve("mom"), credentials())) {
      Files.createDirectories(dir);
    }
    // The journals make their directories private themselves; older homes get them so here.
    for (Path dir : List.of(journal(), journalCopy(), root.resolve("mom"), credentials())) {
      if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
        Files.setPosixFilePermissions(dir, PRIVATE_DIRECTORY);
      }
    }
    if (!Files.exists(log())) {
      Files.createFile(log(), PosixFilePermissions.asFileAttribute(PRIVATE_FILE));
    }
    for (Path file : List.of(log(), pidFile(), roleFile())) {
      if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
        Files.setPosixFilePermissions(file, PRIVATE_FILE);
      }
    }
  }

  /**
   * The cgroup level this installation's moms keep their jobs under: {@code berth} for the default
   * home, {@code berth-HASH} (of the home's path) for any other, so that two installations on one
   * host never share one.
   */
  public String cgroupRoot(boolean defaultHome) {
    if (defaultHome) {
      return "berth";
    }
    try {
      byte[] digest =
          java.security.MessageDigest.getInstance("SHA-256")
              .digest(root.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return "berth-" + java.util.HexFormat.of().formatHex(digest, 0, 4);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Writes {@code text} to a file of the home that only its owner may read. */
  public static void writePrivate(Path file, String text) throws IOException {
    Files.writeString(file, text);
    Files.setPosixFilePermissions(file, PRIVATE_FILE);
  }

  /** Makes {@code dir} (if need be) a directory that only its owner may use; returns it. */
  public static Path privateDirectory(Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.setPosixFilePermissions(dir, PRIVATE_DIRECTORY);
    return dir;
  }

  private static final Set<PosixFilePermission> PRIVATE_FILE =
      PosixFilePermissions.fromString("rw-------");
  private static final Set<PosixFilePermission> PRIVATE_DIRECTORY =
      PosixFilePermissions.fromString("rwx------");

  /**
   * The client socket: a root-run server with the default home listens on the system socket every
   * user finds; any other installation listens in its home.
   */
  public Path socket(boolean defaultHome, boolean root) {
    return defaultHome && root ? ServerLocation.SYSTEM_SOCKET : this.root.resolve("server.sock");
  }
}
