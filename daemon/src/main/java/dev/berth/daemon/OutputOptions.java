package dev.berth.daemon;

import dev.berth.core.Hosts;
import dev.berth.mom.os.LinuxLauncher;
import dev.berth.mom.output.OutputCourier;
import dev.berth.mom.output.OutputRoutes;
import dev.berth.mom.output.TlsCourier;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * How a mom's job output reaches the host its path names: the site's shared file systems (written
 * in place) and the port of the submit hosts' relays (delivered there).
 */
final class OutputOptions {
  /** The relays' output port unless a site chooses another (next to Torque's 15001-15004). */
  static final int DEFAULT_PORT = 15005;

  @Option(
      names = "--usecp",
      paramLabel = "HOST:/PREFIX[=/LOCAL]",
      description =
          "Output paths under PREFIX on hosts matching HOST (a name or pattern such as"
              + " '*.example.org') are on a file system this node shares (at LOCAL, if it is"
              + " mounted elsewhere here): written in place, not delivered (Torque's $usecp)."
              + " Repeatable.")
  List<String> usecp = List.of();

  @Option(
      names = "--output-port",
      defaultValue = "" + DEFAULT_PORT,
      paramLabel = "PORT",
      description = "The submit hosts' relays take job output on this port (berth relay).")
  int port;

  /**
   * Where the output of the node {@code node} goes: delivered to other hosts only with credentials
   * (an insecure mom cannot prove itself to a relay, and writes every path in place).
   */
  OutputRoutes routes(DaemonTrust trust, String node) {
    return trust.insecure()
        ? OutputRoutes.inPlace()
        : OutputRoutes.of(node, Hosts.localName(), usecp);
  }

  /**
   * The courier of the mom of {@code node}, or null when insecure; its status files in {@code
   * home}.
   */
  OutputCourier courier(DaemonTrust trust, String node, Path momHome) throws IOException {
    if (trust.insecure()) {
      return null;
    }
    Path status = BerthHome.privateDirectory(momHome.resolve("output"));
    return new TlsCourier(
        trust.tls(new Identity(Role.MOM, node)),
        port,
        new LinuxLauncher(Installation.starter()),
        status);
  }

  /** The options as {@code berth up} passes them on to {@code berth serve}. */
  List<String> arguments() {
    List<String> argv = new java.util.ArrayList<>(List.of("--output-port", Integer.toString(port)));
    for (String rule : usecp) {
      argv.addAll(List.of("--usecp", rule));
    }
    return argv;
  }
}
