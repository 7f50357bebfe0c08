package dev.berth.daemon;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** How a daemon proves itself to the others: its credential, or --insecure. */
final class TrustOptions {
  @Option(
      names = "--credential",
      paramLabel = "DIR",
      description =
          "This daemon's credential: key.pem, cert.pem and ca.pem (default: HOME/credentials/"
              + "ROLE-NAME, issued from HOME/credentials/ca when this host holds the CA).")
  Path credential;

  @Option(
      names = "--insecure",
      description =
          "Plain TCP and unsigned messages between daemons: anyone who reaches a cluster port can"
              + " then run jobs as any user. For throw-away tests only.")
  boolean insecure;
}
