package dev.berth.tools.slurm;

import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.ServerAttributeNames;
import dev.berth.core.slurm.HostList;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.NodeStatus;
import dev.berth.proto.QueueStatus;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatJobs;
import dev.berth.proto.StatNodes;
import dev.berth.proto.StatQueues;
import dev.berth.proto.StatReservations;
import dev.berth.proto.StatServer;
import java.util.List;
import java.util.Map;

/**
 * The cluster as Slurm's commands show it (sinfo, scontrol show node|partition): the queues
 * (Slurm's partitions), the nodes, each reservation's queue with its nodes, which queue is the
 * default and, when asked for, the jobs (for the memory they hold on each node), read once.
 */
public record SlurmCluster(
    List<QueueStatus> queues,
    List<NodeStatus> nodes,
    List<Job> jobs,
    Map<String, List<String>> reserved,
    String defaultQueue) {

  /** The cluster, or null when the server refused (its reason printed as the command's error). */
  public static SlurmCluster read(ServerConnection server, Invocation inv, boolean withJobs)
      throws ServerUnavailableException {
    Response q = server.call(Request.newBuilder().setStatQueues(StatQueues.getDefaultInstance()));
    Response n = server.call(Request.newBuilder().setStatNodes(StatNodes.getDefaultInstance()));
    Response r =
        server.call(
            Request.newBuilder().setStatReservations(StatReservations.getDefaultInstance()));
    Response s = server.call(Request.newBuilder().setStatServer(StatServer.getDefaultInstance()));
    Response j =
        withJobs
            ? server.call(
                Request.newBuilder()
                    .setStatJobs(StatJobs.newBuilder().setIncludeSubjobs(true).setBrief(true)))
            : Response.getDefaultInstance();
    for (Response answer : List.of(q, n, r, s, j)) {
      if (SlurmCommandLine.refused(inv, answer)) {
        return null;
      }
    }
    return new SlurmCluster(
        q.getQueues().getQueuesList(),
        n.getNodes().getNodesList(),
        j.getJobs().getJobsList(),
        SlurmPartition.reserved(r.getReservations().getReservationsList()),
        s.getServer().getAttributesOrDefault(ServerAttributeNames.DEFAULT_QUEUE, ""));
  }

  public List<String> nodeNames() {
    return HostList.sorted(nodes.stream().map(ns -> ns.getNode().getName()).toList());
  }

  public NodeStatus node(String name) {
    return nodes.stream()
        .filter(ns -> ns.getNode().getName().equals(name))
        .findFirst()
        .orElse(null);
  }

  /** The queues that run jobs on {@code node}. */
  public List<String> partitionsOf(String node) {
    return queues.stream()
        .map(q -> q.getQueue().getName())
        .filter(queue -> SlurmPartition.serves(reserved, queue, node))
        .toList();
  }

  /** The nodes {@code queue} runs jobs on. */
  public List<NodeStatus> nodesOf(String queue) {
    return nodes.stream()
        .filter(ns -> SlurmPartition.serves(reserved, queue, ns.getNode().getName()))
        .toList();
  }

  /** Bytes of memory the running jobs hold on {@code node}. */
  public long memoryInUse(String node) {
    return jobs.stream()
        .filter(job -> job.getState() == JobState.RUNNING || job.getState() == JobState.EXITING)
        .flatMap(job -> job.getExecNodesList().stream())
        .filter(a -> a.getNode().equals(node))
        .mapToLong(a -> a.getMem())
        .sum();
  }
}
