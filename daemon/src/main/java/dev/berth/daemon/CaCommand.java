package dev.berth.daemon;

import dev.berth.core.Hosts;
import dev.berth.security.pki.CertificateAuthority;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code berth ca create}: the cluster's own certificate authority. */
@Command(
    name = "ca",
    description = "The cluster's certificate authority.",
    subcommands = {CaCommand.Create.class})
final class CaCommand {
  @Command(
      name = "create",
      description =
          "Make a certificate authority for the cluster (its key stays on this host, root-only).")
  static final class Create implements Callable<Integer> {
    @Mixin HomeOptions home;

    @Option(
        names = "--dir",
        paramLabel = "DIR",
        description = "Where to keep it (default: HOME/credentials/ca).")
    Path dir;

    @Option(names = "--name", description = "The CA's name (default: berth cluster HOST).")
    String name;

    @Option(names = "--days", defaultValue = "3650", description = "Days it is valid.")
    int days;

    @Override
    public Integer call() throws Exception {
      Path at = dir != null ? dir : home.home().authority();
      CertificateAuthority ca =
          CertificateAuthority.create(
              at,
              name != null ? name : "berth cluster " + Hosts.localName(),
              Duration.ofDays(days),
              Clock.systemUTC());
      System.out.println(
          "berth: made the certificate authority "
              + ca.certificate().getSubjectX500Principal().getName()
              + " in "
              + at
              + " (copy "
              + at.resolve(CertificateAuthority.CERTIFICATE)
              + " to every host; "
              + CertificateAuthority.KEY
              + " stays here)");
      return 0;
    }
  }
}
