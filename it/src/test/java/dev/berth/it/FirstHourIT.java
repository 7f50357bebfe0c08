package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.BerthVersion;
import dev.berth.mom.os.JobFiles;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The first hour of a new user, as the README and the guides tell it, run as an ordinary user (not
 * root) with the checkout's commands: help and versions, then a personal cluster in a home of their
 * own ({@code berth up} without root, so without cgroups, saying so), with metrics and a prologue
 * of their own, a job, {@code berth status}, a job that could never run refused at qsub, and {@code
 * berth down} leaving no daemon behind.
 */
@Tag("integration")
@Timeout(300)
class FirstHourIT {
  private static final String USER = TestUsers.ALICE;

  private static Path home;
  private static Path work;

  @BeforeAll
  static void prepare() throws IOException {
    TestUsers.ensure(USER);
    work = MultiNodeCluster.workFor(USER, "berth-first-hour-");
    home = work.resolve("berth-home");
  }

  @AfterAll
  static void cleanUp() throws IOException {
    if (work != null) {
      as("berth", "down"); // a failed test may have left it up
      JobFiles.removeTree(work);
    }
  }

  /** {@code command} from ops/bin, run by the user in the work directory, with their own home. */
  private static TestCluster.Result as(String command, String... args) {
    return in(work, Map.of(), command, args);
  }

  /** {@code command} from ops/bin, run by the user in {@code cwd} with {@code env} added. */
  private static TestCluster.Result in(
      Path cwd, Map<String, String> env, String command, String... args) {
    List<String> argv =
        new ArrayList<>(
            List.of(
                "runuser",
                "-u",
                USER,
                "--",
                "env",
                "-i",
                "PATH=" + TestCluster.ROOT.resolve("ops/bin") + ":/usr/bin:/bin",
                "HOME=" + work,
                "LANG=C.UTF-8",
                "BERTH_HOME=" + home));
    env.forEach((k, v) -> argv.add(k + "=" + v));
    argv.add(TestCluster.ROOT.resolve("ops/bin").resolve(command).toString());
    argv.addAll(List.of(args));
    return TestCluster.exec(cwd, argv);
  }

  @Test
  void aNewUserReadsTheHelpStartsAClusterOfTheirOwnAndRunsAJob() throws Exception {
    // Help and the one version.
    assertEquals("Berth " + BerthVersion.NUMBER + "\n", as("berth", "--version").out());
    assertEquals("Version: " + BerthVersion.NUMBER + "\n", as("qdel", "--version").out());
    assertTrue(as("qsub", "--help").out().contains("\n  -N name "));
    String upHelp = as("berth", "help", "up").out();
    for (String option :
        List.of("--no-cgroups", "--hook-dir", "--health-check", "--metrics-port")) {
      assertTrue(upHelp.contains(option), option + " in\n" + upHelp);
    }

    // A personal cluster: no root, so no cgroups, and it says so; metrics and a prologue.
    Path hooks = Files.createDirectories(work.resolve("hooks"));
    Files.writeString(
        hooks.resolve("prologue"), "#!/bin/sh\necho \"prologue of $1 as $(id -un)\"\n");
    Files.setPosixFilePermissions(
        hooks.resolve("prologue"), PosixFilePermissions.fromString("rwxr-xr-x"));
    TestCluster.exec(work, List.of("chown", "-R", USER, hooks.toString()));
    TestCluster.Result up =
        as("berth", "up", "--metrics-port", "0", "--hook-dir", hooks.toString());
    assertEquals(0, up.exit(), up.toString());
    assertTrue(up.out().contains("berth: starting (pid "), up.out());
    assertTrue(
        up.out()
            .contains("\nberth: no cgroups (berth runs as " + USER + ", not root, and makes none)"),
        up.out());
    Matcher pid = Pattern.compile("berth: up \\(pid (\\d+)\\)").matcher(up.out());
    assertTrue(pid.find(), up.out());
    Matcher metrics =
        Pattern.compile("berth: metrics at ([0-9.]+):(\\d+)/metrics").matcher(up.out());
    assertTrue(metrics.find(), up.out());
    try (Socket scrape = new Socket()) {
      scrape.connect(
          new InetSocketAddress(metrics.group(1), Integer.parseInt(metrics.group(2))), 5000);
    }
    String status = as("berth", "status").out();
    assertTrue(status.startsWith("berth: running, pid " + pid.group(1)), status);
    assertTrue(status.contains(": no jobs\nnode "), status);

    // A job, with the prologue from the user's hook directory.
    Files.writeString(work.resolve("hello.pbs"), "#PBS -N hello\necho \"hello from $(id -un)\"\n");
    TestCluster.Result qsub = as("qsub", "hello.pbs");
    assertEquals(0, qsub.exit(), qsub.toString());
    String id = qsub.out().strip();
    MultiNodeCluster.awaitTrue(
        () -> as("qstat", "-f", id).out().contains("job_state = C"),
        Duration.ofSeconds(60),
        () -> as("qstat", "-f", id).toString());
    assertTrue(as("qstat", "-f", id).out().contains("exit_status = 0"));
    String number = id.substring(0, id.indexOf('.'));
    assertEquals(
        "prologue of " + id + " as " + USER + "\nhello from " + USER + "\n",
        Files.readString(work.resolve("hello.o" + number)));
    assertTrue(as("berth", "status").out().contains(": 1 job: 1 complete\n"));

    // Its history: qstat -H and berth report --jobs, from the cluster's accounting files.
    Path accounting = home.resolve("accounting");
    MultiNodeCluster.awaitTrue(
        () -> as("qstat", "-H").out().contains("\n" + id + " "),
        Duration.ofSeconds(30),
        () -> as("qstat", "-H") + " " + accounting);
    String report = as("berth", "report", "--jobs", "--json").out();
    assertTrue(report.contains("\"id\":\"" + id + "\",\"name\":\"hello\""), report);
    assertTrue(report.contains("\"exit_status\":0"), report);

    // A job whose output could not be written where it would go is refused at qsub, by the
    // native client and the Java one alike, where it would have run and lost its output.
    for (Map<String, String> client :
        List.of(Map.<String, String>of(), Map.of("BERTH_CLI", "java"))) {
      TestCluster.Result unwritable =
          in(Path.of("/"), client, "qsub", work.resolve("hello.pbs").toString());
      assertEquals(2, unwritable.exit(), client + ": " + unwritable);
      assertTrue(
          unwritable.err().contains("the job's output would go to /, where you cannot make files"),
          client + ": " + unwritable);
    }

    // The cluster's owner manages it; a job that needs cgroups is refused at qsub, not failed.
    TestCluster.Result set = as("qmgr", "-c", "set server cgroup_enable = True");
    assertEquals(0, set.exit(), set.toString());
    TestCluster.Result refused = as("qsub", "hello.pbs");
    assertNotEquals(0, refused.exit(), refused.toString());
    assertTrue(
        refused.err().contains("job can never run: it has cgroup_enable = True")
            && refused.err().contains("no node makes cgroups ("),
        refused.toString());

    // Down, and nothing of it runs on.
    TestCluster.Result down = as("berth", "down");
    assertEquals(0, down.exit(), down.toString());
    Path process = Path.of("/proc", pid.group(1));
    MultiNodeCluster.awaitTrue(() -> !Files.exists(process), Duration.ofSeconds(30));
    TestCluster.Result after = as("berth", "status");
    assertEquals(3, after.exit(), after.toString());
    assertFalse(Files.exists(home.resolve("server.sock")), "the socket is left behind");
  }
}
