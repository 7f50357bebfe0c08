package dev.berth.mom;

import dev.berth.mom.job.UsageSums;
import dev.berth.proto.Job;
import dev.berth.proto.JoinJob;
import dev.berth.proto.JoinJobReply;
import dev.berth.proto.KillJob;
import dev.berth.proto.MomInbound;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.ResourcesUsed;
import dev.berth.proto.Sealed;
import dev.berth.proto.SisterDone;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * The mother superior's account of a job's sisters: which have joined, which have reported
 * everything gone, and what they used. It only keeps count and makes the messages; the job actor
 * decides when to send them (again).
 */
final class Sisters {
  private final Job job;
  private final String self;
  private final int killDelay;
  private final Sealed grant;
  private final BiConsumer<String, MomInbound> send;
  private final Set<String> nodes;
  private final Set<String> notJoined;
  private final Set<String> notDone;
  private ResourcesUsed usage = ResourcesUsed.getDefaultInstance();
  private final Map<String, Integer> oomKills = new LinkedHashMap<>();

  /**
   * @param grant the server's sealed run request, which sisters check before they join
   */
  Sisters(Job job, String self, int killDelay, Sealed grant, BiConsumer<String, MomInbound> send) {
    this.job = job;
    this.self = self;
    this.killDelay = killDelay;
    this.grant = grant;
    this.send = send;
    this.nodes = new LinkedHashSet<>(nodesOf(job));
    nodes.remove(self);
    this.notJoined = new LinkedHashSet<>(nodes);
    this.notDone = new LinkedHashSet<>(nodes);
  }

  static List<String> nodesOf(Job job) {
    return job.getExecNodesList().stream().map(NodeAllocation::getNode).distinct().toList();
  }

  boolean none() {
    return nodes.isEmpty();
  }

  /** Sends JOIN_JOB to every sister that has not answered yet. */
  void askToJoin() {
    MomInbound join =
        MomInbound.newBuilder()
            .setJoin(
                JoinJob.newBuilder()
                    .setJob(job)
                    .setMotherSuperior(self)
                    .setKillDelay(killDelay)
                    .setGrant(grant))
            .build();
    notJoined.forEach(node -> send.accept(node, join));
  }

  /** Records an answer; a refusal comes back as its reason. */
  Optional<String> joined(JoinJobReply reply) {
    if (!reply.getOk()) {
      return Optional.of("sister " + reply.getNode() + " refused the job: " + reply.getError());
    }
    notJoined.remove(reply.getNode());
    return Optional.empty();
  }

  boolean allJoined() {
    return notJoined.isEmpty();
  }

  Set<String> waitingToJoin() {
    return Set.copyOf(notJoined);
  }

  /** Sends KILL_JOB to every sister that has not reported everything gone. */
  void kill(String reason) {
    MomInbound kill =
        MomInbound.newBuilder()
            .setKill(
                KillJob.newBuilder()
                    .setJobId(job.getId())
                    .setReason(reason)
                    .setKillDelay(killDelay)
                    .setFrom(self))
            .build();
    notDone.forEach(node -> send.accept(node, kill));
  }

  /** Records a sister's final report (once per sister); true when all have reported. */
  boolean done(SisterDone done) {
    if (notDone.remove(done.getNode())) {
      ResourcesUsed u = done.getResourcesUsed();
      usage = UsageSums.add(usage, u);
      if (u.getOomKills() > 0) {
        oomKills.put(done.getNode(), u.getOomKills());
      }
    }
    return notDone.isEmpty();
  }

  Set<String> waitingForDone() {
    return Set.copyOf(notDone);
  }

  /** Sisters whose job cgroup killed processes for memory, with how many. */
  Map<String, Integer> oomKills() {
    return new LinkedHashMap<>(oomKills);
  }

  /** What the sisters that reported used, summed (walltime is the mother superior's). */
  ResourcesUsed usage() {
    return usage;
  }
}
