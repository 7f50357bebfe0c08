package dev.berth.tools.qmgr;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.proto.Attribute;
import dev.berth.proto.Node;
import dev.berth.proto.Queue;
import dev.berth.proto.ServerStatus;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class ListFormatTest {
  private static final ZoneId UTC = ZoneOffset.UTC;

  @Test
  void serverInTorqueOrderWithJobCounts() {
    assertEquals(
        "Server head\n"
            + "\tserver_state = Active\n"
            + "\tscheduling = True\n"
            + "\ttotal_jobs = 4\n"
            + "\tstate_count = Transit:0 Queued:3 Held:0 Waiting:0 Running:1 Exiting:0 Complete:0 \n"
            + "\tmanagers = root@head,alice@head\n"
            + "\tdefault_queue = batch\n"
            + "\tresources_default.nodes = 1\n"
            + "\tresources_default.walltime = 01:00:00\n"
            + "\tcomment = head node, rack 4\n"
            + "\tkeep_completed = 300\n"
            + "\tcgroup_enable = True\n"
            + "\n",
        ListFormat.format(ObjectView.server(SampleObjects.server()), UTC));
  }

  @Test
  void serverWithoutCountsShowsNoneAndCountsInTheMapWin() {
    ServerStatus server =
        ServerStatus.newBuilder()
            .setName("s")
            .putAttributes("total_jobs", "7")
            .putAttributes("scheduling", "False")
            .putStateCount("Q", 7)
            .build();
    assertEquals(
        "Server s\n"
            + "\tscheduling = False\n"
            + "\ttotal_jobs = 7\n"
            + "\tstate_count = Transit:0 Queued:7 Held:0 Waiting:0 Running:0 Exiting:0 Complete:0 \n"
            + "\n",
        ListFormat.format(ObjectView.server(server), UTC));
    assertEquals(
        "Server s\n\n",
        ListFormat.format(ObjectView.server(ServerStatus.newBuilder().setName("s").build()), UTC));
  }

  @Test
  void queueKeepsEnabledAndStartedLast() {
    assertEquals(
        "Queue batch\n"
            + "\tqueue_type = Execution\n"
            + "\tmax_running = 10\n"
            + "\tacl_users = alice,bob\n"
            + "\tresources_max.walltime = 24:00:00\n"
            + "\tresources_default.walltime = 01:00:00\n"
            + "\tsite_flag = x\n"
            + "\tenabled = True\n"
            + "\tstarted = True\n"
            + "\n",
        ListFormat.format(ObjectView.queue(SampleObjects.batch()), UTC));
  }

  @Test
  void mtimeDayIsPaddedLikeCtime() {
    Queue queue = Queue.newBuilder().setName("q").putAttributes("mtime", "0").build();
    assertEquals(
        "Queue q\n\tmtime = Thu Jan  1 00:00:00 1970\n\n",
        ListFormat.format(ObjectView.queue(queue), UTC));
    assertEquals(
        "Queue q\n\tmtime = Thu Jan  1 01:00:00 1970\n\n",
        ListFormat.format(ObjectView.queue(queue), ZoneOffset.ofHours(1)));
  }

  @Test
  void nodeFieldsUnderTorqueNamesWithLongStatusWrapped() {
    assertEquals(
        "Node n1\n"
            + "\tstate = offline\n"
            + "\tnp = 4\n"
            + "\tproperties = fast,gpu\n"
            + "\tntype = cluster\n"
            + "\tstatus = rectime=1700000000,loadave=0.50,physmem=16777216kb,\n"
            + "                 uname=Linux n1\n"
            + "\tnote = disk replaced\n"
            + "\tgpus = 2\n"
            + "\n",
        ListFormat.format(ObjectView.node(SampleObjects.n1()), UTC));
  }

  @Test
  void nodeStates() {
    assertEquals("free", state(Node.newBuilder()));
    assertEquals("down", state(Node.newBuilder().setDown(true)));
    assertEquals("offline", state(Node.newBuilder().setOffline(true)));
    assertEquals("down,offline", state(Node.newBuilder().setDown(true).setOffline(true)));
    assertEquals(
        "Node n2\n\tstate = free\n\tnp = 8\n\tntype = cluster\n\n",
        ListFormat.format(ObjectView.node(SampleObjects.n2()), UTC));
  }

  private static String state(Node.Builder node) {
    return ObjectView.node(node.setName("n").build()).entries().get(0).value();
  }

  @Test
  void longListsWrapBeforeColumnEighty() {
    ServerStatus server =
        ServerStatus.newBuilder()
            .setName("s")
            .putAttributes(
                "acl_hosts",
                "host01.example.com,host02.example.com,host03.example.com,"
                    + "host04.example.com,host05.example.com")
            .build();
    assertEquals(
        "Server s\n"
            + "\tacl_hosts = host01.example.com,host02.example.com,host03.example.com,\n"
            + "                    host04.example.com,host05.example.com\n"
            + "\n",
        ListFormat.format(ObjectView.server(server), UTC));
  }

  @Test
  void wrapsWhenTheNextItemWouldReachColumnEighty() {
    // "\tacl_hosts = " counts 20 columns; each item counts its length plus a comma.
    String first = "a".repeat(28);
    assertEquals(
        "Server s\n\tacl_hosts = " + first + "," + "b".repeat(29) + "\n\n",
        listAclHosts(first + "," + "b".repeat(29)));
    assertEquals(
        "Server s\n\tacl_hosts = " + first + ",\n" + " ".repeat(20) + "c".repeat(30) + "\n\n",
        listAclHosts(first + "," + "c".repeat(30)));
  }

  private static String listAclHosts(String value) {
    ServerStatus server =
        ServerStatus.newBuilder().setName("s").putAttributes("acl_hosts", value).build();
    return ListFormat.format(ObjectView.server(server), UTC);
  }

  @Test
  void selectedAttributesOnly() {
    ObjectView view =
        ObjectView.server(SampleObjects.server())
            .select(
                List.of(
                    Attribute.newBuilder().setName("scheduling").build(),
                    Attribute.newBuilder()
                        .setName("resources_default")
                        .setResource("walltime")
                        .build()));
    assertEquals(
        "Server head\n\tscheduling = True\n\tresources_default.walltime = 01:00:00\n\n",
        ListFormat.format(view, UTC));
    ObjectView everyResource =
        ObjectView.server(SampleObjects.server())
            .select(List.of(Attribute.newBuilder().setName("resources_default").build()));
    assertEquals(
        "Server head\n"
            + "\tresources_default.nodes = 1\n"
            + "\tresources_default.walltime = 01:00:00\n\n",
        ListFormat.format(everyResource, UTC));
  }
}
