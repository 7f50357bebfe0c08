package dev.berth.tools.sinfo;

import dev.berth.client.GnuOptions.Arg;
import dev.berth.client.GnuOptions.Option;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.slurm.HostList;
import dev.berth.proto.NodeStatus;
import dev.berth.proto.Queue;
import dev.berth.proto.QueueStatus;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.slurm.SlurmCluster;
import dev.berth.tools.slurm.SlurmCommandLine;
import dev.berth.tools.slurm.SlurmFormat;
import dev.berth.tools.slurm.SlurmNode;
import dev.berth.tools.slurm.SlurmPartition;
import dev.berth.tools.slurm.SlurmTimes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code sinfo}: Berth's queues as Slurm's partitions and its nodes in Slurm's states, as Slurm
 * 22.05's sinfo shows them: a line per partition and node state ({@code idle}, {@code mix}, {@code
 * alloc}, {@code drain}, {@code drng}, {@code down}) with its nodes' host list, the default queue
 * marked {@code *}; or with {@code -N} a line per node. Every node serves every queue, but a
 * reservation's queue (pbs_rsub) has only the reservation's nodes. Options Berth does not honour
 * yet are refused by name.
 */
public final class Sinfo {
  private static final List<Option> OPTIONS =
      List.of(
          new Option("all", 'a', Arg.NONE),
          new Option("dead", 'd', Arg.NONE),
          new Option("exact", 'e', Arg.NONE),
          new Option("format", 'o', Arg.REQUIRED),
          new Option("Format", 'O', Arg.REQUIRED),
          new Option("help", (char) 0, Arg.NONE),
          new Option("hide", (char) 0, Arg.NONE),
          new Option("iterate", 'i', Arg.REQUIRED),
          new Option("json", (char) 0, Arg.NONE),
          new Option("list-reasons", 'R', Arg.NONE),
          new Option("long", 'l', Arg.NONE),
          new Option("Node", 'N', Arg.NONE),
          new Option("noheader", 'h', Arg.NONE),
          new Option("nodes", 'n', Arg.REQUIRED),
          new Option("partition", 'p', Arg.REQUIRED),
          new Option("responding", 'r', Arg.NONE),
          new Option("summarize", 's', Arg.NONE),
          new Option("sort", 'S', Arg.REQUIRED),
          new Option("states", 't', Arg.REQUIRED),
          new Option("usage", (char) 0, Arg.NONE),
          new Option("verbose", 'v', Arg.NONE),
          new Option("version", 'V', Arg.NONE),
          new Option("yaml", (char) 0, Arg.NONE));

  private static final Set<String> HONOURED =
      Set.of(
          "all",
          "format",
          "help",
          "long",
          "Node",
          "noheader",
          "nodes",
          "partition",
          "states",
          "summarize",
          "usage",
          "version");

  static final String USAGE =
      "Usage: sinfo [-a] [-h] [-l] [-N] [-n nodes] [-o format] [-p partitions] [-s] [-t states]";

  private Sinfo() {}

  public static int run(Invocation inv) {
    return run(inv, CliContext.DEFAULT);
  }

  public static int run(Invocation inv, CliContext context) {
    SlurmCommandLine.Read read = SlurmCommandLine.read(inv, OPTIONS, HONOURED, Map.of(), USAGE);
    if (read.done().isPresent()) {
      return read.done().getAsInt();
    }
    Map<String, String> given = read.options();
    SlurmCluster cluster;
    try (ServerConnection server = context.connector().connect(inv)) {
      cluster = SlurmCluster.read(server, inv, false);
      if (cluster == null) {
        return 1;
      }
    } catch (ServerUnavailableException e) {
      inv.err().println("sinfo: error: " + e.getMessage());
      return 1;
    }
    List<QueueStatus> queues = cluster.queues();
    String defaultQueue = cluster.defaultQueue();
    List<SlurmNode> nodes = new ArrayList<>();
    List<String> names = SlurmCommandLine.list(given.get("nodes"));
    List<String> states = SlurmCommandLine.list(given.get("states"));
    for (NodeStatus ns : cluster.nodes()) {
      SlurmNode node = SlurmNode.of(ns);
      if ((names.isEmpty() || names.contains(node.name()))
          && (states.isEmpty()
              || states.contains(node.state())
              || states.contains(node.longState()))) {
        nodes.add(node);
      }
    }
    Map<String, List<String>> reserved = cluster.reserved();
    List<String> partitions = SlurmCommandLine.list(given.get("partition"));
    boolean long_ = given.containsKey("long");
    boolean header = !given.containsKey("noheader");
    if (given.containsKey("format")) {
      return formatted(inv, given, queues, nodes, reserved, partitions, defaultQueue, header);
    }
    if (long_) {
      inv.out().println(SlurmTimes.banner(context.nowSeconds(), inv.zone()));
    }
    if (given.containsKey("Node")) {
      if (header) {
        inv.out()
            .println(
                long_
                    ? "NODELIST   NODES PARTITION       STATE CPUS"
                    : "NODELIST   NODES PARTITION STATE ");
      }
      for (SlurmNode node : nodes) {
        for (QueueStatus qs : queues) {
          String partition = qs.getQueue().getName();
          if (!partitions.isEmpty() && !partitions.contains(partition)
              || !SlurmPartition.serves(reserved, partition, node.name())) {
            continue;
          }
          String shown = partition + (partition.equals(defaultQueue) ? "*" : "");
          inv.out()
              .println(
                  long_
                      ? String.format(
                          Locale.ROOT,
                          "%-10s %5d %9s %11s %4d",
                          node.name(),
                          1,
                          shown,
                          node.longState(),
                          node.cpus())
                      : String.format(
                          Locale.ROOT, "%-10s %5d %9s %-6s", node.name(), 1, shown, node.state()));
        }
      }
      return 0;
    }
    if (header) {
      inv.out()
          .println(
              given.containsKey("summarize")
                  ? "PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T)  NODELIST"
                  : long_
                      ? "PARTITION AVAIL  TIMELIMIT   JOB_SIZE ROOT OVERSUBS     GROUPS  NODES"
                          + "       STATE NODELIST"
                      : "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST");
    }
    for (QueueStatus qs : queues) {
      Queue queue = qs.getQueue();
      if (!partitions.isEmpty() && !partitions.contains(queue.getName())) {
        continue;
      }
      String shown = queue.getName() + (queue.getName().equals(defaultQueue) ? "*" : "");
      String avail = SlurmPartition.avail(queue);
      String limit = SlurmPartition.limit(queue);
      List<SlurmNode> its =
          nodes.stream()
              .filter(x -> SlurmPartition.serves(reserved, queue.getName(), x.name()))
              .toList();
      if (given.containsKey("summarize")) {
        long other = its.stream().filter(x -> x.state().startsWith("d")).count();
        long allocated =
            its.stream().filter(x -> x.used() > 0 && !x.state().startsWith("d")).count();
        long idle = its.size() - allocated - other;
        inv.out()
            .println(
                String.format(
                    Locale.ROOT,
                    "%-9s %5s %10s %16s  %s",
                    shown,
                    avail,
                    limit,
                    allocated + "/" + idle + "/" + other + "/" + its.size(),
                    HostList.compress(its.stream().map(SlurmNode::name).toList())));
        continue;
      }
      Map<String, List<String>> byState = new LinkedHashMap<>();
      for (SlurmNode node : its) {
        byState
            .computeIfAbsent(long_ ? node.longState() : node.state(), k -> new ArrayList<>())
            .add(node.name());
      }
      if (byState.isEmpty()) {
        byState.put("n/a", List.of());
      }
      for (Map.Entry<String, List<String>> e : byState.entrySet()) {
        String list = HostList.compress(e.getValue());
        inv.out()
            .println(
                long_
                    ? String.format(
                        Locale.ROOT,
                        "%-9s %5s %10s %10s %4s %8s %10s %6d %11s %s",
                        shown,
                        avail,
                        limit,
                        "1-infinite",
                        "no",
                        "NO",
                        "all",
                        e.getValue().size(),
                        e.getKey(),
                        list)
                    : String.format(
                        Locale.ROOT,
                        "%-9s %5s %10s %6d %6s %s",
                        shown,
                        avail,
                        limit,
                        e.getValue().size(),
                        e.getKey(),
                        list));
      }
    }
    return 0;
  }

  /** {@code -o}: a line per partition, or per partition and state when the format shows one. */
  private static int formatted(
      Invocation inv,
      Map<String, String> given,
      List<QueueStatus> queues,
      List<SlurmNode> nodes,
      Map<String, List<String>> reserved,
      List<String> partitions,
      String defaultQueue,
      boolean header) {
    String format = given.get("format");
    SlurmFormat<SinfoFormat.Line> layout;
    try {
      layout = SinfoFormat.parse(format);
    } catch (IllegalArgumentException e) {
      inv.err().println("sinfo: error: " + e.getMessage());
      return 1;
    }
    if (header) {
      inv.out().println(layout.header());
    }
    for (QueueStatus qs : queues) {
      Queue queue = qs.getQueue();
      if (!partitions.isEmpty() && !partitions.contains(queue.getName())) {
        continue;
      }
      List<SlurmNode> its =
          nodes.stream()
              .filter(x -> SlurmPartition.serves(reserved, queue.getName(), x.name()))
              .toList();
      for (SinfoFormat.Line line :
          SinfoFormat.lines(
              queue.getName(),
              queue.getName().equals(defaultQueue),
              SlurmPartition.avail(queue),
              SlurmPartition.limit(queue),
              its,
              SinfoFormat.byState(format))) {
        inv.out().println(layout.row(line));
      }
    }
    return 0;
  }
}
