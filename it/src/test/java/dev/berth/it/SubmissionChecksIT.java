package dev.berth.it;

import static dev.berth.it.TestUsers.ALICE;
import static dev.berth.it.TestUsers.BOB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.berth.client.BerthClient;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatServer;
import dev.berth.proto.SubmitJob;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The server is the authority on what a job may be, whichever client sends it: root jobs need
 * acl_roots, values with control characters and sizes or products that overflow are refused, and
 * one user cannot flood the queues. Each feature is tested through the real commands, and next to
 * it the same attack as a real unprivileged user's own client that bypasses qsub.
 */
@Tag("integration")
class SubmissionChecksIT {
  static final List<Path> SCRIPTS = new ArrayList<>();
  static TestCluster cluster;
  static Path aliceHome;

  @BeforeAll
  static void start() throws IOException {
    TestUsers.ensure(ALICE, BOB);
    cluster = TestCluster.start(false); // no mom: these tests are about admission
    qmgr("create node n1 np=4"); // a node for the jobs to fit on; it never runs them
    aliceHome = TestUsers.home(ALICE);
  }

  @AfterAll
  static void stop() throws IOException {
    cluster.close();
    for (Path f : SCRIPTS) {
      Files.deleteIfExists(f);
    }
  }

  private static void qmgr(String directive) {
    TestCluster.Result r = cluster.cli("qmgr", "-c", directive);
    assertEquals(0, r.exit(), directive + ": " + r);
  }

  private static long nextJobNumber() throws Exception {
    try (BerthClient c = BerthClient.connect(cluster.socket)) {
      Response r = c.call(Request.newBuilder().setStatServer(StatServer.getDefaultInstance()));
      return Long.parseLong(r.getServer().getAttributesOrThrow("next_job_number"));
    }
  }

  private static Path script(Path dir, String name, String text, String owner) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, text);
    SCRIPTS.add(file);
    TestCluster.exec(Path.of("/"), List.of("chown", owner, file.toString()));
    return file;
  }

  private static Attribute attr(String name, String value) {
    return Attribute.newBuilder().setName(name).setValue(value).build();
  }

  /** What qsub would send for a plain job, plus {@code extra}. */
  private static Request submit(Attribute... extra) {
    SubmitJob.Builder s =
        SubmitJob.newBuilder()
            .addAttributes(attr("Job_Name", "raw"))
            .addAttributes(attr("Variable_List", "PBS_O_WORKDIR=/tmp"))
            .addAttributes(attr("Hold_Types", "u"))
            .setScript(ByteString.copyFromUtf8("#!/bin/sh\ntrue\n"));
    for (Attribute a : extra) {
      s.addAttributes(a);
    }
    return Request.newBuilder().setSubmit(s).build();
  }

  @Test
  void rootJobsAreRefusedUnlessAclRootsNamesTheSubmitter() throws Exception {
    Path work = Files.createTempDirectory(Path.of("/tmp"), "berth-root-");
    qmgr("unset server acl_roots");
    try {
      long before = nextJobNumber();
      TestCluster.Result refused =
          cluster.cliIn(work, "qsub", "-h", script(work, "r.pbs", "id\n", "root").toString());
      assertEquals(15025 % 256, refused.exit(), refused.toString());
      assertTrue(
          refused.err().contains("root user root@" + cluster.node + " not allowed"), refused.err());
      assertTrue(refused.err().contains("acl_roots"), refused.err());
      assertEquals(before, nextJobNumber(), "nothing recorded");

      qmgr("set server acl_roots = root@" + cluster.node);
      TestCluster.Result accepted =
          cluster.cliIn(work, "qsub", "-h", "-N", "rootjob", work.resolve("r.pbs").toString());
      assertEquals(0, accepted.exit(), accepted.toString());
      Job job = cluster.job(accepted.out().trim());
      assertEquals("root", job.getEuser());
      assertEquals("root@" + cluster.node, job.getOwner());
      assertEquals(JobState.HELD, job.getState());
      assertEquals(0, cluster.cli("qdel", job.getId()).exit());

      // bob can neither let root jobs in nor make a job run as anyone but himself
      TestCluster.Result widen =
          cluster.runAs(BOB, TestUsers.home(BOB), "qmgr", "-c", "set server acl_roots += " + BOB);
      assertEquals(15007 % 256, widen.exit(), widen.toString());
      long beforeBob = nextJobNumber();
      List<Response> replies =
          RawClient.send(
              BOB,
              cluster.socket,
              List.of(
                  submit(attr("User_List", "root")),
                  submit(attr("euser", "root")),
                  submit(attr("Job_Owner", "root@" + cluster.node))));
      for (Response r : replies) {
        assertEquals(Error.Code.UNKNOWN_ATTRIBUTE, r.getError().getCode(), r.toString());
      }
      assertEquals(beforeBob, nextJobNumber(), "nothing recorded");
    } finally {
      qmgr("set server acl_roots = root");
      TestCluster.exec(Path.of("/"), List.of("rm", "-rf", work.toString()));
    }
  }

  @Test
  void controlCharactersAreRefusedAtQsubAndFromARawClient() throws Exception {
    long before = nextJobNumber();
    Path plain = script(aliceHome, "plain.pbs", "true\n", ALICE);
    TestCluster.Result name =
        cluster.runAs(ALICE, aliceHome, "qsub", "-N", "a\nJob_Owner = root", plain.toString());
    assertEquals(2, name.exit(), name.toString());
    assertTrue(name.err().contains("-N: the value holds the control character \\n"), name.err());
    Path directive = script(aliceHome, "esc.pbs", "#PBS -o /tmp/out\u001b[2J\ntrue\n", ALICE);
    TestCluster.Result fromScript = cluster.runAs(ALICE, aliceHome, "qsub", directive.toString());
    assertEquals(2, fromScript.exit(), fromScript.toString());
    assertTrue(
        fromScript
            .err()
            .contains("directive on line 1: -o: the value holds the control character \\x1b"),
        fromScript.err());
    assertTrue(fromScript.err().indexOf('\u001b') < 0, "qsub's own message is escaped");
    TestCluster.Result variable =
        cluster.runAs(ALICE, aliceHome, "qsub", "-v", "X=1\u0007", plain.toString());
    assertEquals(2, variable.exit(), variable.toString());
    assertEquals(before, nextJobNumber(), "nothing reached the server");

    List<Request> attacks = new ArrayList<>();
    String[][] bad = {
      {"Job_Name", "x\u0000y"},
      {"Output_Path", cluster.node + ":/tmp/o\nut"},
      {"Error_Path", cluster.node + ":/tmp/e\u001b[8m"},
      {"Shell_Path_List", "/bin/sh\u0000-c evil"},
      {"init_work_dir", "/tmp\r"},
      {"work_dir", "/tmp/\u009b"},
      {"Variable_List", "LD_PRELOAD=/tmp/x\nPATH=/tmp"},
      {"Account_Name", "acct\u202e"},
      {"group_list", "users\u0007"},
    };
    for (String[] a : bad) {
      attacks.add(submit(attr(a[0], a[1])));
    }
    List<Response> replies = RawClient.send(BOB, cluster.socket, attacks);
    for (int i = 0; i < bad.length; i++) {
      Response r = replies.get(i);
      assertEquals(Error.Code.BAD_VALUE, r.getError().getCode(), bad[i][0] + ": " + r);
      assertTrue(
          r.getError().getMessage().startsWith("illegal value for " + bad[i][0] + ":"),
          r.toString());
      assertTrue(r.getError().getMessage().contains("control character"), r.toString());
    }
    assertEquals(before, nextJobNumber(), "no attack left a job behind");
  }

  /**
   * Zero-width, direction-mark and tag characters (Unicode Cf) make a name look like another: qsub
   * refuses them in names and text, naming the attribute and the code point, and so does the server
   * from a raw client; the job's environment keeps them, and qstat shows them escaped.
   */
  @Test
  void invisibleFormattingCharactersAreRefusedAtQsubAndFromARawClient() throws Exception {
    long before = nextJobNumber();
    // in scripts, which are bytes, not in arguments, which a JVM encodes as its locale says
    Path named = script(aliceHome, "name-cf.pbs", "#PBS -N train\u200e\ntrue\n", ALICE);
    TestCluster.Result name = cluster.runAs(ALICE, aliceHome, "qsub", named.toString());
    assertTrue(name.exit() != 0, name.toString());
    assertTrue(
        name.err()
            .contains(
                "illegal value for Job_Name: 'train\\u200e' holds U+200E, an invisible"
                    + " formatting character, at position 6"),
        name.err());
    assertTrue(name.err().indexOf('\u200e') < 0, "the message shows it escaped");
    Path directive = script(aliceHome, "acct-cf.pbs", "#PBS -A pro\u200dj\ntrue\n", ALICE);
    TestCluster.Result account = cluster.runAs(ALICE, aliceHome, "qsub", directive.toString());
    assertTrue(account.exit() != 0, account.toString());
    assertTrue(account.err().contains("illegal value for Account_Name"), account.err());
    assertTrue(account.err().contains("U+200D"), account.err());
    assertEquals(before, nextJobNumber(), "nothing recorded");

    String persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"; // with a ZWNJ
    Path env =
        script(aliceHome, "env-cf.pbs", "#PBS -h -v GREETING=" + persian + "\ntrue\n", ALICE);
    TestCluster.Result held = cluster.runAs(ALICE, aliceHome, "qsub", env.toString());
    assertEquals(0, held.exit(), held.toString());
    String id = held.out().strip();
    assertTrue(
        cluster.job(id).getVariablesList().stream()
            .anyMatch(v -> v.getName().equals("GREETING") && v.getValue().equals(persian)),
        "the job gets its environment as it was");
    TestCluster.Result shown = cluster.runAs(ALICE, aliceHome, "qstat", "-f", id);
    assertEquals(0, shown.exit(), shown.toString());
    assertTrue(shown.out().indexOf('\u200c') < 0, "qstat escapes it: " + shown.out());
    assertEquals(0, cluster.runAs(ALICE, aliceHome, "qdel", id).exit());

    String tag = new String(Character.toChars(0xE0041));
    String[][] bad = {
      {"Job_Name", "admin" + tag, "U+E0041"},
      {"Account_Name", "\ufeffproj", "U+FEFF"},
      {"Mail_Users", "bob@exa\u061cmple.org", "U+061C"},
      {"Output_Path", cluster.node + ":/tmp/o\u200but", "U+200B"},
    };
    List<Request> attacks = new ArrayList<>();
    for (String[] a : bad) {
      attacks.add(submit(attr(a[0], a[1])));
    }
    List<Response> replies = RawClient.send(BOB, cluster.socket, attacks);
    for (int i = 0; i < bad.length; i++) {
      Response r = replies.get(i);
      assertEquals(Error.Code.BAD_VALUE, r.getError().getCode(), bad[i][0] + ": " + r);
      assertTrue(
          r.getError().getMessage().startsWith("illegal value for " + bad[i][0] + ":"),
          r.toString());
      assertTrue(
          r.getError().getMessage().contains(bad[i][2] + ", an invisible formatting character"),
          r.toString());
    }
    assertEquals(before + 1, nextJobNumber(), "no attack left a job behind");
  }

  @Test
  void memoryProductsThatOverflowAreRefused() throws Exception {
    Path plain = script(aliceHome, "mem.pbs", "true\n", ALICE);
    long before = nextJobNumber();
    TestCluster.Result pmem =
        cluster.runAs(
            ALICE, aliceHome, "qsub", "-l", "nodes=1:ppn=2,pmem=5000pb", plain.toString());
    assertEquals(15016 % 256, pmem.exit(), pmem.toString());
    assertTrue(
        pmem.err().contains("illegal value for resource pmem=5000pb: pmem times ppn=2"),
        pmem.err());
    TestCluster.Result mem =
        cluster.runAs(ALICE, aliceHome, "qsub", "-l", "mem=9000pb", plain.toString());
    assertEquals(15016 % 256, mem.exit(), mem.toString());
    assertTrue(mem.err().contains("too large"), mem.err());
    List<Response> raw =
        RawClient.send(
            BOB,
            cluster.socket,
            List.of(
                submit(res("ncpus", "3"), res("pvmem", "4000pb")),
                submit(res("nodes", "70000:ppn=70000")),
                submit(res("walltime", "9223372036854775807"))));
    for (Response r : raw) {
      assertEquals(Error.Code.BAD_VALUE, r.getError().getCode(), r.toString());
    }
    assertEquals(before, nextJobNumber());
  }

  private static Attribute res(String name, String value) {
    return Attribute.newBuilder()
        .setName("Resource_List")
        .setResource(name)
        .setValue(value)
        .build();
  }

  @Test
  void maxUserQueuableOnTheServerAndOnAQueue() throws Exception {
    Path plain = script(aliceHome, "q.pbs", "true\n", ALICE);
    qmgr("create queue limited queue_type=e,enabled=true,started=true,max_user_queuable=1");
    qmgr("set server max_user_queuable = 2");
    List<String> jobs = new ArrayList<>();
    try {
      jobs.add(qsubAlice("-h", "-q", "limited", plain.toString()));
      TestCluster.Result queue =
          cluster.runAs(ALICE, aliceHome, "qsub", "-h", "-q", "limited", plain.toString());
      assertEquals(15076 % 256, queue.exit(), queue.toString());
      assertTrue(
          queue.err().contains("Maximum number of jobs already in queue limited for user " + ALICE),
          queue.err());
      assertTrue(queue.err().contains("the queue's max_user_queuable = 1"), queue.err());

      jobs.add(qsubAlice("-h", plain.toString()));
      TestCluster.Result server = cluster.runAs(ALICE, aliceHome, "qsub", "-h", plain.toString());
      assertEquals(15048 % 256, server.exit(), server.toString());
      assertTrue(
          server.err().contains("Maximum number of jobs already queued for user " + ALICE),
          server.err());
      assertTrue(server.err().contains("the server's max_user_queuable = 2"), server.err());
      TestCluster.Result array =
          cluster.runAs(
              BOB,
              TestUsers.home(BOB),
              "qsub",
              "-h",
              "-t",
              "1-3",
              script(TestUsers.home(BOB), "a.pbs", "true\n", BOB).toString());
      assertEquals(15048 % 256, array.exit(), "an array counts as its subjobs: " + array);
      assertTrue(array.err().contains("0 jobs, this array adds 3"), array.err());

      // bob cannot lift the limit, and his raw client counts like qsub
      TestCluster.Result lift =
          cluster.runAs(BOB, TestUsers.home(BOB), "qmgr", "-c", "unset server max_user_queuable");
      assertEquals(15007 % 256, lift.exit(), lift.toString());
      List<Response> raw =
          RawClient.send(BOB, cluster.socket, List.of(submit(), submit(), submit()));
      assertTrue(raw.get(0).hasSubmitted(), raw.get(0).toString());
      assertTrue(raw.get(1).hasSubmitted(), raw.get(1).toString());
      assertEquals(Error.Code.MAX_QUEUED, raw.get(2).getError().getCode(), raw.get(2).toString());
      jobs.add(raw.get(0).getSubmitted().getJobId());
      jobs.add(raw.get(1).getSubmitted().getJobId());
    } finally {
      for (String id : jobs) {
        cluster.cli("qdel", id);
      }
      qmgr("unset server max_user_queuable");
    }
  }

  private static String qsubAlice(String... args) {
    TestCluster.Result r = cluster.runAs(ALICE, aliceHome, "qsub", args);
    assertEquals(0, r.exit(), r.toString());
    return r.out().trim();
  }

  @Test
  void oversizeScriptsAndValuesAreRefused() throws Exception {
    long before = nextJobNumber();
    qmgr("set server jobscript_max_size = 1kb");
    try {
      Path big =
          script(
              aliceHome,
              "big.pbs",
              "#!/bin/sh\n" + ("# " + "x".repeat(97) + "\n").repeat(20),
              ALICE);
      TestCluster.Result r = cluster.runAs(ALICE, aliceHome, "qsub", big.toString());
      assertEquals(15016 % 256, r.exit(), r.toString());
      assertTrue(
          r.err().contains("jobscript max size exceeded: the script is 2010 bytes"), r.err());
      assertTrue(r.err().contains("jobscript_max_size is 1kb"), r.err());
    } finally {
      qmgr("unset server jobscript_max_size");
    }
    Path plain = script(aliceHome, "v.pbs", "true\n", ALICE);
    TestCluster.Result value =
        cluster.runAs(ALICE, aliceHome, "qsub", "-A", "a".repeat(70_000), plain.toString());
    assertEquals(15016 % 256, value.exit(), value.toString());
    assertTrue(value.err().contains("the value of Account_Name is 70000 bytes long"), value.err());
    Response raw =
        RawClient.send(
                BOB,
                cluster.socket,
                List.of(submit(attr("Variable_List", "BIG=" + "b".repeat(70_000)))))
            .get(0);
    assertEquals(Error.Code.BAD_VALUE, raw.getError().getCode(), raw.toString());
    assertTrue(raw.getError().getMessage().contains("at most 65536 bytes"), raw.toString());
    assertEquals(before, nextJobNumber());
  }
}
