package dev.berth.mom;

import dev.berth.core.MomStatus;
import dev.berth.mom.os.NodeFacts;
import dev.berth.mom.trust.Courier;
import dev.berth.proto.Node;
import dev.berth.proto.NodeHello;
import dev.berth.proto.NodeStatusReport;
import dev.berth.proto.NodeTrouble;
import dev.berth.proto.ServerInbound;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * What the node tells the server of itself, apart from its jobs' own reports: the hello once a
 * server has proven itself (the node, the jobs it has a part of, the records it could not read),
 * the status report at every heartbeat and whenever something in it changes (the node's figures,
 * what momctl -d shows, the running jobs' usage so far, the health check's verdict), and the
 * troubles that take the node offline, kept until there is a server to tell. Nothing goes out while
 * no server has proven itself.
 */
final class NodeReports {
  private final MomConfig config;
  private final NodeFacts facts;
  private final Isolation isolation;
  private final Courier courier;
  private final Supplier<List<String>> runningJobs;
  private final Supplier<String> cleanupSummary;
  private final Supplier<String> terminalAddress;
  private final Unaccounted unaccounted;
  private final boolean stopsRemotely;
  private final Logger log;
  private final long started = java.time.Instant.now().getEpochSecond();

  /** Troubles not yet told to a server (there was none to tell). */
  private final List<String> troubles = new ArrayList<>();

  /** The health check's last verdict: its ERROR message, or "" for a well node. */
  private String healthError = "";

  /**
   * @param runningJobs every job this node has a part of, as mother superior or sister
   * @param cleanupSummary what the node's cleanup could not remove ("" for nothing)
   * @param terminalAddress where qsub -I reaches this mom's terminal port ("" for nowhere)
   * @param unaccounted the jobs whose records this mom could not read at its start
   * @param stopsRemotely whether the server may stop this mom (momctl -s)
   */
  NodeReports(
      MomConfig config,
      NodeFacts facts,
      Isolation isolation,
      Courier courier,
      Supplier<List<String>> runningJobs,
      Supplier<String> cleanupSummary,
      Supplier<String> terminalAddress,
      Unaccounted unaccounted,
      boolean stopsRemotely,
      Logger log) {
    this.config = config;
    this.facts = facts;
    this.isolation = isolation;
    this.courier = courier;
    this.runningJobs = runningJobs;
    this.cleanupSummary = cleanupSummary;
    this.terminalAddress = terminalAddress;
    this.unaccounted = unaccounted;
    this.stopsRemotely = stopsRemotely;
    this.log = log;
    unaccounted.trouble().ifPresent(troubles::add);
  }

  /** A server proved itself: it hears of the node, its status and its troubles at once. */
  void serverFound() {
    hello();
    status(); // so pbsnodes shows the node's status from the start, not a heartbeat later
    tellTroubles();
  }

  /** Something of a job could not be cleaned up here: the node goes offline. */
  void trouble(String message) {
    log.error("node {} goes offline: {}", config.name(), message);
    troubles.add(message);
    tellTroubles();
  }

  /** A verdict of the health check: the server hears of a change at once. */
  void health(String error) {
    if (error.equals(healthError)) {
      return;
    }
    if (error.isEmpty()) {
      log.info("node {}: the health check passes again", config.name());
    } else {
      log.warn("node {}: the health check says {}", config.name(), error);
    }
    healthError = error;
    status();
  }

  private void tellTroubles() {
    if (courier.server().isEmpty()) {
      return;
    }
    for (String message : troubles) {
      courier.toServer(
          ServerInbound.newBuilder()
              .setTrouble(NodeTrouble.newBuilder().setNode(config.name()).setMessage(message))
              .build());
    }
    troubles.clear();
  }

  private void hello() {
    Node node =
        Node.newBuilder()
            .setName(config.name())
            .setNp(config.cpus().size())
            .addAllCpuIds(config.cpus())
            .setPhysmem(facts.physmem())
            .addAllProperties(config.properties())
            .setGpus(config.gpus().size())
            .addAllGpuDevices(config.gpus())
            .setNtype("cluster")
            .setTerminalAddress(terminalAddress.get())
            .setStopsRemotely(stopsRemotely)
            .setNoCgroups(isolation.withoutCgroups().orElse(""))
            .setRunsRootJobs(config.rootJobs() && System.getProperty("user.name").equals("root"))
            .build();
    NodeHello.Builder hello =
        NodeHello.newBuilder().setNode(node).addAllRunningJobs(runningJobs.get());
    unaccounted.describe(hello);
    courier.toServer(ServerInbound.newBuilder().setHello(hello).build());
  }

  /** The node's status report: each one refreshes the running jobs' resources_used for qstat. */
  void status() {
    if (courier.server().isEmpty()) {
      return;
    }
    List<String> running = runningJobs.get();
    NodeStatusReport.Builder status =
        NodeStatusReport.newBuilder()
            .setNode(config.name())
            .putAllStatus(facts.status())
            .putAllStatus(diagnostics())
            .putStatus(MomStatus.JOBS, String.join(" ", running))
            .addAllRunningJobs(running)
            .setHealthError(healthError);
    for (String job : running) {
      isolation.usedSoFar(job).ifPresent(u -> status.putJobUsage(job, u));
    }
    courier.toServer(ServerInbound.newBuilder().setStatus(status).build());
  }

  /** What momctl -d shows of this mom, beyond the node's figures. */
  private Map<String, String> diagnostics() {
    Map<String, String> items = new LinkedHashMap<>();
    items.put(MomStatus.VERSION, config.version());
    items.put(MomStatus.HOME, config.home().toString());
    items.put(MomStatus.CGROUPS, isolation.describe());
    items.put(MomStatus.STARTED, Long.toString(started));
    items.put(MomStatus.UPDATE_INTERVAL, Long.toString(config.heartbeat().toSeconds()));
    String cleanup = cleanupSummary.get();
    if (!cleanup.isEmpty()) {
      items.put(MomStatus.CLEANUP, cleanup);
    }
    // status items are joined with commas (pbsnodes' status = a=1,b=2): none may hold one
    items.replaceAll((name, value) -> value.replace(',', ';'));
    return items;
  }
}
