package dev.berth.tools.pbsdsh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.TmSpawn;
import dev.berth.tools.pbsdsh.FakeTm.Script;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PbsdshTest {
  @TempDir Path dir;
  private FakeTm tm;

  @AfterEach
  void stop() throws Exception {
    if (tm != null) {
      tm.close();
    }
  }

  /** A job on n1 (2 slots) and n2.cluster.org (1 slot) whose tasks behave as {@code scripts}. */
  private void job(Function<TmSpawn, Script> scripts) throws Exception {
    tm = FakeTm.start(dir, FakeTm.job("n1:2", "n2.cluster.org:1"), scripts);
  }

  private Map<String, String> env() {
    return Map.of("BERTH_TM_SOCKET", tm.socket().toString(), "PATH", "/usr/bin:/bin");
  }

  private TmRun pbsdsh(SignalTrap signals, String... args) {
    return TmRun.of(Pbsdsh::run, signals, env(), dir, "", "pbsdsh", args);
  }

  private TmRun pbsdsh(String... args) {
    return pbsdsh(TmRun.NO_SIGNALS, args);
  }

  private static Script hostname(TmSpawn spawn) {
    return Script.prints(spawn.getNode() + "/" + spawn.getVnode() + "\n", "", 0);
  }

  @Test
  void runsOnEveryVnodeRelayingOutputAndWaitingForAll() throws Exception {
    job(spawn -> Script.prints(spawn.getNode() + "\n", "warn " + spawn.getVnode() + "\n", 0));
    TmRun run = pbsdsh("hostname", "-s");
    assertEquals(0, run.status());
    assertEquals("n1\nn1\nn2.cluster.org\n", run.out());
    assertEquals("warn 0\nwarn 1\nwarn 2\n", run.err());
    // all three start before pbsdsh waits; each gets an empty stdin
    assertEquals(
        List.of(
            "spawn n1 0",
            "spawn n1 1",
            "spawn n2.cluster.org 2",
            "input 1 eof",
            "wait 1",
            "input 2 eof",
            "wait 2",
            "input 3 eof",
            "wait 3"),
        tm.log());
    TmSpawn first = tm.spawns().get(0);
    assertEquals(List.of("hostname", "-s"), first.getArgvList());
    assertEquals(env(), first.getEnvMap());
    assertEquals(dir.toString(), first.getCwd());
    assertTrue(first.getRelayOutput());
  }

  @Test
  void exitsWithTheWorstStatus() throws Exception {
    job(
        spawn ->
            switch (spawn.getVnode()) {
              case 0 -> Script.exits(3);
              case 1 -> Script.exits(256 + 9);
              default -> Script.exits(0);
            });
    TmRun run = pbsdsh("-v", "work");
    assertEquals(137, run.status());
    assertEquals(
        "pbsdsh: task 1 started on n1 (vnode 0)\n"
            + "pbsdsh: task 2 started on n1 (vnode 1)\n"
            + "pbsdsh: task 3 started on n2.cluster.org (vnode 2)\n"
            + "pbsdsh: task 1 on n1 exited with status 3\n"
            + "pbsdsh: task 2 on n1 was killed by signal 9 (status 137)\n"
            + "pbsdsh: task 3 on n2.cluster.org exited with status 0\n",
        run.err());
  }

  @Test
  void tasksThatCannotStartAreReported() throws Exception {
    job(
        spawn ->
            switch (spawn.getVnode()) {
              case 0 -> Script.refused("node n1 is down");
              case 1 -> Script.cannotStart("nosuch: No such file or directory");
              default -> Script.exits(0);
            });
    TmRun run = pbsdsh("nosuch");
    assertEquals(127, run.status());
    assertEquals(
        "pbsdsh: cannot start nosuch on n1: node n1 is down\n"
            + "pbsdsh: task 1 on n1 could not start: nosuch: No such file or directory\n",
        run.err());
  }

  @Test
  void aRefusedSpawnCountsAsOne() throws Exception {
    job(spawn -> spawn.getVnode() == 2 ? Script.refused("no") : Script.exits(0));
    assertEquals(1, pbsdsh("true").status());
  }

  @Test
  void sequentialWaitsForEachTaskBeforeTheNext() throws Exception {
    job(PbsdshTest::hostname);
    TmRun run = pbsdsh("-s", "hostname");
    assertEquals(0, run.status());
    assertEquals("n1/0\nn1/1\nn2.cluster.org/2\n", run.out());
    assertEquals(
        List.of(
            "spawn n1 0",
            "input 1 eof",
            "wait 1",
            "spawn n1 1",
            "input 2 eof",
            "wait 2",
            "spawn n2.cluster.org 2",
            "input 3 eof",
            "wait 3"),
        tm.log());
  }

  @Test
  void noWaitStartsTasksWithOutputToTheJobsFilesAndLeaves() throws Exception {
    job(spawn -> Script.runsUntilSignalled());
    TmRun run = pbsdsh("-o", "-u", "sleep", "100");
    assertEquals(0, run.status());
    assertEquals("", run.out() + run.err());
    assertEquals(List.of("spawn n1 0", "spawn n2.cluster.org 2"), tm.log());
    assertTrue(tm.spawns().stream().noneMatch(TmSpawn::getRelayOutput));
  }

  @Test
  void noWaitFailsWhenASpawnFails() throws Exception {
    job(spawn -> spawn.getVnode() == 0 ? Script.refused("busy") : Script.runsUntilSignalled());
    TmRun run = pbsdsh("-o", "sleep", "100");
    assertEquals(1, run.status());
    assertEquals("pbsdsh: cannot start sleep on n1: busy\n", run.err());
  }

  @Test
  void targetsFollowTheOptions() throws Exception {
    job(PbsdshTest::hostname);
    assertEquals("n1/1\n", pbsdsh("-n", "1", "hostname").out());
    assertEquals("n2.cluster.org/2\n", pbsdsh("-h", "n2", "hostname").out());
    assertEquals("n1/0\nn1/1\nn2.cluster.org/2\nn1/0\n", pbsdsh("-c", "4", "hostname").out());
    assertEquals("n1/0\nn2.cluster.org/2\n", pbsdsh("-u", "hostname").out());
  }

  @Test
  void unknownTargetsAreErrors() throws Exception {
    job(PbsdshTest::hostname);
    TmRun run = pbsdsh("-n", "3", "hostname");
    assertEquals(1, run.status());
    assertEquals("pbsdsh: vnode 3 is out of range: the job's vnodes are 0-2\n", run.err());
    run = pbsdsh("-h", "n7", "hostname");
    assertEquals(1, run.status());
    assertEquals(
        "pbsdsh: n7 is not a node of job 12.head (its nodes: n1, n2.cluster.org)\n", run.err());
    assertEquals(List.of(), tm.spawns());
  }

  @Test
  void signalsGoOnToEveryRunningTask() throws Exception {
    job(spawn -> Script.runsUntilSignalled());
    TmRun.ManualTrap trap = new TmRun.ManualTrap();
    CompletableFuture<TmRun> run = CompletableFuture.supplyAsync(() -> pbsdsh(trap, "sleep", "9"));
    tm.awaitLogged("wait 3");
    assertEquals(List.of("INT", "TERM"), trap.names());
    trap.raise(15);
    TmRun done = run.get(10, TimeUnit.SECONDS);
    assertEquals(143, done.status());
    assertTrue(tm.log().containsAll(List.of("signal 1 15", "signal 2 15", "signal 3 15")));
    assertFalse(trap.installed());
  }

  @Test
  void aSignalStopsASequentialRun() throws Exception {
    job(spawn -> Script.runsUntilSignalled());
    TmRun.ManualTrap trap = new TmRun.ManualTrap();
    CompletableFuture<TmRun> run =
        CompletableFuture.supplyAsync(() -> pbsdsh(trap, "-s", "sleep", "9"));
    tm.awaitLogged("wait 1");
    trap.raise(2);
    assertEquals(130, run.get(10, TimeUnit.SECONDS).status());
    assertEquals(List.of("spawn n1 0", "input 1 eof", "wait 1", "signal 1 2"), tm.log());
  }

  @Test
  void usageErrorsExitTwo() throws Exception {
    job(PbsdshTest::hostname);
    TmRun run = pbsdsh("-c", "2", "-h", "n1", "hostname");
    assertEquals(2, run.status());
    assertEquals("pbsdsh: -c, -n and -h are mutually exclusive\n" + PbsdshOptions.USAGE, run.err());
    run = pbsdsh();
    assertEquals(2, run.status());
    assertEquals("pbsdsh: no program given\n" + PbsdshOptions.USAGE, run.err());
  }

  @Test
  void outsideAJobOrWithoutATaskManagerItFails() {
    TmRun run = TmRun.of(Pbsdsh::run, TmRun.NO_SIGNALS, Map.of(), dir, "", "pbsdsh", "true");
    assertEquals(1, run.status());
    assertEquals("pbsdsh: not inside a Berth job (BERTH_TM_SOCKET is not set)\n", run.err());
    Path missing = dir.resolve("gone.sock");
    run =
        TmRun.of(
            Pbsdsh::run,
            TmRun.NO_SIGNALS,
            Map.of("BERTH_TM_SOCKET", missing.toString()),
            dir,
            "",
            "pbsdsh",
            "true");
    assertEquals(1, run.status());
    assertTrue(
        run.err()
            .startsWith("pbsdsh: cannot connect to the job's task manager at " + missing + ": "),
        run.err());
  }
}
