package dev.berth.mom.tm;

import dev.berth.core.Signals;
import dev.berth.core.pbs.ExitStatus;
import dev.berth.mom.job.JobEnvironment;
import dev.berth.mom.job.JobGpus;
import dev.berth.mom.job.StarterStatus;
import dev.berth.mom.nodejob.JobProcesses;
import dev.berth.mom.os.ContainerSpec;
import dev.berth.mom.os.JobProcess;
import dev.berth.mom.os.Launcher;
import dev.berth.mom.os.ProcessLimits;
import dev.berth.mom.os.SessionJobId;
import dev.berth.mom.os.StartSpec;
import dev.berth.mom.os.TaskProcess;
import dev.berth.mom.os.UserInfo;
import dev.berth.mom.store.JobRecords;
import dev.berth.proto.MomInbound;
import dev.berth.proto.ResourcesUsed;
import dev.berth.proto.SpawnTask;
import dev.berth.proto.TaskInput;
import dev.berth.proto.TaskObit;
import dev.berth.proto.TaskStarted;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The tasks of one job on one node, mother superior or sister. A task starts when the mother
 * superior sends SPAWN_TASK: as the job's owner, inside the job's cgroup here, with stdin, stdout
 * and stderr piped through this mom. Its output goes to the mother superior in numbered pieces, a
 * window of them unacknowledged at most ({@link OutputWindow}); its end goes as TASK_OBIT once its
 * output is all sent. Both are sent again until acknowledged, and a repeated SPAWN_TASK is answered
 * again without starting anything. When the job ends here every task gets SIGTERM, then SIGKILL,
 * and the owner of this actor hears what the tasks used.
 *
 * <p>Over 400 lines: a task's start, end and obit are one protocol with the mother superior, over
 * one table of tasks; its stdin is {@link TaskStdin}'s, its output {@link OutputWindow}'s.
 */
public final class TaskHost {
  public sealed interface Command {}

  /** SPAWN_TASK, SIGNAL_TASK, TASK_INPUT or an acknowledgement, from the mother superior. */
  public record FromMotherSuperior(MomInbound message) implements Command {}

  /**
   * A signal for every task running here: SIGSTOP and SIGCONT suspend and resume a job that has no
   * cgroup freezer on this node.
   */
  public record SignalAll(int signal) implements Command {}

  /** The job ends on this node: stop every task, answer, stop. */
  public record EndAll(ActorRef<Ended> replyTo) implements Command {}

  /** What the tasks on this node used, by their starters' account. */
  public record Ended(ResourcesUsed usage) {}

  /** What a task on this node starts with, besides what SPAWN_TASK says. */
  record Context(
      String jobId,
      String node,
      boolean motherSuperior,
      UserInfo runAs,
      int gid,
      String umask,
      List<Path> cgroupProcs,
      Path tmpdir,
      Path nodefile,
      JobGpus gpus,
      Path gpufile,
      Path home,
      String hostname,
      boolean inContainer,
      ContainerSpec container,
      SessionJobId sessionJobId,
      ProcessLimits limits,
      JobProcesses processes) {}

  private record Read(int taskId, int stream, byte[] data) implements Command {}

  private record Exited(int taskId) implements Command {}

  private record EofWaitOver(int taskId) implements Command {}

  private enum Timer implements Command {
    RESEND,
    ESCALATE,
    GIVE_UP
  }

  /**
   * How long a task's output may stay open after the task has exited (a background child holding
   * it) before the obit goes anyway.
   */
  static final Duration EOF_GRACE = Duration.ofSeconds(2);

  /** Between SIGTERM and SIGKILL when the job ends. */
  static final Duration TERM_GRACE = Duration.ofSeconds(2);

  public static final Duration END_TIMEOUT = Duration.ofSeconds(10);

  private static final class Task {
    final int id;
    final OutputWindow output;
    JobProcess process;
    TaskStdin stdin;
    String startError = "";
    String killedBecause = "";
    int openStreams = 2;
    boolean exited;
    boolean eofWaitOver;
    TaskObit obit;
    boolean obitAcked;

    Task(int id, OutputWindow output) {
      this.id = id;
      this.output = output;
    }

    boolean alive() {
      return process != null && !exited;
    }
  }

  private final ActorContext<Command> context;
  private final TimerScheduler<Command> timers;
  private final Context job;
  private final Launcher launcher;
  private final JobRecords records;
  private final Duration resend;
  private final Consumer<MomInbound> toMotherSuperior;
  private final Map<Integer, Task> tasks = new LinkedHashMap<>();
  private final AtomicLong jobStdinQueued = new AtomicLong();
  private long cpuMicros;
  private long maxRssKb;
  private ActorRef<Ended> endReply;

  private TaskHost(
      ActorContext<Command> context,
      TimerScheduler<Command> timers,
      Context job,
      Launcher launcher,
      JobRecords records,
      Duration resend,
      Consumer<MomInbound> toMotherSuperior) {
    this.context = context;
    context.setLoggerName(TaskHost.class);
    this.timers = timers;
    this.job = job;
    this.launcher = launcher;
    this.records = records;
    this.resend = resend;
    this.toMotherSuperior = toMotherSuperior;
  }

  /**
   * A task host for a job on this node. Tasks recorded by an earlier mom process on this node are
   * ended at once and reported lost: their pipes went with that process.
   */
  public static Behavior<Command> create(
      Context job,
      Launcher launcher,
      JobRecords records,
      Duration resend,
      Consumer<MomInbound> toMotherSuperior) {
    return Behaviors.withTimers(
        timers ->
            Behaviors.setup(
                ctx -> {
                  TaskHost host =
                      new TaskHost(ctx, timers, job, launcher, records, resend, toMotherSuperior);
                  timers.startTimerWithFixedDelay(Timer.RESEND, resend);
                  host.endLeftovers();
                  return host.serving();
                }));
  }

  private Behavior<Command> serving() {
    return Behaviors.receive(Command.class)
        .onMessage(FromMotherSuperior.class, m -> fromMotherSuperior(m.message()))
        .onMessage(Read.class, this::read)
        .onMessage(Exited.class, e -> exited(e.taskId()))
        .onMessage(EofWaitOver.class, e -> eofWaitOver(e.taskId()))
        .onMessageEquals(Timer.RESEND, this::resendUnacknowledged)
        .onMessage(EndAll.class, this::endAll)
        .onMessage(SignalAll.class, s -> signalAll(s.signal()))
        .onMessageEquals(Timer.ESCALATE, this::escalate)
        .onMessageEquals(Timer.GIVE_UP, this::reportEnded)
        .build();
  }

  private Behavior<Command> fromMotherSuperior(MomInbound m) {
    switch (m.getBodyCase()) {
      case SPAWN -> spawn(m.getSpawn());
      case SIGNAL_TASK -> {
        Task t = tasks.get(m.getSignalTask().getTaskId());
        if (t != null && t.alive()) {
          launcher.signalJob(t.process.pid(), m.getSignalTask().getSignal());
        }
      }
      case TASK_INPUT -> input(m.getTaskInput());
      case TASK_OUTPUT_ACK -> {
        Task t = tasks.get(m.getTaskOutputAck().getTaskId());
        if (t != null) {
          t.output.acknowledged(m.getTaskOutputAck().getSeq());
        }
      }
      case TASK_OBIT_ACK -> {
        Task t = tasks.get(m.getTaskObitAck().getTaskId());
        if (t != null && !t.obitAcked) {
          t.obitAcked = true;
          records.forgetTask(job.jobId(), t.id);
        }
      }
      default -> context.getLog().warn("job {}: unexpected {}", job.jobId(), m.getBodyCase());
    }
    return endReply != null && drained() ? reportEnded() : Behaviors.same();
  }

  /** Idempotent: a task already known is reported again, not started again. */
  private void spawn(SpawnTask s) {
    Task known = tasks.get(s.getTaskId());
    if (known != null) {
      sendStarted(known);
      if (known.obit != null && !known.obitAcked) {
        send(MomInbound.newBuilder().setTaskObit(known.obit).build());
      }
      return;
    }
    Task t = task(s.getTaskId());
    tasks.put(t.id, t);
    if (endReply != null) {
      t.startError = "the job is ending on " + job.node();
      sendStarted(t);
      return;
    }
    TaskProcess p;
    try {
      p = launcher.startPiped(spec(s));
    } catch (IOException | RuntimeException e) {
      t.startError = e.getMessage(); // it never ran
      t.exited = true;
      sendStarted(t);
      return;
    }
    t.process = p.process();
    job.processes().sessions().add(t.process.pid());
    context.pipeToSelf(
        t.process.exited().thenApply(v -> Boolean.TRUE), (ok, failure) -> new Exited(t.id));
    t.openStreams = 0;
    try {
      t.stdin = new TaskStdin(job.jobId(), t.id, p.stdin(), jobStdinQueued, context.getLog());
      t.output.started();
      try {
        records.recordTask(job.jobId(), t.id, t.process.pid(), t.process.identity());
      } catch (IOException e) {
        throw new IOException("cannot record the task (" + e.getMessage() + ")", e);
      }
      ActorRef<Command> self = context.getSelf();
      t.output.read(p.stdout(), 1, (stream, data) -> self.tell(new Read(t.id, stream, data)));
      t.openStreams++;
      t.output.read(p.stderr(), 2, (stream, data) -> self.tell(new Read(t.id, stream, data)));
      t.openStreams++;
      if (!s.getStdinRelayed()) {
        t.stdin.close();
      }
      context
          .getLog()
          .debug("job {}: task {} started as session {}", job.jobId(), t.id, t.process.pid());
    } catch (IOException | RuntimeException | OutOfMemoryError e) {
      // out of descriptors or threads, most likely: the mom needs both to follow a task
      abandon(
          t, p, e instanceof OutOfMemoryError ? "no thread: " + e.getMessage() : e.getMessage());
    }
    sendStarted(t);
  }

  /**
   * A task that started but cannot be followed here (its record, its output) is killed: it ends as
   * every task does, with an obit that says why, so that whoever waits for it hears of its end. Its
   * pipes that nobody reads are closed.
   */
  private void abandon(Task t, TaskProcess p, String why) {
    context.getLog().warn("job {}: task {} killed at its start: {}", job.jobId(), t.id, why);
    launcher.signalJob(t.process.pid(), Signals.SIGKILL);
    t.killedBecause = "killed at its start on " + job.node() + ": " + why;
    if (t.stdin != null) {
      t.stdin.close();
    } else {
      closeQuietly(p.stdin());
    }
    if (t.openStreams < 1) {
      closeQuietly(p.stdout());
    }
    if (t.openStreams < 2) {
      closeQuietly(p.stderr());
    }
  }

  private static void closeQuietly(java.io.Closeable pipe) {
    try {
      pipe.close();
    } catch (IOException e) {
      // a pipe to a killed task
    }
  }

  private StartSpec spec(SpawnTask s) throws IOException {
    Map<String, String> env = new HashMap<>(s.getEnvMap());
    env.put("TMPDIR", job.tmpdir().toString());
    JobEnvironment.moveNodefile(env, job.nodefile());
    try {
      job.gpus().addTo(env, job.gpufile(), s.getGpusList());
    } catch (IllegalArgumentException e) {
      throw new IOException(e.getMessage());
    }
    if (!job.motherSuperior()) {
      env.remove(JobEnvironment.TM_SOCKET); // the task manager serves the mother superior only
    }
    Path cwd = s.getCwd().isEmpty() ? job.home() : Path.of(s.getCwd());
    ContainerSpec container = job.container();
    if (job.inContainer() && container == null) {
      throw new IOException("the job's container cannot be made on " + job.node());
    }
    if (container != null && !s.getCwd().isEmpty()) {
      container = container.startingIn(null); // the caller's directory in the container
    } else if (!Files.isDirectory(cwd)) {
      cwd = job.home();
    }
    return new StartSpec(
        job.runAs(),
        job.gid(),
        cwd,
        null,
        null,
        null,
        false,
        job.umask(),
        job.cgroupProcs(),
        records.newTaskStatusFile(job.jobId(), s.getTaskId()),
        null,
        s.getArgvList(),
        env,
        false,
        true,
        job.hostname(),
        container,
        job.sessionJobId(),
        null,
        job.limits());
  }

  private Task task(int id) {
    return new Task(id, new OutputWindow(job.jobId(), id, job.node()));
  }

  private Behavior<Command> read(Read r) {
    Task t = tasks.get(r.taskId());
    if (r.data() == null) {
      t.openStreams--;
      maybeObit(t);
      return endReply != null && drained() ? reportEnded() : Behaviors.same();
    } else {
      send(MomInbound.newBuilder().setTaskOutput(t.output.piece(r.stream(), r.data())).build());
    }
    return Behaviors.same();
  }

  private void input(TaskInput in) {
    Task t = tasks.get(in.getTaskId());
    if (t == null || t.stdin == null || !t.stdin.open() || t.exited) {
      return;
    }
    t.stdin.write(in.getData().toByteArray(), in.getEof());
  }

  private Behavior<Command> exited(int taskId) {
    Task t = tasks.get(taskId);
    t.exited = true;
    timers.startSingleTimer(new EofWaitOver(taskId), new EofWaitOver(taskId), EOF_GRACE);
    maybeObit(t);
    return endReply != null && drained() ? reportEnded() : Behaviors.same();
  }

  private Behavior<Command> eofWaitOver(int taskId) {
    Task t = tasks.get(taskId);
    t.eofWaitOver = true;
    maybeObit(t);
    return endReply != null && drained() ? reportEnded() : Behaviors.same();
  }

  /**
   * The obit goes once the task has exited and its output is read (or has stayed open too long).
   */
  private void maybeObit(Task t) {
    if (t.obit != null || !t.exited || t.process == null) {
      return;
    }
    if (t.openStreams > 0 && !t.eofWaitOver) {
      return;
    }
    timers.cancel(new EofWaitOver(t.id));
    if (t.stdin != null) {
      t.stdin.finish();
    }
    TaskObit.Builder obit = obit(t.id, t.process.launchedMillis());
    if (!t.killedBecause.isEmpty()) {
      obit.setError(t.killedBecause);
    }
    t.obit = obit.setOutputPieces(t.output.pieces()).build();
    send(MomInbound.newBuilder().setTaskObit(t.obit).build());
  }

  /** The obit the task's starter status gives; its usage counts towards the job's here. */
  private TaskObit.Builder obit(int taskId, long launchedMillis) {
    TaskObit.Builder obit =
        TaskObit.newBuilder().setJobId(job.jobId()).setTaskId(taskId).setNode(job.node());
    Optional<String> line = readStatus(taskId);
    if (line.isEmpty()) {
      return obit.setExitStatus(ExitStatus.killedBy(Signals.SIGKILL))
          .setError("the task's starter vanished");
    }
    StarterStatus status = StarterStatus.parse(line.get());
    long wall = launchedMillis > 0 ? (System.currentTimeMillis() - launchedMillis) / 1000 : 0;
    obit.setExitStatus(status.exitStatus()).setResourcesUsed(status.usage(wall));
    cpuMicros += status.cpuMicros();
    maxRssKb += status.maxRssKb();
    Task t = tasks.get(taskId);
    if (t != null && t.process != null) {
      job.processes().ended(t.process.pid(), status.cpuMicros());
    }
    if (status.kind() == StarterStatus.Kind.FAILED) {
      obit.setError(status.message());
    }
    return obit;
  }

  private Optional<String> readStatus(int taskId) {
    Path file = records.taskStatusFile(job.jobId(), taskId);
    try {
      return Files.exists(file) ? Optional.of(Files.readString(file).strip()) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private Behavior<Command> resendUnacknowledged() {
    long now = System.currentTimeMillis();
    for (Task t : tasks.values()) {
      t.output
          .due(now, resend)
          .forEach(p -> send(MomInbound.newBuilder().setTaskOutput(p).build()));
      if (t.obit != null && !t.obitAcked) {
        send(MomInbound.newBuilder().setTaskObit(t.obit).build());
      }
    }
    return Behaviors.same();
  }

  private Behavior<Command> endAll(EndAll end) {
    endReply = end.replyTo();
    // the timers before the signal, so that whoever sees the signal knows the grace runs
    timers.startSingleTimer(Timer.ESCALATE, TERM_GRACE);
    timers.startSingleTimer(Timer.GIVE_UP, END_TIMEOUT);
    signalAll(Signals.SIGTERM);
    if (drained()) {
      return reportEnded(); // which stops the host, and its timers with it
    }
    return Behaviors.same();
  }

  private Behavior<Command> escalate() {
    return signalAll(Signals.SIGKILL);
  }

  private Behavior<Command> signalAll(int signal) {
    for (Task t : tasks.values()) {
      if (t.alive()) {
        launcher.signalJob(t.process.pid(), signal);
      }
    }
    return Behaviors.same();
  }

  /**
   * Every task here has exited, its obit is out and its output acknowledged, so nothing of it is
   * lost when this actor stops.
   */
  private boolean drained() {
    return tasks.values().stream()
        .allMatch(
            t -> !t.alive() && (t.process == null || t.obit != null) && t.output.acknowledged());
  }

  private Behavior<Command> reportEnded() {
    if (endReply == null) {
      return Behaviors.same();
    }
    for (Task t : tasks.values()) {
      if (t.alive()) {
        context.getLog().warn("job {}: task {} did not end", job.jobId(), t.id);
      }
      t.output.close();
      if (t.stdin != null) {
        t.stdin.drop();
      }
    }
    endReply.tell(
        new Ended(
            ResourcesUsed.newBuilder()
                .setCput(cpuMicros / 1_000_000)
                .setMem(maxRssKb * 1024)
                .build()));
    return Behaviors.stopped();
  }

  /**
   * Tasks an earlier mom process started here lost their pipes with it: they are killed, and the
   * mother superior hears that they ended and why.
   */
  private void endLeftovers() {
    List<long[]> recorded;
    try {
      recorded = records.tasks(job.jobId());
    } catch (IOException e) {
      context
          .getLog()
          .warn("job {}: cannot read its task records: {}", job.jobId(), e.getMessage());
      return;
    }
    for (long[] r : recorded) {
      int id = (int) r[0];
      Optional<JobProcess> alive = launcher.reattach(r[1], r[2], 0);
      Task t = task(id);
      t.exited = true;
      if (alive.isEmpty() && readStatus(id).isPresent()) {
        t.obit = obit(id, 0).build(); // it ended while the mom was away
      } else {
        alive.ifPresent(p -> launcher.signalJob(p.pid(), Signals.SIGKILL));
        t.obit =
            TaskObit.newBuilder()
                .setJobId(job.jobId())
                .setTaskId(id)
                .setNode(job.node())
                .setExitStatus(ExitStatus.killedBy(Signals.SIGKILL))
                .setError(
                    "the mom on " + job.node() + " restarted while the task ran; it was ended")
                .build();
      }
      tasks.put(id, t);
      send(MomInbound.newBuilder().setTaskObit(t.obit).build());
    }
  }

  private void sendStarted(Task t) {
    TaskStarted.Builder started =
        TaskStarted.newBuilder().setJobId(job.jobId()).setTaskId(t.id).setNode(job.node());
    if (t.process != null) {
      started.setPid(t.process.pid());
    } else {
      started.setError(t.startError);
    }
    send(MomInbound.newBuilder().setTaskStarted(started).build());
  }

  private void send(MomInbound message) {
    toMotherSuperior.accept(message);
  }
}
