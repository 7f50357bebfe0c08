package dev.berth.it;

import static dev.berth.it.TestUsers.ALICE;
import static dev.berth.it.TestUsers.BOB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.berth.daemon.BerthHome;
import dev.berth.mom.os.JobFiles;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The task-manager socket under attack on a real mother superior (node a, a {@code berth mom}
 * process with a 512 MiB heap), while berth-alice's job there runs pbsdsh and mpirun across nodes a
 * and b round after round: berth-bob's job holds the most connections a job may have, each
 * announcing the largest request and trickling its bytes; bob, outside any job, connects as fast as
 * he can; and the mom runs out of file descriptors for a moment. Alice's rounds go on during and
 * after, the mom stays up with its heap bounded, and its log holds a few lines for it all.
 */
@Tag("integration")
class TaskManagerAbuseIT {
  private static final String HEAP = "512m";

  /** The most connections a job may hold (TmLimits.DEFAULTS.jobConnections()). */
  private static final int CONNECTIONS = 512;

  /** The largest request (TmLimits.DEFAULTS.frameBytes()). */
  private static final int FRAME = 1 << 20;

  /**
   * Alice's job: rounds of pbsdsh on both nodes and mpirun across them, each line with its time,
   * until told to stop; then a spawn whose environment is over the limit, which must be refused.
   */
  private static final String ALICE_JOB =
      """
      set -o pipefail
      cd $PBS_O_WORKDIR
      i=0
      while [ ! -e stop ]; do
        i=$((i+1))
        start=$(date +%s%3N)
        if tasks=$(pbsdsh -u hostname 2> err | sort | tr '\\n' ' ') \\
            && ranks=$(mpirun --hostfile $PBS_NODEFILE -np 2 --map-by node hostname 2>> err \\
                       | sort | tr '\\n' ' '); then
          echo "round $i $start $(date +%s%3N) ok: $tasks/ $ranks" >> progress
        else
          echo "round $i $start $(date +%s%3N) failed: $(tr '\\n' ' ' < err)" >> progress
        fi
      done
      x=$(head -c 110000 /dev/zero | tr '\\0' x)
      BIG0=$x BIG1=$x BIG2=$x BIG3=$x BIG4=$x BIG5=$x BIG6=$x BIG7=$x BIG8=$x BIG9=$x \\
        pbsdsh -u true 2> big.err
      echo "big $?" >> progress
      """;

  /**
   * When node a's mom had no file descriptors (epoch milliseconds), if it has happened: a round
   * then may fail (no pipe for a task's output), any other must not.
   */
  private static long[] withoutDescriptors;

  static MultiNodeCluster cluster;
  static Path aliceWork;
  static Path bobWork;
  private final List<Process> attackers = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    TestUsers.ensure(ALICE, BOB);
    JobTools.ensureOnPath();
    aliceWork = MultiNodeCluster.workFor(ALICE, "berth-tm-alice-");
    bobWork = MultiNodeCluster.workFor(BOB, "berth-tm-bob-");
    cluster = MultiNodeCluster.start();
    cluster.momEnvironment("BERTH_HEAP", HEAP);
    cluster.startMom("a", "0-1", "--node-hostname");
    cluster.startMom("b", "0", "--node-hostname");
    cluster.qmgr("set server cgroup_enable = True");
  }

  @AfterEach
  void stopAttacks() throws Exception {
    stopAttackers();
    if (cluster != null) {
      cluster.deleteUnfinished();
    }
  }

  private void stopAttackers() throws IOException, InterruptedException {
    for (Process p : attackers) {
      p.getOutputStream().close();
      p.descendants().forEach(ProcessHandle::destroyForcibly); // runuser does not pass a kill on
      p.destroyForcibly();
      p.waitFor();
    }
    attackers.clear();
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
    JobFiles.removeTree(aliceWork);
    JobFiles.removeTree(bobWork);
  }

  @Test
  void alicesTasksRunWhileBobFloodsTheTaskManagerAndTheMomRunsOutOfDescriptors() throws Exception {
    String alice =
        cluster.submitAs(ALICE, aliceWork, ALICE_JOB, "-j", "oe", "-l", "nodes=a:ppn=1+b:ppn=1");
    int before = awaitRounds(2, "alice's first rounds");
    int logFrom = cluster.momLog("a").length();
    long started = System.nanoTime();
    try (RemoteHeap heap = RemoteHeap.attach(cluster.momPid("a"))) {
      long quiet = heap.liveAfterGc();
      heap.resetPeak();

      String bob = cluster.submitAs(BOB, bobWork, bobJob(), "-j", "oe", "-l", "nodes=a:ppn=1");
      await(() -> read(bobWork.resolve("trickle.out")).contains("trickling"), "bob's trickle");
      attackers.add(connectFlood());
      awaitLog(
          logFrom,
          "task manager of job "
              + bob
              + ": refused a connection: no room for a"
              + " request within 30 s: the job's connections hold ");
      int during =
          awaitRounds(rounds().size() + 2, "alice's rounds while bob's job waits for room");
      long live = heap.liveAfterGc(); // bob's connections are all open and full

      runOutOfDescriptors(logFrom);
      int after = awaitRounds(rounds().size() + 2, "alice's rounds once descriptors are back");

      cluster.cli("qdel", bob);
      stopAttackers();
      Files.writeString(aliceWork.resolve("stop"), "");
      Job done =
          cluster.await(alice, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(60));
      assertEquals(0, done.getExitStatus(), read(aliceWork.resolve("progress")));
      String big = read(aliceWork.resolve("big.err"));
      assertTrue(
          big.matches("(?s)pbsdsh: .*refused: a request of \\d+ bytes is over the limit of 1mb.*"),
          big);
      assertTrue(read(aliceWork.resolve("progress")).contains("big 1"), "the big spawn failed");

      long peak = heap.peak();
      double seconds = (System.nanoTime() - started) / 1e9;
      List<String> lines =
          cluster
              .momLog("a")
              .substring(logFrom)
              .lines()
              .filter(l -> l.contains("task manager") || l.contains("more like the last"))
              .toList();
      System.out.printf(
          Locale.ROOT,
          "task manager abuse (%d connections of bob's job announcing %d bytes and trickling,"
              + " bob connecting outside a job as fast as he can, EMFILE): alice's rounds %d before,"
              + " %d during, %d after, slowest %d ms; mom heap peak %d MiB (sum of the pools' peaks,"
              + " limit %s), %d MiB live after a full GC during the attack (%d MiB before); %d log"
              + " lines about the task manager in %.0f s; rounds that failed while the mom had no"
              + " descriptors: %s; bob's connections outside a job refused: %d%n%s%n",
          CONNECTIONS,
          FRAME,
          before,
          during - before,
          after - during,
          slowestRound(),
          peak >> 20,
          HEAP,
          live >> 20,
          quiet >> 20,
          lines.size(),
          seconds,
          failedRounds(),
          lines.stream()
              .filter(l -> l.contains(": no job: "))
              .mapToLong(l -> Long.parseLong(l.replaceAll(".*: no job: (\\d+) more.*", "$1")))
              .sum(),
          String.join("\n", lines));
      assertTrue(cluster.momAlive("a"), cluster.momLog("a"));
      assertTrue(live < 128L << 20, "the mom keeps " + (live >> 20) + " MiB");
      // A line per source and kind of refusal at most every 10 s, and one saying how many more.
      assertTrue(lines.size() <= 16 * (seconds / 10 + 1), lines.size() + " lines");
    }
    cluster.awaitNode("a", "free");
  }

  /**
   * bob's job feeds four tasks that never read their stdin through pbs_tmrsh, 12 MB each: the mom
   * holds at most 16 MiB of it for the job and closes the stdin of the task that would take more.
   */
  @Test
  void tasksThatDoNotReadTheirStdinHoldNoMoreThanTheJobsBudget() throws Exception {
    int logFrom = cluster.momLog("a").length();
    String bob =
        cluster.submitAs(
            BOB,
            bobWork,
            "for i in 1 2 3 4; do head -c 12000000 /dev/zero | pbs_tmrsh a sleep 600 & done\n"
                + "wait\n",
            "-j",
            "oe",
            "-l",
            "nodes=a:ppn=1");
    awaitLog(logFrom, " bytes of stdin waiting (limit 16mb a job)");
    System.out.println(
        String.join(
            "\n",
            cluster
                .momLog("a")
                .substring(logFrom)
                .lines()
                .filter(l -> l.contains("stdin"))
                .toList()));
    assertTrue(cluster.momAlive("a"));
    cluster.cli("qdel", bob);
    cluster.await(bob, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(60));
  }

  /** Bob's job: SocketAbuser trickling on the job's socket until the job is deleted. */
  private static String bobJob() throws Exception {
    Path classes =
        Path.of(SocketAbuser.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    return "cd $PBS_O_WORKDIR\n"
        + "sleep 100000 | " // its input stays open while the job runs
        + ProcessHandle.current().info().command().orElse("java")
        + " -Xmx64m -cp "
        + classes
        + " "
        + SocketAbuser.class.getName()
        + " trickle \"$BERTH_TM_SOCKET\" "
        + CONNECTIONS
        + " "
        + FRAME
        + " > trickle.out 2>&1\n";
  }

  /** Bob, in no job, connecting to node a's socket as fast as he can. */
  private Process connectFlood() throws Exception {
    Path classes =
        Path.of(SocketAbuser.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    Path out = bobWork.resolve("connect.out");
    Process p =
        new ProcessBuilder(
                "runuser",
                "-u",
                BOB,
                "--",
                ProcessHandle.current().info().command().orElse("java"),
                "-Xmx64m",
                "-cp",
                classes.toString(),
                SocketAbuser.class.getName(),
                "connect",
                socketOfNodeA(),
                "1000")
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    await(() -> read(out).contains("refused 1000 times"), "bob's connections refused");
    return p;
  }

  /** Node a's task-manager socket (JobTasks.socket: in the node's job directory base). */
  private static String socketOfNodeA() throws IOException {
    return new BerthHome(cluster.home).jobTmp().resolve("a/.tm/a").toString();
  }

  /**
   * Lowers the open file limit of node a's mom below the descriptors it has, so that its next
   * accept fails (bob's connections keep coming), waits for it to say so, and gives the limit back.
   */
  private static void runOutOfDescriptors(int logFrom) throws IOException {
    long pid = cluster.momPid("a");
    String soft = "";
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/limits"))) {
      if (line.startsWith("Max open files")) {
        soft = line.substring("Max open files".length()).trim().split("\\s+")[0];
      }
    }
    long from = System.currentTimeMillis();
    prlimit(pid, "64"); // the JVM's own first descriptors; bob's connections are above them
    try {
      awaitLog(logFrom, ": cannot accept a connection (Too many open files); trying again");
    } finally {
      prlimit(pid, soft);
      withoutDescriptors = new long[] {from, System.currentTimeMillis()};
    }
  }

  private static void prlimit(long pid, String soft) {
    TestCluster.Result r =
        TestCluster.exec(
            Path.of("/"),
            List.of("prlimit", "--pid", Long.toString(pid), "--nofile=" + soft + ":"));
    assertEquals(0, r.exit(), r.toString());
  }

  /** Alice's rounds done so far. */
  private static List<String> rounds() {
    return read(aliceWork.resolve("progress")).lines().filter(l -> l.startsWith("round ")).toList();
  }

  /**
   * Waits until alice has done {@code n} rounds: each ran a task and a rank on both nodes, or
   * failed while the mom had no descriptors.
   */
  private static int awaitRounds(int n, String what) {
    await(
        () -> {
          for (String round : rounds()) {
            String[] f = round.split(" ", 6);
            long[] gap = withoutDescriptors;
            boolean inGap =
                gap != null && Long.parseLong(f[2]) <= gap[1] && Long.parseLong(f[3]) >= gap[0];
            if (!round.endsWith(" ok: a b / a b ") && !inGap) {
              fail("alice's round failed: " + round + "\n" + read(aliceWork.resolve("progress")));
            }
          }
          return rounds().size() >= n;
        },
        what + " (" + n + ")");
    return rounds().size();
  }

  /** The longest round that succeeded, in milliseconds. */
  private static long slowestRound() {
    return rounds().stream()
        .filter(l -> l.contains(" ok: "))
        .map(l -> l.split(" "))
        .mapToLong(f -> Long.parseLong(f[3]) - Long.parseLong(f[2]))
        .max()
        .orElse(0);
  }

  /** The rounds that failed (while the mom had no descriptors). */
  private static List<String> failedRounds() {
    return rounds().stream().filter(l -> l.contains(" failed: ")).toList();
  }

  private static void awaitLog(int from, String line) {
    await(() -> cluster.momLog("a").substring(from).contains(line), "mom a's log: " + line);
  }

  /**
   * What a stalled round left to go by: alice's last rounds and their errors, what her job still
   * runs, and both moms' logs.
   */
  private static String whereAliceIs() {
    List<String> progress = read(aliceWork.resolve("progress")).lines().toList();
    TestCluster.Result ps =
        TestCluster.exec(
            aliceWork, List.of("ps", "-u", ALICE, "-o", "pid,ppid,stat,etimes,wchan:20,args"));
    return "alice's last rounds:\n"
        + String.join("\n", progress.subList(Math.max(0, progress.size() - 3), progress.size()))
        + "\nher err file:\n"
        + read(aliceWork.resolve("err"))
        + "\nher processes:\n"
        + ps.out()
        + "\nmom a's log:\n"
        + cluster.momLog("a")
        + "\nmom b's log:\n"
        + cluster.momLog("b");
  }

  /** Waits up to 120 s for {@code event}. */
  private static void await(Supplier<Boolean> event, String what) {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (!event.get()) {
      if (System.nanoTime() > deadline) {
        fail("no " + what + " within 120 s; " + whereAliceIs());
      }
      TestCluster.sleep(200);
    }
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file) : "";
    } catch (IOException e) {
      return "";
    }
  }
}
