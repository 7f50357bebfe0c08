package dev.berth.daemon;

import dev.berth.client.BerthClient;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.NodeStatus;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatNodes;
import dev.berth.proto.StatServer;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Says whether the cluster runs, and what it has: server, job counts, nodes. Exits 3 if not. */
@Command(name = "status", description = "Show whether the cluster runs and what it has.")
final class StatusCommand implements Callable<Integer> {
  static final int NOT_RUNNING = 3;

  @Mixin HomeOptions home;

  @Option(names = "--socket", paramLabel = "PATH", description = "Client socket path.")
  Path socket;

  @Override
  public Integer call() {
    BerthHome h = home.home();
    var running = Daemons.running(h);
    Path sock = home.socket(socket);
    if (running.isEmpty()) {
      System.out.println("berth: not running (home " + h.root() + ")");
      return NOT_RUNNING;
    }
    System.out.println("berth: running, pid " + running.get().pid() + ", home " + h.root());
    try (BerthClient client = BerthClient.connect(sock)) {
      Response server =
          client.call(Request.newBuilder().setStatServer(StatServer.getDefaultInstance()));
      var s = server.getServer();
      System.out.println(
          "server "
              + s.getName()
              + " on "
              + sock
              + ": "
              + s.getAttributesOrDefault(ServerAttributeNames.STATE_COUNT, ""));
      Response nodes =
          client.call(Request.newBuilder().setStatNodes(StatNodes.getDefaultInstance()));
      for (NodeStatus n : nodes.getNodes().getNodesList()) {
        System.out.printf(
            "node %-16s %-14s np=%d jobs=%d%n",
            n.getNode().getName(), n.getState(), n.getNode().getNp(), n.getJobsCount());
      }
      return 0;
    } catch (ServerUnavailableException e) {
      if (h.standingBy()) {
        System.out.println("berth: standing by; the active server is another one");
        return 0;
      }
      System.out.println(
          "berth: the process runs but the server does not answer: " + e.getMessage());
      return 1;
    }
  }
}
