package dev.berth.mom.lifecycle;

import dev.berth.core.Signals;
import dev.berth.core.pbs.ExitStatus;
import dev.berth.mom.JobServices;
import dev.berth.mom.MomActor;
import dev.berth.mom.MomConfig;
import dev.berth.mom.job.MomJobPhase;
import dev.berth.mom.job.PhaseWalk;
import dev.berth.mom.job.ScriptEnd;
import dev.berth.mom.job.UsageLimits;
import dev.berth.mom.nodejob.HookActor;
import dev.berth.mom.nodejob.JobHealth;
import dev.berth.mom.nodejob.JobLaunch;
import dev.berth.mom.nodejob.JobProcesses;
import dev.berth.mom.nodejob.JobTeardown;
import dev.berth.mom.nodejob.NodeJob;
import dev.berth.mom.nodejob.Suspender;
import dev.berth.mom.os.JobProcess;
import dev.berth.mom.os.Launcher;
import dev.berth.mom.os.ProcessUsage.Sample;
import dev.berth.mom.store.JobRecords;
import dev.berth.mom.terminal.Attachment;
import dev.berth.mom.terminal.Screen;
import dev.berth.mom.tm.TaskHost;
import dev.berth.proto.Job;
import dev.berth.proto.JobObitReport;
import dev.berth.proto.JoinJobReply;
import dev.berth.proto.MomInbound;
import dev.berth.proto.ResourcesUsed;
import dev.berth.proto.RunJob;
import dev.berth.proto.SisterDone;
import dev.berth.proto.SisterUsage;
import dev.berth.proto.TerminalAttach;
import dev.berth.proto.TmRequest;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * One job on its mother superior: started (or found again after a mom restart), watched until its
 * starter exits, suspended and resumed as the server says, killed on qdel, and reported. Each
 * behavior is a phase of {@link MomJobPhase}'s table (docs/mom-job-states.md), which the actor
 * checks every step against. The job's concerns are hooks it calls at named points of those phases
 * ({@link JobHook}: cgroup, limits, GPUs, launch, walltime, tasks; and, at the points of their own,
 * the terminal, the site scripts, the sisters' join and release, the output, the kill, the record
 * and reports to the server, the node's health check). What stays here is the lifecycle itself: its
 * phases and their order. A phase starts its timers before what it sends, so that whoever hears it
 * (a test included) knows they run.
 *
 * <p>Over 400 lines because the phases are one state machine: one behavior per phase, each reading
 * the few fields the others set (the session, the hooks), is easier to follow in one file than
 * spread over several that would share that state.
 */
public final class JobActor {
  public sealed interface Command {}

  public record Kill(String reason, int killDelay) implements Command {}

  public record Signal(int signal) implements Command {}

  /** SuspendJob from the server: freeze (true) or thaw (false) the job here. */
  public record Suspend(boolean suspend) implements Command {}

  public enum Ack implements Command {
    STARTED,
    OBIT
  }

  /** A sister's answer to JOIN_JOB. */
  public record Joined(JoinJobReply reply) implements Command {}

  /** A sister's answer to KILL_JOB: nothing of the job is left there. */
  public record SisterReport(SisterDone done) implements Command {}

  /** What the job's processes on a sister use now, for the job-wide limits. */
  public record SisterUsed(SisterUsage usage) implements Command {}

  /** The job's processes on all its nodes together went over a job-wide limit. */
  private record OverLimit(UsageLimits.Over over, Sample used) implements Command {}

  /**
   * A request on the job's task-manager socket; {@code done} gives its bytes back to the socket's
   * budget once the task manager no longer holds it.
   */
  record TmCall(long connection, TmRequest request, Runnable done) implements Command {}

  /** A task-manager connection has closed. */
  record TmClosed(long connection) implements Command {}

  /** TASK_STARTED, TASK_OUTPUT or TASK_OBIT from a node of the job, this one included. */
  public record FromTaskHost(MomInbound message) implements Command {}

  private record TasksEnded(ResourcesUsed usage) implements Command {}

  /** The site's prologues or epilogues have run. */
  private record HooksDone(HookActor.Result result) implements Command {}

  private record Exited() implements Command {}

  /** The user of an interactive job's terminal went away (its connection ended), and why. */
  private record HungUp(String reason) implements Command {}

  /**
   * The owner's qsub -I attached at the terminal port with a permit for {@code user}; the answer is
   * the session's terminal or why not.
   */
  public record Attach(
      String user, TerminalAttach attach, Screen screen, CompletableFuture<Attachment> reply)
      implements Command {}

  /** The job's timers; the hooks that start one name it. */
  enum Timer implements Command {
    RESEND,
    WALLTIME,
    ESCALATE,
    JOIN_TIMEOUT,
    DONE_TIMEOUT,
    TASKS_TIMEOUT,
    ATTACH_TIMEOUT
  }

  /**
   * How long an interactive job waits for its qsub once it is ready: qsub asks every second, so
   * only a qsub that is gone (or a server that stays away) misses it.
   */
  static final Duration ATTACH_TIMEOUT = Duration.ofMinutes(2);

  private final ActorContext<Command> context;
  private final TimerScheduler<Command> timers;
  private final JobServices services;
  private final MomConfig config;
  private final Launcher launcher;
  private final JobRecords records;
  private final ActorRef<MomActor.Command> mom;
  private final Clock clock;
  private final RunJob run;
  private final Job job;
  private final SistersHook sisters;

  /**
   * The job's processes here: the sessions whose processes may use the task manager (the script's
   * and local tasks'), and what the job-wide limits poll.
   */
  private final JobProcesses processes = new JobProcesses();

  private final Suspender suspender;

  /** Where the job is in its lifecycle (docs/mom-job-states.md). */
  private final PhaseWalk<MomJobPhase> phases;

  private final JobTeardown teardown;
  private final JobNotices notices;

  private final CgroupHook cgroup;
  private final LaunchHook launch;
  private final LimitsHook limits;
  private final WalltimeHook walltime;
  private final TasksHook tasks;
  private final TerminalHook terminal;
  private final SiteScriptHook siteScripts;
  private final OutputHook output;

  /**
   * The hooks the lifecycle calls at its named points, in the order they prepare the job; they add
   * to its obit in the opposite order.
   */
  private final List<JobHook> hooks;

  /** The script's session, once it started (or was found again); null before. */
  private JobProcess process;

  private final JobReports reports;
  private final KillHook kills;
  private boolean sessionReused;

  /** For the log line the benchmarks read: when the script ended. */
  private long scriptEndedNanos;

  private JobActor(
      ActorContext<Command> context,
      TimerScheduler<Command> timers,
      JobServices services,
      RunJob run) {
    this.context = context;
    // Behaviors built with Behaviors.receive would otherwise log under Pekko's internal names.
    context.setLoggerName(JobActor.class);
    this.timers = timers;
    this.services = services;
    this.config = services.config();
    this.launcher = services.launcher();
    this.records = services.records();
    this.mom = services.mom();
    this.clock = services.clock();
    this.run = run;
    this.job = run.getJob();
    this.phases = new PhaseWalk<>(MomJobPhase.TABLE, job.getId(), context.getLog());
    this.teardown = new JobTeardown(services, job.getId(), context.getLog());
    this.notices = new JobNotices(job.getId(), launcher, records, context.getLog());
    this.sisters =
        new SistersHook(
            run,
            config.name(),
            (node, message) -> mom.tell(new MomActor.ToPeer(node, message)),
            timers,
            config.resend(),
            this::tellUser,
            context.getLog());
    this.reports =
        new JobReports(
            job.getId(), config.name(), records, launcher, mom, teardown, context.getLog());
    this.suspender =
        new Suspender(
            job.getId(),
            config.name(),
            services.isolation(),
            this::signalAll,
            records,
            reports::report,
            clock,
            context.getLog());
    this.kills =
        new KillHook(job.getId(), launcher, suspender, timers, Timer.ESCALATE, context.getLog());
    this.terminal = new TerminalHook(job, config.name());
    this.tasks = new TasksHook(job, context, services, processes);
    this.cgroup =
        new CgroupHook(job, config, services.isolation(), teardown, processes, this::tellUser);
    this.launch =
        new LaunchHook(run, config, records, cgroup::procs, tasks.socket(), context.getLog());
    this.output = new OutputHook(job.getId(), config, launch, context.getLog());
    this.limits =
        new LimitsHook(job, context, processes, config.heartbeat(), cgroup, OverLimit::new);
    this.walltime = new WalltimeHook(job, timers, Timer.WALLTIME, suspender, clock);
    this.siteScripts = new SiteScriptHook(job, context, services, launch, HooksDone::new);
    this.hooks = List.of(cgroup, limits, new GpuHook(job, config), launch, walltime, tasks);
  }

  /** A new job: prepare, start, report. */
  public static Behavior<Command> start(JobServices services, RunJob run) {
    return create(services, run, JobActor::prepare);
  }

  /** A job found in the node-local records after a mom restart. */
  public static Behavior<Command> recover(JobServices services, JobRecords.Record record) {
    return create(services, record.run(), a -> a.resume(record));
  }

  private static Behavior<Command> create(
      JobServices services, RunJob run, Function<JobActor, Behavior<Command>> first) {
    return Behaviors.withTimers(
        timers -> Behaviors.setup(ctx -> first.apply(new JobActor(ctx, timers, services, run))));
  }

  /**
   * The job's record, the node's health at job start, its account here, then every hook's
   * preparation in order (cgroup, GPUs, launch); anything refused ends the job unstarted.
   */
  private Behavior<Command> prepare() {
    phases.enter(MomJobPhase.PREPARING);
    try {
      reports.create(run);
      Optional<String> unwell = new JobHealth(config, mom).atStart();
      if (unwell.isPresent()) {
        return notStarted(unwell.get(), ExitStatus.EXEC_FAILED.code(), true);
      }
      NodeJob nodeJob = NodeJob.prepare(job, config, services.users());
      for (JobHook hook : hooks) {
        hook.prestart(nodeJob);
      }
    } catch (NodeJob.RefusedException | JobLaunch.LaunchException | IOException e) {
      return cannotStart(e.getMessage());
    }
    return sisters.none() ? prologues() : joining();
  }

  /**
   * JOIN_JOB to every sister until all have joined ({@link SistersHook}); the script starts only
   * then. A sister that asks to be tried again has the job queued again.
   */
  private Behavior<Command> joining() {
    phases.enter(MomJobPhase.JOINING);
    sisters.join();
    return sisters
        .joining(
            Behaviors.receive(Command.class),
            this::prologues,
            (why, retry) ->
                retry ? notStarted(why, ExitStatus.EXEC_FAILED.code(), true) : cannotStart(why))
        .onMessage(Kill.class, k -> notStarted("killed before it started: " + k.reason()))
        .onMessage(Suspend.class, s -> notRunning())
        .onAnyMessage(m -> Behaviors.same())
        .build();
  }

  /**
   * The site's prologues before the script ({@link SiteScriptHook}); a qdel meanwhile ends the job
   * once they are done.
   */
  private Behavior<Command> prologues() {
    phases.enter(MomJobPhase.PROLOGUE);
    if (!siteScripts.prologues()) {
      return startScript();
    }
    String[] deleted = {null};
    return Behaviors.receive(Command.class)
        .onMessage(
            HooksDone.class,
            d -> {
              if (deleted[0] != null) {
                return notStarted("killed before it started: " + deleted[0]);
              }
              SiteScriptHook.Failure failed = siteScripts.prologuesDone(d.result());
              if (failed == null) {
                return startScript();
              }
              return epiloguesThen(
                  JobObitReport.newBuilder().setExitStatus(failed.exitStatus()),
                  () -> notStarted(failed.reason(), failed.exitStatus(), failed.requeue()));
            })
        .onMessage(
            Kill.class,
            k -> {
              deleted[0] = k.reason();
              return Behaviors.same();
            })
        .onMessage(Suspend.class, s -> notRunning())
        .onAnyMessage(m -> Behaviors.same())
        .build();
  }

  /**
   * The task manager opens (its socket must answer as soon as the script runs), then the starter
   * launches the script, whose session is recorded before anything else.
   */
  private Behavior<Command> startScript() {
    phases.enter(MomJobPhase.STARTING);
    if (terminal.awaitsSession()) {
      return awaitingSession();
    }
    try {
      openTasks();
      process = launcher.start(launch.spec());
      processes.sessions().add(process.pid());
      reports.session(process);
    } catch (IOException e) {
      return cannotStart(e.getMessage());
    }
    long joinSentNanos = sisters.joinSentNanos();
    if (joinSentNanos > 0) {
      context
          .getLog()
          .info(
              "job {} started as session {}, {} ms after JOIN_JOB",
              job.getId(),
              process.pid(),
              String.format("%.1f", (System.nanoTime() - joinSentNanos) / 1e6));
    } else {
      context.getLog().info("job {} started as session {}", job.getId(), process.pid());
    }
    return running();
  }

  /**
   * An interactive job is ready but for its shell, which starts on a terminal when the owner's qsub
   * attaches. The server hears of the start now: only then does it give qsub its permit.
   */
  private Behavior<Command> awaitingSession() {
    phases.enter(MomJobPhase.AWAITING_SESSION);
    timers.startTimerWithFixedDelay(Timer.RESEND, config.resend());
    timers.startSingleTimer(Timer.ATTACH_TIMEOUT, ATTACH_TIMEOUT);
    reports.started(0, clock::millis);
    return Behaviors.receive(Command.class)
        .onMessage(Attach.class, this::attach)
        .onMessageEquals(
            Ack.STARTED,
            () -> {
              reports.startAcked();
              return Behaviors.same();
            })
        .onMessageEquals(
            Timer.RESEND,
            () -> {
              reports.resendStarted();
              return Behaviors.same();
            })
        .onMessageEquals(
            Timer.ATTACH_TIMEOUT,
            () ->
                endUnattached(
                    "its qsub -I did not connect to "
                        + config.name()
                        + " within "
                        + ATTACH_TIMEOUT.toSeconds()
                        + " s"))
        .onMessage(Kill.class, k -> endUnattached("killed before its session began: " + k.reason()))
        .onMessage(Suspend.class, s -> notRunning())
        .onAnyMessage(m -> Behaviors.same())
        .build();
  }

  /** An interactive job that never had its session: the epilogues, then a failed start. */
  private Behavior<Command> endUnattached(String reason) {
    timers.cancelAll();
    return epiloguesThen(
        JobObitReport.newBuilder().setExitStatus(ExitStatus.EXEC_FAILED.code()),
        () -> notStarted(reason));
  }

  /** The owner's qsub is here: the shell starts on a new terminal, and qsub gets that terminal. */
  private Behavior<Command> attach(Attach a) {
    if (!terminal.owner(a)) {
      return Behaviors.same();
    }
    try {
      launch.startOn(terminal.open(a, launch.spec()));
    } catch (IOException e) {
      return cannotStart("cannot open a terminal: " + e.getMessage());
    }
    timers.cancel(Timer.ATTACH_TIMEOUT);
    Behavior<Command> next = startScript();
    ActorRef<Command> self = context.getSelf();
    terminal.started(
        a, process, () -> self.tell(new HungUp("its qsub -I went away (the terminal hung up)")));
    return next;
  }

  /** The job cannot start: a failed start (Torque's JOB_EXEC_FAIL1) that says where and why. */
  private Behavior<Command> cannotStart(String reason) {
    return notStarted("could not start on " + config.name() + ": " + reason);
  }

  private Behavior<Command> notStarted(String reason) {
    return notStarted(reason, ExitStatus.EXEC_FAILED.code(), false);
  }

  /**
   * The job ends before its script has run. What it has here goes, every sister lets it go (each
   * confirms that nothing of it is left there), and only then does the obit tell the server, which
   * frees the job's CPUs on all its nodes: exit status -1 and the reason, for qstat's comment and
   * tracejob. The obit is recorded and resent until acknowledged, like any other. With {@code
   * requeue} the server queues the job again instead; an aborted job's output (what its prologues
   * wrote) is delivered, a requeued one's dropped.
   */
  private Behavior<Command> notStarted(String reason, int exitStatus, boolean requeue) {
    phases.enter(MomJobPhase.NOT_STARTED);
    timers.cancelAll();
    config.metrics().startFailed();
    context.getLog().warn("job {} did not start: {}", job.getId(), reason);
    kills.notStarted(reason);
    tasks.close(); // its socket was opened for a script that did not start
    JobObitReport.Builder obit =
        JobObitReport.newBuilder()
            .setNode(config.name())
            .setJobId(job.getId())
            .setEndTime(clock.millis() / 1000)
            .setExitStatus(exitStatus)
            .setReason(reason)
            .setRequeue(requeue);
    if (exitStatus == ExitStatus.PROLOGUE_ABORTED.code()) {
      obit.setOutputNote(
          output.deliver()); // the prologue's words to the user, Torque's "see stderr"
    }
    teardown.end();
    output.drop(); // made for a script that did not run
    return sisters.none() ? ended(obit.build()) : collecting(obit, o -> ended(o.build()));
  }

  /**
   * After a mom restart: a job with its obit recorded reports it again; otherwise its account and
   * every hook's part are found again (a job whose owner has gone runs on without them), and its
   * session is watched again, or ends as any other if it ended meanwhile.
   */
  private Behavior<Command> resume(JobRecords.Record record) {
    phases.enter(MomJobPhase.RECOVERING);
    if (record.obit().isPresent()) {
      return ended(record.obit().get());
    }
    suspender.restore(record.suspension());
    try {
      NodeJob nodeJob = NodeJob.existing(job, config, services.users());
      for (JobHook hook : hooks) {
        hook.recover(nodeJob);
      }
    } catch (NodeJob.RefusedException e) {
      launch.lost(e.getMessage());
    }
    Optional<JobProcess> alive = record.process().flatMap(p -> launcher.reattach(p[0], p[1], p[2]));
    if (alive.isPresent()) {
      process = alive.get();
      processes.sessions().add(process.pid());
      openTasks();
      context.getLog().info("job {} found running again as session {}", job.getId(), process.pid());
      if (job.hasInteractive()) {
        // its terminal was the mom's and went with it: no one can type there or read it again
        context.getSelf().tell(new HungUp("its mom restarted, and its terminal went with the mom"));
      }
      return running();
    }
    if (record.process().isEmpty()) {
      return cannotStart("its mom restarted while preparing it");
    }
    long[] p = record.process().get();
    process = new JobProcess(p[0], p[1], p[2], CompletableFuture.completedFuture(null));
    // The starter is gone. If its pid now belongs to another process, that process's session is
    // not this job's: leave it alone.
    sessionReused = ProcessHandle.of(p[0]).isPresent();
    openTasks(); // ends tasks an earlier mom process left
    return endTasks();
  }

  private void openTasks() {
    tasks.open(launch.nodeJob(), launch.spec(), cgroup.procs(), terminal.userScreenOutlet());
  }

  private Behavior<Command> running() {
    phases.enter(MomJobPhase.RUNNING);
    // A non-null value: Pekko's dead-letter logging fails on a null one if this actor has stopped.
    context.pipeToSelf(
        process.exited().thenApply(v -> Boolean.TRUE), (ok, failure) -> new Exited());
    for (JobHook hook : hooks) {
      hook.poststart(process);
    }
    timers.startTimerWithFixedDelay(Timer.RESEND, config.resend());
    reports.started(process.pid(), process::launchedMillis);
    return tasks
        .heard(Behaviors.receive(Command.class))
        .onMessage(OverLimit.class, this::overLimit)
        .onMessage(
            SisterUsed.class,
            u -> {
              limits.sisterUsed(u.usage());
              return Behaviors.same();
            })
        .onMessageEquals(
            Ack.STARTED,
            () -> {
              reports.startAcked();
              return Behaviors.same();
            })
        .onMessageEquals(
            Timer.RESEND,
            () -> {
              reports.resendStarted();
              tasks.resend();
              return Behaviors.same();
            })
        .onMessageEquals(Timer.WALLTIME, this::overWalltime)
        .onMessage(Suspend.class, this::suspend)
        .onMessage(
            Kill.class,
            k -> {
              sisters.kill(k.reason());
              return kill(k.reason(), k.killDelay());
            })
        .onMessageEquals(
            Timer.ESCALATE,
            () -> {
              kills.escalate(process);
              return Behaviors.same();
            })
        .onMessage(
            Signal.class,
            s -> {
              kills.signal(process, s.signal());
              return Behaviors.same();
            })
        .onMessage(Exited.class, e -> endTasks())
        .onMessage(
            Attach.class,
            a -> {
              terminal.refuseAgain(a);
              return Behaviors.same();
            })
        .onMessage(HungUp.class, h -> hangUp(h.reason()))
        .onAnyMessage(m -> Behaviors.same())
        .build();
  }

  /**
   * The job's terminal is gone (its user went away, or the mom that held it restarted): its
   * processes are hung up, as a login's, and the job ends, as Torque ends an interactive job whose
   * qsub is gone.
   */
  private Behavior<Command> hangUp(String reason) {
    if (terminal.hangUp(kills.killing())) {
      signalAll(Signals.parse("HUP"));
    }
    return kill(reason, run.getKillDelay());
  }

  /** SuspendJob. A job that is being killed is not frozen again. */
  private Behavior<Command> suspend(Suspend s) {
    if (kills.killing()) {
      return notRunning();
    }
    suspender.order(s.suspend(), walltime::suspensionChanged);
    return Behaviors.same();
  }

  private Behavior<Command> notRunning() {
    suspender.answerNotRunning();
    return Behaviors.same();
  }

  /**
   * A signal for every process of the job here that signals reach: the script's session and the
   * tasks on this node.
   */
  private void signalAll(int signal) {
    if (process != null) {
      launcher.signalJob(process.pid(), signal);
    }
    tasks.signal(signal);
  }

  private Behavior<Command> overWalltime() {
    String message = walltime.passed();
    tellUser("=>> PBS: " + message);
    return kill(message, run.getKillDelay());
  }

  /** As Torque's mom: the job's stderr says which limit, and the job is killed as by qdel. */
  private Behavior<Command> overLimit(OverLimit o) {
    String message = limits.passed(o.over(), o.used(), kills.killing());
    if (message == null) {
      return Behaviors.same();
    }
    tellUser("=>> PBS: " + message);
    return kill(message, run.getKillDelay());
  }

  private Behavior<Command> kill(String reason, int killDelay) {
    kills.kill(process, reason, killDelay);
    return Behaviors.same();
  }

  /** The script has ended: no more task requests, and every task here is ended before the obit. */
  private Behavior<Command> endTasks() {
    phases.enter(MomJobPhase.ENDING_TASKS);
    scriptEndedNanos = System.nanoTime();
    timers.cancelAll();
    for (JobHook hook : hooks) {
      hook.exited();
    }
    if (suspender.suspended()) {
      suspender.thawToEnd(); // the script ended while its tasks were stopped (no freezer here)
    }
    timers.startSingleTimer(Timer.TASKS_TIMEOUT, TaskHost.END_TIMEOUT.plusSeconds(5));
    if (!tasks.endAll(
        context.messageAdapter(TaskHost.Ended.class, e -> new TasksEnded(e.usage())))) {
      return finish(); // which cancels the timer
    }
    return tasks
        .heard(Behaviors.receive(Command.class))
        .onMessage(
            TasksEnded.class,
            t -> {
              tasks.ended(t.usage());
              return finish();
            })
        .onMessageEquals(Timer.TASKS_TIMEOUT, this::finish)
        .onMessage(
            Kill.class,
            k -> {
              sisters.kill(k.reason());
              return Behaviors.same();
            })
        .onMessage(Suspend.class, s -> notRunning())
        .onAnyMessage(m -> Behaviors.same())
        .build();
  }

  /**
   * The starter has exited: its status read, what is left of its session killed, and the obit made:
   * how the script ended, then what each hook adds (the tasks', GPUs' and cgroup's figures, the
   * limit passed), in the reverse of their order.
   */
  private Behavior<Command> finish() {
    phases.enter(MomJobPhase.FINISHING);
    timers.cancelAll();
    if (process != null && !sessionReused && !cgroup.holdsTheJob()) {
      // whatever the script left behind; in a cgroup, stopping the cgroup ends it all
      launcher.signalJob(process.pid(), Signals.SIGKILL);
    }
    long end = clock.millis();
    long start = process == null ? end : process.launchedMillis();
    JobObitReport.Builder obit =
        new ScriptEnd(
                config.name(),
                job.getId(),
                end,
                records.status(job.getId()),
                suspender.state().ranMillis(start, end),
                kills.reason(),
                walltime.exceeded(),
                limits.over(),
                terminal.hungUp())
            .obit();
    terminal.ended(obit.getExitStatus());
    for (int i = hooks.size() - 1; i >= 0; i--) {
      hooks.get(i).finish(obit); // the cgroup's last: stopping it ends whatever is left in it
    }
    if (sisters.none()) {
      return epilogues(obit); // then ended(), which removes the cgroup once the obit is on its way
    }
    cgroup.remove(); // the obit waits for the sisters: nothing is gained by waiting here
    return collecting(obit, this::epilogues);
  }

  /**
   * Once nothing of the job runs on any node: the site's epilogues, whose output joins the job's,
   * then the output is delivered and the obit sent.
   */
  private Behavior<Command> epilogues(JobObitReport.Builder obit) {
    return epiloguesThen(obit, () -> delivered(obit));
  }

  /**
   * The site's epilogues for the job as {@code obit} tells its end, then {@code then}. They also
   * follow a prologue that failed, as in Torque, so that they can undo what it began.
   */
  private Behavior<Command> epiloguesThen(
      JobObitReport.Builder obit, Supplier<Behavior<Command>> then) {
    phases.enter(MomJobPhase.EPILOGUE);
    if (!siteScripts.epilogues(obit, process == null ? 0 : process.pid())) {
      return then.get();
    }
    return tasks
        .heard(Behaviors.receive(Command.class))
        .onMessage(HooksDone.class, d -> then.get())
        .onMessage(Suspend.class, s -> notRunning())
        .onAnyMessage(m -> Behaviors.same())
        .build();
  }

  /** The job's TMPDIR goes, its output is delivered, and the obit is on its way. */
  private Behavior<Command> delivered(JobObitReport.Builder obit) {
    phases.enter(MomJobPhase.DELIVERING);
    teardown.releaseAccount();
    obit.setOutputNote(output.deliver());
    return ended(obit.build());
  }

  /**
   * KILL_JOB to every sister until each says nothing of the job is left there ({@link
   * SistersHook}); their usage joins the obit, and a sister silent past the timeout is named in its
   * reason.
   */
  private Behavior<Command> collecting(
      JobObitReport.Builder obit, Function<JobObitReport.Builder, Behavior<Command>> then) {
    phases.enter(MomJobPhase.COLLECTING);
    String why = kills.killing() ? kills.reason() : "the job ended";
    sisters.collect(why);
    return sisters
        .collecting(tasks.heard(Behaviors.receive(Command.class)), why, obit, then)
        .onMessage(Suspend.class, s -> notRunning())
        .onAnyMessage(m -> Behaviors.same())
        .build();
  }

  /** The obit is recorded, then sent until the server acknowledges it. */
  private Behavior<Command> ended(JobObitReport obit) {
    phases.enter(MomJobPhase.ENDED);
    timers.cancelAll();
    new JobHealth(config, mom).atEnd();
    tasks.closeOutput();
    if (scriptEndedNanos > 0) {
      context
          .getLog()
          .info(
              "job {} ended with exit status {}, torn down on every node in {} ms",
              job.getId(),
              obit.getExitStatus(),
              String.format("%.1f", (System.nanoTime() - scriptEndedNanos) / 1e6));
    } else {
      context.getLog().info("job {} ended with exit status {}", job.getId(), obit.getExitStatus());
    }
    timers.startTimerWithFixedDelay(Timer.RESEND, config.resend());
    reports.ended(obit);
    cgroup.remove();
    return Behaviors.receive(Command.class)
        .onMessageEquals(
            Timer.RESEND,
            () -> {
              reports.resendObit();
              return Behaviors.same();
            })
        .onMessageEquals(
            Ack.OBIT,
            () -> {
              reports.obitAcked();
              phases.enter(MomJobPhase.GONE);
              return Behaviors.stopped();
            })
        .onMessage(Suspend.class, s -> notRunning())
        .onAnyMessage(m -> Behaviors.same())
        .build();
  }

  /** Tells the job's owner {@code line}: on its terminal, else in its stderr file. */
  private void tellUser(String line) {
    notices.tell(line, launch.spec(), terminal.screen());
  }
}
