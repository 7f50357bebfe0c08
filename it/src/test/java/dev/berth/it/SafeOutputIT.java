package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.ByteString;
import dev.berth.core.ControlCharacters;
import dev.berth.daemon.BerthHome;
import dev.berth.mom.os.JobFiles;
import dev.berth.proto.AttributeValue;
import dev.berth.proto.Event;
import dev.berth.proto.Holds;
import dev.berth.proto.Job;
import dev.berth.proto.JobHeld;
import dev.berth.proto.JobState;
import dev.berth.proto.JobSubmitted;
import dev.berth.proto.Node;
import dev.berth.proto.NodeCreated;
import dev.berth.proto.Queue;
import dev.berth.proto.QueueCreated;
import dev.berth.proto.ResourceRequest;
import dev.berth.proto.ServerAttributesChanged;
import dev.berth.proto.Variable;
import dev.berth.server.journal.RocksJournal;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Output is safe to read whatever the values hold. The server refuses control characters now, but a
 * journal written before it did (or text a node reports) may still carry them: here a server starts
 * on such a journal, with a job whose name, account, variables and comment, a node note and the
 * server's comment hold newlines and terminal escapes, and every view root may look at (qstat in
 * each format, pbsnodes, tracejob, qmgr list and print) shows them escaped. No raw control
 * character reaches the terminal and no value adds a line of its own.
 */
@Tag("integration")
class SafeOutputIT {
  private static final String FORGED = "Job_Owner = root@head";
  private static final long TIME = 1_796_032_800_000L;

  static Path home;
  static ServerProcess server;

  @BeforeAll
  static void startOnAnOlderJournal() throws Exception {
    home = Files.createTempDirectory(Path.of("/tmp"), "berth-safe-output-");
    try (RocksJournal journal = RocksJournal.open(new BerthHome(home).journal())) {
      journal.append(olderJournal()).get(30, TimeUnit.SECONDS);
    }
    server = new ServerProcess(home);
    if (!server.start()) {
      fail("the server did not start: " + server.log());
    }
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
    JobFiles.removeTree(home);
  }

  /** The events an older server could have written, hostile text and all. */
  private static List<Event> olderJournal() {
    Queue batch =
        Queue.newBuilder()
            .setName("batch")
            .putAttributes("queue_type", "Execution")
            .putAttributes("enabled", "True")
            .putAttributes("started", "True")
            .build();
    Node node =
        Node.newBuilder()
            .setName("n1")
            .setNp(1)
            .addCpuIds(0)
            .setNtype("cluster")
            .setDown(true)
            .setNote("disk ok\n" + FORGED + "\u001b[8m")
            .build();
    Job job =
        Job.newBuilder()
            .setId("1." + TestCluster.SERVER)
            .setNumber(1)
            .setName("evil\u001b[2J\n" + FORGED)
            .setOwner("alice@login1")
            .setEuser("alice")
            .setEgroup("alice")
            .setState(JobState.QUEUED)
            .setQueue("batch")
            .setServer(TestCluster.SERVER)
            .setCtime(TIME / 1000)
            .setQtime(TIME / 1000)
            .setMtime(TIME / 1000)
            .setEtime(TIME / 1000)
            .setResources(
                ResourceRequest.newBuilder()
                    .putValues("walltime", "01:00:00")
                    .putValues("nodect", "1")
                    .setWalltime(3600))
            .setOutputPath("login1:/tmp/evil.o1")
            .setErrorPath("login1:/tmp/evil.e1")
            .setJoinPath("n")
            .setKeepFiles("n")
            .setMailPoints("a")
            .setRerunnable(true)
            .setAccount("acct\r\u0000")
            .setComment("done\u001b]0;owned\u0007\n" + FORGED)
            .addVariables(
                Variable.newBuilder().setName("X").setValue("a\n" + FORGED + "\u009b\u202e"))
            .setWorkDir("/tmp")
            .build();
    return List.of(
        event(1, Event.newBuilder().setQueueCreated(QueueCreated.newBuilder().setQueue(batch))),
        event(
            2,
            Event.newBuilder()
                .setServerAttributesChanged(
                    ServerAttributesChanged.newBuilder()
                        .addChanges(value("default_queue", "batch"))
                        .addChanges(value("comment", "ok\nset server managers += mallory@*")))),
        event(3, Event.newBuilder().setNodeCreated(NodeCreated.newBuilder().setNode(node))),
        event(
            4,
            Event.newBuilder()
                .setJobSubmitted(
                    JobSubmitted.newBuilder()
                        .setJob(job)
                        .setScript(ByteString.copyFromUtf8("#!/bin/sh\ntrue\n")))),
        // held, so that qstat shows its own comment: a queued job's says why it is not running
        event(
            5,
            Event.newBuilder()
                .setJobHeld(
                    JobHeld.newBuilder()
                        .setJobId(job.getId())
                        .setHolds(Holds.newBuilder().setUser(true)))));
  }

  private static Event event(long seq, Event.Builder body) {
    return body.setSeq(seq).setTime(TIME).setActor("server").build();
  }

  private static AttributeValue value(String name, String value) {
    return AttributeValue.newBuilder().setName(name).setValue(value).build();
  }

  private static String run(String command, String... args) {
    TestCluster.Result r =
        TestCluster.runCli(TestCluster.clientEnv(server.socket), home, "", command, args);
    assertEquals(0, r.exit(), command + " " + String.join(" ", args) + ": " + r);
    assertSafe(command + " " + String.join(" ", args), r.err());
    assertSafe(command + " " + String.join(" ", args), r.out());
    return r.out();
  }

  /** Only the layout's newlines and tabs, and no line that a value made. */
  private static void assertSafe(String what, String output) {
    for (int i = 0; i < output.length(); i++) {
      char c = output.charAt(i);
      if (ControlCharacters.is(c) && c != '\n' && c != '\t') {
        fail(what + ": raw " + ControlCharacters.escape(c) + " at " + i + " in:\n" + output);
      }
    }
    for (String line : output.split("\n")) {
      String l = line.strip();
      if (l.equals(FORGED) || l.startsWith("set server managers += mallory")) {
        fail(what + ": a value made the line '" + l + "' in:\n" + output);
      }
    }
  }

  @Test
  void qstatShowsEveryValueEscapedInEveryFormat() throws Exception {
    String table = run("qstat");
    assertTrue(table.contains("1.itsrv"), table);
    run("qstat", "-a", "-n", "-s");
    run("qstat", "-a", "-n", "-1", "-s");
    String full = run("qstat", "-f", "1");
    assertTrue(full.contains("    Job_Name = evil\\x1b[2J\\nJob_Owner = root@head\n"), full);
    assertTrue(full.contains("    Account_Name = acct\\r\\x00\n"), full);
    assertTrue(
        full.contains("    comment = done\\x1b]0;owned\\x07\\nJob_Owner = root@head\n"), full);
    assertTrue(full.contains("X=a\\nJob_Owner = root@head\\x9b\\u202e"), full);
    run("qstat", "-f", "-1", "1");

    String json = run("qstat", "-f", "-F", "json", "1");
    var parsed = MiniJson.object(json);
    assertTrue(parsed.containsKey("Jobs"), json);
    assertTrue(json.contains("\"Job_Name\":\"evil\\u001b[2J\\nJob_Owner = root@head\""), json);

    String xml = run("qstat", "-x", "1");
    DocumentBuilderFactory.newInstance()
        .newDocumentBuilder()
        .parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    assertTrue(xml.contains("<Job_Name>evil\\x1b[2J\\nJob_Owner = root@head</Job_Name>"), xml);
    run("qstat", "-B", "-f");
  }

  @Test
  void pbsnodesTracejobAndQmgrToo() throws Exception {
    String nodes = run("pbsnodes", "-a");
    assertTrue(nodes.contains("     note = disk ok\\nJob_Owner = root@head\\x1b[8m\n"), nodes);
    run("pbsnodes", "-l", "-n");
    String xml = run("pbsnodes", "-x");
    DocumentBuilderFactory.newInstance()
        .newDocumentBuilder()
        .parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    String trace = run("tracejob", "1");
    assertTrue(trace.contains("job name = evil\\x1b[2J\\nJob_Owner = root@head"), trace);
    String list = run("qmgr", "-c", "list server");
    assertTrue(list.contains("\tcomment = ok\\nset server managers += mallory@*\n"), list);
    run("qmgr", "-c", "print server");
    run("qmgr", "-c", "list node n1");
    run("qmgr", "-c", "print node n1");
  }
}
