package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.daemon.BerthHome;
import dev.berth.mom.os.JobFiles;
import dev.berth.mom.os.NodeFacts;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.pki.CertificateAuthority;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The cluster port under attack, with real processes: a local user without a credential (or with
 * one of another CA) cannot join, and a compromised node holding a real mom credential cannot make
 * another node's mom run, join, spawn or kill anything, cannot report for another node, and is not
 * taken for the server (the {@link Intruder} program tries, with Berth's own jars).
 */
@Tag("integration")
class DaemonTrustIT {
  /** b has a CPU to spare while the two-node job runs. */
  static final java.util.Map<String, String> CPUS = java.util.Map.of("a", "0", "b", "0-1");

  static MultiNodeCluster cluster;
  static Path work;

  @BeforeAll
  static void start() throws IOException {
    TestUsers.ensure(TestUsers.ALICE, TestUsers.BOB);
    cluster = MultiNodeCluster.start();
    cluster.startMom("a", CPUS.get("a"));
    cluster.startMom("b", CPUS.get("b"));
    work = Files.createTempDirectory(Path.of("/tmp"), "berth-trust-");
    Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxrwxrwx"));
  }

  @AfterAll
  static void stop() throws Exception {
    cluster.close();
    JobFiles.removeTree(work);
  }

  @Test
  void withoutTheClustersCredentialALocalUserCannotJoin() throws Exception {
    Intrusion plain = Intrusion.as(TestUsers.BOB, "plain", cluster.address());
    assertEquals(0, plain.awaitExit(), plain.lines().toString());
    assertTrue(plain.lines().contains("NOT JOINED"), plain.lines().toString());

    Path bobsHome = work.resolve("bob-home");
    Files.createDirectory(bobsHome);
    TestCluster.exec(work, List.of("chown", TestUsers.BOB, bobsHome.toString()));
    Intrusion foreign =
        Intrusion.as(TestUsers.BOB, "foreign", bobsHome.toString(), cluster.address());
    assertEquals(0, foreign.awaitExit(), foreign.lines().toString());
    assertTrue(foreign.lines().contains("NOT JOINED"), foreign.lines().toString());

    String nodes = cluster.cli("pbsnodes", "-a").out();
    assertFalse(nodes.contains("rogue"), nodes);
  }

  @Test
  void aMomCredentialActsOnlyAsItsOwnNode() throws Exception {
    Path aliceWork = work.resolve("alice");
    Files.createDirectory(aliceWork);
    TestCluster.exec(work, List.of("chown", TestUsers.ALICE, aliceWork.toString()));
    String id = cluster.submitAs(TestUsers.ALICE, aliceWork, "sleep 600\n", "-l", "nodes=a+b");
    Job running = cluster.await(id, j -> j.getStartTime() > 0, Duration.ofSeconds(60));
    String motherSuperior = running.getExecNodes(0).getNode();
    String victim = running.getExecNodes(1).getNode();

    // A compromised node: root there, holding the cluster's credential for node "rogue".
    Path rogueHome = work.resolve("rogue-home");
    CertificateAuthority.load(new BerthHome(cluster.home).authority(), Clock.systemUTC())
        .issue(
            new Identity(Role.MOM, "rogue"),
            List.of(),
            Duration.ofDays(1),
            new BerthHome(rogueHome).credential(new Identity(Role.MOM, "rogue")));
    Path markers = Files.createDirectory(work.resolve("markers"));
    Files.setPosixFilePermissions(markers, PosixFilePermissions.fromString("rwxrwxrwx"));
    Intrusion rogue =
        Intrusion.as(
            "root",
            "member",
            rogueHome.toString(),
            cluster.address(),
            victim,
            id,
            motherSuperior,
            markers.toString());
    try {
      // Each answer comes after everything the intruder sent before it to that daemon.
      rogue.await("VICTIM ANSWERED");
      rogue.await("SERVER ANSWERED");

      try (Stream<Path> made = Files.list(markers)) {
        assertEquals(List.of(), made.toList(), "nothing the intruder asked for ran");
      }
      Job job = cluster.job(id);
      assertEquals(JobState.RUNNING, job.getState(), "the forged obit and kill changed nothing");
      String victimNode = cluster.cli("pbsnodes", "-a", victim).out();
      String np = "np = " + NodeFacts.parseCpuList(CPUS.get(victim)).size() + "\n";
      assertTrue(victimNode.contains(np), "no one else reports for it: " + victimNode);
      assertTrue(
          cluster.cli("pbsnodes", "-a", "rogue").out().contains("rogue"),
          "its own node it may register");
      String victimLog = cluster.momLog(victim);
      for (String refused :
          List.of(
              "RUN from mom rogue, which is not the server",
              "claims to come from server server but is signed by mom rogue",
              "SPAWN from mom rogue, but the mother superior of " + id + " is " + motherSuperior,
              "claims to come from mom " + motherSuperior + " but is signed by mom rogue",
              "JOIN_JOB for 999.rogue: its grant is not the server's",
              "KILL from mom rogue, but its mother superior is " + motherSuperior)) {
        assertTrue(victimLog.contains(refused), refused + " in\n" + victimLog);
      }
      assertTrue(
          cluster.server.log().contains("mom rogue reported for node '" + victim + "'"),
          cluster.server.log());

      // The victim's mom restarts while "rogue" is registered as the server too: it probes both
      // and follows the one that proves to be the server.
      cluster.killMom(victim);
      cluster.startMom(victim, CPUS.get(victim));
      String check =
          cluster.submitAs(TestUsers.ALICE, aliceWork, "hostname\n", "-l", "nodes=" + victim);
      cluster.await(check, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(60));
      assertEquals(0, cluster.job(check).getExitStatus());
      assertTrue(
          cluster.momLog(victim).contains("registered as server server proved to be mom rogue"),
          cluster.momLog(victim));
      rogue.await("PROBED BY " + victim);
      assertFalse(
          rogue.lines().contains("REPORT FROM " + victim),
          "the victim reported to the real server only: " + rogue.lines());
    } finally {
      rogue.stop();
      cluster.cli("qdel", id);
      cluster.cli("qmgr", "-c", "delete node rogue");
    }
  }

  /** An {@link Intruder} process and the lines it printed. */
  private static final class Intrusion {
    private final Process process;
    private final Thread reader;
    private final List<String> lines = new ArrayList<>();
    private final BlockingQueue<String> fresh = new LinkedBlockingQueue<>();

    private Intrusion(Process process) {
      this.process = process;
      reader =
          new Thread(
              () -> {
                try (BufferedReader in =
                    new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                  for (String line = in.readLine(); line != null; line = in.readLine()) {
                    synchronized (lines) {
                      lines.add(line);
                    }
                    fresh.add(line);
                  }
                } catch (IOException e) {
                  // the process ended
                }
              });
      reader.setDaemon(true);
      reader.start();
    }

    static Intrusion as(String user, String... args) throws IOException {
      Path root = TestCluster.ROOT;
      String classpath =
          String.join(
              ":",
              root.resolve("it/target/test-classes").toString(),
              root.resolve("daemon/target/berth-daemon-0.1.0-SNAPSHOT.jar").toString(),
              root.resolve("daemon/target/lib/*").toString());
      List<String> argv =
          new ArrayList<>(
              List.of(
                  "runuser", "-u", user, "--", "java", "-cp", classpath, Intruder.class.getName()));
      argv.addAll(List.of(args));
      return new Intrusion(
          new ProcessBuilder(argv)
              .directory(Path.of("/tmp").toFile())
              .redirectErrorStream(true)
              .start());
    }

    void await(String line) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      while (!lines().contains(line) && System.nanoTime() < deadline) {
        if (fresh.poll(1, TimeUnit.SECONDS) == null && !process.isAlive()) {
          break;
        }
      }
      if (!lines().contains(line)) {
        throw new AssertionError("the intruder did not print " + line + ": " + lines());
      }
    }

    int awaitExit() throws InterruptedException {
      if (!process.waitFor(90, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("the intruder did not end: " + lines());
      }
      return process.exitValue();
    }

    void stop() throws InterruptedException {
      process.descendants().forEach(ProcessHandle::destroy); // runuser does not pass SIGTERM on
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
      reader.join(10_000); // it ends at the end of the output
    }

    List<String> lines() {
      synchronized (lines) {
        return List.copyOf(lines);
      }
    }
  }
}
