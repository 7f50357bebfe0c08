package dev.berth.tools.pbsnodes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.testing.FakeServer;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.proto.Manage;
import dev.berth.proto.Node;
import dev.berth.proto.NodeJobSlot;
import dev.berth.proto.NodeList;
import dev.berth.proto.NodeStatus;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.tools.testing.Run;
import java.util.List;
import org.junit.jupiter.api.Test;

class PbsnodesTest {
  static final NodeStatus N1 =
      NodeStatus.newBuilder()
          .setNode(
              Node.newBuilder()
                  .setName("n1")
                  .setNp(4)
                  .addProperties("fast")
                  .addProperties("ib")
                  .setNtype("cluster")
                  .putStatus("rectime", "1796032790")
                  .putStatus("opsys", "linux")
                  .putStatus("loadave", "1.02")
                  .putStatus("physmem", "16318480kb")
                  .putStatus("zz_extra", "1"))
          .setState("job-exclusive")
          .addJobs(NodeJobSlot.newBuilder().setCpu(1).setJobId("12.srv"))
          .addJobs(NodeJobSlot.newBuilder().setCpu(0).setJobId("12.srv"))
          .addJobs(NodeJobSlot.newBuilder().setCpu(3).setJobId("13.srv"))
          .addJobs(NodeJobSlot.newBuilder().setCpu(2).setJobId("12.srv"))
          .build();
  static final NodeStatus N2 =
      NodeStatus.newBuilder()
          .setNode(
              Node.newBuilder()
                  .setName("n2")
                  .setNp(2)
                  .setNote("bad disk")
                  .setGpus(1)
                  .setLastStatusTime(1796032000))
          .setState("offline")
          .build();
  static final NodeStatus N3 =
      NodeStatus.newBuilder()
          .setNode(Node.newBuilder().setName("n3").setNp(2))
          .setState("down")
          .build();

  private static FakeServer server() {
    return FakeServer.named(
        "srv",
        request -> {
          if (request.hasManage()) {
            return request.getManage().getNames(0).equals("nx")
                ? FakeServer.error(Error.Code.UNKNOWN_NODE, "Unknown node")
                : FakeServer.ack();
          }
          List<String> names = request.getStatNodes().getNamesList();
          if (names.contains("nx")) {
            return FakeServer.error(Error.Code.UNKNOWN_NODE, "Unknown node nx");
          }
          NodeList.Builder list = NodeList.newBuilder();
          for (NodeStatus node : List.of(N1, N2, N3)) {
            if (names.isEmpty() || names.contains(node.getNode().getName())) {
              list.addNodes(node);
            }
          }
          return Response.newBuilder().setNodes(list).build();
        });
  }

  private static Run pbsnodes(FakeServer server, String... args) {
    return Run.of(Pbsnodes::run, server, "pbsnodes", args);
  }

  @Test
  void defaultListingIsTorquesBlockPerNode() {
    Run run = pbsnodes(server());
    assertEquals(0, run.status(), run.err());
    assertEquals(
        "n1\n"
            + "     state = job-exclusive\n"
            + "     np = 4\n"
            + "     properties = fast,ib\n"
            + "     ntype = cluster\n"
            + "     jobs = 0-2/12.srv,3/13.srv\n"
            + "     status = opsys=linux,physmem=16318480kb,loadave=1.02,rectime=1796032790,"
            + "zz_extra=1\n"
            + "\n"
            + "n2\n"
            + "     state = offline\n"
            + "     np = 2\n"
            + "     ntype = cluster\n"
            + "     status = rectime=1796032000\n"
            + "     note = bad disk\n"
            + "     gpus = 1\n"
            + "\n"
            + "n3\n"
            + "     state = down\n"
            + "     np = 2\n"
            + "     ntype = cluster\n"
            + "\n",
        run.out());
  }

  @Test
  void namedNodesOneRequestEach() {
    FakeServer server = server();
    Run run = pbsnodes(server, "-a", "n3", "n2");
    assertTrue(run.out().startsWith("n3\n") && run.out().contains("\nn2\n"), run.out());
    assertEquals(
        List.of(List.of("n3"), List.of("n2")),
        server.commandRequests().stream().map(r -> r.getStatNodes().getNamesList()).toList());
  }

  @Test
  void listShowsTroubledNodesAndNotesWithN() {
    assertEquals(
        "n2                   offline\nn3                   down\n",
        pbsnodes(server(), "-l").out());
    assertEquals(
        "n2                   offline                    bad disk\nn3                   down\n",
        pbsnodes(server(), "-l", "-n").out());
    assertEquals("n1                   job-exclusive\n", pbsnodes(server(), "-l", "active").out());
    assertEquals(
        "n1                   job-exclusive\n",
        pbsnodes(server(), "-l", "up").out(),
        "up = healthy");
    assertEquals(3, pbsnodes(server(), "-l", "ALL").out().lines().count());
    assertEquals("n3                   down\n", pbsnodes(server(), "-l", "down", "n3", "n1").out());
  }

  @Test
  void offlineClearAndNoteSendOneManageRequestPerNode() {
    FakeServer server = server();
    assertEquals(0, pbsnodes(server, "-o", "-N", "bad disk", "n1", "n2").status());
    assertEquals(0, pbsnodes(server, "-c", "n2").status());
    assertEquals(0, pbsnodes(server, "-N", "n", "n2").status());
    assertEquals(
        List.of(
            manage("n1", "note", "bad disk", Attribute.Op.SET),
            manage("n2", "note", "bad disk", Attribute.Op.SET),
            manage("n1", "state", "offline", Attribute.Op.INCR),
            manage("n2", "state", "offline", Attribute.Op.INCR),
            manage("n2", "state", "offline", Attribute.Op.DECR),
            manage("n2", "note", "", Attribute.Op.SET)),
        server.commandRequests());
  }

  @Test
  void markingErrorsAreReportedPerNode() {
    Run run = pbsnodes(server(), "-o", "nx", "n1");
    assertEquals(15064 % 256, run.status());
    assertEquals("Error marking node nx - Unknown node\n", run.err());
    Run quiet = pbsnodes(server(), "-q", "-N", "x", "nx");
    assertEquals("", quiet.err());
    assertEquals(15064 % 256, quiet.status());
  }

  @Test
  void unknownNodeInAListing() {
    Run run = pbsnodes(server(), "n1", "nx");
    assertEquals(15064 % 256, run.status());
    assertEquals("pbsnodes: Unknown node nx\n", run.err());
    assertTrue(run.out().startsWith("n1\n"), "nodes found before the error are printed");
  }

  @Test
  void noNodesExitsTwoAsTorque() {
    FakeServer empty =
        new FakeServer(r -> Response.newBuilder().setNodes(NodeList.getDefaultInstance()).build());
    Run run = pbsnodes(empty);
    assertEquals(2, run.status());
    assertEquals("pbsnodes: No nodes found\n", run.err());
  }

  @Test
  void xmlAndJson() {
    assertEquals(
        "<Data><Node><name>n2</name><state>offline</state><np>2</np><ntype>cluster</ntype>"
            + "<status>rectime=1796032000</status><note>bad disk</note><gpus>1</gpus></Node></Data>\n",
        pbsnodes(server(), "-x", "n2").out());
    assertEquals(
        "{\n"
            + "    \"timestamp\":1796032800,\n"
            + "    \"pbs_version\":\"test-1.0\",\n"
            + "    \"pbs_server\":\"srv\",\n"
            + "    \"nodes\":{\n"
            + "        \"n1\":{\n"
            + "            \"state\":\"job-exclusive\",\n"
            + "            \"np\":4,\n"
            + "            \"properties\":\"fast,ib\",\n"
            + "            \"ntype\":\"cluster\",\n"
            + "            \"jobs\":[\n"
            + "                \"0-2/12.srv\",\n"
            + "                \"3/13.srv\"\n"
            + "            ],\n"
            + "            \"status\":{\n"
            + "                \"opsys\":\"linux\",\n"
            + "                \"physmem\":\"16318480kb\",\n"
            + "                \"loadave\":\"1.02\",\n"
            + "                \"rectime\":\"1796032790\",\n"
            + "                \"zz_extra\":\"1\"\n"
            + "            }\n"
            + "        }\n"
            + "    }\n"
            + "}\n",
        pbsnodes(server(), "-F", "json", "n1").out());
  }

  @Test
  void usageErrors() {
    for (String[] args :
        List.of(
            new String[] {"-n"},
            new String[] {"-o"},
            new String[] {"-c"},
            new String[] {"-r", "n1"},
            new String[] {"-F", "dsv"},
            new String[] {"--about"},
            new String[] {"-Z"})) {
      FakeServer server = server();
      Run run = pbsnodes(server, args);
      assertEquals(2, run.status(), String.join(" ", args));
      assertTrue(run.err().contains("usage:\tpbsnodes"), run.err());
      assertEquals(0, server.connections());
    }
    assertTrue(pbsnodes(server(), "-n").err().startsWith("pbsnodes: Error: -n requires -l\n"));
  }

  @Test
  void versionAsTorquesPbsnodesPrintsIt() {
    FakeServer server = server();
    Run run = pbsnodes(server, "--version");
    assertEquals(0, run.status());
    assertEquals("Version: test-1.0\n", run.err());
    assertEquals(0, server.connections());
  }

  private static Request manage(String node, String name, String value, Attribute.Op op) {
    return Request.newBuilder()
        .setManage(
            Manage.newBuilder()
                .setCommand(Manage.Command.SET)
                .setObjectType(Manage.ObjectType.NODE)
                .addNames(node)
                .addAttributes(Attribute.newBuilder().setName(name).setValue(value).setOp(op)))
        .build();
  }
}
