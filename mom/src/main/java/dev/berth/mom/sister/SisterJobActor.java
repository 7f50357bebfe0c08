package dev.berth.mom.sister;

import dev.berth.mom.Isolation;
import dev.berth.mom.JobServices;
import dev.berth.mom.MomActor;
import dev.berth.mom.MomConfig;
import dev.berth.mom.job.HookPlan;
import dev.berth.mom.job.PhaseWalk;
import dev.berth.mom.job.SisterJobPhase;
import dev.berth.mom.nodejob.HookActor;
import dev.berth.mom.nodejob.JobHealth;
import dev.berth.mom.nodejob.JobLaunch;
import dev.berth.mom.nodejob.JobTeardown;
import dev.berth.mom.nodejob.NodeJob;
import dev.berth.mom.nodejob.Suspender;
import dev.berth.mom.os.Launcher;
import dev.berth.mom.os.cgroup.JobCgroup;
import dev.berth.mom.store.JobRecords;
import dev.berth.mom.tm.TaskHost;
import dev.berth.proto.Job;
import dev.berth.proto.JoinJob;
import dev.berth.proto.KillJob;
import dev.berth.proto.MomInbound;
import dev.berth.proto.ResourcesUsed;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * One job on one of its sister nodes: joined when the mother superior asks (the job's TMPDIR,
 * nodefile, cgroup and node-local record are made here), hosting the tasks the mother superior
 * spawns here ({@link TaskHost}), suspended and resumed as the server says, and torn down when the
 * mother superior says the job is over: tasks first, then the cgroup and TMPDIR. Every answer is
 * repeated for a repeated request, so the mother superior and the server can resend until they
 * hear.
 */
public final class SisterJobActor {
  public sealed interface Command {}

  public record Join(JoinJob join) implements Command {}

  public record Kill(KillJob kill) implements Command {}

  /** A task message from the mother superior, for the task host. */
  public record Tasks(MomInbound message) implements Command {}

  /** SuspendJob from the server: freeze (true) or thaw (false) the job here. */
  public record Suspend(boolean suspend) implements Command {}

  private record TasksEnded(ResourcesUsed usage) implements Command {}

  /** The site's parallel prologues or epilogues have run. */
  private record HooksDone(HookActor.Result result) implements Command {}

  private enum Timer implements Command {
    TASKS_TIMEOUT
  }

  private final ActorContext<Command> context;
  private final TimerScheduler<Command> timers;
  private final MomConfig config;
  private final Launcher launcher;
  private final JobRecords records;
  private final Isolation isolation;
  private final ActorRef<MomActor.Command> mom;
  private final Job job;
  private final String motherSuperior;
  private final Suspender suspender;

  /** Where the job is in its lifecycle here (docs/mom-job-states.md). */
  private final PhaseWalk<SisterJobPhase> phases;

  private final JobTeardown teardown;

  private final SisterTasks tasks;

  /** The job's account here, once the join has prepared it (null after a mom restart). */
  private NodeJob nodeJob;

  private SisterJobActor(
      ActorContext<Command> context,
      TimerScheduler<Command> timers,
      JobServices services,
      Job job,
      String motherSuperior) {
    this.context = context;
    this.timers = timers;
    this.config = services.config();
    this.launcher = services.launcher();
    this.records = services.records();
    this.isolation = services.isolation();
    this.mom = services.mom();
    this.job = job;
    this.motherSuperior = motherSuperior;
    this.phases = new PhaseWalk<>(SisterJobPhase.TABLE, job.getId(), context.getLog());
    this.teardown = new JobTeardown(services, job.getId(), context.getLog());
    this.tasks = new SisterTasks(context, services, job, motherSuperior);
    // Everything of the job that signals reach here is its tasks.
    this.suspender =
        new Suspender(
            job.getId(),
            config.name(),
            isolation,
            tasks::signal,
            records,
            m -> mom.tell(new MomActor.ToServer(m)),
            services.clock(),
            context.getLog());
  }

  /** A new JOIN_JOB: prepare the node for the job and answer; a refusal ends the actor. */
  public static Behavior<Command> join(JobServices services, JoinJob join) {
    MomConfig config = services.config();
    JobRecords records = services.records();
    Isolation isolation = services.isolation();
    ActorRef<MomActor.Command> mom = services.mom();
    return withTimers(
        (ctx, timers) -> {
          Job job = join.getJob();
          Optional<String> unwell = new JobHealth(config, mom).atStart();
          if (unwell.isPresent()) {
            SisterAnswers.refuse(mom, join, config.name(), unwell.get(), true);
            mom.tell(new MomActor.SisterGone(job.getId()));
            return Behaviors.stopped();
          }
          try {
            NodeJob nodeJob = NodeJob.prepare(job, config, services.users());
            JobLaunch.writeNodeFiles(nodeJob);
            records.createSister(join);
            List<Path> procs =
                isolation
                    .create(job, config.name(), config.gpus())
                    .map(JobCgroup::procsFiles)
                    .orElse(List.of());
            config.gpuMonitor().watch(job, config.name(), config.gpus());
            SisterJobActor a =
                new SisterJobActor(ctx, timers, services, job, join.getMotherSuperior());
            a.phases.enter(SisterJobPhase.PREPARING); // done: what refuses the join came before
            a.nodeJob = nodeJob;
            a.tasks.open(nodeJob, procs);
            return a.prologues(join);
          } catch (NodeJob.RefusedException | JobLaunch.LaunchException | IOException e) {
            // Whatever the join made so far goes before the refusal, so that once the mother
            // superior hears of it, nothing of the job is left here.
            ctx.getLog().warn("job {} refused on this sister: {}", job.getId(), e.getMessage());
            new JobTeardown(services, job.getId(), ctx.getLog()).clearAway();
            SisterAnswers.refuse(mom, join, config.name(), e.getMessage(), false);
            mom.tell(new MomActor.SisterGone(job.getId()));
            return Behaviors.stopped();
          }
        });
  }

  /** A sister job found in the node-local records after a mom restart. */
  public static Behavior<Command> recover(JobServices services, JobRecords.Record record) {
    return withTimers(
        (ctx, timers) -> {
          Job job = record.run().getJob();
          SisterJobActor a =
              new SisterJobActor(ctx, timers, services, job, record.motherSuperior().orElseThrow());
          a.phases.enter(SisterJobPhase.RECOVERING);
          a.suspender.restore(record.suspension());
          try {
            List<Path> procs =
                services.isolation().find(job.getId()).map(JobCgroup::procsFiles).orElse(List.of());
            a.tasks.open(NodeJob.existing(job, services.config(), services.users()), procs);
          } catch (NodeJob.RefusedException e) {
            ctx.getLog().warn("job {}: its tasks cannot run here: {}", job.getId(), e.getMessage());
          }
          return a.joined();
        });
  }

  private static Behavior<Command> withTimers(
      BiFunction<ActorContext<Command>, TimerScheduler<Command>, Behavior<Command>> first) {
    return Behaviors.withTimers(
        timers ->
            Behaviors.setup(
                ctx -> {
                  ctx.setLoggerName(SisterJobActor.class);
                  return first.apply(ctx, timers);
                }));
  }

  /**
   * The site's parallel prologues before the join is answered: the job has joined once they pass;
   * any failure refuses the join as one that may pass, and the mother superior has the job queued
   * again (Torque's rule for a sister's prologue, whatever its exit status).
   */
  private Behavior<Command> prologues(JoinJob join) {
    phases.enter(SisterJobPhase.PROLOGUE);
    if (config.site().directory() == null) {
      return joinedNow();
    }
    runHooks(
        HookPlan.prologues(job, config.name(), nodeJob.tmpdir(), JobLaunch.nodefile(nodeJob)),
        true);
    KillJob[] killed = {null};
    return Behaviors.receive(Command.class)
        .onMessage(
            HooksDone.class,
            d -> {
              if (!d.result().ok()) {
                String why = d.result().reason(config.name());
                teardown.clearAway();
                SisterAnswers.refuse(mom, join, config.name(), why, true);
                mom.tell(new MomActor.SisterGone(job.getId()));
                phases.enter(SisterJobPhase.GONE);
                return Behaviors.stopped();
              }
              Behavior<Command> next = joinedNow();
              return killed[0] == null ? next : endTasks(killed[0]);
            })
        .onMessage(
            Kill.class,
            k -> {
              killed[0] = k.kill();
              return Behaviors.same();
            })
        .onAnyMessage(m -> Behaviors.same())
        .build();
  }

  private Behavior<Command> joinedNow() {
    SisterAnswers.joined(mom, motherSuperior, job.getId(), config.name());
    context.getLog().info("job {} joined as a sister of {}", job.getId(), motherSuperior);
    return joined();
  }

  /** Runs the site's scripts {@code calls} (their output goes nowhere on a sister). */
  private void runHooks(List<HookPlan.Call> calls, boolean stopAtFailure) {
    HookActor.spawn(
        context,
        config,
        nodeJob,
        null,
        false,
        launcher,
        records,
        calls,
        stopAtFailure,
        HooksDone::new);
  }

  private Behavior<Command> joined() {
    phases.enter(SisterJobPhase.JOINED);
    return Behaviors.receive(Command.class)
        .onMessage(
            Join.class,
            j -> {
              SisterAnswers.joined(mom, motherSuperior, job.getId(), config.name());
              return Behaviors.same();
            })
        .onMessage(Tasks.class, this::tasks)
        .onMessage(
            Suspend.class,
            s -> {
              suspender.order(s.suspend());
              return Behaviors.same();
            })
        .onMessage(Kill.class, k -> endTasks(k.kill()))
        .build();
  }

  private Behavior<Command> tasks(Tasks t) {
    tasks.fromMotherSuperior(t.message());
    return Behaviors.same();
  }

  /** KILL_JOB: the tasks here end first, then everything else of the job. */
  private Behavior<Command> endTasks(KillJob kill) {
    phases.enter(SisterJobPhase.ENDING_TASKS);
    suspender.thawToEnd();
    // the timer before the tasks hear of the end, so that whoever sees them end knows it runs
    timers.startSingleTimer(Timer.TASKS_TIMEOUT, TaskHost.END_TIMEOUT.plusSeconds(5));
    if (!tasks.endAll(
        context.messageAdapter(TaskHost.Ended.class, e -> new TasksEnded(e.usage())))) {
      timers.cancel(Timer.TASKS_TIMEOUT);
      return epilogues(kill, ResourcesUsed.getDefaultInstance());
    }
    return Behaviors.receive(Command.class)
        .onMessage(TasksEnded.class, e -> epilogues(kill, e.usage()))
        .onMessageEquals(
            Timer.TASKS_TIMEOUT, () -> epilogues(kill, ResourcesUsed.getDefaultInstance()))
        .onMessage(Tasks.class, this::tasks)
        .onMessage(
            Suspend.class,
            s -> {
              suspender.answerNotRunning();
              return Behaviors.same();
            })
        .onAnyMessage(m -> Behaviors.same())
        .build();
  }

  /**
   * The site's parallel epilogues once the job's tasks here have ended (when this mom prepared the
   * job), then the end.
   */
  private Behavior<Command> epilogues(KillJob kill, ResourcesUsed taskUsage) {
    phases.enter(SisterJobPhase.EPILOGUE);
    if (config.site().directory() == null || nodeJob == null) {
      return end(kill, taskUsage);
    }
    runHooks(
        HookPlan.epilogues(
            job,
            config.name(),
            nodeJob.tmpdir(),
            JobLaunch.nodefile(nodeJob),
            new HookPlan.Ending(0, 0, taskUsage)),
        false);
    return Behaviors.receive(Command.class)
        .onMessage(HooksDone.class, d -> end(kill, taskUsage))
        .onAnyMessage(m -> Behaviors.same())
        .build();
  }

  /** Everything of the job on this node ends; the mother superior hears what it used. */
  private Behavior<Command> end(KillJob kill, ResourcesUsed taskUsage) {
    ResourcesUsed tasks = config.gpuMonitor().finish(job.getId(), taskUsage);
    ResourcesUsed used =
        teardown.clearAway().map(usage -> Isolation.merge(tasks, usage)).orElse(tasks);
    SisterAnswers.done(mom, motherSuperior, job.getId(), config.name(), used);
    new JobHealth(config, mom).atEnd();
    context.getLog().info("job {} ended on this sister ({})", job.getId(), kill.getReason());
    mom.tell(new MomActor.SisterGone(job.getId()));
    phases.enter(SisterJobPhase.GONE);
    return Behaviors.stopped();
  }
}
