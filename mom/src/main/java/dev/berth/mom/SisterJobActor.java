package dev.berth.mom;

import dev.berth.mom.os.Users;
import dev.berth.mom.os.cgroup.Usage;
import dev.berth.mom.store.JobRecords;
import dev.berth.proto.Job;
import dev.berth.proto.JoinJob;
import dev.berth.proto.JoinJobReply;
import dev.berth.proto.KillJob;
import dev.berth.proto.MomInbound;
import dev.berth.proto.ResourcesUsed;
import dev.berth.proto.SisterDone;
import java.io.IOException;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * One job on one of its sister nodes: joined when the mother superior asks (the job's TMPDIR and
 * node-local record are made here), and torn down when it says the job is over. Every answer is
 * repeated for a repeated request, so the mother superior can resend until it hears.
 */
final class SisterJobActor {
  sealed interface Command {}

  record Join(JoinJob join) implements Command {}

  record Kill(KillJob kill) implements Command {}

  private final ActorContext<Command> context;
  private final MomConfig config;
  private final JobRecords records;
  private final Isolation isolation;
  private final ActorRef<MomActor.Command> mom;
  private final Job job;
  private final String motherSuperior;

  private SisterJobActor(
      ActorContext<Command> context,
      MomConfig config,
      JobRecords records,
      Isolation isolation,
      ActorRef<MomActor.Command> mom,
      Job job,
      String motherSuperior) {
    this.context = context;
    this.config = config;
    this.records = records;
    this.isolation = isolation;
    this.mom = mom;
    this.job = job;
    this.motherSuperior = motherSuperior;
  }

  /** A new JOIN_JOB: prepare the node for the job and answer; a refusal ends the actor. */
  static Behavior<Command> join(
      MomConfig config,
      Users users,
      JobRecords records,
      Isolation isolation,
      ActorRef<MomActor.Command> mom,
      JoinJob join) {
    return Behaviors.setup(
        ctx -> {
          ctx.setLoggerName(SisterJobActor.class);
          Job job = join.getJob();
          try {
            NodeJob.prepare(job, config, users);
            records.createSister(join);
            isolation.create(job, config.name());
            SisterJobActor a =
                new SisterJobActor(
                    ctx, config, records, isolation, mom, job, join.getMotherSuperior());
            a.reply(true, "");
            ctx.getLog()
                .info("job {} joined as a sister of {}", job.getId(), join.getMotherSuperior());
            return a.joined();
          } catch (NodeJob.RefusedException | IOException e) {
            ctx.getLog().warn("job {} refused on this sister: {}", job.getId(), e.getMessage());
            tell(mom, join.getMotherSuperior(), job.getId(), config.name(), false, e.getMessage());
            NodeJob.release(config, job.getId());
            try {
              records.remove(job.getId());
            } catch (IOException ignored) {
              // nothing was recorded
            }
            mom.tell(new MomActor.SisterGone(job.getId()));
            return Behaviors.stopped();
          }
        });
  }

  /** A sister job found in the node-local records after a mom restart. */
  static Behavior<Command> recover(
      MomConfig config,
      JobRecords records,
      Isolation isolation,
      ActorRef<MomActor.Command> mom,
      JobRecords.Record record) {
    return Behaviors.setup(
        ctx -> {
          ctx.setLoggerName(SisterJobActor.class);
          return new SisterJobActor(
                  ctx,
                  config,
                  records,
                  isolation,
                  mom,
                  record.run().getJob(),
                  record.motherSuperior().orElseThrow())
              .joined();
        });
  }

  private Behavior<Command> joined() {
    return Behaviors.receive(Command.class)
        .onMessage(
            Join.class,
            j -> {
              reply(true, "");
              return Behaviors.same();
            })
        .onMessage(Kill.class, k -> end(k.kill()))
        .build();
  }

  /** Everything of the job on this node ends; the mother superior hears what it used. */
  private Behavior<Command> end(KillJob kill) {
    String problem = NodeJob.release(config, job.getId());
    if (!problem.isEmpty()) {
      context.getLog().warn("job {}: {}", job.getId(), problem);
    }
    ResourcesUsed used = ResourcesUsed.getDefaultInstance();
    try {
      Optional<Usage> usage = isolation.tearDown(job.getId());
      if (usage.isPresent()) {
        used = Isolation.merge(used, usage.get());
      }
    } catch (IOException e) {
      context.getLog().warn("job {}: cannot remove its cgroup: {}", job.getId(), e.getMessage());
    }
    done(mom, motherSuperior, job.getId(), config.name(), used);
    try {
      records.remove(job.getId());
    } catch (IOException e) {
      context.getLog().warn("job {}: cannot remove its record: {}", job.getId(), e.getMessage());
    }
    context.getLog().info("job {} ended on this sister ({})", job.getId(), kill.getReason());
    mom.tell(new MomActor.SisterGone(job.getId()));
    return Behaviors.stopped();
  }

  private void reply(boolean ok, String error) {
    tell(mom, motherSuperior, job.getId(), config.name(), ok, error);
  }

  private static void tell(
      ActorRef<MomActor.Command> mom,
      String to,
      String jobId,
      String node,
      boolean ok,
      String error) {
    mom.tell(
        new MomActor.ToPeer(
            to,
            MomInbound.newBuilder()
                .setJoinReply(
                    JoinJobReply.newBuilder()
                        .setJobId(jobId)
                        .setNode(node)
                        .setOk(ok)
                        .setError(error))
                .build()));
  }

  /** The answer to a KILL_JOB, also for a job this sister no longer (or never) had. */
  static void done(
      ActorRef<MomActor.Command> mom, String to, String jobId, String node, ResourcesUsed used) {
    mom.tell(
        new MomActor.ToPeer(
            to,
            MomInbound.newBuilder()
                .setSisterDone(
                    SisterDone.newBuilder().setJobId(jobId).setNode(node).setResourcesUsed(used))
                .build()));
  }
}
