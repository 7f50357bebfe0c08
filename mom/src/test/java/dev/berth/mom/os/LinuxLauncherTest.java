package dev.berth.mom.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.Signals;
import dev.berth.mom.job.StarterStatus;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * berth-starter run for real through LinuxLauncher (the tests run as root on Linux). Every test
 * starts short-lived processes and kills whatever is left of its sessions afterwards.
 */
class LinuxLauncherTest {
  static final Path STARTER = Path.of("target/native/berth-starter").toAbsolutePath();
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  @TempDir Path dir;
  private LinuxLauncher launcher;
  private final List<JobProcess> started = new ArrayList<>();

  /**
   * What to start; the defaults run {@code script} with /bin/sh as the test's own user (no script:
   * the program reads what follows the starter's input on its stdin).
   */
  private final class Spec {
    UserInfo user;
    int gid;
    Path cwd = dir;
    Path stdout = dir.resolve("out");
    Path stderr = dir.resolve("err");
    boolean join;
    String umask;
    String argv0;
    List<String> command = List.of("/bin/sh");
    Map<String, String> env = Map.of("PATH", "/usr/bin:/bin");
    SessionJobId tag;
    ProcessLimits limits = ProcessLimits.NONE;

    final byte[] script;

    Spec(String script) {
      this.script =
          script == null ? null : (script + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    StartSpec spec() {
      return new StartSpec(
          user,
          gid,
          cwd,
          script,
          stdout,
          stderr,
          join,
          umask,
          List.of(),
          dir.resolve("status"),
          argv0,
          command,
          env,
          false,
          false,
          null,
          null,
          tag,
          null,
          limits);
    }

    JobProcess start() throws IOException {
      JobProcess p = launcher.start(spec());
      started.add(p);
      return p;
    }
  }

  @BeforeEach
  void setUp() {
    launcher = new LinuxLauncher(STARTER);
  }

  @AfterEach
  void killLeftovers() throws Exception {
    for (JobProcess p : started) {
      ProcessSessions.kill(p.pid());
      p.exited().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }
  }

  private StarterStatus run(Spec spec) throws Exception {
    spec.start().exited().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    return StarterStatus.parse(status());
  }

  private String status() throws IOException {
    return Files.readString(dir.resolve("status"));
  }

  /** Whether file {@code name} exists and holds exactly {@code text}. */
  private boolean holds(String name, String text) {
    try {
      return Files.exists(dir.resolve(name)) && read(name).equals(text);
    } catch (IOException e) {
      return false;
    }
  }

  private String read(String name) throws IOException {
    return Files.readString(dir.resolve(name));
  }

  @Test
  void refusesAMissingStarter() {
    assertThrows(IllegalArgumentException.class, () -> new LinuxLauncher(dir.resolve("none")));
  }

  /**
   * On a node of two CPUs, as here, Process.onExit() started a thread for every process it waited
   * for; a busy node ends a hundred jobs a second.
   */
  @Test
  void waitingForJobsStartsNoThreadForEach() throws Exception {
    assertEquals(0, run(new Spec("true")).exitStatus());
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long before = threads.getTotalStartedThreadCount();
    for (int i = 0; i < 20; i++) {
      assertEquals(0, run(new Spec("true")).exitStatus());
    }
    long started = threads.getTotalStartedThreadCount() - before;
    assertTrue(started < 5, started + " threads started for 20 jobs one after the other");
  }

  @Test
  void recordsTheExitCode() throws Exception {
    StarterStatus s = run(new Spec("exit 7"));
    assertEquals(StarterStatus.Kind.EXIT, s.kind());
    assertEquals(7, s.exitStatus());
    assertTrue(status().matches("exit 7 \\d+ \\d+\n"), status());
  }

  @Test
  void recordsTheSignalThatKilledTheJob() throws Exception {
    StarterStatus s = run(new Spec("kill -9 $$"));
    assertTrue(status().matches("signal 9 \\d+ \\d+\n"), status());
    assertEquals(265, s.exitStatus());
  }

  @Test
  void theScriptIsAFileArgumentAndTheEnvironmentIsExactlyTheGivenOne() throws Exception {
    Files.createDirectory(dir.resolve("work"));
    Spec spec =
        new Spec("echo \"$0 $FOO ${HOME-unset}\"\ntr '\\0' ' ' < /proc/$$/cmdline; echo\npwd");
    spec.env = Map.of("PATH", "/usr/bin:/bin", "FOO", "bar");
    spec.argv0 = "berth-job";
    spec.cwd = dir.resolve("work");
    assertEquals(0, run(spec).exitStatus());
    assertTrue(
        read("out")
            .matches(
                "/dev/fd/\\d+ bar unset\nberth-job /dev/fd/\\d+ \n" + dir.resolve("work") + "\n"),
        read("out"));
  }

  /**
   * A mom started in a shell's background inherits SIGINT and SIGQUIT ignored, a thread may spawn
   * with signals blocked, and exec keeps both: the job must start with none of the standard signals
   * ignored or blocked whatever started the starter. Here it is started by a program that blocks
   * signals 1-31 and ignores SIGINT and SIGQUIT first. The job reads its own mask ({@code exec}, so
   * /proc/self is the job's first process): a shell's mask, read by its child, shows what the shell
   * blocks for a moment around each fork (dash blocks every signal there), not what it started
   * with. Signals 32 and 33 are the C library's own, which it sets up in every program.
   */
  @Test
  void theJobStartsWithNoSignalIgnoredOrBlocked() throws Exception {
    Path blocking = dir.resolve("blocking-starter");
    Files.writeString(
        blocking,
        "#!/usr/bin/perl\n"
            + "use POSIX;\n"
            + "sigprocmask(SIG_BLOCK, POSIX::SigSet->new(1 .. 31)) or die \"sigprocmask: $!\";\n"
            + "$SIG{INT} = $SIG{QUIT} = 'IGNORE';\n"
            + "exec {'"
            + STARTER
            + "'} '"
            + STARTER
            + "', @ARGV or die \"exec: $!\";\n");
    Files.setPosixFilePermissions(blocking, PosixFilePermissions.fromString("rwxr-xr-x"));
    launcher = new LinuxLauncher(blocking);
    assertEquals(
        0, run(new Spec("exec grep -E '^Sig(Ign|Blk)' /proc/self/status")).exitStatus(), status());
    String[] lines = read("out").split("\n");
    assertEquals(2, lines.length, read("out"));
    for (String line : lines) {
      long mask = Long.parseUnsignedLong(line.substring(line.indexOf('\t') + 1), 16);
      assertEquals(0, mask & 0x7fffffffL, line + ": none of signals 1-31");
    }
  }

  @Test
  void theJobsEnvironmentNeverReachesTheRootStarter() throws Exception {
    Spec spec = new Spec("echo $FOO; sleep 2");
    spec.env = Map.of("PATH", "/usr/bin:/bin", "FOO", "job", "LD_PRELOAD", "/nonexistent.so");
    JobProcess p = spec.start();
    assertTrue(ProcessSessions.await(TIMEOUT, () -> holds("out", "job\n")), "the job never wrote");
    String starter = Files.readString(Path.of("/proc", Long.toString(p.pid()), "environ"));
    assertEquals("PATH=/usr/sbin:/usr/bin:/sbin:/bin\0", starter);
    try (var files = Files.list(dir)) {
      assertEquals(
          java.util.Set.of("out", "err"),
          files.map(f -> f.getFileName().toString()).collect(java.util.stream.Collectors.toSet()),
          "the environment and the script reach the starter on its stdin, never as a file");
    }
  }

  @Test
  void aProgramWithoutAScriptReadsWhatFollowsTheStartersInput() throws Exception {
    Spec cat = new Spec(null);
    cat.command = List.of("/bin/sh", "-c", "cat; echo \"$FOO\"");
    cat.env = Map.of("PATH", "/usr/bin:/bin", "FOO", "job");
    cat.stdout = null;
    cat.stderr = null;
    TaskProcess p = launcher.startPiped(cat.spec());
    started.add(p.process());
    try (var stdin = p.stdin()) {
      stdin.write("the task's own input\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    assertEquals(
        "the task's own input\njob\n",
        new String(p.stdout().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
    p.process().exited().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    assertEquals(0, StarterStatus.parse(status()).exitStatus(), status());
  }

  @Test
  void anEnvironmentThatCannotBeOneIsRefused() throws Exception {
    Spec spec = new Spec("true");
    spec.env = Map.of("PATH", "/usr/bin:/bin", "A=B", "x");
    IOException refused = assertThrows(IOException.class, spec::start);
    assertEquals("'A=B' is not a valid environment variable name", refused.getMessage());
  }

  @Test
  void aCommandReadingStdinCannotEatTheRestOfTheScript() throws Exception {
    assertEquals(0, run(new Spec("cat\necho after")).exitStatus());
    assertEquals("after\n", read("out"));
  }

  @Test
  void outputAndErrorGoToTheirFiles() throws Exception {
    assertEquals(0, run(new Spec("echo out; echo err >&2")).exitStatus());
    assertEquals("out\n", read("out"));
    assertEquals("err\n", read("err"));
  }

  @Test
  void joinSendsErrorToTheOutputFile() throws Exception {
    Spec spec = new Spec("echo out; echo err >&2");
    spec.join = true;
    assertEquals(0, run(spec).exitStatus());
    assertEquals("out\nerr\n", read("out"));
    assertFalse(Files.exists(dir.resolve("err")));
  }

  @Test
  void theSessionIsTaggedWithTheJobIdBeforeTheJobRuns() throws Exception {
    Path file = Files.writeString(dir.resolve("jobid_this_session"), "");
    Spec spec = new Spec("cat " + file);
    spec.tag = new SessionJobId(file, "42.server");
    assertEquals(0, run(spec).exitStatus());
    assertEquals("42.server\n", read("out"));
  }

  @Test
  void aSessionThatCannotBeTaggedCostsTheJobOnlyTheTag() throws Exception {
    Path missing = dir.resolve("no-lustre/jobid_this_session");
    Spec spec = new Spec("echo ran");
    spec.tag = new SessionJobId(missing, "42.server");
    assertEquals(0, run(spec).exitStatus());
    assertEquals("ran\n", read("out"));
    assertEquals(
        "berth: cannot tag the session with job id 42.server in "
            + missing
            + ": No such file or directory\n",
        read("err"));
  }

  @Test
  void aMissingWorkingDirectoryFailsTheLaunchAndTellsTheUser() throws Exception {
    Spec spec = new Spec("echo should not run");
    spec.cwd = dir.resolve("nope");
    StarterStatus s = run(spec);
    assertEquals(StarterStatus.Kind.FAILED, s.kind());
    assertEquals(-1, s.exitStatus());
    assertTrue(s.message().contains("working directory"), s.message());
    assertTrue(read("err").contains("cannot change to the working directory"), read("err"));
    assertEquals("", read("out"));
  }

  @Test
  void aMissingProgramFailsTheLaunch() throws Exception {
    Spec spec = new Spec("true");
    spec.command = List.of(dir.resolve("no-shell").toString());
    StarterStatus s = run(spec);
    assertEquals(StarterStatus.Kind.FAILED, s.kind());
    assertTrue(s.message().contains("cannot run"), s.message());
  }

  @Test
  void aBadOptionIsReportedInTheStatusFile() throws Exception {
    Spec spec = new Spec("true");
    spec.umask = "9z";
    StarterStatus s = run(spec);
    assertEquals(StarterStatus.Kind.FAILED, s.kind());
    assertTrue(s.message().contains("--umask"), s.message());
  }

  @Test
  void runsAsTheUserWithTheirGroupsAndUmask() throws Exception {
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
    UserInfo nobody =
        new LinuxUsers(STARTER.resolveSibling(NativeLibrary.FILE)).user("nobody").orElseThrow();
    assertEquals(65534, nobody.uid());
    Spec spec = new Spec("id -un; id -u; id -G");
    spec.user = nobody;
    spec.gid = nobody.gid();
    spec.umask = "077";
    assertEquals(0, run(spec).exitStatus(), status());
    assertEquals(
        "nobody\n65534\n" + nobody.groups().get(0) + "\n", read("out"), "no root groups kept");
    Path out = dir.resolve("out");
    assertEquals(65534, Files.getAttribute(out, "unix:uid", LinkOption.NOFOLLOW_LINKS));
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(out)));
  }

  /** The limits as the job's owner sees them, and not able to raise them. */
  @Test
  void theJobStartsWithItsLimitsAndNiceValueAndCannotRaiseThem() throws Exception {
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
    UserInfo nobody =
        new LinuxUsers(STARTER.resolveSibling(NativeLibrary.FILE)).user("nobody").orElseThrow();
    Spec spec =
        new Spec(
            "ulimit -t; ulimit -f; ulimit -v; ulimit -m; cut -d' ' -f19 /proc/self/stat\n"
                + "ulimit -t 100 2>/dev/null || echo cannot raise\n"
                + "renice -n -1 -p $$ >/dev/null 2>&1 || echo cannot renice");
    spec.user = nobody;
    spec.gid = nobody.gid();
    spec.limits = new ProcessLimits(7, 2048 * 512, 300L << 20, 200L << 20, 17);
    assertEquals(0, run(spec).exitStatus(), status() + read("err"));
    // ulimit -f counts 512-byte blocks, -v and -m kilobytes; field 19 of stat is the nice value
    assertEquals(
        "7\n2048\n307200\n204800\n17\ncannot raise\ncannot renice\n", read("out"), read("err"));
  }

  @Test
  void aProcessOverItsCpuOrFileLimitIsStoppedByTheKernel() throws Exception {
    Spec cpu = new Spec("exec sh -c 'while :; do :; done'");
    cpu.limits = new ProcessLimits(1, 0, 0, 0, -1);
    StarterStatus s = run(cpu);
    assertEquals(StarterStatus.Kind.SIGNAL, s.kind(), status());
    assertEquals(256 + 24, s.exitStatus(), "SIGXCPU");
    Spec file = new Spec("exec head -c 4096 /dev/zero > big");
    file.limits = new ProcessLimits(0, 1024, 0, 0, -1);
    s = run(file);
    assertEquals(256 + 25, s.exitStatus(), "SIGXFSZ: " + status());
    assertEquals(1024, Files.size(dir.resolve("big")));
  }

  @Test
  void anAllocationOverTheAddressSpaceFailsAndOneUnderItDoesNot() throws Exception {
    Spec small = new Spec("exec python3 -c 'b = bytearray(20 << 20)'");
    small.limits = new ProcessLimits(0, 0, 100L << 20, 0, -1);
    assertEquals(0, run(small).exitStatus(), status() + read("err"));
    Spec big = new Spec("exec python3 -c 'b = bytearray(200 << 20)'");
    big.limits = new ProcessLimits(0, 0, 100L << 20, 0, -1);
    StarterStatus s = run(big);
    assertEquals(1, s.exitStatus(), status());
    assertTrue(read("err").contains("MemoryError"), read("err"));
  }

  @Test
  void anOutputPathThatIsASymbolicLinkIsRefused() throws Exception {
    Path precious = Files.writeString(dir.resolve("precious"), "keep me\n");
    Files.createSymbolicLink(dir.resolve("out"), precious);
    StarterStatus s = run(new Spec("echo overwritten"));
    assertEquals(StarterStatus.Kind.FAILED, s.kind());
    assertTrue(s.message().contains("cannot open output file"), s.message());
    assertEquals("keep me\n", Files.readString(precious));
  }

  @Test
  void signalJobReachesAChildThatLeftTheJobsProcessGroup() throws Exception {
    Path bgPid = dir.resolve("bg.pid");
    Spec spec =
        new Spec(
            "set -m\nsleep 100 &\necho $! > "
                + bgPid
                + ".tmp\nmv "
                + bgPid
                + ".tmp "
                + bgPid
                + "\nwait");
    spec.command = List.of("/bin/bash");
    JobProcess p = spec.start();
    assertTrue(ProcessSessions.await(TIMEOUT, () -> Files.exists(bgPid)), "the job never started");
    long bg = Long.parseLong(Files.readString(bgPid).strip());
    long shell =
        ProcessSessions.members(p.pid()).stream()
            .filter(pid -> pid != p.pid() && pid != bg)
            .findFirst()
            .orElseThrow();
    assertNotEquals(ProcessSessions.processGroup(shell), ProcessSessions.processGroup(bg));
    assertTrue(ProcessSessions.members(p.pid()).contains(bg), "the child is still in the session");

    launcher.signalJob(p.pid(), Signals.SIGKILL);

    p.exited().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    assertTrue(status().startsWith("signal 9 "), status());
    assertTrue(
        ProcessSessions.await(TIMEOUT, () -> !ProcessSessions.alive(bg)),
        "the background child lives");
  }

  @Test
  void reattachFindsARunningStarterByPidAndIdentity() throws Exception {
    JobProcess p = new Spec("sleep 100").start();
    // starter, the shell and its sleep: signal only once the sleep exists, or it would be
    // forked after the signal and outlive the test
    assertTrue(ProcessSessions.await(TIMEOUT, () -> ProcessSessions.members(p.pid()).size() == 3));

    assertTrue(p.identity() > 0, "identity " + p.identity());
    Optional<JobProcess> again = launcher.reattach(p.pid(), p.identity(), p.launchedMillis());
    assertTrue(again.isPresent());
    assertEquals(p.pid(), again.get().pid());
    assertEquals(p.launchedMillis(), again.get().launchedMillis());
    assertTrue(launcher.reattach(p.pid(), p.identity() + 1, p.launchedMillis()).isEmpty());
    assertTrue(launcher.reattach(Integer.MAX_VALUE, p.identity(), 0).isEmpty());

    launcher.signalJob(p.pid(), Signals.SIGTERM);
    again.get().exited().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    assertEquals(256 + 15, StarterStatus.parse(status()).exitStatus(), status());
    assertTrue(ProcessSessions.await(TIMEOUT, () -> !launcher.anyAlive(p.pid())));
  }

  @Test
  void nothingIsAliveInASessionThatEnded() throws Exception {
    JobProcess p = new Spec("exit 0").start();
    p.exited().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    assertFalse(launcher.anyAlive(p.pid()));
    launcher.signalJob(p.pid(), Signals.SIGKILL); // nothing to signal: no error
  }
}
