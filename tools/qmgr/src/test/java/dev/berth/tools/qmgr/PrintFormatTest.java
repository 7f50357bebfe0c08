package dev.berth.tools.qmgr;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.proto.Attribute;
import dev.berth.proto.Manage.ObjectType;
import dev.berth.proto.Queue;
import dev.berth.proto.ServerStatus;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PrintFormatTest {

  @Test
  void queuesAsAScript() {
    assertEquals(
        "#\n"
            + "# Create queues and set their attributes.\n"
            + "#\n"
            + "#\n"
            + "# Create and define queue batch\n"
            + "#\n"
            + "create queue batch\n"
            + "set queue batch queue_type = Execution\n"
            + "set queue batch max_running = 10\n"
            + "set queue batch acl_users = alice\n"
            + "set queue batch acl_users += bob\n"
            + "set queue batch resources_max.walltime = 24:00:00\n"
            + "set queue batch resources_default.walltime = 01:00:00\n"
            + "set queue batch site_flag = x\n"
            + "set queue batch enabled = True\n"
            + "set queue batch started = True\n"
            + "#\n"
            + "# Create and define queue fast\n"
            + "#\n"
            + "create queue fast\n"
            + "set queue fast queue_type = Execution\n"
            + "set queue fast enabled = False\n",
        PrintFormat.script(
            ObjectType.QUEUE,
            List.of(
                ObjectView.queue(SampleObjects.batch()), ObjectView.queue(SampleObjects.fast()))));
  }

  @Test
  void serverAsAScriptWithoutReadOnlyAttributes() {
    assertEquals(
        "#\n"
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
        PrintFormat.script(ObjectType.SERVER, List.of(ObjectView.server(SampleObjects.server()))));
  }

  @Test
  void nodesAsAScript() {
    assertEquals(
        "#\n"
            + "# Create nodes and set their properties.\n"
            + "#\n"
            + "#\n"
            + "# Create and define node n1\n"
            + "#\n"
            + "create node n1\n"
            + "set node n1 state = offline\n"
            + "set node n1 np = 4\n"
            + "set node n1 properties = fast\n"
            + "set node n1 properties += gpu\n"
            + "set node n1 ntype = cluster\n"
            + "set node n1 note = \"disk replaced\"\n"
            + "set node n1 gpus = 2\n"
            + "#\n"
            + "# Create and define node n2\n"
            + "#\n"
            + "create node n2\n"
            + "set node n2 np = 8\n"
            + "set node n2 ntype = cluster\n",
        PrintFormat.script(
            ObjectType.NODE,
            List.of(ObjectView.node(SampleObjects.n1()), ObjectView.node(SampleObjects.n2()))));
  }

  @Test
  void quoting() {
    assertEquals("True", PrintFormat.quote("True"));
    assertEquals("1:ppn=2", PrintFormat.quote("1:ppn=2"));
    assertEquals("\"\"", PrintFormat.quote(""));
    assertEquals("\"two words\"", PrintFormat.quote("two words"));
    assertEquals("\"a,b\"", PrintFormat.quote("a,b"));
    assertEquals("\"x#y\"", PrintFormat.quote("x#y"));
    assertEquals("\"x;y\"", PrintFormat.quote("x;y"));
    assertEquals("'say \"hi\"'", PrintFormat.quote("say \"hi\""));
    assertEquals("\"it's\"", PrintFormat.quote("it's"));
  }

  /** The point of print: its output read back by qmgr sets the same values. */
  @Test
  void printedScriptReplaysToTheSameValues() throws Exception {
    Map<String, String> attributes = new LinkedHashMap<>();
    attributes.put("comment", "head node, rack 4; spare # 2");
    attributes.put("managers", "root@head,alice@head");
    attributes.put("mail_subject_fmt", "Job %i @ %h");
    attributes.put("motd", "say \"hi\"");
    attributes.put("resources_default.nodes", "1:ppn=2");
    attributes.put("empty", "");
    ServerStatus server =
        ServerStatus.newBuilder().setName("s").putAllAttributes(attributes).build();
    Queue queue =
        Queue.newBuilder()
            .setName("q1")
            .putAttributes("acl_groups", "staff,users")
            .putAttributes("queue_type", "Execution")
            .build();
    String script =
        PrintFormat.script(ObjectType.QUEUE, List.of(ObjectView.queue(queue)))
            + PrintFormat.script(ObjectType.SERVER, List.of(ObjectView.server(server)));

    Map<String, String> serverValues = new LinkedHashMap<>();
    Map<String, String> queueValues = new LinkedHashMap<>();
    List<String> created = new java.util.ArrayList<>();
    replay(script, serverValues, queueValues, created);

    assertEquals(List.of("q1"), created);
    assertEquals(attributes.keySet(), serverValues.keySet());
    assertEquals(attributes, serverValues);
    assertEquals(Map.of("acl_groups", "staff,users", "queue_type", "Execution"), queueValues);
  }

  private static void replay(
      String script, Map<String, String> server, Map<String, String> queue, List<String> created)
      throws IOException, QmgrSyntaxException {
    CommandReader reader = CommandReader.of(script);
    String text;
    while ((text = reader.next()) != null) {
      Directive.Operation op = (Directive.Operation) QmgrParser.parse(text);
      if (op.command() == dev.berth.proto.Manage.Command.CREATE) {
        created.add(((Directive.Target.Named) op.target()).names().get(0));
        continue;
      }
      Map<String, String> into = op.type() == ObjectType.SERVER ? server : queue;
      for (Attribute a : op.attributes()) {
        String key = a.getResource().isEmpty() ? a.getName() : a.getName() + "." + a.getResource();
        switch (a.getOp()) {
          case SET -> into.put(key, a.getValue());
          case INCR -> into.merge(key, a.getValue(), (old, item) -> old + "," + item);
          default -> throw new AssertionError("print wrote " + a.getOp());
        }
      }
    }
  }
}
