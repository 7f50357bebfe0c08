package dev.berth.server.command.node;

import dev.berth.core.AttributeNames;
import dev.berth.core.NodeAttributeNames;
import dev.berth.core.pbs.ExitStatus;
import dev.berth.proto.Event;
import dev.berth.proto.Gpu;
import dev.berth.proto.Holds;
import dev.berth.proto.Job;
import dev.berth.proto.JobExited;
import dev.berth.proto.JobHeld;
import dev.berth.proto.JobObitReport;
import dev.berth.proto.JobRequeued;
import dev.berth.proto.JobStarted;
import dev.berth.proto.JobStartedReport;
import dev.berth.proto.JobState;
import dev.berth.proto.KillJob;
import dev.berth.proto.MomInbound;
import dev.berth.proto.Node;
import dev.berth.proto.NodeCreated;
import dev.berth.proto.NodeHello;
import dev.berth.proto.NodeTrouble;
import dev.berth.proto.NodeUpdated;
import dev.berth.proto.ObitAck;
import dev.berth.proto.ResourcesUsed;
import dev.berth.proto.RunJobRejected;
import dev.berth.proto.StartedAck;
import dev.berth.server.command.Context;
import dev.berth.server.command.Outcome;
import dev.berth.server.command.job.Alterations;
import dev.berth.server.state.ClusterState;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What moms report: a node announcing itself, a job started, a job's obit, a job it could not
 * start. Every handler is idempotent: a repeated report changes nothing and is acknowledged again,
 * so moms can resend until they hear back.
 */
public final class NodeReports {
  /** Failed starts in a row (prologue, health check) after which a requeued job is held. */
  static final int MAX_FAILED_STARTS = 3;

  private NodeReports() {}

  /**
   * A mom (re)announces its node and the jobs it has. A running job of the node that it does not
   * list is lost with it (requeued or ended), except one the mom cannot account for because it
   * cannot read its record: such a job may still run there, so it stays as it is, with a comment
   * that says why, until an administrator acts; the mom's NodeTrouble takes the node offline. A job
   * the mom lists that does not run there (any more) is killed.
   */
  public static Outcome hello(ClusterState s, NodeHello hello, Context ctx) {
    Node reported = hello.getNode();
    String name = reported.getName();
    Outcome out = new Outcome();
    Optional<Node> known = s.node(name);
    Node node = merge(known, reported);
    if (known.isEmpty()) {
      out.event(Event.newBuilder().setNodeCreated(NodeCreated.newBuilder().setNode(node)));
    } else if (!known.get().equals(node)) {
      out.event(
          Event.newBuilder()
              .setNodeUpdated(NodeUpdated.newBuilder().setNode(node).addChanged("registered")));
    }
    Set<String> running = new HashSet<>(hello.getRunningJobsList());
    Map<String, String> unaccounted = new HashMap<>();
    hello.getUnaccountedJobsList().forEach(u -> unaccounted.put(u.getJobId(), u.getReason()));
    for (Job job : s.jobs()) {
      if (!runsOn(job, name)) {
        continue;
      }
      String why = unaccounted.getOrDefault(job.getId(), hello.getUnreadableRecords());
      if (running.contains(job.getId())) {
        accountedFor(out, job, name);
      } else if (!why.isEmpty()) {
        note(out, job, unaccountedNote(name, why));
      } else if (isMotherSuperior(job, name) && job.getStartTime() > 0) {
        lost(out, job, "its mother superior " + name + " restarted without it", ctx);
      }
    }
    for (String id : running) {
      if (!s.job(id).map(j -> runsOn(j, name)).orElse(false)) {
        out.notice(name, kill(id, "the server does not know this job as running on " + name));
      }
    }
    return out;
  }

  /** The comment of a job whose record a node cannot read: why it is left as it is. */
  private static String unaccountedNote(String node, String why) {
    return unaccountedPrefix(node)
        + " ("
        + why
        + "): the job is left as it is until an administrator fixes the records and restarts"
        + " the mom, or purges the job (qdel -p)";
  }

  private static String unaccountedPrefix(String node) {
    return "node " + node + " cannot read its record of the job";
  }

  /** A node that could not read a job's record before reads it again: the comment is withdrawn. */
  private static void accountedFor(Outcome out, Job job, String node) {
    if (job.getComment().startsWith(unaccountedPrefix(node))) {
      note(out, job, "node " + node + " reads its record of the job again");
    }
  }

  /** Sets a running job's comment, once: a repeated report changes nothing. */
  private static void note(Outcome out, Job job, String comment) {
    if (!job.getComment().equals(comment)) {
      out.event(
          Alterations.event(
              job, job.toBuilder().setComment(comment).build(), List.of(AttributeNames.COMMENT)));
    }
  }

  private static boolean runsOn(Job job, String node) {
    return job.getState() == JobState.RUNNING && nodesOf(job).contains(node);
  }

  /**
   * The node's facts as its mom reports them, keeping what an operator set on the server. GPUs the
   * mom found are the node's GPUs; an operator's count stays only for a node whose mom finds none.
   */
  private static Node merge(Optional<Node> known, Node reported) {
    Node.Builder n = reported.toBuilder().setRegistered(true).setDown(false).setNtype("cluster");
    if (!gpusWellFormed(reported)) {
      n.clearGpuDevices(); // a mom checks its own list at start: this one is not a mom's
    }
    if (reported.getNoCgroups().length() > MAX_REASON) {
      n.setNoCgroups(reported.getNoCgroups().substring(0, MAX_REASON) + "...");
    }
    if (!terminalAddressWellFormed(reported.getTerminalAddress())) {
      n.clearTerminalAddress(); // handed to clients as it is: only host:port of sane length
    }
    n.setNp(reported.getCpuIdsCount()).setGpus(n.getGpuDevicesCount());
    known.ifPresent(
        k -> {
          n.setOffline(k.getOffline()).setNote(k.getNote());
          if (k.getPropertiesCount() > 0) {
            n.clearProperties().addAllProperties(k.getPropertiesList());
          }
          if (reported.getGpuDevicesCount() == 0) {
            n.setGpus(k.getGpus()); // counted by an operator, unknown to the mom
          }
        });
    return n.build();
  }

  private static final Pattern TERMINAL_ADDRESS =
      Pattern.compile("[A-Za-z0-9._\\-]{1,253}:[0-9]{1,5}|\\[[0-9A-Fa-f:.]{2,45}]:[0-9]{1,5}");

  /** Whether {@code address} is a mom's terminal port as host:port (or [v6]:port), or empty. */
  static boolean terminalAddressWellFormed(String address) {
    if (address.isEmpty()) {
      return true;
    }
    if (!TERMINAL_ADDRESS.matcher(address).matches()) {
      return false;
    }
    int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
    return port > 0 && port < 65536;
  }

  /** Most characters of a reason a node reports that the server keeps (its state is journaled). */
  static final int MAX_REASON = 400;

  /** Most GPUs a node may report; more is not a mom's report. */
  static final int MAX_GPUS = 256;

  /**
   * Whether a node's GPUs are numbered 0, 1, ... in order, with distinct devices and texts of sane
   * length: job GPU ids index them.
   */
  static boolean gpusWellFormed(Node node) {
    if (node.getGpuDevicesCount() > MAX_GPUS) {
      return false;
    }
    Set<Long> devices = new HashSet<>();
    for (int i = 0; i < node.getGpuDevicesCount(); i++) {
      Gpu g = node.getGpuDevices(i);
      if (g.getIndex() != i
          || g.getMajor() < 0
          || g.getMinor() < 0
          || !devices.add(((long) g.getMajor() << 32) | g.getMinor())
          || Stream.of(g.getDevice(), g.getUuid(), g.getModel(), g.getBusId())
              .anyMatch(t -> t.length() > 256)) {
        return false;
      }
    }
    return true;
  }

  /** A job whose mother superior lost it: requeued when rerunnable, else ended. */
  public static void lost(Outcome out, Job job, String why, Context ctx) {
    if (job.getRerunnable()) {
      out.event(
          Event.newBuilder()
              .setJobRequeued(
                  JobRequeued.newBuilder().setJobId(job.getId()).setReason("requeued: " + why)));
    } else {
      out.event(
          Event.newBuilder()
              .setJobExited(
                  JobExited.newBuilder()
                      .setJobId(job.getId())
                      .setExitStatus(ExitStatus.LOST.code())
                      .setEndTime(ctx.nowSeconds())
                      .setResourcesUsed(job.getResourcesUsed())
                      .setReason("job lost: " + why + " (not rerunnable)")));
    }
  }

  public static Outcome started(ClusterState s, JobStartedReport r) {
    Outcome out = new Outcome();
    Optional<Job> job = s.job(r.getJobId());
    boolean running = job.isPresent() && job.get().getState() == JobState.RUNNING;
    if (running && job.get().getStartTime() == 0 && isMotherSuperior(job.get(), r.getNode())) {
      out.event(
          Event.newBuilder()
              .setJobStarted(
                  JobStarted.newBuilder()
                      .setJobId(r.getJobId())
                      .setSessionId(r.getSessionId())
                      .setStartTime(r.getStartTime())));
    } else if (!running) {
      out.notice(r.getNode(), kill(r.getJobId(), "the job is no longer running on the server"));
    } else if (!nodesOf(job.get()).contains(r.getNode())) {
      // Requeued while this node was away, and started elsewhere since: one copy only.
      out.notice(
          r.getNode(),
          kill(r.getJobId(), "the job runs on " + job.get().getExecNodes(0).getNode() + " now"));
    }
    return out.notice(
        r.getNode(),
        MomInbound.newBuilder()
            .setStartedAck(StartedAck.newBuilder().setJobId(r.getJobId()))
            .build());
  }

  public static Outcome obit(ClusterState s, JobObitReport r, Context ctx) {
    Outcome out = new Outcome();
    Optional<Job> job = s.job(r.getJobId());
    boolean current =
        job.isPresent()
            && (job.get().getState() == JobState.RUNNING
                || job.get().getState() == JobState.EXITING)
            && isMotherSuperior(job.get(), r.getNode());
    if (current && r.getRequeue() && job.get().getDeleteRequestedBy().isEmpty()) {
      failedStart(out, job.get(), r.getReason());
    } else if (current) {
      out.event(
          job.get().getPreemptedBy().isEmpty() && job.get().getRerunRequestedBy().isEmpty()
              ? Event.newBuilder()
                  .setJobExited(
                      JobExited.newBuilder()
                          .setJobId(r.getJobId())
                          .setExitStatus(r.getExitStatus())
                          .setResourcesUsed(r.getResourcesUsed())
                          .setEndTime(r.getEndTime())
                          .setReason(r.getReason())
                          .setOutputNote(r.getOutputNote()))
              : Event.newBuilder()
                  .setJobRequeued(
                      JobRequeued.newBuilder()
                          .setJobId(r.getJobId())
                          .setReason(
                              job.get().getPreemptedBy().isEmpty()
                                  ? "requeued: rerun by " + job.get().getRerunRequestedBy()
                                  : "requeued: preempted by job " + job.get().getPreemptedBy())));
    }
    return out.notice(
        r.getNode(),
        MomInbound.newBuilder().setObitAck(ObitAck.newBuilder().setJobId(r.getJobId())).build());
  }

  public static Outcome rejected(ClusterState s, RunJobRejected r, Context ctx) {
    Outcome out = new Outcome();
    Optional<Job> job = s.job(r.getJobId());
    if (job.isPresent()
        && job.get().getState() == JobState.RUNNING
        && job.get().getStartTime() == 0
        && isMotherSuperior(job.get(), r.getNode())) {
      out.event(
          Event.newBuilder()
              .setJobExited(
                  JobExited.newBuilder()
                      .setJobId(r.getJobId())
                      .setExitStatus(ExitStatus.EXEC_FAILED.code())
                      .setEndTime(ctx.nowSeconds())
                      .setResourcesUsed(ResourcesUsed.getDefaultInstance())
                      .setReason("could not start on " + r.getNode() + ": " + r.getReason())));
    }
    return out;
  }

  /**
   * A job whose script never ran, for a reason that may pass (a prologue or health check failed):
   * queued again, as Torque does; after {@link #MAX_FAILED_STARTS} such starts in a row it is also
   * held, so that a broken node or script does not take it round and round.
   */
  private static void failedStart(Outcome out, Job job, String reason) {
    boolean hold = job.getFailedStarts() + 1 >= MAX_FAILED_STARTS;
    out.event(
        Event.newBuilder()
            .setJobRequeued(
                JobRequeued.newBuilder()
                    .setJobId(job.getId())
                    .setReason(
                        hold
                            ? "held: its start failed "
                                + MAX_FAILED_STARTS
                                + " times in a row, the last: "
                                + reason
                            : "requeued: " + reason)
                    .setFailedStart(true)));
    if (hold) {
      out.event(
          Event.newBuilder()
              .setJobHeld(
                  JobHeld.newBuilder()
                      .setJobId(job.getId())
                      .setHolds(Holds.newBuilder().setSystem(true))));
    }
  }

  /** A node whose mom could not clean up goes offline, with the reason; idempotent. */
  public static Outcome trouble(ClusterState s, NodeTrouble t) {
    Outcome out = new Outcome();
    Optional<Node> node = s.node(t.getNode());
    String note = "mom: " + t.getMessage();
    if (node.isPresent() && !(node.get().getOffline() && node.get().getNote().equals(note))) {
      out.event(
          Event.newBuilder()
              .setNodeUpdated(
                  NodeUpdated.newBuilder()
                      .setNode(node.get().toBuilder().setOffline(true).setNote(note))
                      .addChanged(NodeAttributeNames.STATE)
                      .addChanged(NodeAttributeNames.NOTE)));
    }
    return out;
  }

  static boolean isMotherSuperior(Job job, String node) {
    return job.getExecNodesCount() > 0 && job.getExecNodes(0).getNode().equals(node);
  }

  public static List<String> nodesOf(Job job) {
    return job.getExecNodesList().stream().map(a -> a.getNode()).distinct().toList();
  }

  static MomInbound kill(String jobId, String reason) {
    return MomInbound.newBuilder()
        .setKill(KillJob.newBuilder().setJobId(jobId).setReason(reason))
        .build();
  }
}
