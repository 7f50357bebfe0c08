package dev.berth.mom.os;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A launcher that starts nothing: each start is a session the test ends when it likes, by writing
 * the starter's status line and completing the exit; signals are only written down. Its pids lie
 * above the kernel's pid_max, so no real process is ever mistaken for one of them. The mom's own
 * small helpers (a notice for the job's stderr, an output file started empty) are done at once, as
 * the owner would. The site's scripts are those a test wrote, whoever owns them, so that no test
 * needs root; they run as sessions like any other. Thread-safe: the job actors call it on their
 * threads, the test reads it on its own.
 */
public final class FakeLauncher implements Launcher {
  /** A start the mom asked for. */
  public record Started(StartSpec spec, JobProcess process) {}

  /** A signal the mom sent to a session. */
  public record Sent(long session, int signal) {}

  private static final long FIRST_PID = 1L << 40;

  private final AtomicLong pids = new AtomicLong(FIRST_PID);
  private final List<Started> started = new CopyOnWriteArrayList<>();
  private final List<Sent> signals = new CopyOnWriteArrayList<>();
  private final Map<Long, JobProcess> alive = new ConcurrentHashMap<>();
  private final List<String> notices = new CopyOnWriteArrayList<>();
  private final List<Consumer<Sent>> listeners = new CopyOnWriteArrayList<>();
  private final Clock clock;
  private volatile String refusal;

  /** Sessions launched at {@code clock}'s time. */
  public FakeLauncher(Clock clock) {
    this.clock = clock;
  }

  /** {@code listener} hears of each signal as it is sent, before the send returns. */
  public void onSignal(Consumer<Sent> listener) {
    listeners.add(listener);
  }

  /** Starts fail from now on with {@code message} (null: they succeed again). */
  public void refuseStarts(String message) {
    refusal = message;
  }

  @Override
  public JobProcess start(StartSpec spec) throws IOException {
    List<String> command = spec.command();
    if (command.size() == 6 && command.get(2).startsWith("printf")) {
      // StartSpec.appendLine, for a notice to the job's owner: done at once, as the owner would
      Files.writeString(
          Path.of(command.get(5)),
          command.get(4) + "\n",
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
      notices.add(command.get(4));
      return new JobProcess(0, 0, clock.millis(), CompletableFuture.completedFuture(null));
    }
    if (command.equals(List.of("/bin/cat")) && spec.stdout() != null) {
      // StartSpec.catTo with nothing to read, for an output file a prologue is to write: started
      if (spec.append()) {
        Files.write(
            spec.stdout(), new byte[0], StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      } else {
        Files.write(spec.stdout(), new byte[0]);
      }
      return new JobProcess(0, 0, clock.millis(), CompletableFuture.completedFuture(null));
    }
    if (refusal != null) {
      throw new IOException(refusal);
    }
    long pid = pids.incrementAndGet();
    JobProcess p = new JobProcess(pid, pid * 7, clock.millis(), new CompletableFuture<>());
    alive.put(pid, p);
    started.add(new Started(spec, p));
    return p;
  }

  /** The lines written to jobs' stderr files, in order. */
  public List<String> notices() {
    return List.copyOf(notices);
  }

  @Override
  public TaskProcess startPiped(StartSpec spec) throws IOException {
    JobProcess p = start(spec);
    return new TaskProcess(
        p,
        new ByteArrayOutputStream(),
        new ByteArrayInputStream(new byte[0]),
        new ByteArrayInputStream(new byte[0]));
  }

  /** A session that lives on from an earlier mom process, for {@link #reattach} to find. */
  public JobProcess survivor(long launchedMillis) {
    long pid = pids.incrementAndGet();
    JobProcess p = new JobProcess(pid, pid * 7, launchedMillis, new CompletableFuture<>());
    alive.put(pid, p);
    return p;
  }

  @Override
  public Optional<JobProcess> reattach(long pid, long identity, long launchedMillis) {
    return Optional.ofNullable(alive.get(pid)).filter(p -> p.identity() == identity);
  }

  @Override
  public void signalJob(long sessionId, int signal) {
    Sent sent = new Sent(sessionId, signal);
    signals.add(sent);
    listeners.forEach(l -> l.accept(sent));
  }

  /** Any script the test wrote there, whoever owns it and whatever its permissions. */
  @Override
  public Optional<Path> siteScript(Path directory, String name, boolean forOwner) {
    Path script = directory.resolve(name);
    return Files.isRegularFile(script) ? Optional.of(script) : Optional.empty();
  }

  @Override
  public boolean anyAlive(long sessionId) {
    return alive.containsKey(sessionId);
  }

  /**
   * The session's starter ends, having written {@code statusLine} ({@code exit 0 0 0}, {@code
   * signal 15 0 0}) to its status file, or nothing when it is null.
   */
  public void exit(JobProcess process, Path statusFile, String statusLine) {
    if (statusLine != null) {
      try {
        Files.writeString(statusFile, statusLine + "\n");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    alive.remove(process.pid());
    process.exited().complete(null);
  }

  /** The {@code n}th start (from 0), once it has happened. */
  public Started started(int n) {
    return started.get(n);
  }

  public List<Started> starts() {
    return List.copyOf(started);
  }

  public List<Sent> signals() {
    return List.copyOf(signals);
  }

  /** The signals sent to {@code session}, in order. */
  public List<Integer> signalsTo(long session) {
    return signals.stream().filter(s -> s.session() == session).map(Sent::signal).toList();
  }
}
