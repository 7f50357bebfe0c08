package dev.berth.daemon;

import dev.berth.core.Hosts;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.pki.CertificateAuthority;
import dev.berth.security.pki.Credential;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateParsingException;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The credential of the broker {@code berth kafka start} runs (role broker, named after this host),
 * from the home's credentials; issued by the home's CA on first start. Kafka clients check that the
 * broker's certificate names the host they connect to, so it names the listener's host, this host's
 * name, localhost and 127.0.0.1.
 */
final class BrokerCredential {
  static final Duration VALIDITY = Duration.ofDays(5 * 365);

  private BrokerCredential() {}

  /** The broker's credential for a listener on {@code host}, issued if there is none yet. */
  static Credential resolve(BerthHome home, String host) throws IOException {
    Identity identity = new Identity(Role.BROKER, Hosts.localName());
    Path dir = home.credential(identity);
    Clock clock = Clock.systemUTC();
    if (!Files.exists(dir.resolve(Credential.CERTIFICATE))) {
      if (!Files.exists(home.authority().resolve(CertificateAuthority.KEY))) {
        throw new IOException(
            "no broker credential in "
                + dir
                + " and no certificate authority in "
                + home.authority()
                + " to issue one: make the cluster's CA with berth ca create (or issue the broker"
                + " a credential of role broker), or run an insecure broker with --insecure");
      }
      return CertificateAuthority.load(home.authority(), clock)
          .issue(identity, names(host), VALIDITY, dir);
    }
    Credential credential = Credential.load(dir, clock);
    if (!names(credential).contains(host)) {
      throw new IOException(
          "the broker's certificate in "
              + dir
              + " does not name "
              + host
              + ", the host clients connect to; issue it anew with that name");
    }
    return credential;
  }

  private static List<String> names(String host) {
    return List.copyOf(
        new LinkedHashSet<>(List.of(host, Hosts.localName(), "localhost", "127.0.0.1")));
  }

  /** The DNS names and IP addresses the certificate names. */
  private static Set<String> names(Credential credential) throws IOException {
    Set<String> names = new LinkedHashSet<>();
    try {
      var sans = credential.certificate().getSubjectAlternativeNames();
      if (sans != null) {
        for (List<?> san : sans) {
          // 2 = dNSName, 7 = iPAddress (RFC 5280)
          if (san.get(0).equals(2) || san.get(0).equals(7)) {
            names.add(san.get(1).toString());
          }
        }
      }
    } catch (CertificateParsingException e) {
      throw new IOException(credential.directory() + ": unreadable certificate names", e);
    }
    return names;
  }
}
