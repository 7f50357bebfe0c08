package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.berth.mom.os.JobFiles;
import dev.berth.mom.os.NodeFacts;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The status and admin commands' output against a live cluster with a mom, read the way scripts and
 * people read Torque's: qstat's tables, -f, -x and -F json, qstat -Q/-B, pbsnodes, qmgr list and
 * print, tracejob, qsig, qalter, offline nodes and cgroup_enable.
 *
 * <p>Three jobs in their own queue {@code cli} are set up once: one finished, one held, and one
 * running that holds every CPU of this host (so the node is job-exclusive) until a later test
 * deletes it. The tests run in order: those reading the three jobs first, then those changing the
 * cluster.
 */
@Tag("integration")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CliOutputIT {
  private static final String SERVER = TestCluster.SERVER;
  private static final String TABLE_HEADER =
      "Job ID                    Name             User            Time Use S Queue\n"
          + "------------------------- ---------------- --------------- -------- - -----\n";

  /** A value the XML and JSON writers must escape. */
  private static final String AWKWARD = "<b>&\"q\",r";

  static TestCluster cluster;
  static TestCluster fresh;
  static Path work;
  static String node;
  static int cpus;
  static String finished;
  static String held;
  static String running;
  static Path ready;
  static Path signalled;

  @BeforeAll
  static void startThreeJobs() throws IOException {
    cluster = TestCluster.start();
    node = cluster.node;
    cpus = NodeFacts.linux().onlineCpus().size();
    work = Files.createTempDirectory(Path.of("/tmp"), "berth-cli-");
    Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxr-xr-x"));
    qmgr(cluster, "create queue cli queue_type=e,enabled=true,started=true");

    finished =
        cluster.submit(
            work, "echo finished\n", "-N", "finished", "-q", "cli", "-l", "walltime=00:05:00");
    cluster.awaitState(finished, JobState.COMPLETED);
    held =
        cluster.submit(
            work,
            "true\n",
            "-h",
            "-N",
            "held",
            "-q",
            "cli",
            "-l",
            "walltime=00:10:00",
            "-v",
            "NOTE='" + AWKWARD + "'");
    ready = work.resolve("ready");
    signalled = work.resolve("signalled");
    running =
        cluster.submit(
            work,
            "trap 'echo got USR1 >> "
                + signalled
                + "' USR1\n"
                + "touch "
                + ready
                + "\n"
                + "while true; do sleep 30 & wait $!; done\n",
            "-N",
            "sleeper",
            "-q",
            "cli",
            "-S",
            "/bin/bash",
            "-l",
            "nodes=1:ppn=" + cpus + ",walltime=00:10:00");
    cluster.await(
        running,
        j -> j.getState() == JobState.RUNNING && j.getSessionId() > 0 && Files.exists(ready),
        Duration.ofSeconds(60));
  }

  @AfterAll
  static void stop() throws IOException {
    try {
      if (cluster != null && running != null) {
        if (cluster.job(running).getState() != JobState.COMPLETED) {
          cluster.cli("qdel", running);
          cluster.awaitState(running, JobState.COMPLETED);
        }
      }
    } finally {
      if (fresh != null) {
        fresh.close();
      }
      if (cluster != null) {
        cluster.close();
      }
      if (work != null) {
        JobFiles.removeTree(work);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Reading the three jobs.

  @Test
  @Order(1)
  void qstatPrintsTorquesTableWithEachJobsState() {
    TestCluster.Result r = ok(cluster.cli("qstat"));
    assertTrue(r.out().startsWith(TABLE_HEADER), r.out());
    List<String> rows = lines(r.out().substring(TABLE_HEADER.length()));
    assertEquals(3, rows.size(), r.out());
    assertAll(
        () -> assertRow(rows.get(0), finished, "finished", "\\d\\d:\\d\\d:\\d\\d", "C"),
        () -> assertRow(rows.get(1), held, "held", "0", "H"),
        () -> assertRow(rows.get(2), running, "sleeper", "\\S+", "R"));
  }

  private static void assertRow(String row, String id, String name, String time, String state) {
    String pattern = Pattern.quote(id) + " +" + name + " +root +" + time + " " + state + " cli *";
    assertTrue(row.matches(pattern), "«" + row + "» should match " + pattern);
    assertEquals(26, row.indexOf(name + " "), "the Name column starts at column 27: " + row);
  }

  @Test
  @Order(2)
  void qstatAlternateListingShowsSessionNodesTasksAndExecHosts() {
    TestCluster.Result a = ok(cluster.cli("qstat", "-a"));
    List<String> lines = lines(a.out());
    assertEquals("", lines.get(0), a.out());
    assertTrue(lines.get(1).startsWith(SERVER + ":"), a.out());
    assertTrue(
        lines
            .get(3)
            .startsWith(
                "Job ID                  Username    Queue    Jobname          SessID  NDS   TSK"
                    + "   Memory      Time    S   Time"),
        a.out());
    long session = cluster.job(running).getSessionId();
    long finishedSession = cluster.job(finished).getSessionId();
    assertAll(
        () ->
            assertLine(
                a.out(),
                Pattern.quote(finished)
                    + " +root +cli +finished +"
                    + finishedSession
                    + " +1 +-- +-- +00:05:00 C +--"),
        () ->
            assertLine(
                a.out(), Pattern.quote(held) + " +root +cli +held +-- +1 +-- +-- +00:10:00 H +--"),
        () ->
            assertLine(
                a.out(),
                Pattern.quote(running)
                    + " +root +cli +sleeper +"
                    + session
                    + " +1 +"
                    + cpus
                    + " +-- +00:10:00 R +\\d\\d:\\d\\d:\\d\\d"));

    // -n: each job's exec_host on the line below it (Torque's "   node/cpus"), "--" for none.
    List<String> n = lines(ok(cluster.cli("qstat", "-n")).out());
    assertAll(
        () -> assertEquals("   " + node + "/0", after(n, finished)),
        () -> assertEquals("--", after(n, held).trim()),
        () -> assertEquals("   " + allCpus(), after(n, running)));
    // -n -1: on the job's own line instead.
    String one = ok(cluster.cli("qstat", "-n", "-1")).out();
    assertLine(one, Pattern.quote(finished) + " .* C +-- +" + Pattern.quote(node + "/0"));
    assertLine(one, Pattern.quote(running) + " .* R +\\S+ +" + Pattern.quote(allCpus()));
  }

  @Test
  @Order(3)
  void qstatFullListsTheAttributesInTorquesOrderAndFoldsLongLines() {
    String done = ok(cluster.cli("qstat", "-f", finished)).out();
    String run = ok(cluster.cli("qstat", "-f", running)).out();
    String hold = ok(cluster.cli("qstat", "-f", held)).out();
    assertAll(
        () -> assertTrue(done.startsWith("Job Id: " + finished + "\n"), done),
        () -> assertAttr(done, "job_state", "C"),
        () -> assertAttr(done, "exec_host", Pattern.quote(node + "/0")),
        () -> assertAttr(done, "exit_status", "0"),
        () -> assertAttr(done, "resources_used.walltime", "\\d\\d:\\d\\d:\\d\\d"),
        () -> assertAttr(done, "start_time", "\\w{3} \\w{3} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d \\d{4}"),
        () -> assertAttr(done, "comp_time", "\\w{3} \\w{3} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d \\d{4}"),
        () -> assertAttr(done, "Resource_List.walltime", "00:05:00"),
        () -> assertAttr(done, "cgroup_enable", "False"),
        () -> assertAttr(run, "job_state", "R"),
        () -> assertAttr(run, "exec_host", Pattern.quote(allCpus())),
        () -> assertAttr(run, "session_id", Long.toString(cluster.job(running).getSessionId())),
        () -> assertAttr(run, "Walltime.Remaining", "\\d+"),
        () -> assertAttr(run, "Shell_Path_List", "/bin/bash"),
        () -> assertFalse(run.contains("exit_status"), run),
        () -> assertFalse(run.contains("comp_time"), run),
        () -> assertAttr(hold, "job_state", "H"),
        () -> assertAttr(hold, "Hold_Types", "u"),
        () -> assertFalse(hold.contains("exec_host"), hold),
        () -> assertFalse(hold.contains("session_id"), hold));

    // Torque 6's order (docs/commands.md), for the attributes the finished job has.
    List<String> order =
        List.of(
            "Job_Name",
            "Job_Owner",
            "resources_used.walltime",
            "job_state",
            "queue",
            "server",
            "ctime",
            "Error_Path",
            "exec_host",
            "Hold_Types",
            "Output_Path",
            "Priority",
            "Resource_List.walltime",
            "session_id",
            "Variable_List",
            "euser",
            "exit_status",
            "submit_args",
            "start_time",
            "start_count",
            "comp_time",
            "submit_host",
            "work_dir",
            "cgroup_enable");
    List<Integer> at = order.stream().map(a -> done.indexOf("\n    " + a + " = ")).toList();
    assertFalse(at.contains(-1), "every attribute is listed: " + order + " in\n" + done);
    List<Integer> sorted = new ArrayList<>(at);
    sorted.sort(null);
    assertEquals(sorted, at, "attributes in Torque's order:\n" + done);

    // Folding: long values continue on tab-indented lines; -1 turns that off.
    for (String line : lines(done)) {
      assertTrue(line.length() <= 80, "folded: «" + line + "»");
    }
    assertTrue(done.contains("\n\t"), "the long Variable_List is folded: " + done);
    String unfolded = ok(cluster.cli("qstat", "-f", "-1", finished)).out();
    assertFalse(unfolded.contains("\n\t"), unfolded);
    assertEquals(
        done.replace("\n\t", ""), unfolded, "-1 prints the same text without the line breaks");
  }

  @Test
  @Order(4)
  void qstatXmlIsWellFormedAndHasEveryJob() throws Exception {
    String xml = ok(cluster.cli("qstat", "-x")).out();
    Document doc =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    Element data = doc.getDocumentElement();
    assertEquals("Data", data.getTagName());
    Map<String, Element> jobs = new TreeMap<>();
    NodeList list = data.getElementsByTagName("Job");
    assertEquals(3, list.getLength(), xml);
    for (int i = 0; i < list.getLength(); i++) {
      Element job = (Element) list.item(i);
      jobs.put(text(job, "Job_Id"), job);
    }
    assertEquals(Set.of(finished, held, running), jobs.keySet());
    Element done = jobs.get(finished);
    Element hold = jobs.get(held);
    assertAll(
        () -> assertEquals("C", text(done, "job_state")),
        () -> assertEquals("H", text(hold, "job_state")),
        () -> assertEquals("R", text(jobs.get(running), "job_state")),
        () -> assertEquals(node + "/0", text(done, "exec_host")),
        () -> assertEquals("0", text(done, "exit_status")),
        () -> assertTrue(text(done, "ctime").matches("\\d{10}"), "times are epoch seconds"),
        () -> assertTrue(text(done, "comp_time").matches("\\d{10}"), "comp_time"),
        () -> assertEquals("00:10:00", text(child(hold, "Resource_List"), "walltime")),
        () ->
            assertTrue(
                text(hold, "Variable_List").contains("NOTE=<b>&\"q\"\\,r"),
                "escaped text reads back: " + text(hold, "Variable_List")));
  }

  @Test
  @Order(5)
  void qstatJsonParsesAndHasEveryJob() {
    Map<String, Object> top = MiniJson.object(ok(cluster.cli("qstat", "-F", "json")).out());
    assertEquals(SERVER, top.get("pbs_server"));
    assertTrue(top.get("timestamp") instanceof Long, "timestamp is a number");
    Map<String, Object> jobs = MiniJson.child(top, "Jobs");
    assertEquals(List.of(finished, held, running), List.copyOf(jobs.keySet()));
    Map<String, Object> done = MiniJson.child(jobs, finished);
    Map<String, Object> hold = MiniJson.child(jobs, held);
    Map<String, Object> run = MiniJson.child(jobs, running);
    assertAll(
        () -> assertEquals("C", done.get("job_state")),
        () -> assertEquals("H", hold.get("job_state")),
        () -> assertEquals("R", run.get("job_state")),
        () -> assertEquals(0L, done.get("exit_status")),
        () -> assertEquals(0L, hold.get("Priority")),
        () -> assertEquals(cluster.job(running).getSessionId(), run.get("session_id")),
        () -> assertEquals(node + "/0", done.get("exec_host")),
        () -> assertEquals("00:10:00", MiniJson.child(hold, "Resource_List").get("walltime")),
        () -> assertEquals("cli", MiniJson.child(hold, "Variable_List").get("PBS_O_QUEUE")),
        () -> assertEquals(AWKWARD, MiniJson.child(hold, "Variable_List").get("NOTE")),
        () -> assertTrue(MiniJson.child(run, "Walltime").get("Remaining") instanceof Long),
        () -> assertTrue(MiniJson.child(done, "resources_used").containsKey("walltime")));
  }

  @Test
  @Order(6)
  void qstatQueueAndServerSummariesCountTheJobs() {
    String q = ok(cluster.cli("qstat", "-Q")).out();
    List<String> lines = lines(q);
    assertEquals(
        "Queue              Max    Tot   Ena   Str   Que   Run   Hld   Wat   Trn   Ext T   Cpt",
        lines.get(0));
    assertAll(
        () ->
            assertEquals(
                List.of("batch", "0", "0", "yes", "yes", "0", "0", "0", "0", "0", "0", "E", "0"),
                fields(lines, "batch")),
        () ->
            assertEquals(
                List.of("cli", "0", "3", "yes", "yes", "0", "1", "1", "0", "0", "0", "E", "1"),
                fields(lines, "cli")));
    String b = ok(cluster.cli("qstat", "-B")).out();
    List<String> server = lines(b);
    assertTrue(
        server.get(0).matches("Server +Max +Tot +Que +Run +Hld +Wat +Trn +Ext +Com Status *"));
    assertEquals(
        List.of(SERVER, "0", "3", "0", "1", "1", "0", "0", "0", "1", "Active"),
        fields(server, SERVER));
    Map<String, Object> queues =
        MiniJson.child(
            MiniJson.object(ok(cluster.cli("qstat", "-Q", "-F", "json")).out()), "Queue");
    assertEquals(3L, MiniJson.child(queues, "cli").get("total_jobs"));
    assertEquals(0L, MiniJson.child(queues, "batch").get("total_jobs"));
  }

  @Test
  @Order(7)
  void qstatServerFullListingNamesEachAttributeOnce() {
    String full = ok(cluster.cli("qstat", "-B", "-f")).out();
    assertTrue(full.startsWith("Server: " + SERVER + "\n"), full);
    assertEquals(1, count(full, "\n    total_jobs = "), full);
  }

  @Test
  @Order(8)
  void qstatServerJsonHasNoDuplicateKeys() {
    String json = ok(cluster.cli("qstat", "-B", "-F", "json")).out();
    Map<String, Object> servers;
    try {
      servers = MiniJson.child(MiniJson.object(json), "Server");
    } catch (IllegalArgumentException e) {
      fail("qstat -B -F json: " + e.getMessage() + "\n" + json);
      return;
    }
    assertEquals(3L, MiniJson.child(servers, SERVER).get("total_jobs"));
  }

  @Test
  @Order(9)
  void qstatOfAnUnknownJobSaysSoAndExits153() {
    TestCluster.Result r = cluster.cli("qstat", "9999");
    assertAll(
        () -> assertEquals(153, r.exit(), "PBSE_UNKJOBID 15001 % 256"),
        () -> assertEquals("", r.out()),
        () -> assertEquals("qstat: Unknown Job Id Error 9999." + SERVER + "\n", r.err()));
    // The jobs that exist are still listed; the error comes after, with its exit status.
    TestCluster.Result both = cluster.cli("qstat", finished, "9999");
    assertEquals(153, both.exit(), both.toString());
    assertTrue(both.out().startsWith(TABLE_HEADER), both.out());
    assertEquals(1, lines(both.out().substring(TABLE_HEADER.length())).size(), both.out());
    assertTrue(both.err().contains("Unknown Job Id Error 9999." + SERVER), both.err());
    TestCluster.Result del = cluster.cli("qdel", "9999");
    assertEquals(153, del.exit(), del.toString());
    assertEquals("qdel: Unknown Job Id Error 9999." + SERVER + "\n", del.err());
  }

  @Test
  @Order(10)
  void qstatOfAnUnknownQueueSaysSo() {
    TestCluster.Result r = cluster.cli("qstat", "nosuchq");
    assertEquals(172, r.exit(), r.toString());
    assertTrue(r.err().contains("nosuchq"), r.err());
  }

  @Test
  @Order(11)
  void pbsnodesShowsTheNodeJobExclusiveWhileAJobHoldsEveryCpu() throws Exception {
    String a = ok(cluster.cli("pbsnodes", "-a")).out();
    List<String> lines = lines(a);
    assertEquals(node, lines.get(0), a);
    assertAll(
        () -> assertTrue(lines.contains("     state = job-exclusive"), a),
        () -> assertTrue(lines.contains("     np = " + cpus), a),
        () -> assertTrue(lines.contains("     ntype = cluster"), a),
        () -> assertTrue(lines.contains("     jobs = " + cpuRange() + "/" + running), a),
        () ->
            assertTrue(
                lines.stream()
                    .anyMatch(l -> l.startsWith("     status = ") && l.contains("ncpus=" + cpus)),
                a));
    String xml = ok(cluster.cli("pbsnodes", "-x")).out();
    Document doc =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    Element n = (Element) doc.getDocumentElement().getElementsByTagName("Node").item(0);
    assertEquals(node, text(n, "name"));
    assertEquals("job-exclusive", text(n, "state"));
    Map<String, Object> nodes =
        MiniJson.child(MiniJson.object(ok(cluster.cli("pbsnodes", "-F", "json")).out()), "nodes");
    assertEquals((long) cpus, MiniJson.child(nodes, node).get("np"));
    assertEquals("job-exclusive", MiniJson.child(nodes, node).get("state"));
  }

  @Test
  @Order(12)
  void qsigDeliversTheSignalToTheJobsScript() throws IOException {
    TestCluster.Result r = cluster.cli("qsig", "-s", "USR1", running);
    assertEquals(0, r.exit(), r.toString());
    cluster.await(running, j -> Files.exists(signalled), Duration.ofSeconds(20));
    TestCluster.sleep(1000);
    assertEquals("got USR1\n", Files.readString(signalled), "the script's trap ran once");
    assertEquals(JobState.RUNNING, cluster.job(running).getState(), "the trap kept it running");
  }

  @Test
  @Order(13)
  void qalterChangesTheWalltimeOfAHeldJob() {
    TestCluster.Result r = cluster.cli("qalter", "-l", "walltime=00:20:00", held);
    assertEquals(0, r.exit(), r.toString());
    String full = ok(cluster.cli("qstat", "-f", held)).out();
    assertAttr(full, "Resource_List.walltime", "00:20:00");
    assertAttr(full, "job_state", "H");
    assertEquals(1200, cluster.job(held).getResources().getWalltime());
  }

  @Test
  @Order(14)
  void tracejobTellsAFinishedJobsStoryInOrder() {
    String t = ok(cluster.cli("tracejob", finished)).out();
    assertTrue(t.contains("Job: " + finished + "\n"), t);
    long session = cluster.job(finished).getSessionId();
    List<String> story =
        List.of(
            "S    enqueuing into cli, state 1 hop 1",
            "S    Job Queued at request of root@" + node + ", owner = root@" + node,
            "A    queue=cli",
            "S    Job Run at request of scheduler on exec_host " + node + "/0",
            "S    Started, pid = " + session,
            "S    Exit_status=0 ",
            "A    user=root group=root jobname=finished queue=cli");
    int from = 0;
    for (String step : story) {
      int at = t.indexOf(step, from);
      assertTrue(at >= 0, "«" + step + "» after offset " + from + " in\n" + t);
      from = at + step.length();
    }
    for (String line : lines(t)) {
      if (line.contains(" S    ") || line.contains(" A    ")) {
        assertTrue(
            line.matches("\\d\\d/\\d\\d/\\d{4} \\d\\d:\\d\\d:\\d\\d(\\.\\d{3})? +[SA] {4}.+"),
            "Torque's tracejob line format: " + line);
      }
    }
  }

  @Test
  @Order(15)
  void qmgrListsTheServerAsTorqueDoes() {
    String s = ok(cluster.cli("qmgr", "-c", "list server")).out();
    List<String> lines = lines(s);
    assertEquals("Server " + SERVER, lines.get(0));
    assertAll(
        () -> assertTrue(lines.contains("\tserver_state = Active"), s),
        () -> assertTrue(lines.contains("\tscheduling = True"), s),
        () -> assertTrue(lines.contains("\tdefault_queue = batch"), s),
        () -> assertTrue(lines.contains("\ttotal_jobs = 3"), s),
        () ->
            assertTrue(
                lines.stream()
                    .anyMatch(
                        l ->
                            l.stripTrailing()
                                .equals(
                                    "\tstate_count = Transit:0 Queued:0 Held:1 Waiting:0"
                                        + " Running:1 Exiting:0 Complete:1")),
                s),
        () ->
            assertTrue(
                lines.subList(1, lines.size()).stream()
                    .allMatch(l -> l.startsWith("\t") || l.isEmpty()),
                s));
    assertEquals(
        "Server " + SERVER + "\n\tscheduling = True\n\n",
        ok(cluster.cli("qmgr", "-c", "list server scheduling")).out());
  }

  /**
   * The running job holds every CPU for its 10 minutes: a job asking for them all is reserved for
   * the running job's walltime end, and one behind it is not looked at, since no CPU is free.
   */
  @Test
  @Order(19)
  void queuedJobsSayWhyTheyWaitAndWhenTheyWillStart() throws IOException {
    String wide =
        cluster.submit(
            work,
            "true\n",
            "-N",
            "wide",
            "-q",
            "cli",
            "-l",
            "nodes=1:ppn=" + cpus + ",walltime=00:05:00");
    String small =
        cluster.submit(
            work, "true\n", "-N", "small", "-q", "cli", "-l", "nodes=1:ppn=1,walltime=00:01:00");
    try {
      long end = cluster.job(running).getStartTime() + 600;
      Job w = cluster.await(wide, j -> j.getEstimatedStartTime() > 0, Duration.ofSeconds(30));
      assertEquals(end, w.getEstimatedStartTime());
      assertEquals("Not Running: not enough free resources; its start is reserved", w.getComment());
      // a cycle from before small's submission says it was not looked at yet: wait for one after
      Job s =
          cluster.await(
              small,
              j ->
                  j.getComment().startsWith("Not Running")
                      && !j.getComment().endsWith("not looked at yet"),
              Duration.ofSeconds(30));
      assertEquals("Not Running: no CPU is free", s.getComment());
      assertEquals(0, s.getEstimatedStartTime());

      String f = ok(cluster.cli("qstat", "-f", wide)).out();
      assertAll(
          () -> assertTrue(f.contains("\n    sched_priority = 500\n"), f),
          () -> assertTrue(f.contains("\n    sched_priority_factors.user = 500\n"), f),
          () -> assertTrue(f.contains("\n    estimated.start_time = "), f),
          () ->
              assertTrue(
                  f.contains(
                      "\n    comment = Not Running: not enough free resources; its start is"
                          + " reserved\n"),
                  f));
      String json = ok(cluster.cli("qstat", "-f", "-F", "json", wide)).out();
      assertTrue(json.replaceAll("\\s", "").contains("\"estimated\":{\"start_time\":"), json);
      List<String> rows = lines(ok(cluster.cli("qstat", "-T", wide, small)).out());
      assertTrue(rows.get(3).endsWith("Time    S   Start"), rows.toString());
      assertTrue(rows.get(5).startsWith(wide.substring(0, wide.indexOf('.'))), rows.toString());
      assertTrue(rows.get(5).strip().matches(".* Q +\\d\\d:\\d\\d"), "an estimate today: " + rows);
      assertTrue(rows.get(6).endsWith(" Q       -- "), "no estimate: " + rows);
    } finally {
      cluster.cli("qdel", wide, small);
      cluster.awaitState(wide, JobState.COMPLETED);
      cluster.awaitState(small, JobState.COMPLETED);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Changing the cluster.

  @Test
  @Order(20)
  void qdelOfTheRunningJobFreesTheNode() {
    TestCluster.Result r = cluster.cli("qdel", running);
    assertEquals(0, r.exit(), r.toString());
    Job done = cluster.awaitState(running, JobState.COMPLETED);
    assertTrue(done.getComment().startsWith("deleted by root@"), done.getComment());
    cluster.await(
        running,
        j -> cluster.cli("pbsnodes", "-a").out().contains("state = free"),
        Duration.ofSeconds(20));
    assertFalse(cluster.cli("pbsnodes", "-a").out().contains("jobs = "), "no job on the node");
  }

  @Test
  @Order(21)
  void anOfflineNodeTakesNoNewJobUntilCleared() throws IOException {
    assertEquals(0, ok(cluster.cli("pbsnodes", "-o", node)).exit());
    try {
      assertEquals(String.format("%-20s offline%n", node), ok(cluster.cli("pbsnodes", "-l")).out());
      assertTrue(ok(cluster.cli("pbsnodes", "-a")).out().contains("     state = offline\n"));
      String waiting = cluster.submit(work, "true\n", "-N", "waitsfornode");
      TestCluster.sleep(2500); // submitting triggers the scheduler at once
      assertEquals(JobState.QUEUED, cluster.job(waiting).getState(), "the node is offline");
      assertTrue(ok(cluster.cli("qstat", waiting)).out().contains(" Q batch"));

      assertEquals(0, ok(cluster.cli("pbsnodes", "-c", node)).exit());
      assertEquals("", ok(cluster.cli("pbsnodes", "-l")).out(), "nothing down or offline");
      assertEquals(0, cluster.awaitState(waiting, JobState.COMPLETED).getExitStatus());
    } finally {
      cluster.cli("pbsnodes", "-c", node);
    }
  }

  @Test
  @Order(22)
  void cgroupEnableIsCopiedOntoNewJobsOnly() throws IOException {
    qmgr(cluster, "set server cgroup_enable = True");
    String newer = null;
    try {
      newer = cluster.submit(work, "true\n", "-h", "-N", "cgnew");
      assertAttr(ok(cluster.cli("qstat", "-f", newer)).out(), "cgroup_enable", "True");
      assertAttr(ok(cluster.cli("qstat", "-f", held)).out(), "cgroup_enable", "False");
      assertTrue(cluster.job(newer).getCgroupEnable());
      assertFalse(cluster.job(held).getCgroupEnable());
    } finally {
      qmgr(cluster, "set server cgroup_enable = False");
      if (newer != null) {
        cluster.cli("qdel", newer);
      }
    }
  }

  @Test
  @Order(23)
  void qmgrCreatesSetsAndDeletesAQueue() throws IOException {
    qmgr(cluster, "create queue tmpq queue_type=e,enabled=true,started=true");
    qmgr(cluster, "set queue tmpq resources_max.walltime = 01:00:00, max_queuable = 5");
    String list = ok(cluster.cli("qmgr", "-c", "list queue tmpq")).out();
    List<String> lines = lines(list);
    assertEquals("Queue tmpq", lines.get(0));
    assertAll(
        () -> assertTrue(lines.contains("\tqueue_type = Execution"), list),
        () -> assertTrue(lines.contains("\tresources_max.walltime = 01:00:00"), list),
        () -> assertTrue(lines.contains("\tmax_queuable = 5"), list),
        () -> assertTrue(lines.contains("\tenabled = True"), list),
        () -> assertTrue(lines.contains("\tstarted = True"), list));
    Path script = work.resolve("toolong.sh");
    Files.writeString(script, "true\n");
    TestCluster.Result tooLong =
        cluster.cliIn(work, "qsub", "-q", "tmpq", "-l", "walltime=02:00:00", script.toString());
    assertNotEquals(0, tooLong.exit(), "the queue's resources_max.walltime applies");
    assertTrue(tooLong.err().contains("walltime"), tooLong.err());

    qmgr(cluster, "delete queue tmpq");
    TestCluster.Result gone = cluster.cli("qmgr", "-c", "list queue tmpq");
    assertEquals(15020 % 256, gone.exit(), gone.toString());
    assertTrue(gone.err().contains("Unknown queue"), gone.err());
  }

  @Test
  @Order(24)
  void qmgrAcceptsTheAttributesItsDocumentationShows() {
    qmgr(cluster, "create queue fast queue_type=e,enabled=true,started=true");
    try {
      TestCluster.Result running = cluster.cli("qmgr", "-c", "set queue fast max_running = 2");
      TestCluster.Result comment =
          cluster.cli("qmgr", "-c", "set server comment = \"head node, rack 4\"");
      assertAll(
          () -> assertEquals(0, running.exit(), running.toString()),
          () -> assertEquals(0, comment.exit(), comment.toString()));
    } finally {
      cluster.cli("qmgr", "-c", "delete queue fast");
    }
  }

  @Test
  @Order(25)
  void printServerReplayedThroughQmgrRecreatesTheQueuesAndSettings() throws IOException {
    qmgr(cluster, "set server keep_completed = 600");
    qmgr(cluster, "set server resources_default.walltime = 02:00:00");
    qmgr(cluster, "set server managers += ops@*");
    qmgr(cluster, "set queue cli resources_max.walltime = 48:00:00");
    qmgr(cluster, "set queue cli acl_users = root");
    qmgr(cluster, "set queue cli acl_users += ops");
    qmgr(cluster, "create queue quiet queue_type=e,enabled=false,started=true");
    String printed = ok(cluster.cli("qmgr", "-c", "print server")).out();
    assertAll(
        () -> assertTrue(printed.contains("\ncreate queue cli\n"), printed),
        () -> assertTrue(printed.contains("\ncreate queue quiet\n"), printed),
        () -> assertTrue(printed.contains("\nset queue cli acl_users = root\n"), printed),
        () -> assertTrue(printed.contains("\nset queue cli acl_users += ops\n"), printed),
        () -> assertTrue(printed.contains("\nset queue quiet enabled = False\n"), printed),
        () -> assertTrue(printed.contains("\nset server keep_completed = 600\n"), printed),
        () -> assertTrue(printed.contains("\nset server managers = ops@*\n"), printed),
        () -> assertFalse(printed.contains("total_jobs"), "read-only attributes are left out"));

    TestCluster target = freshServer();
    TestCluster.Result replay = target.cliWithInput(target.home.root(), printed, "qmgr");
    // A fresh server already has queue batch, so its 'create queue batch' is refused; qmgr goes
    // on with the rest (and exits with that failure's status). Nothing else may fail.
    List<String> errors = lines(replay.err());
    assertTrue(
        errors.stream().allMatch(e -> e.contains("obj=batch") && e.contains("already exists")),
        replay.toString());
    assertEquals(printed, ok(target.cli("qmgr", "-c", "print server")).out(), "same site");
    assertTrue(ok(target.cli("qstat", "-Q")).out().contains("quiet"), "queue quiet exists");
  }

  @Test
  @Order(26)
  void printNodeReplayedThroughQmgrRecreatesTheNode() {
    qmgr(cluster, "set node " + node + " properties = fast");
    qmgr(cluster, "set node " + node + " note = \"rack 4, slot 2\"");
    String printed = ok(cluster.cli("qmgr", "-c", "print node")).out();
    assertTrue(printed.contains("\ncreate node " + node + "\n"), printed);
    assertTrue(printed.contains("\nset node " + node + " properties = fast\n"), printed);
    TestCluster target = freshServer();
    TestCluster.Result replay = target.cliWithInput(target.home.root(), printed, "qmgr");
    assertAll(
        () -> assertEquals(0, replay.exit(), replay.toString()),
        () -> assertEquals("", replay.err(), replay.toString()));
    String list = ok(target.cli("qmgr", "-c", "list node " + node)).out();
    assertTrue(list.contains("\tproperties = fast\n"), list);
    assertTrue(list.contains("\tnote = rack 4, slot 2\n"), list);
  }

  // ---------------------------------------------------------------------------------------------

  private static TestCluster freshServer() {
    if (fresh == null) {
      try {
        fresh = TestCluster.start(false);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    return fresh;
  }

  /** The sleeper ran for seconds before order 20 deleted it: its CPUs are root's usage now. */
  @Test
  @Order(30)
  void pbsfsShowsTheUsageJobsCharged() {
    String out = ok(cluster.cli("pbsfs")).out();
    List<String> lines = lines(out);
    assertEquals("Fair-share usage in CPU-seconds, halving every 604800 s", lines.get(0));
    assertTrue(lines.get(4).startsWith("account  root "), out);
    String user =
        lines.stream().filter(l -> l.startsWith("user     root ")).findFirst().orElseThrow();
    double usage = Double.parseDouble(user.split(" +")[4]);
    assertTrue(usage >= cpus, "at least a second on every CPU: " + out);
    String json = ok(cluster.cli("pbsfs", "-F", "json", "root")).out();
    assertTrue(json.replaceAll("\\s", "").contains("\"users\":{\"root\":{\"raw_shares\":1"), json);
    TestUsers.ensure(TestUsers.ALICE);
    TestCluster.Result alices = cluster.runAs(TestUsers.ALICE, work, "pbsfs", "root");
    assertEquals(0, alices.exit(), alices.toString());
    assertFalse(alices.out().contains("root"), "another user's usage: " + alices.out());
  }

  private static void qmgr(TestCluster c, String directive) {
    TestCluster.Result r = c.cli("qmgr", "-c", directive);
    assertEquals(0, r.exit(), "qmgr -c '" + directive + "': " + r);
  }

  private static TestCluster.Result ok(TestCluster.Result r) {
    assertEquals(0, r.exit(), r.toString());
    return r;
  }

  private static List<String> lines(String text) {
    return text.isEmpty() ? List.of() : Arrays.asList(text.split("\n", -1)).subList(0, count(text));
  }

  /** Lines in {@code text}, counting a last unterminated one. */
  private static int count(String text) {
    int n = count(text, "\n");
    return text.endsWith("\n") ? n : n + 1;
  }

  private static int count(String text, String part) {
    int n = 0;
    for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length())) {
      n++;
    }
    return n;
  }

  private static void assertLine(String text, String pattern) {
    assertTrue(
        lines(text).stream().anyMatch(l -> l.matches(pattern + " *")),
        "no line matches " + pattern + " in\n" + text);
  }

  private static void assertAttr(String full, String name, String valuePattern) {
    assertTrue(
        lines(full).stream()
            .anyMatch(l -> l.matches("    " + Pattern.quote(name) + " = " + valuePattern)),
        name + " = " + valuePattern + " in\n" + full);
  }

  /** The line after the one that starts with {@code id}. */
  private static String after(List<String> lines, String id) {
    for (int i = 0; i + 1 < lines.size(); i++) {
      if (lines.get(i).startsWith(id + " ")) {
        return lines.get(i + 1);
      }
    }
    return fail("no line for " + id + " in " + lines);
  }

  /** The whitespace-separated fields of the line that starts with {@code first}. */
  private static List<String> fields(List<String> lines, String first) {
    for (String l : lines) {
      if (l.startsWith(first + " ")) {
        return List.of(l.trim().split(" +"));
      }
    }
    return fail("no line for " + first + " in " + lines);
  }

  private static String cpuRange() {
    return cpus == 1 ? "0" : "0-" + (cpus - 1);
  }

  private static String allCpus() {
    return node + "/" + cpuRange();
  }

  private static String text(Element parent, String tag) {
    Element e = child(parent, tag);
    return e.getTextContent();
  }

  private static Element child(Element parent, String tag) {
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(tag)) {
        return e;
      }
    }
    return fail("no <" + tag + "> in <" + parent.getTagName() + ">");
  }
}
