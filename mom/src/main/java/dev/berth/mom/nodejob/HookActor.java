package dev.berth.mom.nodejob;

import dev.berth.core.Signals;
import dev.berth.core.pbs.SiteScriptStatus;
import dev.berth.mom.MomConfig;
import dev.berth.mom.job.HookPlan;
import dev.berth.mom.job.StarterStatus;
import dev.berth.mom.os.HookFiles;
import dev.berth.mom.os.JobProcess;
import dev.berth.mom.os.Launcher;
import dev.berth.mom.os.ProcessLimits;
import dev.berth.mom.os.StartSpec;
import dev.berth.mom.output.JobOutput;
import dev.berth.mom.store.JobRecords;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * Runs a job's prologues or epilogues on this node, one after the other, each through the starter
 * (as root, or as the job's owner for the {@code .user} scripts) and each within the time limit,
 * and answers with how they went. Root's scripts write into files of the mom's, which are then
 * appended to the job's output as its owner, so that no path of the user's is opened as root; the
 * owner's scripts write to the job's files themselves. On a sister their output goes nowhere.
 *
 * <p>Just over 400 lines: the scripts' order, their time limits, and the copying of root's output
 * as the owner belong together.
 */
public final class HookActor {
  sealed interface Command {}

  private record Exited() implements Command {}

  private record Relayed() implements Command {}

  private enum Timeout implements Command {
    INSTANCE
  }

  /** Output of a root script that is relayed to the job's files; the rest is cut off. */
  static final int MAX_RELAYED = 1 << 20;

  /**
   * How the scripts went: {@code failed} names the first that did not exit 0 (null when none
   * failed), with its exit status and why; {@code wroteOutput} says whether the job's output files
   * were started (the script must then add to them rather than replace them).
   */
  public record Result(String failed, int status, String why, boolean wroteOutput) {
    static final Result OK = new Result(null, 0, "", false);

    public boolean ok() {
      return failed == null;
    }

    /** Torque's rule for prologues: exit 1 aborts the job, any other failure requeues it. */
    public boolean aborts() {
      return status == 1;
    }

    /** For the job's comment and log: on which node, which script, and what it did. */
    public String reason(String node) {
      return "prologue failed on " + node + ": " + failed + " " + why;
    }
  }

  /**
   * Where the scripts run and write.
   *
   * @param directory the hook directory (Torque's mom_priv)
   * @param timeout each script's time limit (Torque's $prologalarm)
   * @param output the job script's start spec, whose files the scripts' output is added to; null
   *     where it goes nowhere (sisters)
   * @param owner the job's owner as the starter takes it (null when the mom is not root)
   * @param home the owner's home, where their scripts start
   * @param startsOutput whether the scripts are the first to write the job's output files (the
   *     prologues), which they then empty first
   */
  record Setup(
      Path directory,
      Duration timeout,
      String jobId,
      StartSpec output,
      dev.berth.mom.os.UserInfo owner,
      int gid,
      Path home,
      String hostname,
      boolean startsOutput) {}

  private final ActorContext<Command> context;
  private final TimerScheduler<Command> timers;
  private final Setup setup;
  private final Launcher launcher;
  private final JobRecords records;
  private final ActorRef<Result> replyTo;
  private final boolean stopAtFailure;
  private final List<HookPlan.Call> calls;
  private int next;
  private Result first = Result.OK;
  private JobProcess running;
  private HookPlan.Call current;
  private boolean timedOut;
  private boolean startedOutput;

  private HookActor(
      ActorContext<Command> context,
      TimerScheduler<Command> timers,
      Setup setup,
      Launcher launcher,
      JobRecords records,
      List<HookPlan.Call> calls,
      boolean stopAtFailure,
      ActorRef<Result> replyTo) {
    this.context = context;
    this.timers = timers;
    this.setup = setup;
    this.launcher = launcher;
    this.records = records;
    this.calls = List.copyOf(calls);
    this.stopAtFailure = stopAtFailure;
    this.replyTo = replyTo;
  }

  /**
   * Starts a child of {@code parent} that runs {@code calls} for the job {@code nodeJob} with the
   * site's scripts of {@code config}, adding their output to {@code output}'s files (null: none),
   * and answers with {@code adapt} of the result.
   */
  public static <T> void spawn(
      ActorContext<T> parent,
      MomConfig config,
      NodeJob nodeJob,
      StartSpec output,
      boolean startsOutput,
      Launcher launcher,
      JobRecords records,
      List<HookPlan.Call> calls,
      boolean stopAtFailure,
      java.util.function.Function<Result, T> adapt) {
    Setup setup =
        new Setup(
            config.site().directory(),
            config.site().timeout(),
            nodeJob.job().getId(),
            output,
            nodeJob.runAs(),
            nodeJob.gid(),
            Path.of(nodeJob.user().home()),
            config.hostname(),
            startsOutput);
    parent.spawnAnonymous(
        run(
            setup,
            launcher,
            records,
            calls,
            stopAtFailure,
            parent.messageAdapter(Result.class, adapt::apply)),
        org.apache.pekko.actor.typed.DispatcherSelector.sameAsParent());
  }

  /**
   * Runs {@code calls} in order and tells {@code replyTo} the first failure; with {@code
   * stopAtFailure} (prologues) none runs after it, otherwise (epilogues) all run.
   */
  static Behavior<Command> run(
      Setup setup,
      Launcher launcher,
      JobRecords records,
      List<HookPlan.Call> calls,
      boolean stopAtFailure,
      ActorRef<Result> replyTo) {
    return Behaviors.setup(
        ctx ->
            Behaviors.withTimers(
                timers ->
                    new HookActor(
                            ctx, timers, setup, launcher, records, calls, stopAtFailure, replyTo)
                        .nextScript()));
  }

  private Behavior<Command> nextScript() {
    while (next < calls.size()) {
      current = calls.get(next++);
      Path script;
      try {
        var found = launcher.siteScript(setup.directory(), current.name(), current.asOwner());
        if (found.isEmpty()) {
          continue;
        }
        script = found.get();
      } catch (HookFiles.Refused e) {
        if (!record(SiteScriptStatus.REFUSED.code(), "was refused: " + e.getMessage())) {
          return done();
        }
        continue;
      }
      // the timeout before the start, so that whoever sees the script run knows its time runs
      timers.startSingleTimer(Timeout.INSTANCE, setup.timeout());
      try {
        records.file(setup.jobId(), statusName()); // makes the record directory
        startOutput();
        running = launcher.start(spec(script));
      } catch (IOException e) {
        timers.cancel(Timeout.INSTANCE);
        if (!record(SiteScriptStatus.REFUSED.code(), "could not be started: " + e.getMessage())) {
          return done();
        }
        continue;
      }
      timedOut = false;
      context.pipeToSelf(running.exited(), (ok, failure) -> new Exited());
      return waiting();
    }
    return done();
  }

  private Behavior<Command> waiting() {
    return Behaviors.receive(Command.class)
        .onMessageEquals(
            Timeout.INSTANCE,
            () -> {
              timedOut = true;
              launcher.signalJob(running.pid(), Signals.SIGKILL);
              return Behaviors.same();
            })
        .onMessage(Exited.class, e -> ended())
        .build();
  }

  /** The script's status, its output relayed, then the next script. */
  private Behavior<Command> ended() {
    timers.cancelAll();
    int status;
    String why;
    if (timedOut) {
      status = SiteScriptStatus.TIMED_OUT.code();
      why = "timed out after " + setup.timeout().toSeconds() + " s and was killed";
    } else {
      StarterStatus s = readStatus();
      status =
          s.kind() == StarterStatus.Kind.FAILED ? SiteScriptStatus.REFUSED.code() : s.exitStatus();
      why =
          s.kind() == StarterStatus.Kind.FAILED
              ? "could not be started: " + s.message()
              : "exited with status " + status;
    }
    boolean goOn = status == 0 || record(status, why);
    if (!current.asOwner() && setup.output() != null && relay()) {
      return Behaviors.receive(Command.class)
          .onMessage(Relayed.class, r -> goOn ? nextScript() : done())
          .build();
    }
    return goOn ? nextScript() : done();
  }

  /** Keeps the first failure; whether the next script runs. */
  private boolean record(int status, String why) {
    context.getLog().warn("job {}: {} {}", setup.jobId(), current.name(), why);
    if (first.ok()) {
      first = new Result(current.name(), status, why, false);
    }
    return !stopAtFailure;
  }

  private Behavior<Command> done() {
    replyTo.tell(new Result(first.failed(), first.status(), first.why(), startedOutput));
    return Behaviors.stopped();
  }

  /**
   * Empties the job's output files, as its owner, before the first script writes to them: the
   * scripts add to them, and so does the job's script after them, as Torque's prologues write to
   * the files the job then writes on.
   */
  private void startOutput() throws IOException {
    if (startedOutput || setup.output() == null || !setup.startsOutput()) {
      return;
    }
    startedOutput = true;
    StartSpec job = setup.output();
    List<Path> files = new ArrayList<>(List.of(job.stdout()));
    if (!job.joinStderr() && job.stderr() != null) {
      files.add(job.stderr());
    }
    for (Path file : files) {
      Path status = records.file(setup.jobId(), "hook-output.status");
      JobProcess cat =
          launcher.start(StartSpec.catTo(job.user(), job.gid(), file, job.umask(), false, status));
      try {
        cat.exited().get(setup.timeout().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        throw new IOException("cannot start the job's output file " + file + ": " + e, e);
      } finally {
        Files.deleteIfExists(status);
      }
    }
  }

  private StartSpec spec(Path script) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(script.toString());
    command.addAll(current.args());
    boolean asOwner = current.asOwner();
    Path out;
    Path err;
    boolean join = false;
    if (setup.output() == null) {
      out = Path.of("/dev/null");
      err = out;
    } else if (asOwner) {
      out = setup.output().stdout();
      err = setup.output().stderr();
      join = setup.output().joinStderr();
    } else {
      out = capture("out");
      err = capture("err");
    }
    return new StartSpec(
        asOwner ? setup.owner() : null,
        asOwner ? setup.gid() : 0,
        asOwner ? setup.home() : Path.of("/"),
        null,
        out,
        join ? null : err,
        join,
        asOwner && setup.output() != null ? setup.output().umask() : null,
        List.of(),
        records.file(setup.jobId(), statusName()),
        null,
        command,
        current.env(),
        true,
        false,
        setup.hostname(),
        null,
        null,
        null,
        ProcessLimits.NONE);
  }

  private String statusName() {
    return current.name() + ".status";
  }

  /** Where a root script's {@code stream} ("out" or "err") goes before it is relayed, emptied. */
  private Path capture(String stream) throws IOException {
    Path file = captured(stream);
    Files.deleteIfExists(file);
    return file;
  }

  private Path captured(String stream) throws IOException {
    return records.file(setup.jobId(), current.name() + "." + stream);
  }

  private StarterStatus readStatus() {
    try {
      Path file = records.file(setup.jobId(), statusName());
      String line = Files.exists(file) ? Files.readString(file) : "";
      Files.deleteIfExists(file);
      return StarterStatus.parse(line.isEmpty() ? "failed no status" : line);
    } catch (IOException e) {
      return StarterStatus.parse("failed " + e.getMessage());
    }
  }

  /**
   * Appends what a root script wrote to the job's stdout and stderr, as the job's owner; true when
   * a {@link Relayed} follows.
   */
  private boolean relay() {
    byte[][] streams = new byte[2][];
    try {
      for (int i = 0; i < 2; i++) {
        Path file = captured(i == 0 ? "out" : "err");
        streams[i] = head(file);
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      context.getLog().warn("job {}: {} output lost: {}", setup.jobId(), current.name(), e);
      return false;
    }
    if (streams[0].length == 0 && streams[1].length == 0) {
      return false;
    }
    JobOutput output =
        new JobOutput(
            setup.output(),
            stream -> records.file(setup.jobId(), current.name() + "." + stream + ".status"),
            launcher,
            context.getLog(),
            null);
    ActorRef<Command> self = context.getSelf();
    AtomicInteger left =
        new AtomicInteger((streams[0].length > 0 ? 1 : 0) + (streams[1].length > 0 ? 1 : 0));
    Runnable written =
        () -> {
          if (left.decrementAndGet() == 0) {
            output.close();
            self.tell(new Relayed());
          }
        };
    for (int i = 0; i < 2; i++) {
      if (streams[i].length > 0) {
        output.write(i + 1, streams[i], written);
      }
    }
    return true;
  }

  private static byte[] head(Path file) throws IOException {
    if (!Files.exists(file)) {
      return new byte[0];
    }
    try (InputStream in = Files.newInputStream(file)) {
      return in.readNBytes(MAX_RELAYED);
    }
  }
}
