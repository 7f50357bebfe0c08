package dev.berth.tools.tm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.TmSpawn;
import dev.berth.tools.tm.FakeTm.Script;
import dev.berth.tools.tm.TmProcess.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PbsdshTest {
  @TempDir Path tmp;
  private Path dir;
  private FakeTm tm;

  @BeforeEach
  void realDirectory() throws Exception {
    dir = tmp.toRealPath(); // what getcwd(3) reports
  }

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
    return Map.of(
        "BERTH_TM_SOCKET", tm.socket().toString(), "PATH", "/usr/bin:/bin", "EQUATION", "a=b+c");
  }

  private Result pbsdsh(String... args) throws Exception {
    return TmProcess.run(dir, env(), "", "pbsdsh", args);
  }

  private TmProcess start(String... args) throws Exception {
    return TmProcess.start(dir, env(), "", "pbsdsh", args);
  }

  private static Script hostname(TmSpawn spawn) {
    return Script.prints(spawn.getNode() + "/" + spawn.getVnode() + "\n", "", 0);
  }

  @Test
  void runsOnEveryVnodeRelayingOutputAndWaitingForAll() throws Exception {
    job(spawn -> Script.prints(spawn.getNode() + "\n", "warn " + spawn.getVnode() + "\n", 0));
    Result run = pbsdsh("hostname", "-s", "", "two words");
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
    assertEquals(List.of("hostname", "-s", "", "two words"), first.getArgvList());
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
    Result run = pbsdsh("-v", "work");
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
  void aTaskKilledByASignalIsReportedEvenWithoutDashV() throws Exception {
    job(spawn -> spawn.getVnode() == 1 ? Script.exits(256 + 9) : Script.exits(0));
    Result run = pbsdsh("work");
    assertEquals(137, run.status());
    assertEquals("pbsdsh: task 2 on n1 was killed by signal 9 (status 137)\n", run.err());
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
    Result run = pbsdsh("nosuch");
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
    Result run = pbsdsh("-s", "hostname");
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
    Result run = pbsdsh("-o", "-u", "sleep", "100");
    assertEquals(0, run.status());
    assertEquals("", run.out() + run.err());
    assertEquals(List.of("spawn n1 0", "spawn n2.cluster.org 2"), tm.log());
    assertTrue(tm.spawns().stream().noneMatch(TmSpawn::getRelayOutput));
  }

  @Test
  void noWaitFailsWhenASpawnFails() throws Exception {
    job(spawn -> spawn.getVnode() == 0 ? Script.refused("busy") : Script.runsUntilSignalled());
    Result run = pbsdsh("-o", "-v", "sleep", "100");
    assertEquals(1, run.status());
    assertEquals(
        "pbsdsh: cannot start sleep on n1: busy\n"
            + "pbsdsh: task 1 started on n1 (vnode 1)\n"
            + "pbsdsh: task 2 started on n2.cluster.org (vnode 2)\n",
        run.err());
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
    Result run = pbsdsh("-n", "3", "hostname");
    assertEquals(1, run.status());
    assertEquals("pbsdsh: vnode 3 is out of range: the job's vnodes are 0-2\n", run.err());
    run = pbsdsh("-h", "n7", "hostname");
    assertEquals(1, run.status());
    assertEquals(
        "pbsdsh: n7 is not a node of job 12.head (its nodes: n1, n2.cluster.org)\n", run.err());
    assertEquals(List.of(), tm.spawns());
  }

  @Test
  void manyTasksWithABigEnvironmentAllRunAndReport() throws Exception {
    job(PbsdshTest::hostname);
    Map<String, String> env = new HashMap<>(env());
    env.put("BIG", "x".repeat(20_000)); // 300 spawns of 20 kB: more than the socket holds
    Result run = TmProcess.run(dir, env, "", "pbsdsh", "-c", "300", "hostname");
    assertEquals(0, run.status(), run.err());
    assertEquals(300, run.out().lines().count());
    assertEquals(300, tm.spawns().size());
    assertEquals(env, tm.spawns().get(299).getEnvMap());
  }

  @Test
  void signalsGoOnToEveryRunningTask() throws Exception {
    job(spawn -> Script.runsUntilSignalled());
    TmProcess pbsdsh = start("sleep", "9");
    tm.awaitLogged("wait 3");
    pbsdsh.signal("TERM");
    Result done = pbsdsh.await();
    assertEquals(143, done.status());
    assertTrue(tm.log().containsAll(List.of("signal 1 15", "signal 2 15", "signal 3 15")));
    assertEquals(
        "pbsdsh: task 1 on n1 was killed by signal 15 (status 143)\n"
            + "pbsdsh: task 2 on n1 was killed by signal 15 (status 143)\n"
            + "pbsdsh: task 3 on n2.cluster.org was killed by signal 15 (status 143)\n",
        done.err());
  }

  @Test
  void aSignalStopsASequentialRun() throws Exception {
    job(spawn -> Script.runsUntilSignalled());
    TmProcess pbsdsh = start("-s", "sleep", "9");
    tm.awaitLogged("wait 1");
    pbsdsh.signal("INT");
    assertEquals(130, pbsdsh.await().status());
    assertEquals(List.of("spawn n1 0", "input 1 eof", "wait 1", "signal 1 2"), tm.log());
  }

  @Test
  void waitingCostsLittleMemory() throws Exception {
    job(spawn -> Script.runsUntilSignalled());
    TmProcess pbsdsh = start("sleep", "9");
    tm.awaitLogged("wait 3");
    long peak = pbsdsh.peakResidentKb();
    pbsdsh.signal("TERM");
    pbsdsh.await();
    // a JVM took 20-40 MB of the job's memory; this is the C program's whole footprint
    assertTrue(peak < 4096, "peak resident size " + peak + " kB");
  }

  @Test
  void usageErrorsExitTwo() throws Exception {
    job(PbsdshTest::hostname);
    Result run = pbsdsh("-c", "2", "-h", "n1", "hostname");
    assertEquals(2, run.status());
    assertEquals(
        "pbsdsh: -c, -n and -h are mutually exclusive\n" + PbsdshOptionsTest.USAGE, run.err());
    run = pbsdsh();
    assertEquals(2, run.status());
    assertEquals("pbsdsh: no program given\n" + PbsdshOptionsTest.USAGE, run.err());
    assertEquals(List.of(), tm.log());
  }

  @Test
  void outsideAJobOrWithoutATaskManagerItFails() throws Exception {
    Result run = TmProcess.run(dir, Map.of(), "", "pbsdsh", "true");
    assertEquals(1, run.status());
    assertEquals("pbsdsh: not inside a Berth job (BERTH_TM_SOCKET is not set)\n", run.err());
    Path missing = dir.resolve("gone.sock");
    run = TmProcess.run(dir, Map.of("BERTH_TM_SOCKET", missing.toString()), "", "pbsdsh", "true");
    assertEquals(1, run.status());
    assertEquals(
        "pbsdsh: cannot connect to the job's task manager at "
            + missing
            + ": No such file or directory\n",
        run.err());
  }

  @Test
  void aLinkNamedPbsdshIsPbsdsh() throws Exception {
    Path link = Files.createSymbolicLink(dir.resolve("pbsdsh"), TmProcess.BINARY.toAbsolutePath());
    Process process = new ProcessBuilder(link.toString(), "-z").redirectErrorStream(true).start();
    String printed = new String(process.getInputStream().readAllBytes());
    assertEquals(2, process.waitFor());
    assertEquals("pbsdsh: invalid option -- 'z'\n" + PbsdshOptionsTest.USAGE, printed);
    Files.delete(link);
  }
}
