package dev.berth.tools.tm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.proto.TmNodeList;
import dev.berth.tools.tm.FakeTm.Script;
import dev.berth.tools.tm.TmProcess.Result;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where pbsdsh starts its tasks, seen as the spawns the task manager gets ("node vnode"). */
class TargetsTest {
  /** n1 holds vnodes 0-1, n2.cluster.org 2-4, n3 5. */
  private static final TmNodeList JOB = FakeTm.job("n1:2", "n2.cluster.org:3", "n3:1");

  @TempDir Path dir;
  private FakeTm tm;

  @AfterEach
  void stop() throws Exception {
    if (tm != null) {
      tm.close();
    }
  }

  /** pbsdsh -o OPTIONS true, in a job of its own (the previous one's task manager goes). */
  private Result run(TmNodeList job, String... options) throws Exception {
    stop();
    tm = FakeTm.start(dir, job, spawn -> Script.exits(0));
    List<String> args = new ArrayList<>(List.of("-o"));
    args.addAll(List.of(options));
    args.add("true");
    return TmProcess.run(
        dir,
        Map.of("BERTH_TM_SOCKET", tm.socket().toString()),
        "",
        "pbsdsh",
        args.toArray(String[]::new));
  }

  private List<String> select(String... options) throws Exception {
    Result run = run(JOB, options);
    assertEquals(0, run.status(), run.err());
    return tm.log().stream().map(entry -> entry.substring("spawn ".length())).toList();
  }

  private String refused(TmNodeList job, String... options) throws Exception {
    Result run = run(job, options);
    assertEquals(1, run.status());
    assertEquals(List.of(), tm.spawns());
    return run.err();
  }

  @Test
  void oneTaskPerVnodeInOrder() throws Exception {
    assertEquals(
        List.of("n1 0", "n1 1", "n2.cluster.org 2", "n2.cluster.org 3", "n2.cluster.org 4", "n3 5"),
        select());
  }

  @Test
  void copiesGoRoundRobinOverTheVnodes() throws Exception {
    assertEquals(List.of("n1 0", "n1 1", "n2.cluster.org 2"), select("-c", "3"));
    List<String> eight = select("-c", "8");
    assertEquals(8, eight.size());
    assertEquals(List.of("n3 5", "n1 0", "n1 1"), eight.subList(5, 8));
  }

  @Test
  void uniqueTakesEachNodesFirstVnode() throws Exception {
    assertEquals(List.of("n1 0", "n2.cluster.org 2", "n3 5"), select("-u"));
    assertEquals(
        List.of("n1 0", "n2.cluster.org 2", "n3 5", "n1 0", "n2.cluster.org 2"),
        select("-u", "-c", "5"));
  }

  @Test
  void oneVnode() throws Exception {
    assertEquals(List.of("n2.cluster.org 3"), select("-n", "3"));
    assertEquals(List.of("n1 0"), select("-n", "0"));
    assertEquals(List.of("n3 5"), select("-u", "-n", "5"));
    assertEquals(
        "pbsdsh: vnode 6 is out of range: the job's vnodes are 0-5\n", refused(JOB, "-n", "6"));
  }

  @Test
  void oneHostByExactOrShortName() throws Exception {
    assertEquals(List.of("n2.cluster.org 2"), select("-h", "n2.cluster.org"));
    assertEquals(List.of("n2.cluster.org 2"), select("-h", "n2"));
    assertEquals(List.of("n1 0"), select("-h", "n1.cluster.org"));
    assertEquals(
        "pbsdsh: n9 is not a node of job 12.head (its nodes: n1, n2.cluster.org, n3)\n",
        refused(JOB, "-h", "n9"));
  }

  @Test
  void anExactNameWinsOverAShortOne() throws Exception {
    TmNodeList job = FakeTm.job("n1:1", "n1.b:1");
    run(job, "-h", "n1.b");
    assertEquals(List.of("spawn n1.b 1"), tm.log());
    run(job, "-h", "n1.c");
    assertEquals(List.of("spawn n1 0"), tm.log());
  }

  @Test
  void aJobWithoutNodesHasNothingToCopyTo() throws Exception {
    TmNodeList empty = TmNodeList.newBuilder().setJobId("12.head").build();
    Result run = run(empty);
    assertEquals(0, run.status());
    assertEquals(List.of(), tm.log());
    assertEquals("pbsdsh: job 12.head has no nodes to run on\n", refused(empty, "-c", "2"));
    assertEquals(
        "pbsdsh: vnode 0 is out of range: the job has no vnodes\n", refused(empty, "-n", "0"));
  }
}
