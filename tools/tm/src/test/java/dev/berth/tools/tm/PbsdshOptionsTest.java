package dev.berth.tools.tm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.TmSpawn;
import dev.berth.tools.tm.FakeTm.Script;
import dev.berth.tools.tm.TmProcess.Result;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** pbsdsh's command line, seen through what it asks the task manager for. */
class PbsdshOptionsTest {
  static final String USAGE =
      "usage: pbsdsh [-c copies | -n node | -h host] [-o] [-s] [-u] [-v] program [args...]\n";

  @TempDir Path dir;
  private FakeTm tm;

  /** n1 holds vnodes 0-1, n2.cluster.org vnode 2; every task prints its node and vnode. */
  @BeforeEach
  void job() throws Exception {
    tm =
        FakeTm.start(
            dir,
            FakeTm.job("n1:2", "n2.cluster.org:1"),
            spawn -> Script.prints(spawn.getNode() + "/" + spawn.getVnode() + "\n", "", 0));
  }

  @AfterEach
  void stop() throws Exception {
    tm.close();
  }

  private Result pbsdsh(String... args) throws Exception {
    return TmProcess.run(
        dir, Map.of("BERTH_TM_SOCKET", tm.socket().toString()), "", "pbsdsh", args);
  }

  /** The usage error's message; checks that the usage follows, that it exits 2 and asks nothing. */
  private String refused(String... args) throws Exception {
    Result run = pbsdsh(args);
    assertEquals(2, run.status(), run.err());
    assertTrue(run.err().startsWith("pbsdsh: ") && run.err().endsWith("\n" + USAGE), run.err());
    assertEquals(List.of(), tm.log());
    return run.err().substring("pbsdsh: ".length(), run.err().length() - USAGE.length() - 1);
  }

  @Test
  void theDefaultIsEveryVnodeWaitingForAll() throws Exception {
    Result run = pbsdsh("hostname");
    assertEquals(0, run.status());
    assertEquals("n1/0\nn1/1\nn2.cluster.org/2\n", run.out());
    assertEquals("", run.err());
    assertTrue(tm.spawns().stream().allMatch(TmSpawn::getRelayOutput));
    assertEquals(List.of("hostname"), tm.spawns().get(0).getArgvList());
  }

  @Test
  void optionsStopAtTheProgram() throws Exception {
    Result run = pbsdsh("-v", "-s", "ls", "-l", "-c", "3", "/tmp");
    assertEquals(0, run.status());
    assertEquals(List.of("ls", "-l", "-c", "3", "/tmp"), tm.spawns().get(0).getArgvList());
    assertEquals(3, tm.spawns().size()); // -c 3 was ls's
    assertEquals(List.of("spawn n1 0", "input 1 eof", "wait 1"), tm.log().subList(0, 3)); // -s
    assertTrue(run.err().startsWith("pbsdsh: task 1 started on n1 (vnode 0)\n"), run.err()); // -v
  }

  @Test
  void flagsClusterAndTakeAttachedValues() throws Exception {
    Result run = pbsdsh("-ouv", "-c4", "echo", "hi");
    assertEquals(0, run.status());
    assertEquals(
        List.of("spawn n1 0", "spawn n2.cluster.org 2", "spawn n1 0", "spawn n2.cluster.org 2"),
        tm.log());
    assertFalse(tm.spawns().get(0).getRelayOutput());
    assertEquals(4, run.err().lines().filter(line -> line.contains(" started on ")).count());
    assertEquals("n1/1\n", pbsdsh("-n", "1", "true").out());
    assertEquals("n1/0\n", pbsdsh("-n0", "true").out());
    assertEquals("n2.cluster.org/2\n", pbsdsh("-h", "n2.cluster.org", "true").out());
    assertEquals("n2.cluster.org/2\n", pbsdsh("-h", "n1", "-h", "n2", "true").out()); // last wins
    assertEquals("n1/0\n", pbsdsh("-c", "+1", "true").out());
    pbsdsh("-n", "2", "--", "-x");
    assertEquals(List.of("-x"), tm.spawns().get(tm.spawns().size() - 1).getArgvList());
  }

  @Test
  void copiesNodeAndHostAreMutuallyExclusive() throws Exception {
    assertEquals("-c, -n and -h are mutually exclusive", refused("-c", "2", "-n", "1", "true"));
    assertEquals("-c, -n and -h are mutually exclusive", refused("-n", "1", "-h", "n1", "true"));
    assertEquals("-c, -n and -h are mutually exclusive", refused("-h", "n1", "-c", "2", "true"));
  }

  @Test
  void badNumbersMissingProgramAndUnknownFlagsAreUsageErrors() throws Exception {
    assertEquals("-c takes a positive number, not '0'", refused("-c", "0", "true"));
    assertEquals("-c takes a positive number, not 'x'", refused("-c", "x", "true"));
    assertEquals("-c takes a positive number, not ' 2'", refused("-c", " 2", "true"));
    assertEquals(
        "-c takes a positive number, not '99999999999'", refused("-c", "99999999999", "true"));
    assertEquals("-n takes a number, not '-1'", refused("-n", "-1", "true"));
    assertEquals("-n takes a number, not ''", refused("-n", "", "true"));
    assertEquals("no program given", refused("-v"));
    assertEquals("no program given", refused());
    assertEquals("invalid option -- 'z'", refused("-z", "true"));
    assertEquals("invalid option -- '-'", refused("--long", "true"));
    assertEquals("invalid option -- 'z'", refused("-c", "x", "-z", "true")); // getopt's first
    assertEquals("option requires an argument -- 'c'", refused("-c"));
  }
}
