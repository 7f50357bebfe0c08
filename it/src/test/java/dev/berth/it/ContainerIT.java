package dev.berth.it;

import static dev.berth.it.MultiNodeCluster.awaitTrue;
import static dev.berth.it.MultiNodeCluster.output;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.daemon.BerthHome;
import dev.berth.mom.os.JobFiles;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Jobs in container images built from Debian packages (TestImages), as berth-alice, on two moms
 * with a host name each: the seed's service pattern in #PBS form, Open MPI across both nodes from
 * inside the image, and the errors users meet, each ending the job with its reason and leaving
 * nothing on the node.
 */
@Tag("integration")
class ContainerIT {
  static final String USER = TestUsers.ALICE;

  static MultiNodeCluster cluster;
  static Path work;
  static Path tiny;
  static Path openMpi;

  /** The owner's ~/.local, when the test makes it (for images by name), to remove after. */
  static Path madeLocal;

  @BeforeAll
  static void start() throws Exception {
    TestUsers.ensure(USER);
    JobTools.ensureOnPath();
    Path local = TestUsers.home(USER).resolve(".local");
    madeLocal = Files.exists(local) ? null : local;
    tiny = TestImages.tiny();
    openMpi = TestImages.openMpi();
    // in the owner's home, which the jobs mount at /workspace
    work = Files.createTempDirectory(TestUsers.home(USER), "berth-container-");
    TestCluster.exec(work, List.of("chown", USER, work.toString()));
    Files.writeString(work.resolve("mpi.c"), MpiIT.PROGRAM);
    MultiNodeCluster.runAs(USER, work, "mpicc", "-o", "mpi", "mpi.c");
    cluster = MultiNodeCluster.start();
    cluster.startMom("a", "0-1", "--node-hostname");
    cluster.startMom("b", "0-1", "--node-hostname");
    cluster.qmgr("set server cgroup_enable = True");
  }

  @AfterEach
  void deleteLeftovers() {
    cluster.deleteUnfinished();
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
    JobFiles.removeTree(work);
    JobFiles.removeTree(
        madeLocal != null ? madeLocal : TestUsers.home(USER).resolve(".local/share/berth"));
  }

  private static String qsub(String script, String... args) throws IOException {
    return cluster.submitAs(USER, work, script, args);
  }

  private static Job done(String id) {
    return cluster.await(id, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(120));
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file) : "";
    } catch (IOException e) {
      return "";
    }
  }

  /** The job's directory name in the owner's home, as the container sees it. */
  private static String inside(String name) {
    return "/workspace/" + work.getFileName() + "/" + name;
  }

  private static boolean listening(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Processes of the owner whose command line holds {@code text} (pgrep's list). */
  private static List<String> processes(String text) {
    return TestCluster.exec(work, List.of("pgrep", "-u", USER, "-f", text)).out().lines().toList();
  }

  /** Mounts of this host that name the test's cache or job directories (there must be none). */
  private static List<String> hostMounts() throws IOException {
    String jobTmp = new BerthHome(cluster.home).jobTmp().toString(); // its .containers cache
    return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
        .filter(l -> l.contains(cluster.home.toString()) || l.contains(jobTmp))
        .toList();
  }

  /**
   * The seed's pattern: a service started in the container, with the owner's home mounted at
   * /workspace and a working directory there; it writes where to reach it into the home; qdel ends
   * it and leaves no process, mount or cgroup behind.
   */
  @Test
  void aServiceInTheContainerIsReachableAndQdelLeavesNothing() throws Exception {
    Path svc = Files.createDirectories(work.resolve("svc"));
    TestCluster.exec(work, List.of("chown", USER, svc.toString()));
    Files.writeString(svc.resolve("index.html"), "served from the container\n");
    TestCluster.exec(work, List.of("chown", USER, svc.resolve("index.html").toString()));
    int port = 20000 + (int) (ProcessHandle.current().pid() % 20000);
    String script =
        "#PBS -W container_image="
            + tiny
            + "\n#PBS -W container_mounts=$HOME:/workspace\n"
            + "#PBS -W container_workdir="
            + inside("svc")
            + "\n#PBS -l nodes=1:ppn=1\n"
            + "cat /etc/berth-test-image > marker.txt\n"
            + "pwd > workdir.txt\n"
            + "echo \"host=$(hostname) port="
            + port
            + " user=$(id -u)\" > connection.txt\n"
            + "exec httpd -f -p 127.0.0.1:"
            + port
            + " -h "
            + inside("svc")
            + "\n";
    String id = qsub(script, "-j", "oe");
    awaitTrue(() -> listening(port), Duration.ofSeconds(60));
    assertEquals(TestImages.TINY_MARKER + "\n", read(svc.resolve("marker.txt")));
    assertEquals(inside("svc") + "\n", read(svc.resolve("workdir.txt")));
    String connection = read(svc.resolve("connection.txt"));
    assertTrue(connection.startsWith("host=a port=" + port + " user="), connection);
    String uid = TestCluster.exec(work, List.of("id", "-u", USER)).out().trim();
    assertTrue(connection.endsWith("user=" + uid + "\n"), "the owner, not root: " + connection);
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.getOutputStream().write("GET /index.html HTTP/1.0\r\n\r\n".getBytes());
      String reply = new String(s.getInputStream().readAllBytes());
      assertTrue(reply.contains("served from the container"), reply);
    }
    assertFalse(processes("httpd -f -p 127.0.0.1:" + port).isEmpty());
    assertTrue(cluster.hasCgroups(id));

    assertEquals(0, cluster.cli("qdel", id).exit());
    done(id);
    assertFalse(listening(port));
    assertEquals(List.of(), processes("httpd -f -p 127.0.0.1:" + port));
    awaitTrue(() -> !cluster.hasCgroups(id), Duration.ofSeconds(30));
    assertEquals(List.of(), hostMounts(), "the container's mounts died with it");
    assertFalse(
        Files.exists(new BerthHome(cluster.home).jobTmp().resolve("a").resolve(id)),
        "its TMPDIR is gone too");
  }

  /**
   * mpirun inside the image, with a host file and without, starts its daemons on both nodes through
   * pbs_tmrsh, and each daemon and rank runs in the same image (its marker), as the owner, with the
   * job's limits and nice value, in the job's cgroup there.
   */
  @Test
  void openMpiRanksRunInTheImageAndInTheJobsCgroupOnBothNodes() throws Exception {
    String script =
        "cd "
            + inside("")
            + "\n"
            + "mpirun --hostfile $PBS_NODEFILE sh -c 'echo \"node=$(hostname) marker=$(cat"
            + " /etc/berth-test-image | tr \" \" _) uid=$(id -u) t=$(ulimit -t)"
            + " n=$(cut -d\" \" -f19 /proc/self/stat)\"'\n"
            + "mpirun ./mpi\n";
    String id =
        qsub(
            script,
            "-j",
            "oe",
            "-l",
            "nodes=a:ppn=1+b:ppn=1,pcput=600,nice=5",
            "-W",
            "container_image=" + openMpi,
            "-W",
            "container_mounts=$HOME:/workspace");
    Job job = done(id);
    String out = output(job);
    assertEquals(0, job.getExitStatus(), out);
    String marker = TestImages.OPENMPI_MARKER.replace(' ', '_');
    String uid = TestCluster.exec(work, List.of("id", "-u", USER)).out().trim();
    for (String node : List.of("a", "b")) {
      assertTrue(
          out.contains("node=" + node + " marker=" + marker + " uid=" + uid + " t=600 n=5\n"),
          "a process on " + node + " in the image, with the job's limits: " + out);
    }
    List<Map<String, String>> ranks =
        out.lines().filter(l -> l.startsWith("R=")).map(MultiNodeCluster::fields).toList();
    assertEquals(2, ranks.size(), out);
    for (Map<String, String> r : ranks) {
      String host = r.get("H");
      String cgroup = "/" + cluster.cgroupRoot + "/" + host + "/" + id;
      assertTrue(r.get("G").endsWith(cgroup), "the rank's cgroup: " + r);
      assertTrue(r.get("PG").endsWith(cgroup), "its daemon's cgroup: " + r);
    }
  }

  /**
   * The seed's Slurm user: an sbatch script with pyxis's options runs in the image, and its srun
   * (called by the path the tools are bound at, since the image's login profile sets PATH afresh)
   * starts a task in the same image on each node, in the container's working directory: on the
   * first node a second process of the image beside the running script (which once waited for the
   * script to end, for the image's lock).
   */
  @Test
  void pyxisOptionsOfSbatchRunTheScriptAndItsSrunTasksInTheImage() throws Exception {
    String id =
        cluster.sbatchAs(
            USER,
            work,
            "#!/bin/sh\n"
                + "#SBATCH -N 2 -n 2\n"
                + "#SBATCH --container-image="
                + openMpi
                + "\n"
                + "#SBATCH --container-mounts=$HOME:/workspace\n"
                // the image sets none of them: they reach the starter and change nothing
                + "#SBATCH --container-env=NCCL_DEBUG,CUDA_HOME\n"
                + "#SBATCH --container-workdir="
                + inside("")
                + "\n"
                // Debian's login profile sets PATH afresh: Berth's tools by their bound path
                + TestCluster.ROOT.resolve("ops/bin/srun")
                + " -l sh -c 'echo node=$(hostname) marker=$(tr \" \" _ < "
                + TestImages.MARKER
                + ") rank=$SLURM_PROCID pwd=$(pwd)'\n");
    Job job = done(id);
    String out = read(work.resolve("slurm-" + job.getNumber() + ".out"));
    assertEquals(0, job.getExitStatus(), out);
    String marker = TestImages.OPENMPI_MARKER.replace(' ', '_');
    List<String> nodes = List.of("a", "b");
    for (int rank = 0; rank < 2; rank++) {
      String line =
          rank
              + ": node="
              + nodes.get(rank)
              + " marker="
              + marker
              + " rank="
              + rank
              + " pwd="
              + inside("").replaceAll("/$", "")
              + "\n";
      assertTrue(out.contains(line), line + " in " + out);
    }
  }

  /**
   * The seed's {@code srun --container-image=... } from a login shell, outside any job: srun
   * allocates both nodes, runs a task in the image on each (through the tools' path, since the
   * image's login profile sets PATH afresh), and releases them.
   */
  @Test
  void srunOutsideAJobRunsItsTasksInTheImage() {
    TestCluster.Result r =
        cluster.commandAs(
            USER,
            work,
            "srun",
            "-N",
            "2",
            "-l",
            "--container-image=" + openMpi,
            "--container-mounts=$HOME:/workspace",
            "--container-workdir=" + inside(""),
            "sh",
            "-c",
            "echo node=$(hostname) marker=$(tr ' ' _ < " + TestImages.MARKER + ") pwd=$(pwd)");
    assertEquals(0, r.exit(), r.toString());
    String marker = TestImages.OPENMPI_MARKER.replace(' ', '_');
    String pwd = inside("").replaceAll("/$", "");
    assertEquals(
        List.of(
            "0: node=a marker=" + marker + " pwd=" + pwd,
            "1: node=b marker=" + marker + " pwd=" + pwd),
        r.out().lines().sorted().toList(),
        r.toString());
  }

  /** The seed's over-limit ranks, in containers: killed in their node's cgroup and reported. */
  @Test
  void ranksOverTheLimitAreKilledInTheContainerAndReported() throws Exception {
    String id =
        qsub(
            "cd " + inside("") + "\nmpirun ./mpi 100\n",
            "-j",
            "oe",
            "-l",
            "nodes=a:ppn=1+b:ppn=1,pmem=60mb",
            "-W",
            "container_image=" + openMpi,
            "-W",
            "container_mounts=$HOME:/workspace");
    Job job = done(id);
    assertNotEquals(0, job.getExitStatus(), output(job));
    assertTrue(job.getComment().contains("killed on b"), job.getComment());
    assertTrue(job.getResourcesUsed().getOomKills() >= 1, job.getResourcesUsed().toString());
  }

  /** A job whose container cannot be made ends with the reason, in its comment and its stderr. */
  private static void refusedOnTheNode(String reason, String... args) throws Exception {
    String id = qsub("echo ran on the host\n", args);
    Job job = done(id);
    String out = output(job);
    assertNotEquals(0, job.getExitStatus());
    assertFalse(out.contains("ran on the host"), out);
    assertTrue(job.getComment().contains(reason), job.getComment());
    assertTrue(out.startsWith("berth: ") && out.contains(reason), out);
    assertFalse(cluster.hasCgroups(id));
    assertEquals(List.of(), hostMounts());
  }

  /** qsub, as the owner, refuses a job whose container it can tell is wrong, saying why. */
  private static void refusedAtQsub(String reason, String... args) throws Exception {
    TestCluster.Result r = cluster.qsubAs(USER, work, "echo ran\n", args);
    assertNotEquals(0, r.exit(), r.toString());
    assertTrue(r.err().contains(reason), r.toString());
    assertTrue(r.err().contains("no job was submitted"), r.toString());
  }

  @Test
  void qsubRefusesWhatItCanKnowIsWrong() throws Exception {
    refusedAtQsub(
        "container_image /nonexistent.sqsh: no such file",
        "-W",
        "container_image=/nonexistent.sqsh");
    Path secret = cluster.home.resolve("secret.sqsh");
    Files.copy(tiny, secret, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Files.setPosixFilePermissions(
        secret, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    refusedAtQsub(
        "container_image " + secret + ": you cannot read it", "-W", "container_image=" + secret);
    Path notImage = work.resolve("not-an-image.sqsh");
    Files.writeString(notImage, "#!/bin/sh\n");
    refusedAtQsub(
        "container_image " + notImage + ": not a squashfs image",
        "-W",
        "container_image=" + notImage);
    refusedAtQsub(
        "container_mounts: you cannot read /root",
        "-W",
        "container_image=" + tiny,
        "-W",
        "container_mounts=/root:/host-root");
    refusedAtQsub(
        "container_mounts: /nowhere/data does not exist",
        "-W",
        "container_image=" + tiny,
        "-W",
        "container_mounts=/nowhere/data:/data");
  }

  /**
   * What qsub cannot know ends the job on its node with the reason: an image given by name (found
   * in the owner's data directory there), a source that became unreadable before the job ran, a
   * working directory the image lacks.
   */
  @Test
  void errorsOnTheNodeEndTheJobWithTheReason() throws Exception {
    Path images = TestUsers.home(USER).resolve(".local/share/berth/images");
    Files.createDirectories(images);
    TestCluster.exec(
        work, List.of("chown", "-R", USER, TestUsers.home(USER).resolve(".local").toString()));
    refusedOnTheNode(
        "cannot read the image " + images.resolve("nosuch.sqsh") + ": No such file or directory",
        "-j",
        "oe",
        "-W",
        "container_image=nosuch");
    Path secret = images.resolve("secret.sqsh");
    Files.copy(tiny, secret, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Files.setPosixFilePermissions(
        secret, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    refusedOnTheNode(
        "cannot read the image " + secret + ": Permission denied",
        "-j",
        "oe",
        "-W",
        "container_image=secret");
    Files.writeString(images.resolve("bad.sqsh"), "#!/bin/sh\n");
    TestCluster.exec(work, List.of("chown", USER, images.resolve("bad.sqsh").toString()));
    refusedOnTheNode("is not a squashfs image", "-j", "oe", "-W", "container_image=bad");
    refusedOnTheNode(
        "the container has no working directory /nowhere",
        "-j",
        "oe",
        "-W",
        "container_image=" + tiny,
        "-W",
        "container_workdir=/nowhere");
    Path closing = Files.createDirectories(work.resolve("closing"));
    TestCluster.exec(work, List.of("chown", USER, closing.toString()));
    String held =
        qsub(
            "echo ran on the host\n",
            "-h",
            "-j",
            "oe",
            "-W",
            "container_image=" + tiny,
            "-W",
            "container_mounts=" + closing + ":/data");
    TestCluster.exec(work, List.of("chown", "root", closing.toString()));
    Files.setPosixFilePermissions(
        closing, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
    assertEquals(0, cluster.cli("qrls", held).exit());
    Job job = done(held);
    assertTrue(
        job.getComment().contains("cannot mount " + closing + ": Permission denied"),
        job.getComment());
  }
}
