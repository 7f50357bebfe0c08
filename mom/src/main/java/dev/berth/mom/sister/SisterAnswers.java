package dev.berth.mom.sister;

import dev.berth.mom.MomActor;
import dev.berth.proto.JoinJob;
import dev.berth.proto.JoinJobReply;
import dev.berth.proto.MomInbound;
import dev.berth.proto.ResourcesUsed;
import dev.berth.proto.SisterDone;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A sister's answers to the job's mother superior, through this node's mom: to JOIN_JOB (joined, or
 * refused, and whether the refusal may pass) and to KILL_JOB (nothing of the job is left here, and
 * what it used). Each is sent again for a repeated request, also for a job this sister no longer
 * (or never) had, so that the mother superior can resend until it hears.
 */
public final class SisterAnswers {
  private SisterAnswers() {}

  /** Refuses a JOIN_JOB: the mother superior hears why this node cannot take the job. */
  public static void refuse(
      ActorRef<MomActor.Command> mom, JoinJob join, String node, String why, boolean retry) {
    reply(mom, join.getMotherSuperior(), join.getJob().getId(), node, false, why, retry);
  }

  /** The job has joined here. */
  static void joined(ActorRef<MomActor.Command> mom, String to, String jobId, String node) {
    reply(mom, to, jobId, node, true, "", false);
  }

  /** The answer to a KILL_JOB: nothing of the job is left here, and what it used. */
  public static void done(
      ActorRef<MomActor.Command> mom, String to, String jobId, String node, ResourcesUsed used) {
    mom.tell(
        new MomActor.ToPeer(
            to,
            MomInbound.newBuilder()
                .setSisterDone(
                    SisterDone.newBuilder().setJobId(jobId).setNode(node).setResourcesUsed(used))
                .build()));
  }

  private static void reply(
      ActorRef<MomActor.Command> mom,
      String to,
      String jobId,
      String node,
      boolean ok,
      String error,
      boolean retry) {
    mom.tell(
        new MomActor.ToPeer(
            to,
            MomInbound.newBuilder()
                .setJoinReply(
                    JoinJobReply.newBuilder()
                        .setJobId(jobId)
                        .setNode(node)
                        .setOk(ok)
                        .setError(error)
                        .setRetry(retry))
                .build()));
  }
}
