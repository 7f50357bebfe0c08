package dev.berth.mom.os;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Starts job processes with berth-starter (see mom/src/main/c) and signals whole jobs: the job's
 * session is found in /proc, so children that left the job's process group are reached too.
 * Processes that start their own session escape this; cgroups (when the job has cgroup_enable)
 * catch those.
 */
public final class LinuxLauncher implements Launcher {
  /**
   * Threads that wait for started processes to end, reused from job to job. {@code
   * Process.onExit()} would complete on a thread of its own for every process on a machine of two
   * CPUs or fewer: it completes through CompletableFuture's default executor, which starts a thread
   * per task when the common pool has fewer than two workers.
   */
  private static final ExecutorService WAITERS =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "berth-process-wait");
            t.setDaemon(true);
            return t;
          });

  private final Path starter;
  private final ProcTable proc = new ProcTable(Path.of("/proc"));

  public LinuxLauncher(Path starter) {
    if (!Files.isExecutable(starter)) {
      throw new IllegalArgumentException(
          "the job starter " + starter + " is missing or not executable (build the mom module)");
    }
    this.starter = starter;
    NativeLibrary.load(starter.resolveSibling(NativeLibrary.FILE));
  }

  @Override
  public JobProcess start(StartSpec spec) throws IOException {
    byte[] input = input(spec);
    ProcessBuilder pb = builder(spec);
    // The starter reports through its status file; its own output is at most a line saying that
    // it cannot write that file, which the missing status tells the mom anyway. A log file for it
    // beside the status, made and removed with every job, was read by no one.
    pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
    pb.redirectErrorStream(true);
    long launched = System.currentTimeMillis();
    Process p = pb.start();
    send(p.getOutputStream(), input);
    close(p.getOutputStream());
    return handle(p, launched);
  }

  @Override
  public TaskProcess startPiped(StartSpec spec) throws IOException {
    byte[] input = input(spec);
    long launched = System.currentTimeMillis();
    Process p = builder(spec).start();
    send(p.getOutputStream(), input);
    return new TaskProcess(
        handle(p, launched), p.getOutputStream(), p.getInputStream(), p.getErrorStream());
  }

  /**
   * The starter's input on its stdin (see berth-starter.c): a line with the sizes of the
   * environment and the script (-1: none), the job's environment as NUL-separated NAME=VALUE
   * entries, the script. Files for them, made and removed with every job, cost more than the job on
   * a busy node.
   */
  private static byte[] input(StartSpec spec) throws IOException {
    ByteArrayOutputStream env = new ByteArrayOutputStream();
    try {
      for (var e : spec.environment().entrySet()) {
        env.writeBytes(
            Environment.entry(e.getKey(), e.getValue()).getBytes(StandardCharsets.UTF_8));
        env.write(0);
      }
    } catch (IllegalArgumentException e) {
      throw new IOException(e.getMessage(), e);
    }
    byte[] script = spec.script();
    String header = env.size() + " " + (script == null ? -1 : script.length) + "\n";
    ByteArrayOutputStream input = new ByteArrayOutputStream();
    input.writeBytes(header.getBytes(StandardCharsets.US_ASCII));
    env.writeTo(input);
    if (script != null) {
      input.writeBytes(script);
    }
    return input.toByteArray();
  }

  /**
   * Hands the starter its input. A starter that stopped before reading it all has written why to
   * its status file, which is what the mom reads: the broken pipe adds nothing.
   */
  private static void send(OutputStream stdin, byte[] input) {
    try {
      stdin.write(input);
      stdin.flush();
    } catch (IOException e) {
      // the starter's status says why it stopped
    }
  }

  /**
   * Closes the starter's stdin, whose buffer still holds the input if the starter stopped before
   * reading it: closing then flushes into a pipe the JDK has already closed as the process exited
   * ("Stream closed"), which, as in send, the starter's status explains.
   */
  private static void close(OutputStream stdin) {
    try {
      stdin.close();
    } catch (IOException e) {
      // the starter's status says why it stopped
    }
  }

  private JobProcess handle(Process p, long launched) {
    CompletableFuture<Void> exited = CompletableFuture.runAsync(() -> waitFor(p), WAITERS);
    return new JobProcess(p.pid(), identity(p.pid()), launched, exited);
  }

  private static void waitFor(Process p) {
    boolean interrupted = false;
    while (true) {
      try {
        p.waitFor();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private ProcessBuilder builder(StartSpec spec) {
    List<String> argv = new ArrayList<>();
    argv.add(starter.toString());
    argv.addAll(List.of("--status", spec.statusFile().toString()));
    if (spec.user() != null) {
      argv.addAll(List.of("--uid", Integer.toString(spec.user().uid())));
      argv.addAll(List.of("--gid", Integer.toString(spec.gid())));
      if (!spec.user().groups().isEmpty()) {
        argv.addAll(
            List.of(
                "--groups",
                spec.user().groups().stream()
                    .map(String::valueOf)
                    .collect(Collectors.joining(","))));
      }
    }
    option(argv, "--cwd", spec.workingDirectory());
    option(argv, "--terminal", spec.terminal());
    option(argv, "--stdout", spec.stdout());
    if (spec.joinStderr()) {
      argv.add("--join");
    } else {
      option(argv, "--stderr", spec.stderr());
    }
    if (spec.umask() != null && !spec.umask().isEmpty()) {
      argv.addAll(List.of("--umask", spec.umask()));
    }
    for (Path procs : spec.cgroupProcs()) {
      option(argv, "--cgroup", procs);
    }
    if (spec.argv0() != null) {
      argv.addAll(List.of("--argv0", spec.argv0()));
    }
    if (spec.append()) {
      argv.add("--append");
    }
    if (spec.searchPath()) {
      argv.add("--search-path");
    }
    if (spec.hostname() != null) {
      argv.addAll(List.of("--hostname", spec.hostname()));
    }
    argv.addAll(spec.limits().starterOptions());
    if (spec.sessionJobId() != null) {
      option(argv, "--jobid-file", spec.sessionJobId().file());
      argv.addAll(List.of("--jobid", spec.sessionJobId().jobId()));
    }
    if (spec.container() != null) {
      argv.addAll(spec.container().options());
    }
    argv.add("--");
    argv.addAll(spec.command());
    ProcessBuilder pb = new ProcessBuilder(argv);
    // The starter runs as root: nothing of the job's environment (LD_PRELOAD, LD_LIBRARY_PATH,
    // GCONV_PATH, ...) may reach it. It installs the job's own only after dropping privileges.
    pb.environment().clear();
    pb.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
    return pb;
  }

  @Override
  public Optional<JobProcess> reattach(long pid, long identity, long launchedMillis) {
    return ProcessHandle.of(pid)
        .filter(h -> identity(pid) == identity)
        .map(h -> new JobProcess(pid, identity, launchedMillis, h.onExit().thenApply(x -> null)));
  }

  /**
   * The kernel's start time of the process, in clock ticks since boot: fixed for the life of the
   * process. (ProcessHandle.Info.startInstant() derives a wall-clock time from the boot time in
   * /proc/stat, which moves when the clock is stepped, e.g. by NTP or a leap second; a restarted
   * mom would then no longer recognise its jobs.)
   */
  private long identity(long pid) {
    return proc.startTicks(pid);
  }

  @Override
  public void signalJob(long sessionId, int signal) {
    List<Long> pids = proc.inSession(sessionId);
    pids.remove(Long.valueOf(sessionId));
    if (pids.isEmpty()) {
      return;
    }
    List<String> argv = new ArrayList<>(List.of("kill", "-" + signal));
    pids.forEach(p -> argv.add(Long.toString(p)));
    try {
      Process kill = new ProcessBuilder(argv).redirectErrorStream(true).start();
      kill.getInputStream().readAllBytes(); // some pids may be gone already; that is fine
      kill.waitFor(10, TimeUnit.SECONDS);
    } catch (IOException e) {
      throw new IllegalStateException("cannot run kill: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public boolean anyAlive(long sessionId) {
    List<Long> pids = proc.inSession(sessionId);
    pids.remove(Long.valueOf(sessionId));
    return !pids.isEmpty();
  }

  private static void option(List<String> argv, String flag, Path value) {
    if (value != null) {
      argv.add(flag);
      argv.add(value.toString());
    }
  }
}
