package dev.berth.daemon;

import com.typesafe.config.Config;
import dev.berth.mom.terminal.TerminalSettings;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.cluster.ClusterPort;
import dev.berth.security.pki.CertificateAuthority;
import dev.berth.security.pki.Credential;
import dev.berth.security.pki.Revocations;
import dev.berth.security.seal.InsecureSeal;
import dev.berth.security.seal.Seal;
import dev.berth.security.seal.SignedSeal;
import dev.berth.security.tls.TlsContexts;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.net.ssl.SSLContext;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How one Berth process's daemons prove themselves: with credentials of the cluster's CA (mutual
 * TLS on the cluster port, signed letters between daemons), or, only when asked for with
 * --insecure, with neither. Credentials are loaded and checked before anything starts, so a missing
 * or bad one stops the process with one line.
 */
public final class DaemonTrust {
  private static final Logger log = LoggerFactory.getLogger(DaemonTrust.class);

  /** How long credentials this host issues for its own daemons are good for. */
  static final Duration ISSUED_VALIDITY = Duration.ofDays(825);

  private final BerthHome home;
  private final Credential transport;
  private final Clock clock = Clock.systemUTC();

  private DaemonTrust(BerthHome home, Credential transport) {
    this.home = home;
    this.transport = transport;
  }

  /**
   * The trust of a process whose cluster identity is {@code self}, from its options: {@code
   * --insecure}, an explicit credential, or the one in the home (issued from the home's CA if the
   * home has one and no credential yet).
   */
  static DaemonTrust of(BerthHome home, Identity self, TrustOptions options) throws IOException {
    if (options.insecure) {
      if (options.credential != null) {
        throw new IllegalArgumentException("--insecure and --credential exclude each other");
      }
      String warning =
          "INSECURE: cluster traffic is plain TCP and messages between daemons are not signed;"
              + " anyone who can reach this process's cluster port can run jobs as any user on"
              + " every node (started with --insecure)";
      log.warn(warning);
      System.err.println("berth: " + warning);
      return new DaemonTrust(home, null);
    }
    Path dir = options.credential != null ? options.credential : home.credential(self);
    Credential credential = load(home, dir, self);
    Identity named = credential.identity();
    if (named.role() != self.role() || (self.role() != Role.SERVER && !named.equals(self))) {
      throw new IllegalArgumentException(
          "the credential in "
              + dir
              + " is for "
              + named
              + ", not for "
              + self
              + (self.role() == Role.MOM
                  ? ": a mom acts only as the node its credential names"
                  : self.role() == Role.SUBMIT
                      ? ": a relay speaks only for the host its credential names"
                      : ""));
    }
    return new DaemonTrust(home, credential);
  }

  /** The trust of a process with its credential in {@code home} (or issued from its CA). */
  public static DaemonTrust of(BerthHome home, Identity self) throws IOException {
    return of(home, self, new TrustOptions());
  }

  /** Whether this process runs without credentials. */
  boolean insecure() {
    return transport == null;
  }

  /** The seal of a daemon of this process: the process's own credential, or a local mom's. */
  public Seal seal(Identity daemon) throws IOException {
    if (transport == null) {
      return new InsecureSeal(daemon, clock);
    }
    if (daemon.equals(transport.identity())) {
      return new SignedSeal(transport, clock);
    }
    return new SignedSeal(load(home, home.credential(daemon), daemon), clock);
  }

  /**
   * The TLS context of this process's credential, for a submit host's relay and the server's port
   * for relays: they have no insecure form, since the host a relay speaks for is the name its
   * credential proves.
   */
  public SSLContext relayTls() throws IOException {
    if (transport == null) {
      throw new IllegalArgumentException(
          "submit hosts need credentials: a relay's host is the name its credential proves, so"
              + " --relay-port and berth relay do not work with --insecure");
    }
    return tls(transport.identity());
  }

  /**
   * Where the mom of {@code node} takes interactive sessions: {@code host:port} with its
   * credential; null when insecure, since the permits shown there could not be checked.
   */
  public TerminalSettings terminal(String node, String host, int port) throws IOException {
    return insecure()
        ? null
        : new TerminalSettings(
            new InetSocketAddress(host, port), tls(new Identity(Role.MOM, node)));
  }

  /** The TLS context of this process's metrics endpoint; null when insecure (plain HTTP). */
  SSLContext metricsTls() throws IOException {
    return insecure() ? null : tls(transport.identity());
  }

  /** The TLS context of a daemon of this process: its own credential, or a local mom's. */
  public SSLContext tls(Identity daemon) throws IOException {
    Credential credential =
        daemon.equals(transport.identity())
            ? transport
            : load(home, home.credential(daemon), daemon);
    try {
      return TlsContexts.of(credential);
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "cannot use the credential in " + credential.directory() + " for TLS: " + e.getMessage());
    }
  }

  /**
   * The actor system of a cluster member, over mutual TLS unless insecure, with its cluster port's
   * bounds (ClusterPort).
   */
  public ActorSystem<Void> actorSystem(Config config) {
    SSLContext tls = null;
    if (transport != null) {
      try {
        tls = TlsContexts.of(transport);
      } catch (GeneralSecurityException e) {
        throw new IllegalArgumentException(
            "cannot use the credential in "
                + transport.directory()
                + " for TLS: "
                + e.getMessage());
      }
    }
    return ActorSystem.create(
        Behaviors.empty(), "berth", ClusterPort.setup(config, tls, Set.of(Role.SERVER, Role.MOM)));
  }

  /** The credential in {@code dir}; issued there first from the home's CA if there is none. */
  private static Credential load(BerthHome home, Path dir, Identity self) throws IOException {
    Clock clock = Clock.systemUTC();
    if (!Files.exists(dir.resolve(Credential.KEY)) && Files.exists(home.authority())) {
      CertificateAuthority ca = CertificateAuthority.load(home.authority(), clock);
      log.info("issuing a credential for {} in {} from the CA in {}", self, dir, home.authority());
      ca.issue(self, List.of(), ISSUED_VALIDITY, dir);
    }
    return Credential.load(dir, Revocations.in(home.revoked(), clock), clock);
  }

  Optional<Credential> credential() {
    return Optional.ofNullable(transport);
  }
}
