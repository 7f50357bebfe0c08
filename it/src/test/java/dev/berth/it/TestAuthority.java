package dev.berth.it;

import dev.berth.daemon.BerthHome;
import dev.berth.security.pki.CertificateAuthority;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;

/**
 * The test clusters' certificate authorities. A home with a CA issues its daemons' credentials
 * itself, as on a site's head node; test clusters whose servers and moms have homes of their own
 * share one CA by copying it (a site would copy each host's issued credential instead).
 */
final class TestAuthority {
  private TestAuthority() {}

  /** Makes a CA in {@code home} unless it has one. */
  static void ensure(Path home) throws IOException {
    Path ca = new BerthHome(home).authority();
    if (!Files.exists(ca.resolve(CertificateAuthority.KEY))) {
      CertificateAuthority.create(ca, "berth it", Duration.ofDays(2), Clock.systemUTC());
    }
  }

  /** Gives {@code to} the CA of {@code from}, so their daemons trust each other. */
  static void share(Path from, Path to) throws IOException {
    ensure(from);
    give(new BerthHome(from).authority(), to);
  }

  /** Gives {@code to} the CA in {@code source} (a broker's, say). */
  static void give(Path source, Path to) throws IOException {
    Path target = new BerthHome(to).authority();
    if (Files.exists(target.resolve(CertificateAuthority.KEY))) {
      return;
    }
    Files.createDirectories(target);
    Files.setPosixFilePermissions(target.getParent(), PosixFilePermissions.fromString("rwx------"));
    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwx------"));
    for (String file : new String[] {CertificateAuthority.KEY, CertificateAuthority.CERTIFICATE}) {
      Files.copy(source.resolve(file), target.resolve(file), StandardCopyOption.COPY_ATTRIBUTES);
    }
  }
}
