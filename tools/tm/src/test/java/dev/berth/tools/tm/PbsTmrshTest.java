package dev.berth.tools.tm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.TmSpawn;
import dev.berth.tools.tm.FakeTm.Script;
import dev.berth.tools.tm.TmProcess.Result;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PbsTmrshTest {
  @TempDir Path dir;
  private FakeTm tm;

  @AfterEach
  void stop() throws Exception {
    if (tm != null) {
      tm.close();
    }
  }

  /** A job on n1 (vnodes 0-1) and n2.cluster.org (vnodes 2-3). */
  private void job(Function<TmSpawn, Script> scripts) throws Exception {
    tm = FakeTm.start(dir, FakeTm.job("n1:2", "n2.cluster.org:2"), scripts);
  }

  private Map<String, String> env() {
    return Map.of("BERTH_TM_SOCKET", tm.socket().toString(), "SHELL", "/bin/bash");
  }

  /** pbs_tmrsh ARGS with this stdin. */
  private Result fed(String stdin, String... args) throws Exception {
    return TmProcess.run(dir, env(), stdin, "pbs_tmrsh", args);
  }

  private Result tmrsh(String... args) throws Exception {
    return fed("", args);
  }

  @Test
  void runsTheCommandThroughTheShellOnTheNodesFirstVnode() throws Exception {
    job(spawn -> Script.prints("out\n", "err\n", 3));
    Result run = tmrsh("-x", "n2", "\"/usr/bin/hydra_pmi_proxy\"", "--control-port", "vm:1");
    assertEquals(3, run.status());
    assertEquals("out\n", run.out());
    assertEquals("err\n", run.err());
    TmSpawn spawn = tm.spawns().get(0);
    assertEquals("n2.cluster.org", spawn.getNode());
    assertEquals(2, spawn.getVnode());
    assertEquals(
        List.of("/bin/bash", "-c", "\"/usr/bin/hydra_pmi_proxy\" --control-port vm:1"),
        spawn.getArgvList());
    assertEquals("", spawn.getCwd());
    assertEquals(env(), spawn.getEnvMap());
    assertTrue(spawn.getRelayOutput());
  }

  @Test
  void stdinIsCopiedToTheTask() throws Exception {
    job(spawn -> Script.echoes());
    Result run = fed("line one\nline two\n", "n1", "cat");
    assertEquals(0, run.status());
    assertEquals("line one\nline two\n", run.out());
    // stdin and the wait go their own ways
    List<String> log = tm.log();
    assertTrue(log.contains("wait 1"), log.toString());
    assertEquals(
        List.of("spawn n1 0", "input 1 18", "input 1 eof"),
        log.stream().filter(entry -> !entry.equals("wait 1")).toList());
  }

  @Test
  void muchStdinGoesInPiecesWhileOutputComesBack() throws Exception {
    job(spawn -> Script.echoes());
    String stdin = "0123456789abcdef\n".repeat(20_000); // 340 kB, echoed back as it goes
    Result run = fed(stdin, "n1", "cat");
    assertEquals(0, run.status(), run.err());
    assertEquals(stdin, run.out());
    List<Integer> pieces =
        tm.log().stream()
            .filter(entry -> entry.startsWith("input 1 ") && !entry.endsWith("eof"))
            .map(entry -> Integer.parseInt(entry.substring("input 1 ".length())))
            .toList();
    assertEquals(stdin.length(), pieces.stream().mapToInt(Integer::intValue).sum());
    assertTrue(pieces.stream().allMatch(size -> size <= 64 << 10), pieces.toString());
    assertEquals("input 1 eof", tm.log().get(tm.log().size() - 1));
  }

  @Test
  void dashNGivesTheTaskNoStdin() throws Exception {
    job(spawn -> Script.echoes());
    Result run = fed("not read\n", "-n", "n1", "cat");
    assertEquals(0, run.status());
    assertEquals("", run.out());
    assertEquals(List.of("spawn n1 0", "input 1 eof", "wait 1"), tm.log());
  }

  @Test
  void aSignalledTaskExitsAsAShellWouldShow() throws Exception {
    job(spawn -> Script.exits(256 + 9));
    assertEquals(137, tmrsh("n1", "sleep", "100").status());
  }

  @Test
  void signalsGoOnToTheTask() throws Exception {
    job(spawn -> Script.runsUntilSignalled());
    TmProcess tmrsh = TmProcess.start(dir, env(), "", "pbs_tmrsh", "-n", "n1", "orted");
    tm.awaitLogged("wait 1");
    tmrsh.signal("HUP");
    assertEquals(129, tmrsh.await().status());
    assertTrue(tm.log().contains("signal 1 1"));
  }

  @Test
  void interruptAndTerminateGoOnToo() throws Exception {
    for (String signal : List.of("INT", "TERM")) {
      stop();
      job(spawn -> Script.runsUntilSignalled());
      TmProcess tmrsh = TmProcess.start(dir, env(), "", "pbs_tmrsh", "-n", "n1", "orted");
      tm.awaitLogged("wait 1");
      tmrsh.signal(signal);
      boolean interrupt = signal.equals("INT");
      assertEquals(interrupt ? 130 : 143, tmrsh.await().status());
      assertTrue(tm.log().contains(interrupt ? "signal 1 2" : "signal 1 15"), tm.log().toString());
    }
  }

  @Test
  void itsOwnFailuresExit255() throws Exception {
    job(spawn -> spawn.getVnode() == 0 ? Script.cannotStart("no shell") : Script.refused("full"));
    Result run = tmrsh("n1", "true");
    assertEquals(255, run.status());
    assertEquals("pbs_tmrsh: cannot run the command on n1: no shell\n", run.err());
    run = tmrsh("n2", "true");
    assertEquals(255, run.status());
    assertEquals("pbs_tmrsh: cannot start a task on n2: full\n", run.err());
    run = tmrsh("n3", "true");
    assertEquals(255, run.status());
    assertEquals(
        "pbs_tmrsh: n3 is not a node of job 12.head (its nodes: n1, n2.cluster.org)\n", run.err());
  }

  @Test
  void refusesOtherUsersLoginsAndMissingCommands() throws Exception {
    job(spawn -> Script.exits(0));
    Result run = tmrsh("-l", "berth-someone-else", "n1", "true");
    assertEquals(255, run.status());
    assertEquals(
        "pbs_tmrsh: cannot run as berth-someone-else: tasks run as the job's owner\n", run.err());
    run = tmrsh("-l", System.getProperty("user.name"), "n1", "true");
    assertEquals(0, run.status(), run.err());
    run = tmrsh("n1");
    assertEquals(255, run.status());
    assertEquals("pbs_tmrsh: no command given (interactive logins are not supported)\n", run.err());
    run = tmrsh("-Z", "n1", "true");
    assertEquals(255, run.status());
    assertEquals("pbs_tmrsh: invalid option -- 'Z'\n" + TmrshCommandLineTest.USAGE, run.err());
    assertEquals(1, tm.spawns().size());
  }

  @Test
  void outsideAJobItFails() throws Exception {
    Result run = TmProcess.run(dir, Map.of(), "", "pbs_tmrsh", "n1", "true");
    assertEquals(255, run.status());
    assertEquals("pbs_tmrsh: not inside a Berth job (BERTH_TM_SOCKET is not set)\n", run.err());
  }
}
