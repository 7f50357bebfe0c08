package dev.berth.bench;

import dev.berth.daemon.BerthHome;
import dev.berth.security.pki.CertificateAuthority;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;

/**
 * How a benchmark's daemons prove themselves to each other: as Berth runs by default, or with
 * {@code --insecure}. Comparisons run both in alternating order, so that a machine that grows
 * busier during a run does not weigh on one side only.
 */
enum Trust {
  /** Mutual TLS on the cluster port and signed letters, from a CA in the daemons' home. */
  TLS("TLS + sealed letters", List.of()),
  /** Plain TCP and unsigned letters. */
  INSECURE("--insecure", List.of("--insecure"));

  final String label;

  /** What {@code berth serve} and {@code berth mom} are given. */
  final List<String> options;

  Trust(String label, List<String> options) {
    this.label = label;
    this.options = options;
  }

  /**
   * Readies a scratch home: with TLS it gets a CA, from which every daemon started with that home
   * (the server and the moms alike) issues its own credential when it first starts, as on a site's
   * head node. Daemons with homes of their own share one by a copy: {@code authority} is the
   * directory of the CA to copy, or empty for a new one.
   */
  void prepare(Path root, Path home, Optional<Path> authority)
      throws IOException, InterruptedException {
    if (this != TLS) {
      return;
    }
    if (authority.isPresent()) {
      copyAuthority(authority.get(), new BerthHome(home).authority());
      return;
    }
    Process p =
        new ProcessBuilder(
                root.resolve("ops/bin/berth").toString(),
                "ca",
                "create",
                "--home",
                home.toString(),
                "--name",
                "berth bench",
                "--days",
                "2")
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) {
      throw new IllegalStateException("berth ca create failed: " + out);
    }
  }

  private static void copyAuthority(Path from, Path to) throws IOException {
    Files.createDirectories(to);
    Files.setPosixFilePermissions(to.getParent(), PosixFilePermissions.fromString("rwx------"));
    Files.setPosixFilePermissions(to, PosixFilePermissions.fromString("rwx------"));
    for (String file : new String[] {CertificateAuthority.KEY, CertificateAuthority.CERTIFICATE}) {
      Files.copy(from.resolve(file), to.resolve(file), StandardCopyOption.COPY_ATTRIBUTES);
    }
  }

  /** Both kinds, the first alternating from round to round. */
  static List<Trust> order(int round) {
    return round % 2 == 1 ? List.of(TLS, INSECURE) : List.of(INSECURE, TLS);
  }
}
