package dev.berth.server;

import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.KillJob;
import dev.berth.proto.MomInbound;
import dev.berth.proto.RunJob;
import dev.berth.server.command.ServerAttributes;
import dev.berth.server.state.ClusterState;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the server owes moms, derived from state rather than remembered: a job in R that has not
 * started needs a RunJob at its mother superior; a job in R with a pending qdel needs a KillJob.
 * Each obligation is sent, then sent again every retry interval until the state no longer calls for
 * it (the mom's report changed the job), which makes delivery at-least-once across lost messages,
 * mom restarts and server restarts alike.
 */
final class Deliveries {
  record Delivery(String node, MomInbound message) {}

  private record Obligation(String node, boolean kill, long lastSent) {}

  private final Map<String, Obligation> owed = new HashMap<>();
  private final long retryMillis;

  Deliveries(long retryMillis) {
    this.retryMillis = retryMillis;
  }

  /** Re-derives the obligations for these jobs from the state. */
  void refresh(ClusterState s, Collection<String> jobIds) {
    for (String id : jobIds) {
      Job job = s.job(id).orElse(null);
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

  /** Every obligation, for a fresh start. */
  void refreshAll(ClusterState s) {
    owed.clear();
    refresh(s, s.jobs().stream().map(Job::getId).toList());
  }

  /** Makes obligations toward a node due now (its mom just said hello). */
  void expedite(String node) {
    owed.replaceAll((id, o) -> o.node().equals(node) ? new Obligation(o.node(), o.kill(), 0) : o);
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
    return result;
  }

  private static MomInbound run(ClusterState s, Job job) {
    return MomInbound.newBuilder()
        .setRun(
            RunJob.newBuilder()
                .setJob(job)
                .setScript(s.script(job))
                .setKillDelay((int) ServerAttributes.number(s, ServerAttributes.KILL_DELAY)))
        .build();
  }

  private static MomInbound kill(ClusterState s, Job job) {
    return MomInbound.newBuilder()
        .setKill(
            KillJob.newBuilder()
                .setJobId(job.getId())
                .setReason(job.getComment())
                .setKillDelay((int) ServerAttributes.number(s, ServerAttributes.KILL_DELAY)))
        .build();
  }
}
