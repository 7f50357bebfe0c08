package dev.berth.daemon;

import dev.berth.core.Hosts;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.pki.CertificateAuthority;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;

/** The cluster CA of a one-command cluster ({@code berth up}): made on first start. */
final class Authorities {
  private Authorities() {}

  static final Duration CA_VALIDITY = Duration.ofDays(3650);

  /**
   * Makes the home's CA when the cluster runs with credentials but has neither a CA nor the
   * server's credential yet: the quick start stays one command, and its daemons then issue their
   * own credentials from it.
   */
  static void ensure(BerthHome home, TrustOptions trust) throws IOException {
    if (trust.insecure || trust.credential != null || Files.exists(home.authority())) {
      return;
    }
    String host = Hosts.localName();
    if (Files.exists(home.credential(new Identity(Role.SERVER, host)))) {
      return;
    }
    Files.createDirectories(home.credentials());
    CertificateAuthority.create(
        home.authority(), "berth cluster " + host, CA_VALIDITY, Clock.systemUTC());
    System.out.println(
        "berth: made a certificate authority for this cluster in " + home.authority());
  }
}
