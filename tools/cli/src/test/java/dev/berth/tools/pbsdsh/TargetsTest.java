package dev.berth.tools.pbsdsh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.berth.proto.TmNodeList;
import dev.berth.tools.pbsdsh.Targets.Target;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TargetsTest {
  /** n1 holds vnodes 0-1, n2.cluster.org 2-4, n3 5. */
  private static final TmNodeList JOB = FakeTm.job("n1:2", "n2.cluster.org:3", "n3:1");

  private static List<Target> select(String... args) throws Exception {
    List<String> argv = new ArrayList<>(List.of(args));
    argv.add("true");
    return Targets.select(PbsdshOptions.parse(argv), JOB);
  }

  private static String refused(String... args) {
    return assertThrows(Targets.NoSuchTarget.class, () -> select(args)).getMessage();
  }

  private static Target t(String node, int vnode) {
    return new Target(node, vnode);
  }

  @Test
  void oneTaskPerVnodeInOrder() throws Exception {
    assertEquals(
        List.of(
            t("n1", 0),
            t("n1", 1),
            t("n2.cluster.org", 2),
            t("n2.cluster.org", 3),
            t("n2.cluster.org", 4),
            t("n3", 5)),
        select());
  }

  @Test
  void copiesGoRoundRobinOverTheVnodes() throws Exception {
    assertEquals(List.of(t("n1", 0), t("n1", 1), t("n2.cluster.org", 2)), select("-c", "3"));
    List<Target> eight = select("-c", "8");
    assertEquals(8, eight.size());
    assertEquals(List.of(t("n3", 5), t("n1", 0), t("n1", 1)), eight.subList(5, 8));
  }

  @Test
  void uniqueTakesEachNodesFirstVnode() throws Exception {
    List<Target> nodes = List.of(t("n1", 0), t("n2.cluster.org", 2), t("n3", 5));
    assertEquals(nodes, select("-u"));
    assertEquals(
        List.of(t("n1", 0), t("n2.cluster.org", 2), t("n3", 5), t("n1", 0), t("n2.cluster.org", 2)),
        select("-u", "-c", "5"));
  }

  @Test
  void oneVnode() throws Exception {
    assertEquals(List.of(t("n2.cluster.org", 3)), select("-n", "3"));
    assertEquals(List.of(t("n1", 0)), select("-n", "0"));
    assertEquals(List.of(t("n3", 5)), select("-u", "-n", "5"));
    assertEquals("vnode 6 is out of range: the job's vnodes are 0-5", refused("-n", "6"));
  }

  @Test
  void oneHostByExactOrShortName() throws Exception {
    assertEquals(List.of(t("n2.cluster.org", 2)), select("-h", "n2.cluster.org"));
    assertEquals(List.of(t("n2.cluster.org", 2)), select("-h", "n2"));
    assertEquals(List.of(t("n1", 0)), select("-h", "n1.cluster.org"));
    assertEquals(
        "n9 is not a node of job 12.head (its nodes: n1, n2.cluster.org, n3)", refused("-h", "n9"));
  }

  @Test
  void anExactNameWinsOverAShortOne() {
    TmNodeList job = FakeTm.job("n1:1", "n1.b:1");
    assertEquals("n1.b", JobNodes.find(job.getNodesList(), "n1.b").orElseThrow().getName());
    assertEquals("n1", JobNodes.find(job.getNodesList(), "n1.c").orElseThrow().getName());
  }

  @Test
  void aJobWithoutNodesHasNothingToCopyTo() throws Exception {
    TmNodeList empty = TmNodeList.newBuilder().setJobId("12.head").build();
    assertEquals(List.of(), Targets.select(PbsdshOptions.parse(List.of("true")), empty));
    assertEquals(
        "job 12.head has no nodes to run on",
        assertThrows(
                Targets.NoSuchTarget.class,
                () -> Targets.select(PbsdshOptions.parse(List.of("-c", "2", "true")), empty))
            .getMessage());
  }
}
