package dev.berth.daemon;

import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/** What an embedded cluster is: the options {@code berth up} passes on to {@code berth serve}. */
final class ClusterOptions {
  @Option(names = "--socket", paramLabel = "PATH", description = "Client socket path.")
  Path socket;

  @Option(names = "--server-name", description = "Server name in job ids (default: host name).")
  String serverName;

  @Option(names = "--nodes", defaultValue = "1", description = "Moms to run on this host.")
  int nodes;

  @Option(
      names = "--cpus",
      paramLabel = "LIST",
      description = "CPU ids to offer (default: all online).")
  String cpus;

  @Option(
      names = "--node-hostnames",
      negatable = true,
      description =
          "Jobs see their node's name as host name (a UTS namespace each), so MPI takes the"
              + " nodes for separate hosts. Default: on with more than one node.")
  Boolean nodeHostnames;

  @Option(
      names = "--journal",
      defaultValue = JournalSpec.ROCKSDB,
      paramLabel = "SPEC",
      description =
          "Where events are kept: rocksdb (in the home directory) or"
              + " kafka://HOST:PORT[,HOST:PORT][/TOPIC][?replication=N&min-insync=M&config=FILE]"
              + " (config: the Kafka client security settings of a site's own brokers).")
  String journal;

  @Option(
      names = "--join",
      split = ",",
      paramLabel = "HOST:PORT",
      description =
          "Stand by: join the cluster of the servers at these cluster addresses (their --host and"
              + " --port) and take over when the active one is lost. Needs a kafka:// journal.")
  List<String> join = List.of();

  @Option(names = "--port", defaultValue = "0", description = "Cluster (Artery) port; 0 = any.")
  int port;

  @Option(
      names = "--host",
      defaultValue = "127.0.0.1",
      description = "Address other cluster members reach this process at.")
  String host;

  @Option(
      names = "--relay-port",
      paramLabel = "PORT",
      description =
          "Take submit hosts' requests on this TCP port at --host, over mutual TLS from their"
              + " relays (berth relay), while this server is active. Default: no submit hosts.")
  Integer relayPort;

  @Option(
      names = "--root-jobs",
      description =
          "This host's moms run jobs whose owner is root (still only if the server's acl_roots"
              + " lets their submitter). Off by default.")
  boolean rootJobs;

  boolean nodeHostnames() {
    return nodeHostnames != null ? nodeHostnames : nodes > 1;
  }
}
