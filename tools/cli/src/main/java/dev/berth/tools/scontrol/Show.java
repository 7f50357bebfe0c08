package dev.berth.tools.scontrol;

import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.ControlCharacters;
import dev.berth.core.slurm.HostList;
import dev.berth.proto.Job;
import dev.berth.proto.NodeStatus;
import dev.berth.proto.QueueStatus;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatJobs;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.qsub.SlurmKeyword;
import dev.berth.tools.slurm.SlurmCluster;
import dev.berth.tools.slurm.SlurmCommandLine;
import dev.berth.tools.slurm.SlurmJob;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * {@code scontrol show job|node|partition [ID]}: records as Slurm 22.05 prints them ({@link
 * JobRecord}, {@link NodeRecord}, {@link PartitionRecord}), every one the caller may see without an
 * id; Slurm's messages for ids that name nothing. The host-list entities need no server and are
 * {@link Scontrol}'s.
 */
final class Show {
  static final SlurmKeyword HOST_NAMES = new SlurmKeyword("hostnames", 5);
  static final SlurmKeyword HOST_LIST = new SlurmKeyword("hostlist", 5);
  static final SlurmKeyword HOST_LIST_SORTED = new SlurmKeyword("hostlistsorted", 9);

  private static final List<SlurmKeyword> JOBS =
      List.of(new SlurmKeyword("jobs", 1), new SlurmKeyword("jobid", 1));
  private static final SlurmKeyword NODES = new SlurmKeyword("nodes", 1);
  private static final List<SlurmKeyword> PARTITIONS =
      List.of(new SlurmKeyword("partitions", 2), new SlurmKeyword("partitionname", 2));

  /** What Slurm's scontrol shows and Berth's does not (yet). */
  private static final List<SlurmKeyword> NOT_HONOURED =
      List.of(
          new SlurmKeyword("aliases", 1),
          new SlurmKeyword("assoc_mgr", 2),
          new SlurmKeyword("bbstat", 2),
          new SlurmKeyword("burstbuffer", 2),
          new SlurmKeyword("cache", 2),
          new SlurmKeyword("config", 1),
          new SlurmKeyword("daemons", 1),
          new SlurmKeyword("dwstat", 2),
          new SlurmKeyword("federations", 1),
          new SlurmKeyword("frontendname", 1),
          new SlurmKeyword("licenses", 2),
          new SlurmKeyword("reservations", 1),
          new SlurmKeyword("reservationname", 1),
          new SlurmKeyword("slurmd", 2),
          new SlurmKeyword("steps", 2),
          new SlurmKeyword("topology", 1));

  private Show() {}

  static int run(
      ServerConnection server,
      Invocation inv,
      CliContext context,
      Output out,
      String keyword,
      String entity,
      String value,
      Map<String, String> given)
      throws ServerUnavailableException {
    boolean oneLiner = given.containsKey("oneliner");
    if (JOBS.stream().anyMatch(k -> k.named(entity))) {
      return jobs(server, inv, context, out, value, given.containsKey("details"), oneLiner);
    }
    if (NODES.named(entity)) {
      return nodes(server, inv, out, value, oneLiner);
    }
    if (PARTITIONS.stream().anyMatch(k -> k.named(entity))) {
      return partitions(server, inv, out, value, oneLiner);
    }
    for (SlurmKeyword other : NOT_HONOURED) {
      if (other.named(entity)) {
        return out.fail(
            "scontrol: error: show "
                + other.name()
                + " is not supported by Berth's scontrol yet (docs/slurm.md lists what is)");
      }
    }
    return out.fail("invalid entity:" + entity + " for keyword:" + keyword + " ");
  }

  private static int jobs(
      ServerConnection server,
      Invocation inv,
      CliContext context,
      Output out,
      String id,
      boolean details,
      boolean oneLiner)
      throws ServerUnavailableException {
    if (id != null && !id.matches("[0-9_+]+")) {
      return out.fail("scontrol_print_job error: Invalid job id specified");
    }
    Response r =
        server.call(
            Request.newBuilder().setStatJobs(StatJobs.newBuilder().setIncludeSubjobs(true)));
    if (SlurmCommandLine.refused(inv, r)) {
      return 1;
    }
    long now = context.nowSeconds();
    List<SlurmJob> shown = new ArrayList<>();
    for (Job job : r.getJobs().getJobsList()) {
      SlurmJob j = new SlurmJob(job, now);
      if (!SlurmJob.arrayParent(job) && (id == null || j.answersTo(id))) {
        shown.add(j);
      }
    }
    shown.sort(
        Comparator.comparingLong((SlurmJob j) -> j.job().getNumber())
            .thenComparingInt(j -> j.job().getArrayIndex()));
    if (shown.isEmpty()) {
      if (id == null) {
        inv.out().println("No jobs in the system");
        return 0;
      }
      String number = id.contains("_") ? id.substring(0, id.indexOf('_')) : id;
      boolean arrayKnown =
          r.getJobs().getJobsList().stream()
              .anyMatch(
                  job ->
                      SlurmJob.arrayParent(job) && number.equals(Long.toString(job.getNumber())));
      if (arrayKnown) {
        inv.out().println("Job " + id + " not found");
        return 1;
      }
      return out.fail("slurm_load_jobs error: Invalid job id specified");
    }
    for (SlurmJob j : shown) {
      inv.out().print(JobRecord.of(j, inv.zone(), details, oneLiner));
    }
    return 0;
  }

  private static int nodes(
      ServerConnection server, Invocation inv, Output out, String names, boolean oneLiner)
      throws ServerUnavailableException {
    List<String> wanted;
    try {
      wanted = names == null ? null : HostList.expand(names);
    } catch (HostList.InvalidException e) {
      return out.fail("unable to parse node list " + names);
    }
    SlurmCluster cluster = SlurmCluster.read(server, inv, true);
    if (cluster == null) {
      return 1;
    }
    if (cluster.nodes().isEmpty() && wanted == null) {
      inv.out().println("No nodes in the system");
      return 0;
    }
    int status = 0;
    for (String name : wanted == null ? cluster.nodeNames() : wanted) {
      NodeStatus node = cluster.node(name);
      if (node == null) {
        inv.out().println("Node " + ControlCharacters.escape(name) + " not found");
        status = 1;
        continue;
      }
      inv.out().print(NodeRecord.of(node, cluster, oneLiner));
    }
    return status;
  }

  private static int partitions(
      ServerConnection server, Invocation inv, Output out, String name, boolean oneLiner)
      throws ServerUnavailableException {
    SlurmCluster cluster = SlurmCluster.read(server, inv, true);
    if (cluster == null) {
      return 1;
    }
    List<QueueStatus> queues =
        cluster.queues().stream()
            .filter(q -> name == null || q.getQueue().getName().equals(name))
            .toList();
    if (queues.isEmpty()) {
      if (name == null) {
        inv.out().println("No partitions in the system");
        return 0;
      }
      inv.out().println("Partition " + ControlCharacters.escape(name) + " not found");
      return 1;
    }
    for (QueueStatus q : queues) {
      inv.out().print(PartitionRecord.of(q.getQueue(), cluster, oneLiner));
    }
    return 0;
  }
}
