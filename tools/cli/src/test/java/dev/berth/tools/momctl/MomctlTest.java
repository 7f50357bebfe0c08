package dev.berth.tools.momctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.Invocation;
import dev.berth.client.LocalFiles;
import dev.berth.client.Origin;
import dev.berth.client.testing.FakeServer;
import dev.berth.proto.Error;
import dev.berth.proto.MomControl;
import dev.berth.proto.Node;
import dev.berth.proto.NodeGpuSlot;
import dev.berth.proto.NodeJobSlot;
import dev.berth.proto.NodeList;
import dev.berth.proto.NodeStatus;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.tools.testing.FakeCli;
import dev.berth.tools.testing.Run;
import dev.berth.tools.testing.TerminalSafety;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MomctlTest {
  private static final long NOW = FakeCli.NOW;

  /** n1: up, running jobs 12 (CPUs 0-1, a GPU) and 13 (CPU 2), reported 12 s ago. */
  static final NodeStatus N1 =
      NodeStatus.newBuilder()
          .setNode(
              Node.newBuilder()
                  .setName("n1")
                  .setNp(4)
                  .addProperties("fast")
                  .setRegistered(true)
                  .setLastStatusTime(NOW - 12)
                  .putStatus("version", "0.1.0")
                  .putStatus("home", "/var/lib/berth/mom")
                  .putStatus("cgroups", "cgroup v2: cpu, cpuset, memory below /berth.slice")
                  .putStatus("mom_started", Long.toString(NOW - 3600))
                  .putStatus("status_update_time", "45")
                  .putStatus("loadave", "0.52")
                  .putStatus("ncpus", "4")
                  .putStatus("jobs", "12.srv.cluster.org 13.srv.cluster.org"))
          .setState("free")
          .addJobs(NodeJobSlot.newBuilder().setCpu(2).setJobId("13.srv.cluster.org"))
          .addJobs(NodeJobSlot.newBuilder().setCpu(0).setJobId("12.srv.cluster.org"))
          .addJobs(NodeJobSlot.newBuilder().setCpu(1).setJobId("12.srv.cluster.org"))
          .addGpuJobs(NodeGpuSlot.newBuilder().setGpu(0).setJobId("12.srv.cluster.org"))
          .build();

  /** n2.cluster.org: offline with a note, no jobs, an older mom that reports little. */
  static final NodeStatus N2 =
      NodeStatus.newBuilder()
          .setNode(
              Node.newBuilder()
                  .setName("n2.cluster.org")
                  .setNp(2)
                  .addProperties("fast")
                  .setRegistered(true)
                  .setOffline(true)
                  .setNote("bad disk")
                  .setLastStatusTime(NOW - 30)
                  .putStatus("loadave", "0.00")
                  .putStatus(
                      "cleanup",
                      "1 directory left in the trash (cannot remove a file 2 levels down:"
                          + " Permission denied; tried 3 times)"))
          .setState("offline")
          .build();

  /** n3: never reported. */
  static final NodeStatus N3 =
      NodeStatus.newBuilder()
          .setNode(Node.newBuilder().setName("n3").setNp(2).addProperties("fast"))
          .setState("down")
          .build();

  private static FakeServer server(NodeStatus... nodes) {
    return FakeServer.named(
        "srv.cluster.org",
        request -> {
          if (request.hasStatNodes()) {
            return Response.newBuilder()
                .setNodes(NodeList.newBuilder().addAllNodes(List.of(nodes)))
                .build();
          }
          MomControl control = request.getMomControl();
          if (control.getNode().equals("n2.cluster.org")) {
            return FakeServer.error(Error.Code.PERMISSION, "momctl -s needs a manager");
          }
          return FakeServer.ack();
        });
  }

  private static FakeServer server() {
    return server(N1, N2, N3);
  }

  private static Run momctl(FakeServer server, String... args) {
    return Run.of(Momctl::run, server, "momctl", args);
  }

  private static final String N1_DIAG =
      "\n"
          + "Host: n1/n1   Version: 0.1.0\n"
          + "Server[0]: srv.cluster.org\n"
          + "  Last Msg To Server:     12 seconds\n"
          + "HomeDirectory:          /var/lib/berth/mom\n"
          + "MOM active:             3600 seconds\n"
          + "job[12.srv.cluster.org]  state=RUNNING\n"
          + "job[13.srv.cluster.org]  state=RUNNING\n"
          + "Assigned CPU Count:     3\n"
          + "\n"
          + "diagnostics complete\n"
          + "\n";

  @Test
  void diagnosticsAtLevelZero() {
    Run run = momctl(server(), "-d", "0", "-h", "n1");
    assertEquals(0, run.status(), run.err());
    assertEquals(N1_DIAG, run.out());
    assertEquals("", run.err());
  }

  @Test
  void levelOneAddsTheIntervalAndTheCgroups() {
    Run run = momctl(server(), "-d1", "-h", "n1");
    assertEquals(
        N1_DIAG.replace(
            "MOM active:             3600 seconds\n",
            "MOM active:             3600 seconds\n"
                + "Server Update Interval: 45 seconds\n"
                + "Cgroups:                cgroup v2: cpu, cpuset, memory below /berth.slice\n"),
        run.out());
    assertEquals(run.out(), momctl(server(), "-q", "diag1", "-h", "n1").out(), "-q diag1 is -d 1");
    assertEquals(N1_DIAG, momctl(server(), "-q", "diag", "-h", "n1").out());
  }

  @Test
  void diagnosticsShowOnlyWhatTheMomReportedAndTheNodesState() {
    Run run = momctl(server(), "-d", "3", "-h", "n2,n3");
    assertEquals(0, run.status(), run.err());
    assertEquals(
        "\n"
            + "Host: n2/n2.cluster.org\n"
            + "Server[0]: srv.cluster.org\n"
            + "  Last Msg To Server:     30 seconds\n"
            + "HomeDirectory:          N/A\n"
            + "NOTE:  no local jobs detected\n"
            + "WARNING:  node is offline: bad disk\n"
            + "WARNING:  cannot clean up: 1 directory left in the trash (cannot remove a file 2"
            + " levels down: Permission denied; tried 3 times)\n"
            + "\n"
            + "diagnostics complete\n"
            + "\n"
            + "\n"
            + "Host: n3/n3\n"
            + "Server[0]: srv.cluster.org\n"
            + "  WARNING:  no messages sent to server\n"
            + "HomeDirectory:          N/A\n"
            + "NOTE:  no local jobs detected\n"
            + "WARNING:  node is down: its mom is not reporting to the server\n"
            + "\n"
            + "diagnostics complete\n"
            + "\n",
        run.out());
  }

  @Test
  void queriesPrintTorquesLinesFromTheStatusItems() {
    FakeServer server = server();
    Run run = momctl(server, "-q", "loadave", "-q", "version", "-q", "nosuch", "-h", "n1");
    assertEquals(0, run.status(), run.err());
    assertEquals(
        "          n1:      loadave = 'loadave=0.52'\n"
            + "          n1:      version = 'version=0.1.0'\n"
            + "          n1:       nosuch = 'nosuch=? 15201'\n",
        run.out());
    assertEquals(1, server.commandRequests().size(), "one StatNodes for every query");
  }

  @Test
  void aDownNodeAnswersNoQuery() {
    Run run = momctl(server(), "-q", "loadave", "-h", "n1,n3");
    assertEquals(1, run.status(), "the last node failed");
    assertEquals("          n1:      loadave = 'loadave=0.52'\n", run.out());
    assertEquals("momctl: node 'n3' is down: its mom is not reporting to the server\n", run.err());
  }

  @Test
  void aPropertyNamesEveryNodeWithItThatIsNotDown() {
    Run run = momctl(server(), "-q", "loadave", "-h", ":fast", "-v");
    assertEquals(0, run.status(), run.err());
    assertEquals(
        "          n1:      loadave = 'loadave=0.52'\n"
            + "n2.cluster.org:      loadave = 'loadave=0.00'\n"
            + "Node Summary:  2 Successful  0 Failed\n",
        run.out());
    assertEquals("          n3:   skipping down node\n", run.err());
    Run none = momctl(server(), "-q", "loadave", "-h", ":gpu@srv");
    assertEquals(0, none.status());
    assertEquals("momctl: no nodes found in :gpu@srv\n", none.err());
  }

  @Test
  void unknownNodesFailAndTheLastNodeDecidesTheStatus() {
    Run run = momctl(server(), "-q", "ncpus", "-h", "nx,n1.cluster.org", "-v");
    assertEquals(0, run.status(), "n1.cluster.org finds n1, and it came last");
    assertEquals("momctl: unknown node 'nx'\n", run.err());
    assertEquals(
        "          n1:        ncpus = 'ncpus=4'\nNode Summary:  1 Successful  1 Failed\n",
        run.out());
    assertEquals(1, momctl(server(), "-q", "ncpus", "-h", "n1,nx").status());
    assertEquals(0, momctl(server(), "-q", "ncpus", "-h", "n2").status(), "n2 is n2.cluster.org");
  }

  @Test
  void controlsGoToTheServerNodeByNode() {
    FakeServer server = server();
    Run cycle = momctl(server, "-C", "-h", "n1");
    Run clear = momctl(server, "-c", "12", "-h", "n1");
    Run all = momctl(server, "-c", "all", "-h", "n1");
    Run shutdown = momctl(server, "-s", "-h", "n1");
    assertEquals("mom n1 successfully cycled cycle forced\n", cycle.out());
    assertEquals("job clear request successful on n1\n", clear.out());
    assertEquals("job clear request successful on n1\n", all.out());
    assertEquals("shutdown request successful on n1\n", shutdown.out());
    assertEquals(
        List.of(
            control(MomControl.Action.CYCLE, ""),
            control(MomControl.Action.CLEAR_JOB, "12.srv.cluster.org"),
            control(MomControl.Action.CLEAR_JOB, "all"),
            control(MomControl.Action.SHUTDOWN, "")),
        server.commandRequests().stream().filter(Request::hasMomControl).toList());
  }

  @Test
  void aRefusedControlNamesTheNode() {
    Run run = momctl(server(), "-s", "-h", "n1,n2");
    assertEquals(1, run.status());
    assertEquals("shutdown request successful on n1\n", run.out());
    assertEquals("momctl: momctl -s needs a manager (node n2.cluster.org)\n", run.err());
  }

  @Test
  void aMalformedJobIsRefusedBeforeAnyNodeIsTouched() {
    FakeServer server = server();
    Run run = momctl(server, "-c", "1x", "-h", "n1");
    assertEquals(1, run.status());
    assertEquals("momctl: illegally formed job identifier: 1x\n", run.err());
    assertTrue(server.commandRequests().stream().noneMatch(Request::hasMomControl));
  }

  @Test
  void theNodesMayComeFromAFile(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("hosts");
    Files.writeString(file, "n1, n2.cluster.org\n\tn1\n");
    Run run = momctl(server(), "-q", "ncpus", "-f", file.toString());
    assertEquals(
        "          n1:        ncpus = 'ncpus=4'\n"
            + "n2.cluster.org:        ncpus = 'ncpus=? 15201'\n"
            + "          n1:        ncpus = 'ncpus=4'\n",
        run.out());
    Run missing = momctl(server(), "-q", "ncpus", "-f", dir.resolve("none").toString());
    assertEquals(1, missing.status());
    assertEquals(
        "momctl: cannot open file '" + dir.resolve("none") + "' (No such file or directory)\n",
        missing.err());
  }

  @Test
  void withoutHostsItIsThisHost() {
    FakeServer server = server();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Origin origin =
        new Origin(() -> "n1", ZoneOffset.UTC, false, LocalFiles.PROCESS, null, () -> "id");
    Invocation invocation =
        new Invocation(
            "momctl",
            List.of("-q", "ncpus"),
            Map.of(),
            Path.of("/tmp"),
            new ByteArrayInputStream(new byte[0]),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            origin);
    assertEquals(0, Momctl.run(invocation, FakeCli.context(server)));
    assertEquals("          n1:        ncpus = 'ncpus=4'\n", out.toString(StandardCharsets.UTF_8));
  }

  @Test
  void oneCommandOnly() {
    for (String[] args :
        List.of(
            new String[] {},
            new String[] {"-h", "n1"},
            new String[] {"-C", "-s"},
            new String[] {"-d", "1", "-q", "loadave"},
            new String[] {"-d", "1", "-d", "2"},
            new String[] {"-d", "x"},
            new String[] {"-x"},
            new String[] {"-C", "n1"})) {
      FakeServer server = server();
      Run run = momctl(server, args);
      assertEquals(2, run.status(), String.join(" ", args));
      assertTrue(run.err().startsWith("  "), run.err());
      assertTrue(run.err().contains(MomctlOptions.USAGE), run.err());
      assertEquals(0, server.connections());
    }
    assertTrue(momctl(server()).err().startsWith("  no command specified\nUSAGE:  momctl"));
    assertEquals(0, momctl(server(), "-q", "loadave", "-q", "ncpus", "-h", "n1").status());
  }

  @Test
  void torquesReconfigurationPortAndLayoutAreRefusedWithTheReason() {
    Map<String, String> refusals =
        Map.of(
            "-r",
            "momctl: -r: Berth moms take no remote configuration;"
                + " edit the mom's mom.conf and restart it\n",
            "-p",
            "momctl: -p: momctl asks the server, which answers for its moms;"
                + " it connects to no mom's port\n",
            "-l",
            "momctl: -l: Berth's moms report no machine layout\n");
    refusals.forEach(
        (option, message) -> {
          FakeServer server = server();
          Run run =
              option.equals("-l")
                  ? momctl(server, "-l", "-h", "n1")
                  : momctl(server, option, "x", "-d", "0");
          assertEquals(1, run.status(), option);
          assertEquals(message, run.err());
          assertEquals(0, server.connections());
        });
    Run set = momctl(server(), "-q", "status_update_time=30");
    assertEquals(1, set.status());
    assertTrue(set.err().startsWith("momctl: -q status_update_time=30: Berth moms take no remote"));
  }

  @Test
  void whatMomsReportCannotShapeTheOutput() {
    NodeStatus hostile =
        N1.toBuilder()
            .setNode(
                N1.getNode().toBuilder()
                    .putStatus("home", "/x\n" + TerminalSafety.FORGED)
                    .putStatus("version", "1\u001b[2J")
                    .putStatus("loadave", "0\r\n" + TerminalSafety.FORGED)
                    .setOffline(true)
                    .setNote("a\u202eb"))
            .build();
    for (String[] args :
        List.of(new String[] {"-d", "1", "-h", "n1"}, new String[] {"-q", "loadave", "-h", "n1"})) {
      Run run = momctl(server(hostile), args);
      assertEquals(0, run.status(), run.err());
      assertTrue(run.out().contains("n1"), run.out());
      TerminalSafety.assertSafe(run.out());
    }
  }

  @Test
  void unreachableServer() {
    Run run = momctl(FakeServer.unreachable(), "-d", "0", "-h", "n1");
    assertEquals(1, run.status());
    assertTrue(run.err().startsWith("momctl: cannot talk to the Berth server"), run.err());
  }

  private static Request control(MomControl.Action action, String job) {
    return Request.newBuilder()
        .setMomControl(MomControl.newBuilder().setNode("n1").setAction(action).setJobId(job))
        .build();
  }
}
