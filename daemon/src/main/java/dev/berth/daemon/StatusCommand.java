package dev.berth.daemon;

import dev.berth.client.BerthClient;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.ServerLocation;
import dev.berth.proto.NodeStatus;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.ServerStatus;
import dev.berth.proto.StatNodes;
import dev.berth.proto.StatServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Says whether the cluster runs, and what it has: server, job counts, nodes. Exits 3 if not. A user
 * without a cluster of their own learns about the one the commands reach (a site's, through
 * /run/berth/server.sock), as qstat would.
 */
@Command(
    name = "status",
    description = {
      "Show whether the cluster runs and what it has: the one of this home, else the one the"
          + " commands reach.",
      "Exit status: 0 running, 1 a process without an answering server, 3 not running."
    })
final class StatusCommand implements Callable<Integer> {
  static final int NOT_RUNNING = 3;

  /** The job states the server counts, by their letters, in Torque's order. */
  private static final List<String[]> STATES =
      List.of(
          new String[] {"Q", "queued"},
          new String[] {"H", "held"},
          new String[] {"W", "waiting"},
          new String[] {"R", "running"},
          new String[] {"E", "exiting"},
          new String[] {"C", "complete"});

  @Mixin HomeOptions home;

  @Option(names = "--socket", paramLabel = "PATH", description = "Client socket path.")
  Path socket;

  @Override
  public Integer call() {
    BerthHome h = home.home();
    var running = Daemons.running(h);
    if (running.isPresent()) {
      System.out.println("berth: running, pid " + running.get().pid() + ", home " + h.root());
      Path sock = home.socket(socket);
      try {
        show(sock).forEach(System.out::println);
        return 0;
      } catch (ServerUnavailableException e) {
        if (h.standingBy()) {
          System.out.println("berth: standing by; the active server is another one");
          return 0;
        }
        System.out.println(
            "berth: the process runs but the server does not answer on "
                + sock
                + ": "
                + e.getMessage()
                + "; see "
                + h.log());
        return 1;
      }
    }
    // No cluster of this home: the one the commands reach, unless a home was named.
    Path commands =
        socket != null ? socket.toAbsolutePath() : ServerLocation.clientSocket(System.getenv());
    if (home.isDefault() || socket != null) {
      try {
        List<String> shown = show(commands);
        System.out.println(
            "berth: no cluster runs from home " + h.root() + "; the commands reach this one:");
        shown.forEach(System.out::println);
        return 0;
      } catch (ServerUnavailableException e) {
        System.out.println(
            "berth: not running (home "
                + h.root()
                + "), and no server answers on "
                + commands
                + ": start one with berth up, or set BERTH_SERVER to a server's socket");
        return NOT_RUNNING;
      }
    }
    System.out.println("berth: not running (home " + h.root() + "); start it with berth up");
    return NOT_RUNNING;
  }

  /** The server on {@code sock}, its jobs by state, and its nodes, as lines to print. */
  private static List<String> show(Path sock) throws ServerUnavailableException {
    List<String> lines = new ArrayList<>();
    try (BerthClient client = BerthClient.connect(sock)) {
      Response server =
          client.call(Request.newBuilder().setStatServer(StatServer.getDefaultInstance()));
      ServerStatus s = server.getServer();
      lines.add("server " + s.getName() + " on " + sock + ": " + jobs(s));
      Response nodes =
          client.call(Request.newBuilder().setStatNodes(StatNodes.getDefaultInstance()));
      for (NodeStatus n : nodes.getNodes().getNodesList()) {
        lines.add(
            String.format(
                "node %-16s %-14s np=%d jobs=%d",
                n.getNode().getName(), n.getState(), n.getNode().getNp(), n.getJobsCount()));
      }
    }
    return lines;
  }

  /** {@code 3 jobs: 1 running, 2 complete}, or {@code no jobs}. */
  static String jobs(ServerStatus s) {
    List<String> counts = new ArrayList<>();
    int total = 0;
    for (String[] state : STATES) {
      int n = s.getStateCountOrDefault(state[0], 0);
      total += n;
      if (n > 0) {
        counts.add(n + " " + state[1]);
      }
    }
    return total == 0
        ? "no jobs"
        : total + (total == 1 ? " job: " : " jobs: ") + String.join(", ", counts);
  }
}
