package dev.berth.server;

import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.KillJob;
import dev.berth.proto.MomInbound;
import dev.berth.proto.RunJob;
import dev.berth.proto.SuspendJob;
import dev.berth.server.command.config.ServerAttributes;
import dev.berth.server.state.ClusterState;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the server owes moms, derived from state rather than remembered: a job in R that has not
 * started needs a RunJob at its mother superior; a job in R with a pending qdel needs a KillJob.
 * Each obligation is sent, then sent again every retry interval until the state no longer calls for
 * it (the mom's report changed the job), which makes delivery at-least-once across lost messages,
 * mom restarts and server restarts alike.
 *
 * <p>A suspended job needs a SuspendJob at each of its nodes, and a resumed one a SuspendJob that
 * thaws it; these are sent until each node reports it done (a JobSuspendReport; the reports are
 * remembered here, and the last one of a freeze becomes JobSuspendConfirmed; after a server restart
 * every suspended job is frozen and every resumed one thawed once more, which changes nothing on
 * its nodes).
 */
final class Deliveries {
  record Delivery(String node, MomInbound message) {}

  private record Obligation(String node, boolean kill, long lastSent) {}

  /** A freeze or thaw owed to the nodes of a job that have not reported it done. */
  private static final class Freeze {
    final boolean suspend;
    final Set<String> waiting;
    long lastSent;

    Freeze(boolean suspend, Set<String> waiting) {
      this.suspend = suspend;
      this.waiting = waiting;
    }
  }

  private final Map<String, Obligation> owed = new HashMap<>();
  private final Map<String, Freeze> freezes = new HashMap<>();
  private final long retryMillis;

  Deliveries(long retryMillis) {
    this.retryMillis = retryMillis;
  }

  /** Re-derives the obligations for these jobs from the state. */
  void refresh(ClusterState s, Collection<String> jobIds) {
    for (String id : jobIds) {
      Job job = s.job(id).orElse(null);
      refreshFreeze(id, job);
      if (job == null || job.getState() != JobState.RUNNING || job.getExecNodesCount() == 0) {
        owed.remove(id);
        continue;
      }
      boolean kill = !job.getDeleteRequestedBy().isEmpty();
      boolean needsRun = job.getStartTime() == 0;
      if (!kill && !needsRun) {
        owed.remove(id);
        continue;
      }
      String node = job.getExecNodes(0).getNode();
      Obligation old = owed.get(id);
      if (old == null || old.kill() != kill) {
        owed.put(id, new Obligation(node, kill, 0));
      }
    }
  }

  /**
   * A started job, not being killed (a kill thaws it on its nodes), that is suspended or was
   * resumed: its nodes owe a report that they froze or thawed it.
   */
  private void refreshFreeze(String id, Job job) {
    boolean touched =
        job != null
            && job.getState() == JobState.RUNNING
            && job.getStartTime() > 0
            && job.getDeleteRequestedBy().isEmpty()
            && job.getSuspensions() > 0;
    if (!touched) {
      freezes.remove(id);
      return;
    }
    boolean suspend = job.getSuspendedAt() > 0;
    Freeze old = freezes.get(id);
    if (old == null || old.suspend != suspend) {
      Set<String> nodes = new HashSet<>();
      job.getExecNodesList().forEach(a -> nodes.add(a.getNode()));
      freezes.put(id, new Freeze(suspend, nodes));
    }
  }

  /**
   * A node reports that it froze ({@code suspended}) or thawed its part of a job. Whether this
   * report completes a freeze: every node of the job has frozen it now.
   */
  boolean suspendReported(String node, String jobId, boolean suspended) {
    Freeze f = freezes.get(jobId);
    if (f == null || f.suspend != suspended || !f.waiting.remove(node)) {
      return false;
    }
    return suspended && f.waiting.isEmpty();
  }

  /** Every obligation, for a fresh start. */
  void refreshAll(ClusterState s) {
    owed.clear();
    freezes.clear();
    refresh(s, s.jobs().stream().map(Job::getId).toList());
  }

  /** Makes obligations toward a node due now (its mom just said hello). */
  void expedite(String node) {
    owed.replaceAll((id, o) -> o.node().equals(node) ? new Obligation(o.node(), o.kill(), 0) : o);
    freezes.values().stream().filter(f -> f.waiting.contains(node)).forEach(f -> f.lastSent = 0);
  }

  /** The messages due at {@code now}, marking them sent. */
  List<Delivery> due(ClusterState s, long now) {
    List<Delivery> result = new ArrayList<>();
    for (Map.Entry<String, Obligation> e : owed.entrySet()) {
      Obligation o = e.getValue();
      if (now - o.lastSent() < retryMillis) {
        continue;
      }
      Job job = s.job(e.getKey()).orElse(null);
      if (job == null) {
        continue;
      }
      result.add(new Delivery(o.node(), o.kill() ? kill(s, job) : run(s, job)));
      e.setValue(new Obligation(o.node(), o.kill(), now));
    }
    for (Map.Entry<String, Freeze> e : freezes.entrySet()) {
      Freeze f = e.getValue();
      if (f.waiting.isEmpty() || now - f.lastSent < retryMillis) {
        continue;
      }
      MomInbound freeze =
          MomInbound.newBuilder()
              .setSuspend(SuspendJob.newBuilder().setJobId(e.getKey()).setSuspend(f.suspend))
              .build();
      f.waiting.forEach(node -> result.add(new Delivery(node, freeze)));
      f.lastSent = now;
    }
    return result;
  }

  private static MomInbound run(ClusterState s, Job job) {
    return MomInbound.newBuilder()
        .setRun(
            RunJob.newBuilder()
                .setJob(job)
                .setScript(s.script(job))
                .setKillDelay((int) ServerAttributes.number(s, ServerAttributeNames.KILL_DELAY)))
        .build();
  }

  private static MomInbound kill(ClusterState s, Job job) {
    return MomInbound.newBuilder()
        .setKill(
            KillJob.newBuilder()
                .setJobId(job.getId())
                .setReason(job.getComment())
                .setKillDelay((int) ServerAttributes.number(s, ServerAttributeNames.KILL_DELAY)))
        .build();
  }
}
