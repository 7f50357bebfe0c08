package dev.berth.daemon;

import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.pki.CertificateAuthority;
import dev.berth.security.pki.Credential;
import dev.berth.security.pki.PemFiles;
import dev.berth.security.pki.Revocations;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code berth credential issue|show|revoke}: what servers, moms, brokers, relays and monitors
 * prove themselves with.
 */
@Command(
    name = "credential",
    description = "Credentials of servers, moms, brokers, submit hosts and monitors.",
    subcommands = {
      CredentialCommand.Issue.class,
      CredentialCommand.Show.class,
      CredentialCommand.Revoke.class
    })
final class CredentialCommand {
  @Command(
      name = "issue",
      description =
          "Issue a credential from this host's CA: key.pem (root-only), cert.pem and ca.pem in"
              + " one directory, to copy to the host it is for.")
  static final class Issue implements Callable<Integer> {
    @Mixin HomeOptions home;

    @Option(
        names = "--role",
        required = true,
        description =
            "server, mom, broker, submit or monitor (Prometheus, reading metrics): what its"
                + " holder may act as.")
    String role;

    @Option(
        names = "--name",
        required = true,
        description =
            "The node's name (for a mom), the host's (for a server, broker or submit host), or"
                + " any name for a monitor.")
    String name;

    @Option(
        names = "--host",
        split = ",",
        paramLabel = "NAME|ADDRESS",
        description =
            "Host names and addresses peers reach it at, for peers that check them (Kafka"
                + " clients check their broker's).")
    List<String> hosts = List.of();

    @Option(names = "--days", defaultValue = "825", description = "Days it is valid.")
    int days;

    @Option(
        names = "--ca",
        paramLabel = "DIR",
        description = "The CA to issue from (default: HOME/credentials/ca).")
    Path ca;

    @Option(
        names = "--out",
        paramLabel = "DIR",
        description = "Where to write it (default: HOME/credentials/ROLE-NAME).")
    Path out;

    @Override
    public Integer call() throws Exception {
      BerthHome h = home.home();
      Identity identity = new Identity(Role.ofWord(role), name);
      Path dir = out != null ? out : h.credential(identity);
      Credential issued =
          CertificateAuthority.load(ca != null ? ca : h.authority(), Clock.systemUTC())
              .issue(identity, hosts, Duration.ofDays(days), dir);
      System.out.println(
          "berth: issued a credential for "
              + issued.identity()
              + " in "
              + dir
              + ", valid until "
              + issued.certificate().getNotAfter().toInstant());
      return 0;
    }
  }

  @Command(name = "show", description = "Whom a credential names, who issued it, until when.")
  static final class Show implements Callable<Integer> {
    @Parameters(paramLabel = "DIR", description = "Credential directories.")
    List<Path> dirs;

    @Override
    public Integer call() throws Exception {
      for (Path dir : dirs) {
        Credential c = Credential.load(dir, Clock.systemUTC());
        System.out.println(
            dir
                + ": "
                + c.identity()
                + ", issued by "
                + c.certificate().getIssuerX500Principal().getName()
                + ", valid until "
                + c.certificate().getNotAfter().toInstant());
      }
      return 0;
    }
  }

  @Command(
      name = "revoke",
      description =
          "Stop trusting a credential before it expires (a compromised or retired host): its"
              + " serial goes into HOME/credentials/revoked, which every host's daemons read again"
              + " within a second. Copy that file to every host.")
  static final class Revoke implements Callable<Integer> {
    @Mixin HomeOptions home;

    @Parameters(paramLabel = "CERT", description = "The credential's cert.pem, or its directory.")
    List<Path> certificates;

    @Override
    public Integer call() throws Exception {
      BerthHome h = home.home();
      Files.createDirectories(h.credentials());
      for (Path given : certificates) {
        Path file = Files.isDirectory(given) ? given.resolve(Credential.CERTIFICATE) : given;
        X509Certificate certificate = PemFiles.readCertificates(file).get(0);
        String who;
        try {
          who = Identity.of(certificate).toString();
        } catch (IllegalArgumentException e) {
          who = certificate.getSubjectX500Principal().getName();
        }
        Revocations.add(h.revoked(), certificate, who);
        System.out.println(
            "berth: revoked "
                + who
                + " (serial "
                + certificate.getSerialNumber().toString(16)
                + ") in "
                + h.revoked()
                + "; copy it to every host's home");
      }
      return 0;
    }
  }
}
