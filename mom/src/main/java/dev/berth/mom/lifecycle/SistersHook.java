package dev.berth.mom.lifecycle;

import dev.berth.mom.Isolation;
import dev.berth.mom.job.UsageSums;
import dev.berth.proto.Job;
import dev.berth.proto.JobObitReport;
import dev.berth.proto.JoinJob;
import dev.berth.proto.KillJob;
import dev.berth.proto.MomInbound;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.ResourcesUsed;
import dev.berth.proto.RunJob;
import dev.berth.proto.SisterDone;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.BehaviorBuilder;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.slf4j.Logger;

/**
 * The job's sisters, from its mother superior: JOIN_JOB to every sister, again at every resend,
 * until all have joined (JOINING); KILL_JOB to every sister, again at every resend, until each says
 * nothing of the job is left there (COLLECTING), and then what they used, and their OOM kills, join
 * the obit. A refusal, or a sister silent past its timeout, ends the join; a sister silent at the
 * cleanup is named in the obit's reason. The lifecycle says when (its JOINING and COLLECTING phases
 * take this hook's handlers); the hook keeps count of the sisters and makes their messages.
 */
final class SistersHook {
  /** How long sisters have to join the job. */
  static final Duration JOIN_TIMEOUT = Duration.ofSeconds(60);

  /**
   * How long sisters have to confirm the job is gone from them; kept short, because until then this
   * node cannot take the job again if it is requeued.
   */
  static final Duration DONE_TIMEOUT = Duration.ofSeconds(15);

  private final Job job;
  private final String self;
  private final RunJob run;
  private final BiConsumer<String, MomInbound> send;
  private final TimerScheduler<JobActor.Command> timers;
  private final Duration resend;
  private final Consumer<String> tellUser;
  private final Logger log;
  private final Set<String> nodes;
  private final Set<String> notJoined;
  private final Set<String> notDone;
  private ResourcesUsed usage = ResourcesUsed.getDefaultInstance();
  private final Map<String, Integer> oomKills = new LinkedHashMap<>();

  /** For the log line the benchmarks read: when JOIN_JOB first went out (0: never). */
  private long joinSentNanos;

  /**
   * @param run the server's run request, whose sealed grant sisters check before they join
   * @param send sends a message to a sister node
   * @param tellUser tells the job's owner a line (a sister's OOM kills)
   */
  SistersHook(
      RunJob run,
      String self,
      BiConsumer<String, MomInbound> send,
      TimerScheduler<JobActor.Command> timers,
      Duration resend,
      Consumer<String> tellUser,
      Logger log) {
    this.run = run;
    this.job = run.getJob();
    this.self = self;
    this.send = send;
    this.timers = timers;
    this.resend = resend;
    this.tellUser = tellUser;
    this.log = log;
    this.nodes = new LinkedHashSet<>();
    job.getExecNodesList().stream().map(NodeAllocation::getNode).forEach(nodes::add);
    nodes.remove(self);
    this.notJoined = new LinkedHashSet<>(nodes);
    this.notDone = new LinkedHashSet<>(nodes);
  }

  boolean none() {
    return nodes.isEmpty();
  }

  /** When JOIN_JOB first went out, by {@link System#nanoTime()}; 0 when it never did. */
  long joinSentNanos() {
    return joinSentNanos;
  }

  /**
   * JOINING: JOIN_JOB to every sister, its timers started first, so that whoever hears it knows
   * they run.
   */
  void join() {
    timers.startTimerWithFixedDelay(JobActor.Timer.RESEND, resend);
    timers.startSingleTimer(JobActor.Timer.JOIN_TIMEOUT, JOIN_TIMEOUT);
    joinSentNanos = System.nanoTime();
    askToJoin();
  }

  /**
   * JOINING's handlers: the sisters' answers, the resends, the timeout. All joined, the job goes on
   * with {@code joined}; a refusal or the timeout ends it with {@code refused} (the reason, and
   * whether the sister asked to be tried again).
   */
  BehaviorBuilder<JobActor.Command> joining(
      BehaviorBuilder<JobActor.Command> behavior,
      Supplier<Behavior<JobActor.Command>> joined,
      BiFunction<String, Boolean, Behavior<JobActor.Command>> refused) {
    return behavior
        .onMessage(
            JobActor.Joined.class,
            j -> {
              if (!j.reply().getOk()) {
                String why =
                    "sister " + j.reply().getNode() + " refused the job: " + j.reply().getError();
                return refused.apply(why, j.reply().getRetry());
              }
              notJoined.remove(j.reply().getNode());
              if (!notJoined.isEmpty()) {
                return Behaviors.same();
              }
              timers.cancel(JobActor.Timer.RESEND);
              timers.cancel(JobActor.Timer.JOIN_TIMEOUT);
              return joined.get();
            })
        .onMessageEquals(
            JobActor.Timer.RESEND,
            () -> {
              askToJoin();
              return Behaviors.same();
            })
        .onMessageEquals(
            JobActor.Timer.JOIN_TIMEOUT,
            () ->
                refused.apply(
                    "sisters "
                        + Set.copyOf(notJoined)
                        + " did not answer JOIN_JOB within "
                        + JOIN_TIMEOUT.toSeconds()
                        + " s",
                    false));
  }

  /** Sends JOIN_JOB to every sister that has not answered yet. */
  private void askToJoin() {
    MomInbound join =
        MomInbound.newBuilder()
            .setJoin(
                JoinJob.newBuilder()
                    .setJob(job)
                    .setMotherSuperior(self)
                    .setKillDelay(run.getKillDelay())
                    .setGrant(run.getGrant()))
            .build();
    notJoined.forEach(node -> send.accept(node, join));
  }

  /**
   * COLLECTING: KILL_JOB for {@code why} to every sister that has not reported everything gone, its
   * timers started first.
   */
  void collect(String why) {
    timers.startTimerWithFixedDelay(JobActor.Timer.RESEND, resend);
    timers.startSingleTimer(JobActor.Timer.DONE_TIMEOUT, DONE_TIMEOUT);
    kill(why);
  }

  /**
   * COLLECTING's handlers: the sisters' reports, the resends of KILL_JOB for {@code why}, the
   * timeout. Once every sister has reported, or the time is up, {@code then} goes on with {@code
   * obit} and the sisters' part in it.
   */
  BehaviorBuilder<JobActor.Command> collecting(
      BehaviorBuilder<JobActor.Command> behavior,
      String why,
      JobObitReport.Builder obit,
      Function<JobObitReport.Builder, Behavior<JobActor.Command>> then) {
    return behavior
        .onMessage(
            JobActor.SisterReport.class,
            r -> {
              if (!done(r.done())) {
                return Behaviors.same();
              }
              stopCollecting();
              return then.apply(withSisters(obit));
            })
        .onMessageEquals(
            JobActor.Timer.RESEND,
            () -> {
              kill(why);
              return Behaviors.same();
            })
        .onMessageEquals(
            JobActor.Timer.DONE_TIMEOUT,
            () -> {
              String note = "sisters " + Set.copyOf(notDone) + " did not confirm the cleanup";
              log.warn("job {}: {}", job.getId(), note);
              stopCollecting();
              JobObitReport.Builder o = withSisters(obit);
              return then.apply(
                  o.setReason(o.getReason().isEmpty() ? note : o.getReason() + "; " + note));
            });
  }

  private void stopCollecting() {
    timers.cancel(JobActor.Timer.RESEND);
    timers.cancel(JobActor.Timer.DONE_TIMEOUT);
  }

  /** Sends KILL_JOB to every sister that has not reported everything gone. */
  void kill(String reason) {
    MomInbound kill =
        MomInbound.newBuilder()
            .setKill(
                KillJob.newBuilder()
                    .setJobId(job.getId())
                    .setReason(reason)
                    .setKillDelay(run.getKillDelay())
                    .setFrom(self))
            .build();
    notDone.forEach(node -> send.accept(node, kill));
  }

  /** Records a sister's final report (once per sister); true when all have reported. */
  private boolean done(SisterDone done) {
    if (notDone.remove(done.getNode())) {
      ResourcesUsed u = done.getResourcesUsed();
      usage = UsageSums.add(usage, u);
      if (u.getOomKills() > 0) {
        oomKills.put(done.getNode(), u.getOomKills());
      }
    }
    return notDone.isEmpty();
  }

  /**
   * The sisters' usage joins the obit (walltime is the mother superior's), and their OOM kills its
   * reason and the job's stderr.
   */
  private JobObitReport.Builder withSisters(JobObitReport.Builder obit) {
    ResourcesUsed mine = obit.getResourcesUsed();
    oomKills.forEach(
        (node, kills) -> {
          String reason = Isolation.memoryReason(job, node, kills);
          tellUser.accept("=>> PBS: " + reason);
          obit.setReason(obit.getReason().isEmpty() ? reason : obit.getReason() + "; " + reason);
        });
    return obit.setResourcesUsed(UsageSums.add(mine, usage));
  }
}
