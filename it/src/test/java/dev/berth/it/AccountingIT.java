package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.mom.os.JobFiles;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The accounting files as a real server writes them while jobs of an unprivileged user run, end,
 * are deleted queued and running, and run as an array: Torque's records with their fields, lines
 * XDMoD's shredder takes, the same bytes again from the journal (berth accounting), the usage
 * report over them; and a user who is no manager cannot have them made.
 */
@Tag("integration")
class AccountingIT {
  static final String USER = TestUsers.ALICE;
  static final Duration LONG = Duration.ofSeconds(90);

  /** XDMoD's PBS shredder refuses a whole file if one line does not match this. */
  static final Pattern XDMOD =
      Pattern.compile("^(\\d{2}/\\d{2}/\\d{4})\\s(\\d{2}:\\d{2}:\\d{2});(\\w);([^;]+);(.*)");

  static MultiNodeCluster cluster;
  static Path work;

  @BeforeAll
  static void start() throws Exception {
    TestUsers.ensure(USER);
    work = MultiNodeCluster.workFor(USER, "berth-accounting-");
    cluster = MultiNodeCluster.start();
    cluster.startMom("a", "0-1");
    cluster.qmgr("set server cgroup_enable = True");
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
    JobFiles.removeTree(work);
  }

  private static Job await(String id, JobState state) {
    return cluster.await(id, j -> j.getState() == state, LONG);
  }

  private static void asUser(String... argv) {
    List<String> command = new ArrayList<>(List.of("env", "BERTH_SERVER=" + cluster.socket));
    command.addAll(List.of(argv));
    MultiNodeCluster.runAs(USER, work, command.toArray(String[]::new));
  }

  private static TestCluster.Result berth(String... args) {
    List<String> argv =
        new ArrayList<>(List.of(TestCluster.ROOT.resolve("ops/bin/berth").toString()));
    argv.addAll(List.of(args));
    argv.addAll(List.of("--home", cluster.home.toString()));
    return TestCluster.exec(cluster.home, argv);
  }

  /** Every line of the server's accounting files, in order. */
  private static List<String> lines(Path dir) {
    List<String> all = new ArrayList<>();
    try (Stream<Path> days = Files.list(dir)) {
      for (Path day : days.sorted().toList()) {
        all.addAll(Files.readAllLines(day));
      }
    } catch (IOException e) {
      return List.of();
    }
    return all;
  }

  private static List<String> of(List<String> lines, String id) {
    return lines.stream().filter(l -> l.split(";", 4)[2].equals(id)).toList();
  }

  private static String types(List<String> lines) {
    StringBuilder t = new StringBuilder();
    lines.forEach(l -> t.append(l.split(";", 4)[1]));
    return t.toString();
  }

  @Test
  void jobsLeaveTorquesRecordsWhichTheJournalMakesAgainByteForByte() throws Exception {
    String qdel = TestCluster.ROOT.resolve("ops/bin/qdel").toString();
    String ran =
        cluster.submitAs(
            USER,
            work,
            "#!/bin/sh\nexit 3\n",
            "-N",
            "acct-ran",
            "-A",
            "proj",
            "-l",
            "nodes=1:ppn=2,walltime=600");
    await(ran, JobState.COMPLETED);
    String held = cluster.submitAs(USER, work, "true\n", "-h");
    asUser(qdel, held);
    String killed = cluster.submitAs(USER, work, "sleep 600\n");
    cluster.await(killed, j -> j.getStartTime() > 0, LONG);
    asUser(qdel, killed);
    await(killed, JobState.COMPLETED);
    String array = cluster.submitAs(USER, work, "true\n", "-t", "0-1");
    String first = array.replace("[]", "[0]");
    String second = array.replace("[]", "[1]");
    await(first, JobState.COMPLETED);
    await(second, JobState.COMPLETED);

    Path live = cluster.home.resolve("accounting");
    MultiNodeCluster.awaitTrue(
        () -> types(of(lines(live), second)).equals("QSE"),
        LONG,
        () -> String.join("\n", lines(live)));
    List<String> lines = lines(live);
    for (String line : lines) {
      assertTrue(XDMOD.matcher(line).matches(), "XDMoD takes every line: " + line);
    }

    assertEquals("QSE", types(of(lines, ran)), String.join("\n", lines));
    assertTrue(of(lines, ran).get(0).endsWith(";Q;" + ran + ";queue=batch"));
    String e = of(lines, ran).get(2);
    assertTrue(
        Pattern.matches(
            "\\d\\d/\\d\\d/\\d{4} \\d\\d:\\d\\d:\\d\\d;E;"
                + Pattern.quote(ran)
                + ";user="
                + USER
                + " group=\\S+ account=proj jobname=acct-ran queue=batch ctime=\\d+ qtime=\\d+"
                + " etime=\\d+ start_count=1 start=\\d+ owner="
                + USER
                + "@\\S+ exec_host=a/0-1 (Resource_List\\.\\S+=\\S+ )+session=[1-9]\\d*"
                + " total_execution_slots=2 unique_node_count=1 end=\\d+ Exit_status=3"
                + " resources_used\\.cput=\\d+ resources_used\\.mem=\\d+kb"
                + " resources_used\\.vmem=\\d+kb resources_used\\.walltime=\\d\\d:\\d\\d:\\d\\d.*",
            e),
        e);
    assertTrue(e.contains(" Resource_List.walltime=00:10:00 "), e);

    assertEquals("QD", types(of(lines, held)));
    assertTrue(of(lines, held).get(1).matches(".*;D;.*;requestor=" + USER + "@\\S+"));
    assertEquals("QSDE", types(of(lines, killed)));
    assertTrue(of(lines, killed).get(3).contains(" Exit_status=271 "), "SIGTERM's 256+15");
    assertEquals("QSE", types(of(lines, first)));
    assertEquals(List.of(), of(lines, array), "the array itself has no records, its subjobs do");

    Path again = Files.createTempDirectory(Path.of("/tmp"), "berth-accounting-again-");
    try {
      TestCluster.Result made = berth("accounting", "--dir", again.toString());
      assertEquals(0, made.exit(), made.toString());
      try (Stream<Path> days = Files.list(live)) {
        for (Path day : days.toList()) {
          assertEquals(
              Files.readString(day),
              Files.readString(again.resolve(day.getFileName())),
              "the journal makes " + day.getFileName() + " again, byte for byte");
        }
      }
    } finally {
      JobFiles.removeTree(again);
    }

    TestCluster.Result report = berth("report", "--json");
    assertEquals(0, report.exit(), report.toString());
    long ended = lines.stream().filter(l -> l.split(";", 4)[1].equals("E")).count();
    assertTrue(report.out().contains("\"jobs\":" + ended + ","), report.out());
    long usersEnded = // the class's other tests may have run jobs of other users before
        lines.stream()
            .map(l -> l.split(";", 4))
            .filter(f -> f[1].equals("E") && f[3].startsWith("user=" + USER + " "))
            .count();
    assertTrue(
        report.out().contains("{\"name\":\"" + USER + "\",\"jobs\":" + usersEnded), report.out());
    assertTrue(report.out().contains("{\"name\":\"proj\",\"jobs\":1,"), report.out());
  }

  /** resources_used of a running job comes from its nodes' cgroups with each status report. */
  @Test
  void aRunningCpuBoundJobsCpuTimeGrowsInQstat() throws Exception {
    String id =
        cluster.submitAs(USER, work, "while :; do :; done\n", "-l", "nodes=1:ppn=1,walltime=600");
    try {
      long first =
          cluster
              .await(id, j -> j.getResourcesUsed().getCput() >= 2, LONG)
              .getResourcesUsed()
              .getCput();
      Job later = cluster.await(id, j -> j.getResourcesUsed().getCput() >= first + 2, LONG);
      assertEquals(JobState.RUNNING, later.getState(), "measured while it runs");
      assertTrue(later.getResourcesUsed().getWalltime() >= later.getResourcesUsed().getCput() - 1);
      String qstat = cluster.cli("qstat", "-f", id).out();
      assertTrue(qstat.contains("resources_used.cput = "), qstat);
      assertTrue(qstat.contains("job_state = R"), qstat);
    } finally {
      cluster.cli("qdel", id);
      await(id, JobState.COMPLETED);
    }
  }

  /** {@code command} from ops/bin as {@code user}, on this cluster. */
  private static TestCluster.Result as(String user, String command, String... args) {
    return cluster.commandAs(user, work, command, args);
  }

  /**
   * qstat -H and berth report --jobs: a finished job stays in its owner's history after the server
   * forgets it (keep_completed), with its exit status, and nobody else sees it there.
   */
  @Test
  void finishedJobsStayInTheHistoryOfTheirOwnersOnly() throws Exception {
    String bob = TestUsers.BOB;
    TestUsers.ensure(bob);
    Path bobsWork = MultiNodeCluster.workFor(bob, "berth-accounting-bob-");
    cluster.qmgr("set server keep_completed = 0");
    try {
      String mine = cluster.submitAs(USER, work, "#!/bin/sh\nexit 4\n", "-N", "mine");
      String his = cluster.submitAs(bob, bobsWork, "#!/bin/sh\nexit 5\n", "-N", "his");
      Path live = cluster.home.resolve("accounting");
      MultiNodeCluster.awaitTrue(
          () ->
              types(of(lines(live), mine)).endsWith("E")
                  && types(of(lines(live), his)).endsWith("E"),
          LONG,
          () -> String.join("\n", lines(live)));
      MultiNodeCluster.awaitTrue(
          () -> as(USER, "qstat", mine).err().contains("Unknown Job Id"),
          LONG,
          () -> as(USER, "qstat", mine).toString());

      String alices = as(USER, "qstat", "-H").out();
      assertTrue(alices.contains("\n" + mine + " ") && alices.contains(" mine "), alices);
      assertFalse(alices.contains(his), "alice sees bob's finished job: " + alices);
      assertTrue(as(USER, "qstat", "-H", "-f", mine).out().contains("exit_status = 4"));
      assertEquals("", as(USER, "qstat", "-H", his).out(), "nor by its id");

      String bobs = as(bob, "berth", "report", "--jobs", "--json").out();
      assertTrue(bobs.contains("{\"id\":\"" + his + "\",\"name\":\"his\""), bobs);
      assertTrue(bobs.contains("\"exit_status\":5"), bobs);
      assertFalse(bobs.contains(mine), bobs);

      String everyone = cluster.cli("qstat", "-H").out();
      assertTrue(everyone.contains(mine) && everyone.contains(his), "root sees all: " + everyone);
      TestCluster.Result badDay = as(USER, "berth", "report", "--jobs", "--from", "2026-12-01");
      assertNotEquals(0, badDay.exit(), badDay.toString());
    } finally {
      cluster.qmgr("unset server keep_completed");
      JobFiles.removeTree(bobsWork);
    }
  }

  @Test
  void onlyAManagerHasTheAccountingFilesMadeAgain() {
    TestCluster.Result r =
        TestCluster.exec(
            work,
            List.of(
                "runuser",
                "-u",
                USER,
                "--",
                TestCluster.ROOT.resolve("ops/bin/berth").toString(),
                "accounting",
                "--socket",
                cluster.socket.toString()));
    assertEquals(1, r.exit(), r.toString());
    assertTrue(
        r.err().contains("only managers may have the accounting files made again"), r.toString());
    assertEquals("", r.out(), "nothing of anyone's records");
  }
}
