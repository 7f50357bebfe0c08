package dev.berth.security.pki;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Certificates the cluster no longer trusts, before they expire: a compromised node's, a
 * decommissioned host's. A text file of serial numbers in hex, one per line ({@code #} starts a
 * comment), kept on every host (berth credential revoke appends to it); daemons read it again
 * within a second of a change, so a revocation cuts a holder off without restarting anything.
 */
public final class Revocations {
  /** Nothing is revoked (no file). */
  public static final Revocations NONE = new Revocations(null, Clock.systemUTC());

  private static final long RECHECK_MILLIS = 1000;

  private final Path file;
  private final Clock clock;
  private volatile Set<BigInteger> serials = Set.of();
  private volatile FileTime loaded;
  private volatile long checkedAt;

  private Revocations(Path file, Clock clock) {
    this.file = file;
    this.clock = clock;
  }

  public static Revocations in(Path file, Clock clock) {
    return new Revocations(file, clock);
  }

  public boolean revoked(X509Certificate certificate) {
    return revoked(certificate.getSerialNumber());
  }

  public boolean revoked(BigInteger serial) {
    refresh();
    return serials.contains(serial);
  }

  private void refresh() {
    long now = clock.millis();
    if (file == null || now - checkedAt < RECHECK_MILLIS) {
      return;
    }
    checkedAt = now;
    try {
      FileTime modified = Files.getLastModifiedTime(file);
      if (!modified.equals(loaded)) {
        serials = parse(Files.readString(file));
        loaded = modified;
      }
    } catch (NoSuchFileException e) {
      serials = Set.of();
      loaded = null;
    } catch (IOException e) {
      // unreadable now: keep what was revoked (never trust more because of an I/O error)
    }
  }

  static Set<BigInteger> parse(String text) {
    Set<BigInteger> parsed = new HashSet<>();
    for (String line : text.split("\n")) {
      String serial = line.replaceAll("#.*", "").strip().toLowerCase(Locale.ROOT).replace(":", "");
      if (!serial.isEmpty()) {
        try {
          parsed.add(new BigInteger(serial, 16));
        } catch (NumberFormatException e) {
          // not a serial: ignored rather than failing every check
        }
      }
    }
    return Set.copyOf(parsed);
  }

  /** Adds {@code certificate}'s serial to the file (readable by all: nothing in it is secret). */
  public static void add(Path file, X509Certificate certificate, String note) throws IOException {
    if (!Files.exists(file)) {
      Files.createFile(
          file,
          java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
              java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--")));
    }
    Files.writeString(
        file,
        certificate.getSerialNumber().toString(16) + "  # " + note + "\n",
        java.nio.file.StandardOpenOption.APPEND);
  }
}
