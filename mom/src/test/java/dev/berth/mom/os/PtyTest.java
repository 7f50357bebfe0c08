package dev.berth.mom.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.mom.job.StarterStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Interactive jobs for real: a shell started by berth-starter --terminal as the user nobody on the
 * slave of a {@link Pty}, driven through the master as the mom relays a user's terminal. Every test
 * closes its terminals and kills what is left of the jobs' sessions afterwards.
 */
class PtyTest {
  private static final Path STARTER = LinuxLauncherTest.STARTER;
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  @TempDir Path dir;
  private LinuxLauncher launcher;
  private UserInfo nobody;
  private final List<Pty> ptys = new ArrayList<>();
  private final List<JobProcess> started = new ArrayList<>();

  /** A job on a terminal, and everything it wrote to the terminal so far. */
  private final class Session {
    final Pty pty;
    final JobProcess process;
    final StringBuilder output = new StringBuilder();

    /** What the reader's last read returned: -1 once the terminal gave its end. */
    final CompletableFuture<Integer> end = new CompletableFuture<>();

    Session(Pty pty, JobProcess process) {
      this.pty = pty;
      this.process = process;
      Thread reader = new Thread(this::read, "pty-reader");
      reader.setDaemon(true);
      reader.start();
    }

    private void read() {
      byte[] buf = new byte[4096];
      try {
        int n;
        while ((n = pty.read(buf, 0, buf.length)) > 0) {
          synchronized (output) {
            output.append(new String(buf, 0, n, StandardCharsets.UTF_8));
          }
        }
        end.complete(n);
      } catch (IOException e) {
        end.completeExceptionally(e);
      }
    }

    String output() {
      synchronized (output) {
        return output.toString();
      }
    }

    void awaitOutput(String text) {
      assertTrue(
          ProcessSessions.await(TIMEOUT, () -> output().contains(text)),
          "no '" + text + "' in the terminal's output: '" + output() + "'");
    }

    void type(String keys) throws IOException {
      byte[] bytes = keys.getBytes(StandardCharsets.UTF_8);
      pty.write(bytes, 0, bytes.length);
    }

    /** The job's shell: the starter's child, which leads a process group of its own. */
    long shell() {
      long[] found = {-1};
      assertTrue(
          ProcessSessions.await(
              TIMEOUT,
              () -> {
                found[0] = jobSession(process);
                return found[0] > 0;
              }),
          "the job never got a process group of its own");
      return found[0];
    }

    StarterStatus status() throws Exception {
      process.exited().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      return StarterStatus.parse(Files.readString(dir.resolve("status")));
    }
  }

  @BeforeEach
  void setUp() {
    launcher = new LinuxLauncher(STARTER);
    nobody =
        new LinuxUsers(STARTER.resolveSibling(NativeLibrary.FILE)).user("nobody").orElseThrow();
  }

  @AfterEach
  void cleanUp() throws Exception {
    ptys.forEach(Pty::close);
    for (JobProcess p : started) {
      ProcessSessions.kill(p.pid());
      p.exited().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }
  }

  /** The starter's child once it leads its own process group (the job's), or -1. */
  private static long jobSession(JobProcess p) {
    return ProcessHandle.of(p.pid()).stream()
        .flatMap(ProcessHandle::children)
        .mapToLong(ProcessHandle::pid)
        .filter(pid -> ProcessSessions.processGroup(pid) == pid)
        .findFirst()
        .orElse(-1);
  }

  private Pty open() throws IOException {
    Pty pty = Pty.open();
    ptys.add(pty);
    return pty;
  }

  private StartSpec spec(Pty pty, String command) {
    return new StartSpec(
        nobody,
        nobody.gid(),
        Path.of("/"),
        null,
        null,
        null,
        false,
        null,
        List.of(),
        dir.resolve("status"),
        null,
        List.of("/bin/sh", "-c", command),
        Map.of("PATH", "/usr/bin:/bin"),
        false,
        false,
        null,
        null,
        null,
        pty.slave(),
        ProcessLimits.NONE);
  }

  private Session start(Pty pty, StartSpec spec) throws IOException {
    JobProcess p = launcher.start(spec);
    started.add(p);
    return new Session(pty, p);
  }

  private Session start(String command) throws IOException {
    Pty pty = open();
    return start(pty, spec(pty, command));
  }

  @Test
  void aShellOnTheTerminalSeesItsSizeReadsWhatIsTypedAndEndsTheOutput() throws Exception {
    Pty pty = open();
    pty.resize(33, 101);
    Session job = start(pty, spec(pty, "tty; stty size; read line; echo got:$line; exit 7"));
    job.awaitOutput("33 101\r\n");
    assertEquals(pty.slave() + "\r\n33 101\r\n", job.output(), "tty names the slave");

    job.type("hello\n");

    job.awaitOutput("got:hello\r\n");
    assertEquals(7, job.status().exitStatus());
    assertEquals(-1, job.end.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS), "the end once it ended");
  }

  @Test
  void theTerminalBelongsToTheJobsOwnerWhileTheJobRuns() throws Exception {
    Session job = start("echo ready; read line");
    job.awaitOutput("ready\r\n");
    Path slave = job.pty.slave();
    assertEquals(nobody.uid(), Files.getAttribute(slave, "unix:uid", LinkOption.NOFOLLOW_LINKS));
    int tty =
        new LinuxUsers(STARTER.resolveSibling(NativeLibrary.FILE))
            .groupId("tty")
            .orElse(0); // without a tty group the slave keeps root's
    assertEquals(tty, Files.getAttribute(slave, "unix:gid", LinkOption.NOFOLLOW_LINKS));
    assertEquals(
        "rw--w----",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(slave)),
        "others can neither read nor type into the job's terminal");
    long shell = job.shell();
    assertEquals(shell, ProcessSessions.processGroup(shell), "the job's process group is its pid");
    assertEquals(
        job.process.pid(),
        ProcTable.session(Path.of("/proc", Long.toString(shell), "stat")),
        "the job stays in the starter's session, where the mom signals it");

    job.type("\n");
    assertEquals(0, job.status().exitStatus());
  }

  @Test
  void aTerminalThatPassesInputNeitherEchoesNorSignalsNorAddsCarriageReturns() throws Exception {
    Pty pty = open();
    pty.passInput();
    Session job = start(pty, spec(pty, "cat; echo end"));
    job.type("a\u0003b\nc\n\u0004");
    job.awaitOutput("end\n");
    assertEquals("a\u0003b\nc\nend\n", job.output(), "only what cat wrote, as it wrote it");
    assertEquals(0, job.status().exitStatus(), "Ctrl-C was a byte, Ctrl-D the end of input");
  }

  @Test
  void ctrlCInterruptsTheForegroundJob() throws Exception {
    Session job = start("sleep 600");
    job.shell();
    assertTrue(
        ProcessSessions.await(TIMEOUT, () -> ProcessSessions.runs(job.process.pid(), "sleep")),
        "no sleep");

    job.type("\u0003");

    StarterStatus s = job.status();
    assertEquals(StarterStatus.Kind.SIGNAL, s.kind());
    assertEquals(2, s.value(), "SIGINT");
  }

  @Test
  void closingTheTerminalEndsABlockedReadAndTheMomsHangupEndsTheJob() throws Exception {
    Session job = start("echo ready; sleep 600");
    job.awaitOutput("ready\r\n");
    long session = job.process.pid();
    List<Long> sleeps = new ArrayList<>();
    assertTrue(
        ProcessSessions.await(
            TIMEOUT, () -> sleeps.addAll(ProcessSessions.running(session, "sleep"))),
        "no sleep");
    assertTrue(!job.end.isDone(), "the reader waits for more output");

    job.pty.close();
    job.pty.close(); // again: nothing more happens

    assertEquals(-1, job.end.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
    // the kernel tells only the session's leader (the starter, which ignores it): the mom hangs up
    // the job's processes itself, through the session it signals every job by
    launcher.signalJob(session, 1);
    StarterStatus s = job.status();
    assertEquals(StarterStatus.Kind.SIGNAL, s.kind());
    assertEquals(1, s.value(), "SIGHUP");
    assertTrue(
        ProcessSessions.await(TIMEOUT, () -> sleeps.stream().noneMatch(ProcessSessions::alive)),
        "the hangup reached every process of the job");
    byte[] keys = {'x'};
    assertThrows(IOException.class, () -> job.pty.write(keys, 0, 1));
    assertEquals(-1, job.pty.read(new byte[1], 0, 1));
  }

  @Test
  void theSessionOnTheTerminalIsTaggedWithTheJobId() throws Exception {
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path file = Files.writeString(dir.resolve("jobid_this_session"), ""); // nobody reads it
    Pty pty = open();
    StartSpec plain = spec(pty, "cat " + file);
    Session job =
        start(
            pty,
            new StartSpec(
                plain.user(),
                plain.gid(),
                plain.workingDirectory(),
                null,
                null,
                null,
                false,
                null,
                List.of(),
                plain.statusFile(),
                null,
                plain.command(),
                plain.environment(),
                false,
                false,
                null,
                null,
                new SessionJobId(file, "42.server"),
                pty.slave(),
                ProcessLimits.NONE));
    assertEquals(0, job.status().exitStatus(), job.output());
    job.awaitOutput("42.server\r\n");
  }

  @Test
  void aTerminalTakesNeitherAScriptNorOutputFiles() throws Exception {
    Pty pty = open();
    StartSpec plain = spec(pty, "true");
    StartSpec withScript =
        new StartSpec(
            plain.user(),
            plain.gid(),
            plain.workingDirectory(),
            "echo hi\n".getBytes(StandardCharsets.UTF_8),
            null,
            null,
            false,
            null,
            List.of(),
            plain.statusFile(),
            null,
            plain.command(),
            plain.environment(),
            false,
            false,
            null,
            null,
            null,
            pty.slave(),
            ProcessLimits.NONE);
    StarterStatus s = start(pty, withScript).status();
    assertEquals(StarterStatus.Kind.FAILED, s.kind());
    assertTrue(s.message().contains("--terminal takes no script"), s.message());

    Pty another = open();
    StartSpec withOutput =
        new StartSpec(
            plain.user(),
            plain.gid(),
            plain.workingDirectory(),
            null,
            dir.resolve("out"),
            null,
            true,
            null,
            List.of(),
            plain.statusFile(),
            null,
            plain.command(),
            plain.environment(),
            false,
            false,
            null,
            null,
            null,
            another.slave(),
            ProcessLimits.NONE);
    s = start(another, withOutput).status();
    assertEquals(StarterStatus.Kind.FAILED, s.kind());
    assertTrue(s.message().contains("--terminal"), s.message());
    assertTrue(!Files.exists(dir.resolve("out")));
  }
}
