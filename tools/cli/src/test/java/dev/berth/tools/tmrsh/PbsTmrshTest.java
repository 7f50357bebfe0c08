package dev.berth.tools.tmrsh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.TmSpawn;
import dev.berth.tools.pbsdsh.FakeTm;
import dev.berth.tools.pbsdsh.FakeTm.Script;
import dev.berth.tools.pbsdsh.SignalTrap;
import dev.berth.tools.pbsdsh.TmRun;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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

  private TmRun tmrsh(SignalTrap signals, String stdin, String... args) {
    return TmRun.of(PbsTmrsh::run, signals, env(), dir, stdin, "pbs_tmrsh", args);
  }

  private TmRun tmrsh(String... args) {
    return tmrsh(TmRun.NO_SIGNALS, "", args);
  }

  @Test
  void runsTheCommandThroughTheShellOnTheNodesFirstVnode() throws Exception {
    job(spawn -> Script.prints("out\n", "err\n", 3));
    TmRun run = tmrsh("-x", "n2", "\"/usr/bin/hydra_pmi_proxy\"", "--control-port", "vm:1");
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
    TmRun run = tmrsh(TmRun.NO_SIGNALS, "line one\nline two\n", "n1", "cat");
    assertEquals(0, run.status());
    assertEquals("line one\nline two\n", run.out());
    // the copier thread's input and the wait may come in either order
    List<String> log = tm.log();
    assertTrue(log.contains("wait 1"), log.toString());
    assertEquals(
        List.of("spawn n1 0", "input 1 18", "input 1 eof"),
        log.stream().filter(entry -> !entry.equals("wait 1")).toList());
  }

  @Test
  void dashNGivesTheTaskNoStdin() throws Exception {
    job(spawn -> Script.echoes());
    TmRun run = tmrsh(TmRun.NO_SIGNALS, "not read\n", "-n", "n1", "cat");
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
    TmRun.ManualTrap trap = new TmRun.ManualTrap();
    CompletableFuture<TmRun> run =
        CompletableFuture.supplyAsync(() -> tmrsh(trap, "", "-n", "n1", "orted"));
    tm.awaitLogged("wait 1");
    assertEquals(List.of("INT", "TERM", "HUP"), trap.names());
    trap.raise(1);
    assertEquals(129, run.get(10, TimeUnit.SECONDS).status());
    assertTrue(tm.log().contains("signal 1 1"));
    assertFalse(trap.installed());
  }

  @Test
  void itsOwnFailuresExit255() throws Exception {
    job(spawn -> spawn.getVnode() == 0 ? Script.cannotStart("no shell") : Script.refused("full"));
    TmRun run = tmrsh("n1", "true");
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
    TmRun run = tmrsh("-l", "root", "n1", "true");
    assertEquals(255, run.status());
    assertEquals("pbs_tmrsh: cannot run as root: tasks run as the job's owner\n", run.err());
    run = tmrsh("-l", TmRun.USER, "n1", "true");
    assertEquals(0, run.status());
    run = tmrsh("n1");
    assertEquals(255, run.status());
    assertEquals("pbs_tmrsh: no command given (interactive logins are not supported)\n", run.err());
    run = tmrsh("-Z", "n1", "true");
    assertEquals(255, run.status());
    assertEquals("pbs_tmrsh: invalid option -- 'Z'\n" + TmrshCommandLine.USAGE, run.err());
    assertEquals(1, tm.spawns().size());
  }

  @Test
  void outsideAJobItFails() {
    TmRun run =
        TmRun.of(PbsTmrsh::run, TmRun.NO_SIGNALS, Map.of(), dir, "", "pbs_tmrsh", "n1", "true");
    assertEquals(255, run.status());
    assertEquals("pbs_tmrsh: not inside a Berth job (BERTH_TM_SOCKET is not set)\n", run.err());
  }
}
