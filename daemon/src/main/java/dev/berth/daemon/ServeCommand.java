package dev.berth.daemon;

import dev.berth.core.Hosts;
import dev.berth.mom.os.JobFiles;
import dev.berth.mom.os.NodeFacts;
import dev.berth.server.query.Queries;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Runs the embedded cluster in the foreground until SIGTERM (what {@code berth up} starts). */
@Command(name = "serve", description = "Run the embedded cluster in the foreground.")
final class ServeCommand implements Callable<Integer> {
  @Mixin HomeOptions home;

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

  @Option(names = "--port", defaultValue = "0", description = "Cluster (Artery) port; 0 = any.")
  int port;

  @Override
  public Integer call() throws Exception {
    BerthHome h = home.home();
    Files.createDirectories(h.root());
    String host = Hosts.localName();
    String name = serverName != null ? serverName : host;
    List<Integer> cpuIds =
        cpus != null ? NodeFacts.parseCpuList(cpus) : NodeFacts.linux().onlineCpus();
    Path starter = Starter.locate();
    JobFiles.prepareBase(h.jobTmp());
    var moms = EmbeddedCluster.localMoms(h, host, nodes, cpuIds, starter, Queries.VERSION);
    for (var mom : moms) {
      JobFiles.prepareBase(mom.tmpBase());
    }
    EmbeddedCluster cluster =
        EmbeddedCluster.start(
            new EmbeddedCluster.Settings(h, home.socket(socket), name, host, port, moms));
    Files.writeString(h.pidFile(), ProcessHandle.current().pid() + "\n");
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  cluster.close();
                  try {
                    Files.deleteIfExists(h.pidFile());
                  } catch (java.io.IOException ignored) {
                    // the next start checks whether that pid still runs
                  }
                  stopped.countDown();
                }));
    System.out.println(
        "berth: serving "
            + name
            + " on "
            + cluster.server().socket()
            + " with "
            + moms.size()
            + " node(s); state in "
            + h.root());
    stopped.await();
    return 0;
  }
}
