package dev.berth.mom;

import dev.berth.core.Durations;
import dev.berth.core.ExitStatus;
import dev.berth.core.Signals;
import dev.berth.mom.job.HookPlan;
import dev.berth.mom.job.MomJobPhase;
import dev.berth.mom.job.PhaseWalk;
import dev.berth.mom.job.ScriptEnd;
import dev.berth.mom.job.UsageLimits;
import dev.berth.mom.job.UsageSums;
import dev.berth.mom.os.JobProcess;
import dev.berth.mom.os.Launcher;
import dev.berth.mom.os.ProcessUsage;
import dev.berth.mom.os.ProcessUsage.Sample;
import dev.berth.mom.os.Pty;
import dev.berth.mom.os.StartSpec;
import dev.berth.mom.os.cgroup.JobCgroup;
import dev.berth.mom.output.OutputFiles;
import dev.berth.mom.output.OutputSpool;
import dev.berth.mom.output.StageOut;
import dev.berth.mom.store.JobRecords;
import dev.berth.mom.terminal.Attachment;
import dev.berth.mom.terminal.Screen;
import dev.berth.proto.Job;
import dev.berth.proto.JobObitReport;
import dev.berth.proto.JobStartedReport;
import dev.berth.proto.JoinJobReply;
import dev.berth.proto.MomInbound;
import dev.berth.proto.ResourcesUsed;
import dev.berth.proto.RunJob;
import dev.berth.proto.ServerInbound;
import dev.berth.proto.SisterDone;
import dev.berth.proto.SisterUsage;
import dev.berth.proto.TerminalAttach;
import dev.berth.proto.TmRequest;
import dev.berth.proto.WindowSize;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.BehaviorBuilder;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * One job on its mother superior: started (or found again after a mom restart), watched until its
 * starter exits, suspended and resumed as the server says (its walltime stands still meanwhile),
 * killed on qdel or when it passes its walltime, and reported: the start and the obit are sent
 * again and again until the server acknowledges them. Each behavior is a phase of {@link
 * MomJobPhase}'s table (docs/mom-job-states.md), which the actor checks every step against.
 */
final class JobActor {
  sealed interface Command {}

  record Kill(String reason, int killDelay) implements Command {}

  record Signal(int signal) implements Command {}

  /** SuspendJob from the server: freeze (true) or thaw (false) the job here. */
  record Suspend(boolean suspend) implements Command {}

  enum Ack implements Command {
    STARTED,
    OBIT
  }

  /** A sister's answer to JOIN_JOB. */
  record Joined(JoinJobReply reply) implements Command {}

  /** A sister's answer to KILL_JOB: nothing of the job is left there. */
  record SisterReport(SisterDone done) implements Command {}

  /** What the job's processes on a sister use now, for the job-wide limits. */
  record SisterUsed(SisterUsage usage) implements Command {}

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
  record FromTaskHost(MomInbound message) implements Command {}

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
  record Attach(
      String user, TerminalAttach attach, Screen screen, CompletableFuture<Attachment> reply)
      implements Command {}

  private enum Timer implements Command {
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

  /** How long sisters have to join the job. */
  static final Duration SISTER_TIMEOUT = Duration.ofSeconds(60);

  /**
   * How long sisters have to confirm the job is gone from them; kept short, because until then this
   * node cannot take the job again if it is requeued.
   */
  static final Duration DONE_TIMEOUT = Duration.ofSeconds(15);

  private final ActorContext<Command> context;
  private final TimerScheduler<Command> timers;
  private final MomConfig config;
  private final Launcher launcher;
  private final JobRecords records;
  private final Isolation isolation;
  private final ActorRef<MomActor.Command> mom;
  private final Clock clock;
  private final RunJob run;
  private final Job job;
  private final Sisters sisters;
  private final dev.berth.mom.os.Users users;

  /** The node's task-manager socket, or null when this mom cannot serve one. */
  private final TmSocket tm;

  /**
   * The job's processes here: the sessions whose processes may use the task manager (the script's
   * and local tasks'), and what the job-wide limits poll.
   */
  private final JobProcesses processes = new JobProcesses();

  private final Suspender suspender;

  private NodeJob nodeJob;
  private List<Path> cgroupProcs = List.of();
  private TaskManager taskManager;
  private ActorRef<TaskHost.Command> localTasks;
  private ResourcesUsed taskUsage = ResourcesUsed.getDefaultInstance();
  private JobProcess process;
  private StartSpec spec;

  /** An interactive job's terminal, once its qsub attached; null before and for batch jobs. */
  private Pty pty;

  /** The user's side of that terminal, for notices and task output, written off the actor. */
  private Outlet screen;

  private Screen userScreen;

  /** Completed with the job's exit status when its session's shell has ended. */
  private final CompletableFuture<Integer> sessionEnd = new CompletableFuture<>();

  /** The streams the script writes to the job's spool, for delivery after it. */
  private List<OutputFiles.Spooled> spooled = List.of();

  /** Where the job is in its lifecycle (docs/mom-job-states.md). */
  private final PhaseWalk<MomJobPhase> phases;

  private final JobTeardown teardown;

  private final JobNotices notices;

  private boolean startAcked;
  private String killReason;
  private boolean walltimeExceeded;

  /** Polls the job-wide limits (cput, mem, vmem) while the script runs; null without them. */
  private ActorRef<LimitWatch.Command> limitWatch;

  /** The job-wide limit the job went over, and what it used then; null while it has not. */
  private OverLimit overLimit;

  private boolean hungUp;
  private boolean sessionReused;

  /** For the log lines the benchmarks read: when JOIN_JOB went out, when the script ended. */
  private long joinSentNanos;

  private long scriptEndedNanos;

  private JobActor(
      ActorContext<Command> context,
      TimerScheduler<Command> timers,
      JobServices services,
      RunJob run) {
    this.context = context;
    this.tm = services.tm();
    this.users = services.users();
    // Behaviors built with Behaviors.receive would otherwise log under Pekko's internal names.
    context.setLoggerName(JobActor.class);
    this.timers = timers;
    this.config = services.config();
    this.launcher = services.launcher();
    this.records = services.records();
    this.isolation = services.isolation();
    this.mom = services.mom();
    this.clock = services.clock();
    this.run = run;
    this.job = run.getJob();
    this.phases = new PhaseWalk<>(MomJobPhase.TABLE, job.getId(), context.getLog());
    this.teardown = new JobTeardown(services, job.getId(), context.getLog());
    this.notices = new JobNotices(job.getId(), launcher, records, context.getLog());
    this.sisters =
        new Sisters(
            job,
            config.name(),
            run.getKillDelay(),
            run.getGrant(),
            (node, message) -> mom.tell(new MomActor.ToPeer(node, message)));
    this.suspender =
        new Suspender(
            job.getId(),
            config.name(),
            isolation,
            this::signalAll,
            records,
            this::report,
            clock,
            context.getLog());
  }

  /** A new job: prepare, start, report. */
  static Behavior<Command> start(JobServices services, RunJob run) {
    return create(services, run, JobActor::launch);
  }

  /** A job found in the node-local records after a mom restart. */
  static Behavior<Command> recover(JobServices services, JobRecords.Record record) {
    return create(services, record.run(), a -> a.resume(record));
  }

  private static Behavior<Command> create(
      JobServices services,
      RunJob run,
      java.util.function.Function<JobActor, Behavior<Command>> first) {
    return Behaviors.withTimers(
        timers -> Behaviors.setup(ctx -> first.apply(new JobActor(ctx, timers, services, run))));
  }

  private Behavior<Command> launch() {
    phases.enter(MomJobPhase.PREPARING);
    try {
      records.create(run);
      Optional<String> unwell = MomActor.unwellForJob(config, mom);
      if (unwell.isPresent()) {
        return notStarted(unwell.get(), ExitStatus.EXEC_FAILED, true);
      }
      nodeJob = NodeJob.prepare(job, config, users);
      cgroupProcs =
          isolation
              .create(job, config.name(), config.gpus())
              .map(JobCgroup::procsFiles)
              .orElse(List.of());
      processes.cgroups(cgroupProcs);
      config.gpuMonitor().watch(job, config.name(), config.gpus());
      JobLaunch.writeNodeFiles(nodeJob);
      JobLaunch.Prepared prepared =
          JobLaunch.prepare(nodeJob, run.getScript(), cgroupProcs, config, records, tmPath());
      JobLaunch.makeSpool(nodeJob, config, prepared);
      spec = prepared.spec();
      spooled = prepared.spooled();
    } catch (NodeJob.RefusedException | JobLaunch.LaunchException | IOException e) {
      return cannotStart(e.getMessage());
    }
    return sisters.none() ? prologues() : joining();
  }

  /** JOIN_JOB to every sister until all have joined; the script starts only then. */
  private Behavior<Command> joining() {
    phases.enter(MomJobPhase.JOINING);
    joinSentNanos = System.nanoTime();
    sisters.askToJoin();
    timers.startTimerWithFixedDelay(Timer.RESEND, config.resend());
    timers.startSingleTimer(Timer.JOIN_TIMEOUT, SISTER_TIMEOUT);
    return Behaviors.receive(Command.class)
        .onMessage(
            Joined.class,
            j -> {
              Optional<String> refused = sisters.joined(j.reply());
              if (refused.isPresent()) {
                return j.reply().getRetry()
                    ? notStarted(refused.get(), ExitStatus.EXEC_FAILED, true)
                    : cannotStart(refused.get());
              }
              if (!sisters.allJoined()) {
                return Behaviors.same();
              }
              timers.cancelAll();
              return prologues();
            })
        .onMessageEquals(
            Timer.RESEND,
            () -> {
              sisters.askToJoin();
              return Behaviors.same();
            })
        .onMessageEquals(
            Timer.JOIN_TIMEOUT,
            () ->
                cannotStart(
                    "sisters "
                        + sisters.waitingToJoin()
                        + " did not answer JOIN_JOB within "
                        + SISTER_TIMEOUT.toSeconds()
                        + " s"))
        .onMessage(Kill.class, k -> notStarted("killed before it started: " + k.reason()))
        .onMessage(Suspend.class, s -> notRunning())
        .onAnyMessage(m -> Behaviors.same())
        .build();
  }

  /**
   * The site's prologues, as root and as the owner, before the script: exit 1 ends the job, any
   * other failure (a timeout, a script that may not run) queues it again, as Torque does. A qdel
   * meanwhile ends the job once they are done.
   */
  private Behavior<Command> prologues() {
    phases.enter(MomJobPhase.PROLOGUE);
    if (config.site().directory() == null) {
      return startScript();
    }
    List<HookPlan.Call> calls =
        HookPlan.prologues(job, config.name(), nodeJob.tmpdir(), JobLaunch.nodefile(nodeJob));
    runHooks(calls, true, true);
    String[] deleted = {null};
    return Behaviors.receive(Command.class)
        .onMessage(
            HooksDone.class,
            d -> {
              HookActor.Result r = d.result();
              if (deleted[0] != null) {
                return notStarted("killed before it started: " + deleted[0]);
              }
              if (r.ok()) {
                if (r.wroteOutput()) {
                  spec = spec.appending();
                }
                return startScript();
              }
              String reason = r.reason(config.name());
              int status = r.aborts() ? ExitStatus.PROLOGUE_ABORTED : ExitStatus.EXEC_FAILED;
              return epiloguesThen(
                  JobObitReport.newBuilder().setExitStatus(status),
                  () -> notStarted(reason, status, !r.aborts()));
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

  /** Runs the site's scripts {@code calls} on a child actor, which answers with HooksDone. */
  private void runHooks(List<HookPlan.Call> calls, boolean stopAtFailure, boolean startsOutput) {
    boolean files = !job.hasInteractive(); // an interactive job has no output files
    HookActor.spawn(
        context,
        config,
        nodeJob,
        files ? spec : null,
        startsOutput && files,
        launcher,
        records,
        calls,
        stopAtFailure,
        HooksDone::new);
  }

  private Behavior<Command> startScript() {
    phases.enter(MomJobPhase.STARTING);
    if (job.hasInteractive() && pty == null) {
      return awaitingSession();
    }
    try {
      openTasks(); // before the script: its socket must answer as soon as the script runs
      process = launcher.start(spec);
      processes.sessions().add(process.pid());
      recordProcessOrKill();
    } catch (IOException e) {
      return cannotStart(e.getMessage());
    }
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
    sendStarted(0, clock.millis());
    timers.startTimerWithFixedDelay(Timer.RESEND, config.resend());
    timers.startSingleTimer(Timer.ATTACH_TIMEOUT, ATTACH_TIMEOUT);
    return Behaviors.receive(Command.class)
        .onMessage(Attach.class, this::attach)
        .onMessageEquals(
            Ack.STARTED,
            () -> {
              startAcked = true;
              return Behaviors.same();
            })
        .onMessageEquals(
            Timer.RESEND,
            () -> {
              if (!startAcked) {
                sendStarted(0, clock.millis());
              }
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
        JobObitReport.newBuilder().setExitStatus(ExitStatus.EXEC_FAILED), () -> notStarted(reason));
  }

  /** The owner's qsub is here: the shell starts on a new terminal, and qsub gets that terminal. */
  private Behavior<Command> attach(Attach a) {
    if (!a.user().equals(job.getEuser())) {
      a.reply()
          .complete(
              Attachment.refused(
                  "the permit is for user " + a.user() + "; job " + job.getId() + " is not"));
      return Behaviors.same();
    }
    try {
      pty = Pty.open();
      if (a.attach().hasWindow()) { // checked at the terminal port
        WindowSize window = a.attach().getWindow();
        pty.resize(window.getRows(), window.getColumns());
      }
      if (a.attach().getPassInput()) {
        pty.passInput();
      }
    } catch (IOException | RuntimeException e) {
      if (pty != null) {
        pty.close();
      }
      a.reply().complete(Attachment.refused("cannot open a terminal on " + config.name()));
      return cannotStart("cannot open a terminal: " + e.getMessage());
    }
    timers.cancel(Timer.ATTACH_TIMEOUT);
    spec = spec.onTerminal(pty.slave(), a.attach().getTerm());
    userScreen = a.screen();
    Behavior<Command> next = startScript();
    if (process == null) {
      a.reply().complete(Attachment.refused("the session could not start on " + config.name()));
      pty.close();
    } else {
      screen = new Outlet("terminal-" + job.getId(), terminal(userScreen), e -> {});
      ActorRef<Command> self = context.getSelf();
      a.reply()
          .complete(
              Attachment.of(
                  pty,
                  sessionEnd,
                  () -> self.tell(new HungUp("its qsub -I went away (the terminal hung up)"))));
    }
    return next;
  }

  /** The user's screen as an outlet's destination; closing the outlet leaves the session be. */
  private static Outlet.Destination terminal(Screen screen) {
    return new Outlet.Destination() {
      @Override
      public void write(byte[] data) throws IOException {
        screen.write(data);
      }

      @Override
      public void close() {}
    };
  }

  /** The job cannot start: a failed start (Torque's JOB_EXEC_FAIL1) that says where and why. */
  private Behavior<Command> cannotStart(String reason) {
    return notStarted("could not start on " + config.name() + ": " + reason);
  }

  private Behavior<Command> notStarted(String reason) {
    return notStarted(reason, ExitStatus.EXEC_FAILED, false);
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
    killReason = reason;
    if (taskManager != null) {
      taskManager.close(); // its socket was opened for a script that did not start
    }
    JobObitReport.Builder obit =
        JobObitReport.newBuilder()
            .setNode(config.name())
            .setJobId(job.getId())
            .setEndTime(clock.millis() / 1000)
            .setExitStatus(exitStatus)
            .setReason(reason)
            .setRequeue(requeue);
    if (exitStatus == ExitStatus.PROLOGUE_ABORTED) {
      obit.setOutputNote(stageOut()); // the prologue's words to the user, Torque's "see stderr"
    }
    teardown.end();
    try {
      OutputSpool.remove(config.tmpBase(), job.getId()); // made for a script that did not run
    } catch (IOException e) {
      context
          .getLog()
          .warn("job {}: cannot remove its output spool: {}", job.getId(), e.getMessage());
    }
    return sisters.none() ? ended(obit.build()) : collecting(obit, o -> ended(o.build()));
  }

  /** A job the mom could not record must not run unwatched: it is killed before reporting. */
  private void recordProcessOrKill() throws IOException {
    try {
      records.recordProcess(
          job.getId(), process.pid(), process.identity(), process.launchedMillis());
    } catch (IOException e) {
      launcher.signalJob(process.pid(), Signals.SIGKILL);
      throw new IOException(
          "cannot record the job's process (" + e.getMessage() + "); killed it", e);
    }
  }

  private Behavior<Command> resume(JobRecords.Record record) {
    phases.enter(MomJobPhase.RECOVERING);
    if (record.obit().isPresent()) {
      return ended(record.obit().get());
    }
    suspender.restore(record.suspension());
    restoreLaunch();
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
    {
      long[] p = record.process().get();
      process =
          new JobProcess(
              p[0], p[1], p[2], java.util.concurrent.CompletableFuture.completedFuture(null));
      // The starter is gone. If its pid now belongs to another process, that process's session
      // is not this job's: leave it alone.
      sessionReused = ProcessHandle.of(p[0]).isPresent();
    }
    openTasks(); // ends tasks an earlier mom process left
    return endTasks();
  }

  /**
   * After a mom restart: the job's account, cgroup and environment as they were made, for its tasks
   * and its stderr notices. A job whose owner has gone runs on without them.
   */
  private void restoreLaunch() {
    try {
      nodeJob = NodeJob.existing(job, config, users);
      cgroupProcs = isolation.find(job.getId()).map(JobCgroup::procsFiles).orElse(List.of());
      processes.cgroups(cgroupProcs);
      JobLaunch.Prepared prepared =
          JobLaunch.prepare(nodeJob, run.getScript(), cgroupProcs, config, records, tmPath());
      spec = prepared.spec();
      spooled = prepared.spooled();
    } catch (NodeJob.RefusedException | JobLaunch.LaunchException e) {
      context
          .getLog()
          .warn("job {}: cannot serve its tasks again: {}", job.getId(), e.getMessage());
      nodeJob = null;
    }
  }

  /**
   * The task host for this node and the task manager with its socket; without a socket (no JNI
   * library to check peers with) tasks cannot be asked for, and the script runs anyway.
   */
  private void openTasks() {
    if (nodeJob == null || localTasks != null) {
      return;
    }
    ActorRef<Command> self = context.getSelf();
    ActorRef<TaskHost.Command> host =
        context.spawn(
            TaskHost.create(
                JobTasks.context(nodeJob, config, true, cgroupProcs, processes),
                launcher,
                records,
                config.resend(),
                m -> self.tell(new FromTaskHost(m))),
            "tasks",
            DispatcherSelector.sameAsParent());
    localTasks = host;
    TmEndpoint endpoint =
        tm == null
            ? null
            : tm.serve(
                job.getId(),
                JobTasks.admit(nodeJob, processes.sessions(), cgroupProcs),
                new TmEndpoint.Handler() {
                  @Override
                  public void request(long connection, TmRequest request, Runnable done) {
                    self.tell(new TmCall(connection, request, done));
                  }

                  @Override
                  public void closed(long connection) {
                    self.tell(new TmClosed(connection));
                  }
                });
    String here = config.name();
    taskManager =
        new TaskManager(
            job,
            here,
            spec.environment(),
            () -> records.nextTaskId(job.getId()),
            (node, m) -> {
              if (node.equals(here)) {
                host.tell(new TaskHost.FromMotherSuperior(m));
              } else {
                mom.tell(new MomActor.ToPeer(node, m));
              }
            },
            endpoint,
            new JobOutput(
                spec,
                stream -> records.file(job.getId(), "output-" + stream + ".status"),
                launcher,
                context.getLog(),
                userScreen == null ? null : terminal(userScreen)),
            processes.sessions(),
            context.getLog());
  }

  private Path tmPath() {
    return tm == null ? null : tm.path();
  }

  /** Task-manager requests and task reports, wherever the job's tasks may still be heard of. */
  private BehaviorBuilder<Command> withTasks(BehaviorBuilder<Command> behavior) {
    return behavior
        .onMessage(TmCall.class, this::onTmCall)
        .onMessage(TmClosed.class, c -> toTaskManager(tm -> tm.closed(c.connection())))
        .onMessage(FromTaskHost.class, f -> toTaskManager(tm -> tm.fromNode(f.message())))
        .onSignal(PostStop.class, s -> onStopWithTasks());
  }

  private Behavior<Command> onTmCall(TmCall c) {
    if (taskManager != null) {
      taskManager.request(c.connection(), c.request(), c.done());
    } else {
      c.done().run();
    }
    return Behaviors.same();
  }

  /**
   * The actor stops while the job's tasks may still be asked for (it failed): the job's task
   * manager connections close rather than hold their threads and budget for good.
   */
  private Behavior<Command> onStopWithTasks() {
    if (taskManager != null) {
      taskManager.close();
    }
    return Behaviors.same();
  }

  /** Passes a message on to the task manager, if the job (still) has one. */
  private Behavior<Command> toTaskManager(java.util.function.Consumer<TaskManager> delivery) {
    if (taskManager != null) {
      delivery.accept(taskManager);
    }
    return Behaviors.same();
  }

  /** The script has ended: no more task requests, and every task here is ended before the obit. */
  private Behavior<Command> endTasks() {
    phases.enter(MomJobPhase.ENDING_TASKS);
    scriptEndedNanos = System.nanoTime();
    timers.cancelAll();
    if (limitWatch != null) {
      context.stop(limitWatch); // what the job uses while it ends is no longer polled
      limitWatch = null;
    }
    if (suspender.suspended()) {
      suspender.thawToEnd(); // the script ended while its tasks were stopped (no freezer here)
    }
    if (taskManager != null) {
      taskManager.close();
    }
    if (localTasks == null) {
      return finish();
    }
    localTasks.tell(
        new TaskHost.EndAll(
            context.messageAdapter(TaskHost.Ended.class, e -> new TasksEnded(e.usage()))));
    timers.startSingleTimer(Timer.TASKS_TIMEOUT, TaskHost.END_TIMEOUT.plusSeconds(5));
    return withTasks(Behaviors.receive(Command.class))
        .onMessage(
            TasksEnded.class,
            t -> {
              taskUsage = t.usage();
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

  private Behavior<Command> running() {
    phases.enter(MomJobPhase.RUNNING);
    // A non-null value: Pekko's dead-letter logging fails on a null one if this actor has stopped.
    context.pipeToSelf(
        process.exited().thenApply(v -> Boolean.TRUE), (ok, failure) -> new Exited());
    if (!suspender.suspended()) {
      startWalltime();
    }
    sendStarted();
    startLimitWatch();
    timers.startTimerWithFixedDelay(Timer.RESEND, config.resend());
    return withTasks(Behaviors.receive(Command.class))
        .onMessage(OverLimit.class, this::overLimit)
        .onMessage(
            SisterUsed.class,
            u -> {
              if (limitWatch != null) {
                limitWatch.tell(
                    new LimitWatch.SisterSample(
                        u.usage().getNode(), LimitWatch.sample(u.usage().getResourcesUsed())));
              }
              return Behaviors.same();
            })
        .onMessageEquals(
            Ack.STARTED,
            () -> {
              startAcked = true;
              return Behaviors.same();
            })
        .onMessageEquals(
            Timer.RESEND,
            () -> {
              if (!startAcked) {
                sendStarted();
              }
              if (taskManager != null) {
                taskManager.resend();
              }
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
              launcher.signalJob(process.pid(), Signals.SIGKILL);
              return Behaviors.same();
            })
        .onMessage(
            Signal.class,
            s -> {
              if (suspender.suspended() && s.signal() == Signals.parse("CONT")) {
                // the server refuses qsig for a suspended job; SIGCONT would undo a SIGSTOP
                context.getLog().warn("job {} is suspended: SIGCONT not sent", job.getId());
              } else {
                launcher.signalJob(process.pid(), s.signal());
              }
              return Behaviors.same();
            })
        .onMessage(Exited.class, e -> endTasks())
        .onMessage(
            Attach.class,
            a -> {
              a.reply().complete(Attachment.refused("job " + job.getId() + " has its session"));
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
    if (killReason == null) {
      hungUp = true;
      signalAll(Signals.parse("HUP"));
    }
    return kill(reason, run.getKillDelay());
  }

  /** The walltime timer, set to what is left of the walltime (if the job has one). */
  private void startWalltime() {
    long walltime = job.getResources().getWalltime();
    if (walltime > 0) {
      long ran = suspender.state().ranMillis(process.launchedMillis(), clock.millis());
      timers.startSingleTimer(
          Timer.WALLTIME, Duration.ofMillis(Math.max(0, walltime * 1000 - ran)));
    }
  }

  /**
   * SuspendJob: the walltime stands still while the job is frozen. A job that is being killed is
   * not frozen again.
   */
  private Behavior<Command> suspend(Suspend s) {
    if (killReason != null) {
      return notRunning();
    }
    suspender.order(s.suspend());
    if (suspender.suspended()) {
      timers.cancel(Timer.WALLTIME);
    } else {
      startWalltime();
    }
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
    if (localTasks != null) {
      localTasks.tell(new TaskHost.SignalAll(signal));
    }
  }

  private Behavior<Command> overWalltime() {
    long limit = job.getResources().getWalltime();
    long used = suspender.state().ranMillis(process.launchedMillis(), clock.millis()) / 1000;
    String message =
        "job killed: walltime "
            + used
            + " exceeded limit "
            + limit
            + " ("
            + Durations.format(limit)
            + ")";
    walltimeExceeded = true;
    tellUser("=>> PBS: " + message);
    return kill(message, run.getKillDelay());
  }

  /**
   * Polls the job-wide limits the job has, at every heartbeat, over its processes here and what its
   * sisters report (the mem limit only where no cgroup holds the job's memory).
   */
  private void startLimitWatch() {
    UsageLimits limits = UsageLimits.of(job.getResources(), !cgroupProcs.isEmpty());
    if (!limits.any() || limitWatch != null) {
      return;
    }
    ActorRef<Command> self = context.getSelf();
    limitWatch =
        context.spawn(
            LimitWatch.motherSuperior(
                limits,
                new ProcessUsage(),
                processes,
                config.heartbeat(),
                (over, used) -> self.tell(new OverLimit(over, used))),
            "limits",
            DispatcherSelector.blocking());
  }

  /** As Torque's mom: the job's stderr says which limit, and the job is killed as by qdel. */
  private Behavior<Command> overLimit(OverLimit o) {
    if (killReason != null) {
      return Behaviors.same();
    }
    overLimit = o;
    limitWatch = null; // it has stopped
    String message = "job killed: " + o.over().message();
    tellUser("=>> PBS: " + message);
    return kill(message, run.getKillDelay());
  }

  private Behavior<Command> kill(String reason, int killDelay) {
    if (killReason == null) {
      killReason = reason;
      context.getLog().info("killing job {}: {}", job.getId(), reason);
      suspender.thawToEnd();
      launcher.signalJob(process.pid(), Signals.SIGTERM);
      timers.startSingleTimer(Timer.ESCALATE, Duration.ofSeconds(Math.max(0, killDelay)));
    }
    return Behaviors.same();
  }

  /** The starter has exited: read its status, clean up, and report the obit. */
  private Behavior<Command> finish() {
    phases.enter(MomJobPhase.FINISHING);
    timers.cancelAll();
    if (process != null && !sessionReused && cgroupProcs.isEmpty()) {
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
                killReason,
                walltimeExceeded,
                overLimit == null ? null : overLimit.over(),
                hungUp)
            .obit();
    sessionEnd.complete(obit.getExitStatus());
    if (screen != null) {
      screen.close();
    }
    ResourcesUsed script = obit.getResourcesUsed();
    obit.setResourcesUsed(
        config
            .gpuMonitor()
            .finish(
                job.getId(),
                script.toBuilder()
                    .setCput(script.getCput() + taskUsage.getCput())
                    .setMem(script.getMem() + taskUsage.getMem())
                    .setGpus(
                        job.getExecNodesList().stream().mapToInt(a -> a.getGpuIdsCount()).sum())
                    .build()));
    if (overLimit != null) {
      obit.setResourcesUsed(LimitWatch.atLeast(obit.getResourcesUsed(), overLimit.used()));
    }
    memoryAccounting(obit); // which ends whatever is left in the cgroup
    if (sisters.none()) {
      return epilogues(obit); // then ended(), which removes the cgroup once the obit is on its way
    }
    teardown.removeCgroup(); // the obit waits for the sisters: nothing is gained by waiting here
    return collecting(obit, this::epilogues);
  }

  /**
   * Once nothing of the job runs on any node: the site's epilogues (as the owner, then as root),
   * whose output joins the job's, then the output is delivered and the obit sent. An epilogue's
   * failure is logged and changes nothing, as in Torque.
   */
  private Behavior<Command> epilogues(JobObitReport.Builder obit) {
    return epiloguesThen(obit, () -> delivered(obit));
  }

  /**
   * The site's epilogues for the job as {@code obit} tells its end, then {@code then}. They also
   * follow a prologue that failed, as in Torque, so that they can undo what it began.
   */
  private Behavior<Command> epiloguesThen(
      JobObitReport.Builder obit, java.util.function.Supplier<Behavior<Command>> then) {
    phases.enter(MomJobPhase.EPILOGUE);
    if (config.site().directory() == null || spec == null) {
      return then.get();
    }
    HookPlan.Ending end =
        new HookPlan.Ending(
            process == null ? 0 : process.pid(), obit.getExitStatus(), obit.getResourcesUsed());
    runHooks(
        HookPlan.epilogues(job, config.name(), nodeJob.tmpdir(), JobLaunch.nodefile(nodeJob), end),
        false,
        false);
    return withTasks(Behaviors.receive(Command.class))
        .onMessage(HooksDone.class, d -> then.get())
        .onMessage(Suspend.class, s -> notRunning())
        .onAnyMessage(m -> Behaviors.same())
        .build();
  }

  /** The job's TMPDIR goes, its output is delivered, and the obit is on its way. */
  private Behavior<Command> delivered(JobObitReport.Builder obit) {
    phases.enter(MomJobPhase.DELIVERING);
    teardown.releaseAccount();
    obit.setOutputNote(stageOut());
    return ended(obit.build());
  }

  /** The spooled output delivered to its hosts, or kept here: the note says what was kept. */
  private String stageOut() {
    return StageOut.run(
        config.tmpBase(),
        job.getId(),
        config.name(),
        spooled,
        config.courier(),
        nodeJob != null,
        nodeJob == null ? null : nodeJob.runAs(),
        nodeJob == null ? 0 : nodeJob.gid(),
        context.getLog());
  }

  /**
   * With a cgroup, what it measured replaces the starter's figures, and processes it OOM-killed are
   * reported in the obit's reason and on the job's stderr.
   */
  private void memoryAccounting(JobObitReport.Builder obit) {
    teardown
        .stopCgroup()
        .ifPresent(
            usage -> {
              obit.setResourcesUsed(Isolation.merge(obit.getResourcesUsed(), usage));
              if (usage.oomKills() > 0) {
                String reason = Isolation.memoryReason(job, config.name(), usage.oomKills());
                tellUser("=>> PBS: " + reason);
                obit.setReason(
                    obit.getReason().isEmpty() ? reason : obit.getReason() + "; " + reason);
              }
            });
  }

  /**
   * KILL_JOB to every sister until each says nothing of the job is left there; their usage joins
   * the obit. A sister that stays silent past the timeout is named in the obit's reason.
   */
  private Behavior<Command> collecting(
      JobObitReport.Builder obit,
      java.util.function.Function<JobObitReport.Builder, Behavior<Command>> then) {
    phases.enter(MomJobPhase.COLLECTING);
    String why = killReason != null ? killReason : "the job ended";
    sisters.kill(why);
    timers.startTimerWithFixedDelay(Timer.RESEND, config.resend());
    timers.startSingleTimer(Timer.DONE_TIMEOUT, DONE_TIMEOUT);
    return withTasks(Behaviors.receive(Command.class))
        .onMessage(
            SisterReport.class,
            r -> {
              if (!sisters.done(r.done())) {
                return Behaviors.same();
              }
              timers.cancelAll();
              return then.apply(withSisters(obit));
            })
        .onMessageEquals(
            Timer.RESEND,
            () -> {
              sisters.kill(why);
              return Behaviors.same();
            })
        .onMessageEquals(
            Timer.DONE_TIMEOUT,
            () -> {
              String note = "sisters " + sisters.waitingForDone() + " did not confirm the cleanup";
              context.getLog().warn("job {}: {}", job.getId(), note);
              timers.cancelAll();
              JobObitReport.Builder o = withSisters(obit);
              return then.apply(
                  o.setReason(o.getReason().isEmpty() ? note : o.getReason() + "; " + note));
            })
        .onMessage(Suspend.class, s -> notRunning())
        .onAnyMessage(m -> Behaviors.same())
        .build();
  }

  /** The sisters' usage joins the obit, and their OOM kills its reason and the job's stderr. */
  private JobObitReport.Builder withSisters(JobObitReport.Builder obit) {
    var mine = obit.getResourcesUsed();
    var theirs = sisters.usage();
    sisters
        .oomKills()
        .forEach(
            (node, kills) -> {
              String reason = Isolation.memoryReason(job, node, kills);
              tellUser("=>> PBS: " + reason);
              obit.setReason(
                  obit.getReason().isEmpty() ? reason : obit.getReason() + "; " + reason);
            });
    return obit.setResourcesUsed(UsageSums.add(mine, theirs));
  }

  /** The obit is recorded, then sent until the server acknowledges it. */
  private Behavior<Command> ended(JobObitReport obit) {
    phases.enter(MomJobPhase.ENDED);
    timers.cancelAll();
    if (config.site().healthAtJobEnd()) {
      mom.tell(MomActor.CheckHealth.NOW);
    }
    if (taskManager != null) {
      taskManager.closeOutput();
    }
    try {
      records.recordObit(job.getId(), obit);
    } catch (IOException e) {
      context.getLog().warn("job {}: cannot record its obit: {}", job.getId(), e.getMessage());
    }
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
    report(ServerInbound.newBuilder().setObit(obit).build());
    teardown.removeCgroup();
    timers.startTimerWithFixedDelay(Timer.RESEND, config.resend());
    return Behaviors.receive(Command.class)
        .onMessageEquals(
            Timer.RESEND,
            () -> {
              report(ServerInbound.newBuilder().setObit(obit).build());
              return Behaviors.same();
            })
        .onMessageEquals(
            Ack.OBIT,
            () -> {
              removeRecord();
              phases.enter(MomJobPhase.GONE);
              return Behaviors.stopped();
            })
        .onMessage(Suspend.class, s -> notRunning())
        .onAnyMessage(m -> Behaviors.same())
        .build();
  }

  private void sendStarted() {
    sendStarted(process.pid(), process.launchedMillis());
  }

  private void sendStarted(long session, long startMillis) {
    report(
        ServerInbound.newBuilder()
            .setStarted(
                JobStartedReport.newBuilder()
                    .setNode(config.name())
                    .setJobId(job.getId())
                    .setSessionId(session)
                    .setStartTime(startMillis / 1000))
            .build());
  }

  private void report(ServerInbound message) {
    mom.tell(new MomActor.ToServer(message));
  }

  /** Tells the job's owner {@code line}: on its terminal, else in its stderr file. */
  private void tellUser(String line) {
    notices.tell(line, spec, screen);
  }

  private void removeRecord() {
    teardown.removeRecord();
    mom.tell(new MomActor.JobGone(job.getId()));
  }
}
