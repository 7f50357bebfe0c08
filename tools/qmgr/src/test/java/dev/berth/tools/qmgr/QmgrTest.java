package dev.berth.tools.qmgr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.Invocation;
import dev.berth.client.testing.FakeServer;
import dev.berth.proto.Ack;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.proto.Manage;
import dev.berth.proto.Manage.Command;
import dev.berth.proto.Manage.ObjectType;
import dev.berth.proto.ManageReply;
import dev.berth.proto.Response;
import dev.berth.proto.SubmitReply;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QmgrTest {
  private FakeServer server = new FakeServer();
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String stdin, boolean terminal, String... args) {
    Invocation invocation =
        new Invocation(
            "qmgr",
            List.of(args),
            Map.of(),
            Path.of("/"),
            new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return Qmgr.run(invocation, server, terminal);
  }

  private int run(String... args) {
    return run("", false, args);
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  private Manage sent(int i) {
    return server.requests().get(i).getManage();
  }

  private static Response error(Error.Code code, String message) {
    return Response.newBuilder()
        .setError(Error.newBuilder().setCode(code).setMessage(message))
        .build();
  }

  private static Response reply(ManageReply.Builder reply) {
    return Response.newBuilder().setManage(reply).build();
  }

  @Test
  void dashCSendsOneManageRequest() {
    assertEquals(0, run("-c", "set server cgroup_enable = True"));
    assertEquals(
        Manage.newBuilder()
            .setCommand(Command.SET)
            .setObjectType(ObjectType.SERVER)
            .addAttributes(Attribute.newBuilder().setName("cgroup_enable").setValue("True"))
            .build(),
        sent(0));
    assertEquals(1, server.requests().size());
    assertEquals("", out());
    assertEquals("", err());
    assertEquals(1, server.closed());
  }

  @Test
  void createQueueWithAttributes() {
    assertEquals(0, run("-c", "create queue fast queue_type=e,enabled=true,started=true"));
    Manage manage = sent(0);
    assertEquals(Command.CREATE, manage.getCommand());
    assertEquals(ObjectType.QUEUE, manage.getObjectType());
    assertEquals(List.of("fast"), manage.getNamesList());
    assertEquals(
        List.of("queue_type=e", "enabled=true", "started=true"),
        manage.getAttributesList().stream().map(a -> a.getName() + "=" + a.getValue()).toList());
  }

  @Test
  void severalNamesGoInOneRequest() {
    assertEquals(0, run("-c", "set node n1,n2 state=offline"));
    assertEquals(List.of("n1", "n2"), sent(0).getNamesList());
    assertEquals(1, server.requests().size());
  }

  @Test
  void serverNamesAreNotSent() {
    assertEquals(0, run("-c", "set server head max_running += 2"));
    assertEquals(List.of(), sent(0).getNamesList());
    assertEquals(Attribute.Op.INCR, sent(0).getAttributes(0).getOp());
  }

  @Test
  void rejectedRequestIsReportedLikeTorqueAndSetsTheExitStatus() {
    server.handler(r -> error(Error.Code.UNKNOWN_QUEUE, "Unknown queue"));
    assertEquals(15020 % 256, run("-c", "set queue nosuch max_running = 1"));
    assertEquals("qmgr obj=nosuch svr=default: Unknown queue\n", err());
  }

  @Test
  void errorWithoutAMessageGetsTorquesText() {
    server.handler(r -> error(Error.Code.PERMISSION, ""));
    assertEquals(15007 % 256, run("-c", "set server scheduling = False", "head"));
    assertEquals("qmgr obj= svr=head: Unauthorized Request\n", err());
  }

  @Test
  void dashZPrintsNoErrors() {
    server.handler(r -> error(Error.Code.PERMISSION, "Unauthorized Request"));
    assertEquals(15007 % 256, run("-z", "-c", "set server scheduling = False"));
    assertEquals(1, run("-z", "-c", "set server scheduling"));
    assertEquals("", err());
  }

  @Test
  void syntaxErrorSendsNothing() {
    assertEquals(1, run("-c", "set queue batch max_running"));
    assertEquals(
        "qmgr: Syntax error - expected =, += or -= after 'max_running'\n"
            + "set queue batch max_running\n"
            + "                           ^\n",
        err());
    assertEquals(0, server.connections());
  }

  @Test
  void dashNChecksSyntaxOnly() {
    assertEquals(0, run("list server\nset server scheduling=True\n", false, "-n"));
    assertEquals(0, server.connections());
    assertEquals(1, run("set server scheduling\nlist server\n", false, "-n"));
    assertEquals(0, server.connections());
  }

  @Test
  void dashEEchoesEachDirective() {
    assertEquals(0, run("set server a=1; set server b=2\n", false, "-e"));
    assertEquals("set server a=1\nset server b=2\n", out());
  }

  @Test
  void standardInputUsesOneConnectionAndKeepsGoingAfterAFailure() {
    server.handler(
        r ->
            r.getManage().getNamesList().contains("nosuch")
                ? error(Error.Code.UNKNOWN_QUEUE, "Unknown queue")
                : FakeServer.ack());
    String script =
        "#\n# setup\n#\nset queue nosuch enabled = True\nset server scheduling = True\n"
            + "set queue batch started = True\n";
    assertEquals(15020 % 256, run(script, false));
    assertEquals(3, server.requests().size());
    assertEquals(1, server.connections());
    assertEquals(1, server.closed());
  }

  @Test
  void dashAStopsAtTheFirstFailure() {
    assertEquals(1, run("set server scheduling\nset server scheduling = True\n", false, "-a"));
    assertEquals(0, server.requests().size());

    server.handler(r -> error(Error.Code.BAD_VALUE, "Illegal attribute or resource value"));
    assertEquals(15016 % 256, run("set server a=1\nset server b=2\n", false, "-a"));
    assertEquals(1, server.requests().size());
  }

  @Test
  void quitEndsTheInput() {
    assertEquals(0, run("list server\nquit\nset server scheduling = False\n", false));
    assertEquals(1, server.requests().size());
    assertEquals(Command.LIST, sent(0).getCommand());
  }

  @Test
  void promptsOnlyOnATerminal() {
    server.handler(r -> reply(ManageReply.newBuilder().setServer(SampleObjects.server())));
    assertEquals(0, run("l s scheduling\nexit\n", true));
    assertEquals("Qmgr: Server head\n\tscheduling = True\n\nQmgr: ", out());
  }

  @Test
  void noPromptWhenNotATerminal() {
    assertEquals(0, run("set server a=1\n", false));
    assertEquals("", out());
  }

  @Test
  void listServer() {
    server.handler(r -> reply(ManageReply.newBuilder().setServer(SampleObjects.server())));
    assertEquals(0, run("-c", "list server"));
    assertEquals(
        Manage.newBuilder().setCommand(Command.LIST).setObjectType(ObjectType.SERVER).build(),
        sent(0));
    assertTrue(out().startsWith("Server head\n\tserver_state = Active\n\tscheduling = True\n"));
    assertTrue(out().endsWith("\tcgroup_enable = True\n\n"));
  }

  @Test
  void listQueuesWithoutNamesAsksForAll() {
    server.handler(
        r ->
            reply(
                ManageReply.newBuilder()
                    .addQueues(SampleObjects.fast())
                    .addQueues(SampleObjects.fast())));
    assertEquals(0, run("-c", "list queue"));
    assertEquals(List.of(), sent(0).getNamesList());
    assertEquals("Queue fast\n\tqueue_type = Execution\n\tenabled = False\n\n".repeat(2), out());
  }

  @Test
  void listNodeWithAFilterSendsItAndAppliesIt() {
    server.handler(r -> reply(ManageReply.newBuilder().addNodes(SampleObjects.n1())));
    assertEquals(0, run("-c", "list node n1 np,note"));
    assertEquals(List.of("n1"), sent(0).getNamesList());
    assertEquals(
        List.of("np", "note"),
        sent(0).getAttributesList().stream().map(Attribute::getName).toList());
    assertEquals("Node n1\n\tnp = 4\n\tnote = disk replaced\n\n", out());
  }

  @Test
  void printServerWritesQueuesThenServer() {
    server.handler(
        r ->
            reply(
                ManageReply.newBuilder()
                    .setServer(SampleObjects.server())
                    .addQueues(SampleObjects.fast())));
    assertEquals(0, run("-c", "print server"));
    assertEquals(Command.PRINT, sent(0).getCommand());
    assertEquals(
        "#\n"
            + "# Create queues and set their attributes.\n"
            + "#\n"
            + "#\n"
            + "# Create and define queue fast\n"
            + "#\n"
            + "create queue fast\n"
            + "set queue fast queue_type = Execution\n"
            + "set queue fast enabled = False\n"
            + "#\n"
            + "# Set server attributes.\n"
            + "#\n"
            + "set server scheduling = True\n"
            + "set server managers = root@head\n"
            + "set server managers += alice@head\n"
            + "set server default_queue = batch\n"
            + "set server resources_default.nodes = 1\n"
            + "set server resources_default.walltime = 01:00:00\n"
            + "set server comment = \"head node, rack 4\"\n"
            + "set server keep_completed = 300\n"
            + "set server cgroup_enable = True\n",
        out());
  }

  @Test
  void printServerWithAFilterLeavesQueuesOut() {
    server.handler(
        r ->
            reply(
                ManageReply.newBuilder()
                    .setServer(SampleObjects.server())
                    .addQueues(SampleObjects.fast())));
    assertEquals(0, run("-c", "p s managers"));
    assertEquals(
        "#\n# Set server attributes.\n#\n"
            + "set server managers = root@head\n"
            + "set server managers += alice@head\n",
        out());
  }

  @Test
  void modifyingUnnamedQueuesNeedsActiveQueues() {
    assertEquals(Session.NOTHING_DONE, run("-c", "set queue max_running = 10"));
    assertEquals("No Active Queues, nothing done.\n", err());
    assertEquals(0, server.requests().size());
  }

  @Test
  void activeQueuesAreCheckedThenUsed() {
    assertEquals(
        0, run("active queue batch,fast\nset queue max_running = 10\nactive queue\n", false));
    assertEquals(Command.LIST, sent(0).getCommand());
    assertEquals(List.of("batch", "fast"), sent(0).getNamesList());
    assertEquals(Command.SET, sent(1).getCommand());
    assertEquals(List.of("batch", "fast"), sent(1).getNamesList());
    assertEquals("Active queues:\nbatch@default\nfast@default\n", out());
  }

  @Test
  void activeOfAMissingQueueFailsAndChangesNothing() {
    server.handler(r -> error(Error.Code.UNKNOWN_QUEUE, "Unknown queue"));
    assertEquals(
        Session.NOTHING_DONE, run("active queue nosuch\nset queue max_running = 1\n", false));
    assertEquals(
        "qmgr obj=nosuch svr=default: Unknown queue\nNo Active Queues, nothing done.\n", err());
    assertEquals(1, server.requests().size());
  }

  @Test
  void allQueuesAtTheServerSendNoNames() {
    assertEquals(0, run("-c", "set queue @default max_running = 1"));
    assertEquals(List.of(), sent(0).getNamesList());
  }

  @Test
  void unreachableServer() {
    server = FakeServer.unreachable();
    assertEquals(Qmgr.CANNOT_CONNECT, run("-c", "list server"));
    assertTrue(err().startsWith("qmgr: cannot talk to the Berth server at /run/berth/server.sock"));
  }

  @Test
  void helpNeedsNoServer() {
    assertEquals(0, run("-c", "help set"));
    assertTrue(out().startsWith("Syntax: set object"));
    assertEquals(0, server.connections());
  }

  @Test
  void ackMessagesAreShown() {
    server.handler(
        r ->
            Response.newBuilder()
                .setAck(Ack.newBuilder().setMessage("queue fast created"))
                .build());
    assertEquals(0, run("-c", "create queue fast"));
    assertEquals("queue fast created\n", out());
  }

  @Test
  void unexpectedReplyIsAProtocolError() {
    server.handler(
        r -> Response.newBuilder().setSubmitted(SubmitReply.newBuilder().setJobId("1.s")).build());
    assertEquals(15033 % 256, run("-c", "list server"));
    assertEquals("qmgr obj= svr=default: unexpected reply from the server: SUBMITTED\n", err());
  }

  @Test
  void usageErrors() {
    assertEquals(2, run("-x"));
    assertEquals(
        "qmgr: invalid option -- 'x'\nusage: qmgr [-a] [-c command] [-e] [-n] [-z] [server]\n",
        err());
    assertEquals(2, run("-c"));
    assertEquals(2, run("-c", "list server", "s1", "s2"));
    assertEquals(0, server.connections());
  }

  @Test
  void lastFailureDecidesTheExitStatus() {
    server.handler(
        r ->
            r.getManage().getNamesList().contains("nosuch")
                ? error(Error.Code.UNKNOWN_NODE, "Unknown node")
                : FakeServer.ack());
    assertEquals(
        15064 % 256,
        run("set server scheduling\nset node nosuch np=2\nset server scheduling=True\n", false));
  }
}
