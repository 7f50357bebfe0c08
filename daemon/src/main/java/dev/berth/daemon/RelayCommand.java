package dev.berth.daemon;

import dev.berth.core.Hosts;
import dev.berth.mom.os.LinuxLauncher;
import dev.berth.mom.os.LinuxUsers;
import dev.berth.mom.os.NativeLibrary;
import dev.berth.mom.output.OutputPort;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.server.endpoint.ClientLimits;
import dev.berth.server.relay.Relay;
import dev.berth.server.relay.Upstream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Runs a submit host's relay in the foreground (as root, under systemd on a login host): this
 * host's users run the commands against its socket as on a server host, and the relay forwards each
 * request to the active server with the kernel's word for who sent it.
 */
@Command(
    name = "relay",
    description =
        "Run a submit host's relay: this host's commands reach the active server through it.")
final class RelayCommand implements Callable<Integer> {
  @Mixin HomeOptions home;

  @Mixin TrustOptions trust;

  @Option(
      names = "--server",
      required = true,
      split = ",",
      paramLabel = "HOST:PORT",
      description =
          "Every server's relay port (berth serve --host and --relay-port), comma separated; the"
              + " relay uses whichever server is active and follows a takeover.")
  List<String> server;

  @Option(names = "--socket", paramLabel = "PATH", description = "The commands' socket path.")
  Path socket;

  @Option(
      names = "--name",
      description = "This submit host's name, as its credential names it (default: host name).")
  String name;

  @Option(
      names = "--output-port",
      defaultValue = "" + OutputOptions.DEFAULT_PORT,
      paramLabel = "PORT",
      description =
          "Take job output for this host's users from the moms on this port (0: none; then"
              + " output for this host stays on the execution hosts).")
  int outputPort;

  @Option(
      names = "--output-address",
      defaultValue = "0.0.0.0",
      paramLabel = "ADDRESS",
      description = "The address the output port listens on (default: every address).")
  String outputAddress;

  @Option(
      names = "--failover-wait",
      defaultValue = "30",
      paramLabel = "SECONDS",
      description = "How long a request waits while no server answers.")
  long failoverWait;

  @Option(
      names = "--reply-timeout",
      defaultValue = "60",
      paramLabel = "SECONDS",
      description = "How long a request waits for its answer before the server is taken for lost.")
  long replyTimeout;

  @Override
  public Integer call() throws Exception {
    ClientLimits limits =
        ClientLimits.fromEnvironment(System.getenv(), Runtime.getRuntime().maxMemory());
    Budgets.relay(limits, outputPort != 0).checkThisDaemon();
    BerthHome h = home.home();
    h.secure();
    String host = name != null ? name : Hosts.localName();
    List<InetSocketAddress> servers = addresses(server);
    DaemonTrust daemonTrust = DaemonTrust.of(h, new Identity(Role.SUBMIT, host), trust);
    Upstream upstream =
        new Upstream(
            servers,
            daemonTrust.relayTls(),
            Duration.ofSeconds(failoverWait),
            Duration.ofSeconds(replyTimeout));
    Relay relay;
    OutputPort outputs = null;
    try {
      if (outputPort != 0) {
        outputs = outputPort(h, daemonTrust, upstream);
      }
      relay = new Relay(home.socket(socket), upstream, limits, host);
    } catch (java.io.IOException | RuntimeException e) {
      if (outputs != null) {
        outputs.close();
      }
      upstream.close();
      throw e;
    }
    OutputPort outputsOpen = outputs;
    CountDownLatch stopped = new CountDownLatch(1);
    AtomicBoolean asked = new AtomicBoolean();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  asked.set(true);
                  relay.close();
                  if (outputsOpen != null) {
                    outputsOpen.close();
                  }
                  stopped.countDown();
                }));
    relay.failure().thenRun(stopped::countDown);
    System.out.println(
        "berth: relay for submit host "
            + host
            + " on "
            + relay.socket()
            + ", to the server at "
            + String.join(",", server));
    stopped.await();
    if (!asked.get()) {
      System.err.println("berth: the relay's socket failed; see the log above");
      return 1;
    }
    return 0;
  }

  /** The port moms deliver this host's users' job output to, checked with the server. */
  private OutputPort outputPort(BerthHome h, DaemonTrust trust, Upstream upstream)
      throws java.io.IOException {
    Path status = BerthHome.privateDirectory(h.root().resolve("output"));
    Path starter = Installation.starter();
    return new OutputPort(
        new InetSocketAddress(outputAddress, outputPort),
        trust.relayTls(),
        upstream::check,
        new LinuxLauncher(starter),
        new LinuxUsers(starter.resolveSibling(NativeLibrary.FILE)),
        status);
  }

  /** HOST:PORT items as socket addresses, resolved when first used. */
  static List<InetSocketAddress> addresses(List<String> items) {
    List<InetSocketAddress> out = new ArrayList<>();
    for (String item : items) {
      int colon = item.lastIndexOf(':');
      int port;
      try {
        port = colon < 0 ? -1 : Integer.parseInt(item.substring(colon + 1));
      } catch (NumberFormatException e) {
        port = -1;
      }
      if (colon <= 0 || port <= 0 || port > 65535) {
        throw new IllegalArgumentException(
            "--server: '" + item + "' is not HOST:PORT (a server's --host and --relay-port)");
      }
      out.add(InetSocketAddress.createUnresolved(item.substring(0, colon), port));
    }
    return out;
  }
}
