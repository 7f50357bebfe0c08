package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Separate hosts on this machine: each a network namespace with an address of its own on one
 * private subnet, and a UTS namespace with its own host name; optionally a mount namespace, so that
 * what the host mounts (a home directory only it sees) stays its own. The hosts are joined by a
 * bridge in a namespace of its own, so no address outside these namespaces (and their loopback) is
 * used. Each namespace is held by an anchor process; everything is removed at close.
 */
final class VirtualHosts implements AutoCloseable {
  private static final Path NETNS = Path.of("/run/netns");

  /** A host: its name, its address, and the process that holds its namespaces. */
  record Host(String name, String address, long anchor) {
    /** {@code argv} run on this host, in its namespaces. */
    List<String> command(List<String> argv) {
      List<String> command =
          new ArrayList<>(
              List.of(
                  "nsenter", "--target", Long.toString(anchor), "--net", "--uts", "--mount", "--"));
      command.addAll(argv);
      return command;
    }
  }

  private final String tag;
  private final String subnet;
  private final Path hostsFile;
  private final boolean netnsExisted;
  private final List<Process> anchors = new ArrayList<>();
  private final List<String> namespaces = new ArrayList<>();
  private final Map<String, Host> hosts = new LinkedHashMap<>();
  private final String bridge;

  private VirtualHosts(Path dir) throws IOException {
    this.hostsFile = dir.resolve("hosts");
    Files.writeString(hostsFile, "127.0.0.1\tlocalhost\n");
    int n;
    do { // a tag no other site on this host (another test class's) holds now
      n = ThreadLocalRandom.current().nextInt(10, 250);
    } while (Files.exists(NETNS.resolve("bv" + n + "-sw")));
    this.tag = "bv" + n;
    this.subnet = "10.231." + n + ".";
    this.netnsExisted = Files.exists(NETNS);
    this.bridge = tag + "-sw";
    Process sw = anchor(List.of("unshare", "--net", "sleep", "infinity"));
    attach(bridge, sw);
    ip("-n", bridge, "link", "add", "br0", "type", "bridge");
    ip("-n", bridge, "link", "set", "br0", "up");
  }

  /** Hosts whose shared /etc/hosts is kept in {@code dir}. */
  static VirtualHosts create(Path dir) throws IOException {
    return new VirtualHosts(dir);
  }

  /** A new host called {@code name}, which every host's /etc/hosts names from now on. */
  Host add(String name) throws IOException {
    int index = hosts.size() + 1;
    Process anchor =
        anchor(
            List.of(
                "unshare",
                "--net",
                "--uts",
                "--mount",
                "--propagation",
                "private",
                "sh",
                "-c",
                "hostname \"$0\" && exec sleep infinity",
                name));
    String ns = tag + "-" + name;
    attach(ns, anchor);
    String link = tag + "h" + index;
    ip("-n", bridge, "link", "add", link, "type", "veth", "peer", "name", "eth0", "netns", ns);
    ip("-n", bridge, "link", "set", link, "master", "br0", "up");
    String address = subnet + (index + 1);
    ip("-n", ns, "addr", "add", address + "/24", "dev", "eth0");
    ip("-n", ns, "link", "set", "eth0", "up");
    ip("-n", ns, "link", "set", "lo", "up");
    Host host = new Host(name, address, anchor.pid());
    TestCluster.Result r = TestCluster.exec(Path.of("/"), host.command(List.of("hostname")));
    assertEquals(name, r.out().strip(), "the host name inside " + name + ": " + r);
    // Written in place (the same file), so every host's bind mount shows the new line.
    Files.writeString(hostsFile, address + "\t" + name + "\n", StandardOpenOption.APPEND);
    exec(host, "mount", "--bind", hostsFile.toString(), "/etc/hosts");
    hosts.put(name, host);
    return host;
  }

  /** Mounts an empty tmpfs at {@code dir} (which must exist) that only {@code host} sees. */
  void mountPrivate(Host host, Path dir) {
    exec(host, "mount", "-t", "tmpfs", "-o", "mode=0755,size=512m", "berth-it", dir.toString());
  }

  /** Runs {@code argv} on {@code host} and fails the test if it fails. */
  TestCluster.Result exec(Host host, String... argv) {
    TestCluster.Result r = TestCluster.exec(Path.of("/"), host.command(List.of(argv)));
    assertEquals(0, r.exit(), String.join(" ", argv) + " on " + host.name() + ": " + r);
    return r;
  }

  /** A process that holds new namespaces until close. */
  private Process anchor(List<String> argv) throws IOException {
    Process p =
        new ProcessBuilder(argv)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    anchors.add(p);
    // The namespaces exist once the anchor runs its last program (unshare and sh exec it).
    MultiNodeCluster.awaitTrue(
        () -> !p.isAlive() || p.info().command().map(c -> c.endsWith("/sleep")).orElse(false),
        java.time.Duration.ofSeconds(10));
    if (!p.isAlive()) {
      fail("could not make namespaces with " + argv);
    }
    return p;
  }

  private void attach(String name, Process anchor) {
    ip("netns", "attach", name, Long.toString(anchor.pid()));
    namespaces.add(name);
  }

  private static void ip(String... args) {
    List<String> argv = new ArrayList<>(List.of("ip"));
    argv.addAll(List.of(args));
    TestCluster.Result r = TestCluster.exec(Path.of("/"), argv);
    assertEquals(0, r.exit(), String.join(" ", argv) + ": " + r);
  }

  /**
   * Ends the anchors and removes the namespace names; the links go with their namespaces. The
   * processes the tests started on these hosts must have ended first.
   */
  @Override
  public void close() throws Exception {
    for (Process p : anchors) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
    for (String ns : namespaces) {
      TestCluster.exec(Path.of("/"), List.of("ip", "netns", "delete", ns));
    }
    if (!netnsExisted && isEmptyDirectory(NETNS)) {
      // The first `ip netns` made /run/netns a mount point of its own.
      TestCluster.exec(Path.of("/"), List.of("umount", NETNS.toString()));
      Files.deleteIfExists(NETNS);
    }
  }

  private static boolean isEmptyDirectory(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return false;
    }
    try (var entries = Files.list(dir)) {
      return entries.findAny().isEmpty();
    }
  }
}
