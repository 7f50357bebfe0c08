package dev.berth.it;

import static dev.berth.it.TestUsers.ALICE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.mom.os.JobFiles;
import dev.berth.proto.JobState;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Golden tests against the real thing: the same scripts (src/test/resources/slurm-golden) submitted
 * by the same user to Slurm 22.05 (Debian's, started privately from ../shared/slurm-baseline beside
 * the checkout, or where BERTH_SLURM_BASELINE says) and to Berth, comparing what the job sees (its
 * SLURM_* variables, directory, output file, srun's tasks, exit code) and what the commands print
 * (sbatch's, squeue's, sinfo's, scancel's and scontrol's), normalising only job ids and times. The
 * differences that remain are the ones docs/slurm.md lists, named here. Skipped, saying so, where
 * Slurm is not installed.
 */
@Tag("integration")
class SlurmGoldenIT {
  /** Slurm's own commands (Berth's are earlier on root's PATH, in /usr/local/bin). */
  private static final String SLURM_BIN = "/usr/bin/";

  /** Slurm's variables Berth leaves out, each for the reason docs/slurm.md gives. */
  private static final Set<String> BERTH_LEAVES_OUT =
      Set.of(
          "SLURM_CONF",
          "SLURM_MEM_PER_CPU",
          "SLURM_PRIO_PROCESS",
          "SLURM_TASK_PID",
          "SLURM_WORKING_CLUSTER");

  static TestCluster berth;
  static Path slurmDir;
  static Path baseline;
  static Path work;

  @BeforeAll
  static void start() throws IOException {
    // as ops/bench's: BERTH_SLURM_BASELINE, else ../shared/slurm-baseline beside the checkout
    String named = System.getenv("BERTH_SLURM_BASELINE");
    baseline =
        named != null && !named.isBlank()
            ? Path.of(named)
            : TestCluster.ROOT.resolve("../shared/slurm-baseline").normalize();
    Assumptions.assumeTrue(
        Files.isExecutable(baseline.resolve("setup.sh"))
            && Files.isExecutable(Path.of("/usr/sbin/slurmctld"))
            && Files.isExecutable(Path.of(SLURM_BIN + "sbatch")),
        "no Slurm 22.05 here to compare with (Debian's slurmctld, slurmd and slurm-client, and"
            + " the baseline's scripts at "
            + baseline
            + " or BERTH_SLURM_BASELINE)");
    TestUsers.ensure(ALICE);
    JobTools.ensureOnPath();
    slurmDir = Path.of("/tmp/berth-golden-slurm");
    TestCluster.Result up = slurmScript("setup.sh", "tuned");
    assertEquals(0, up.exit(), "Slurm did not start: " + up);
    berth = TestCluster.start();
    TestCluster.Result numbered = berth.cli("qmgr", "-c", "set server next_job_number = 7000");
    assertEquals(0, numbered.exit(), numbered.toString());
    work = MultiNodeCluster.workFor(ALICE, "berth-golden-");
    for (String name : List.of("env.sh", "held.sh", "array.sh")) {
      try (InputStream in = SlurmGoldenIT.class.getResourceAsStream("/slurm-golden/" + name)) {
        Files.write(work.resolve(name), in.readAllBytes());
      }
    }
  }

  @AfterAll
  static void stop() throws IOException {
    if (berth != null) {
      berth.close();
    }
    if (slurmDir != null) {
      slurmScript("stop.sh", "--purge");
    }
    if (work != null) {
      JobFiles.removeTree(work);
    }
  }

  /** Runs one of the baseline's scripts with Slurm's own commands first on PATH. */
  private static TestCluster.Result slurmScript(String script, String arg) {
    return TestCluster.exec(
        TestCluster.ROOT,
        List.of(baseline.resolve(script).toString(), arg),
        Map.of(
            "PATH", "/usr/sbin:/usr/bin:/sbin:/bin",
            "SLURM_BENCH_DIR", slurmDir.toString(),
            "FRESH", "1",
            // jobs stay shown after they end; ids Berth's (from 7000) do not share
            "EXTRA_CONF", "MinJobAge=600\\nFirstJobId=5000",
            "HOME", "/root"),
        new byte[0]);
  }

  /** A Slurm command as alice, from the work directory (PATH: Slurm's commands only). */
  private static TestCluster.Result slurm(String command, String... args) {
    List<String> argv =
        new ArrayList<>(
            List.of(
                "runuser",
                "-u",
                ALICE,
                "--",
                "env",
                "PATH=/usr/bin:/bin",
                "SLURM_CONF=" + slurmDir.resolve("etc/slurm.conf")));
    argv.add(SLURM_BIN + command);
    argv.addAll(List.of(args));
    return TestCluster.exec(work, argv);
  }

  /** The same command of Berth's, as alice, through the native client. */
  private static TestCluster.Result berth(String command, String... args) {
    return berth.runAs(ALICE, work, command, args);
  }

  /** Waits until Slurm's job has ended (scontrol shows it until MinJobAge). */
  private static String slurmEnded(String id) {
    Instant until = Instant.now().plus(Duration.ofSeconds(60));
    while (Instant.now().isBefore(until)) {
      String shown = slurm("scontrol", "-o", "show", "job", id).out();
      Matcher m = Pattern.compile("JobState=(\\S+)").matcher(shown);
      if (m.find() && Set.of("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT").contains(m.group(1))) {
        return shown;
      }
      Thread.onSpinWait();
    }
    throw new AssertionError("Slurm's job " + id + " did not end in 60 s");
  }

  private static Map<String, String> variables(String output) {
    Map<String, String> vars = new TreeMap<>();
    for (String line : output.split("\n")) {
      int eq = line.indexOf('=');
      if (line.startsWith("SLURM_") && eq > 0) {
        vars.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return vars;
  }

  /**
   * {@code text} with the job's number (also before an array index, {@code 5000_3}) and the
   * cluster's name as placeholders.
   */
  private static String normal(String text, String id, String cluster) {
    return text.replaceAll("(?<![0-9])" + id + "(?![0-9])", "JOB")
        .replace("=" + cluster + "\n", "=CLUSTER\n");
  }

  /**
   * The output file {@code name} in the work directory, which {@code whose} job must have written.
   */
  private static String written(String name, String whose) throws IOException {
    Path file = work.resolve(name);
    assertTrue(Files.exists(file), file + " (" + whose + ")");
    return Files.readString(file, StandardCharsets.UTF_8);
  }

  /** The job ids of one script submitted to each. */
  private record Submitted(String slurm, String berth) {}

  private static Submitted sbatchBoth(String script) {
    TestCluster.Result s = slurm("sbatch", "--parsable", script);
    assertEquals(0, s.exit(), s.toString());
    TestCluster.Result b = berth("sbatch", "--parsable", script);
    assertEquals(0, b.exit(), b.toString());
    return new Submitted(s.out().trim().split(";")[0], b.out().trim());
  }

  @Test
  void aBatchJobSeesWhatSlurmsJobSees() throws IOException {
    Submitted both = sbatchBoth("env.sh");
    String slurmId = both.slurm();
    String berthId = both.berth();
    String slurmShown = slurmEnded(slurmId);
    berth.awaitState(berthId, JobState.COMPLETED);
    String berthShown = berth("scontrol", "-o", "show", "job", berthId).out();

    // the output file's name, from the same pattern
    String slurmText = written("golden-golden-env-" + slurmId + ".out", "Slurm's");
    String berthText = written("golden-golden-env-" + berthId + ".out", "Berth's");

    Map<String, String> slurmVars = variables(normal(slurmText, slurmId, "bench"));
    Map<String, String> berthVars =
        variables(normal(berthText, berthId, berth.job(berthId).getServer()));
    BERTH_LEAVES_OUT.forEach(slurmVars::remove);
    assertEquals(slurmVars, berthVars, "the batch script's SLURM_* variables");

    // the lines the script prints besides: its directory, and srun's tasks (labelled, sorted)
    assertEquals(others(slurmText), others(berthText), "cwd and srun's tasks");

    // what scontrol says of the ended job
    for (String key :
        List.of(
            "JobState",
            "Reason",
            "ExitCode",
            "BatchFlag",
            "NumNodes",
            "NumCPUs",
            "NumTasks",
            "Partition",
            "WorkDir")) {
      assertEquals(field(slurmShown, key), field(berthShown, key), key);
    }
  }

  /**
   * An array's tasks see what Slurm's see: the array's id and their index, the count, lowest and
   * highest index and the step; each its own output file and exit code. Their own job ids are
   * compared apart: Slurm numbers a task when it splits it off its array, in no fixed order.
   */
  @Test
  void anArraysTasksSeeWhatSlurmsTasksSee() throws IOException {
    Submitted both = sbatchBoth("array.sh");
    String slurmId = both.slurm();
    String berthId = both.berth();
    Set<String> berthOwnIds = new java.util.HashSet<>();
    for (int index : new int[] {1, 3, 5}) {
      String slurmShown = slurmEnded(slurmId + "_" + index);
      berth.awaitState(berthId + "[" + index + "]", JobState.COMPLETED);
      String berthShown = berth("scontrol", "-o", "show", "job", berthId + "_" + index).out();
      String slurmText =
          written("golden-golden-array-" + slurmId + "_" + index + ".out", "Slurm's");
      String berthText =
          written("golden-golden-array-" + berthId + "_" + index + ".out", "Berth's");
      Map<String, String> slurmVars = variables(normal(slurmText, slurmId, "bench"));
      Map<String, String> berthVars =
          variables(normal(berthText, berthId, berth.job(berthId + "[1]").getServer()));
      BERTH_LEAVES_OUT.forEach(slurmVars::remove);
      String ownId = berthVars.get("SLURM_JOB_ID");
      berthOwnIds.add(ownId);
      for (String own : List.of("SLURM_JOB_ID", "SLURM_JOBID")) {
        slurmVars.remove(own);
        assertEquals(ownId, berthVars.remove(own), own);
      }
      assertEquals(slurmVars, berthVars, "task " + index + "'s SLURM_* variables");
      assertEquals(others(slurmText), others(berthText), "task " + index + "'s directory");
      for (String key : List.of("ArrayTaskId", "JobName", "JobState", "ExitCode", "StdOut")) {
        assertEquals(
            field(normal(slurmShown, slurmId, ""), key),
            field(normal(berthShown, berthId, ""), key),
            "task " + index + "'s " + key);
      }
    }
    assertEquals(3, berthOwnIds.size(), "each task a job id of its own: " + berthOwnIds);
  }

  /**
   * salloc and srun outside a job say what Slurm's say (allocation granted and relinquished, a
   * task's failure) and exit as Slurm's do. The lines Slurm prints only when the job has to wait,
   * and the node's name, are set aside; Berth's session joins the step's standard error to its
   * output (docs/slurm.md), so srun's output is compared with its errors.
   */
  @Test
  void sallocAndSrunSayWhatSlurmsSayAndExitAsTheyDo() {
    TestCluster.Result slurmAlloc = slurm("salloc", "-N", "1", "sh", "-c", "exit 3");
    TestCluster.Result berthAlloc = berth("salloc", "-N", "1", "sh", "-c", "exit 3");
    assertEquals(3, slurmAlloc.exit(), slurmAlloc.toString());
    assertEquals(3, berthAlloc.exit(), berthAlloc.toString());
    assertEquals(said(slurmAlloc.err()), said(berthAlloc.err()));

    TestCluster.Result slurmStep = slurm("srun", "-N", "1", "sh", "-c", "echo out; exit 4");
    TestCluster.Result berthStep = berth("srun", "-N", "1", "sh", "-c", "echo out; exit 4");
    assertEquals(4, slurmStep.exit(), slurmStep.toString());
    assertEquals(4, berthStep.exit(), berthStep.toString());
    assertEquals(said(slurmStep.out() + slurmStep.err()), said(berthStep.out() + berthStep.err()));

    TestCluster.Result slurmBare = slurm("srun", "-N", "1");
    TestCluster.Result berthBare = berth("srun", "-N", "1");
    assertEquals(slurmBare.exit(), berthBare.exit(), berthBare.toString());
    assertEquals(slurmBare.err(), berthBare.err());

    // both serve the step PMIx (Debian's Slurm has its pmix plugin)
    TestCluster.Result slurmPmix = slurm("srun", "-N", "1", "--mpi=pmix", "sh", "-c", "exit 5");
    TestCluster.Result berthPmix = berth("srun", "-N", "1", "--mpi=pmix", "sh", "-c", "exit 5");
    assertEquals(5, slurmPmix.exit(), slurmPmix.toString());
    assertEquals(5, berthPmix.exit(), berthPmix.toString());
  }

  /**
   * Output lines with job numbers and node names as placeholders, without the waiting lines and
   * without Slurm's salloc's "Job allocation N has been revoked.", which it prints when slurmctld's
   * word that the job has ended reaches it before it has given the allocation up itself (a race
   * within Slurm: _job_complete_handler in src/salloc/salloc.c).
   */
  private static List<String> said(String text) {
    return text.lines()
        .filter(l -> !l.matches("\\w+: (Pending job allocation|job \\d+ (queued|has been)).*"))
        .filter(l -> !l.matches("salloc: Job allocation \\d+ has been revoked\\."))
        .map(l -> l.replaceAll("allocation \\d+", "allocation JOB"))
        .map(l -> l.replaceAll("error: \\S+: task", "error: NODE: task"))
        .sorted()
        .toList();
  }

  /** The script's lines that are not variables, srun's sorted (its tasks print in any order). */
  private static List<String> others(String output) {
    List<String> lines = new ArrayList<>();
    for (String line : output.split("\n")) {
      if (!line.startsWith("SLURM_")) {
        lines.add(line);
      }
    }
    lines.sort(null);
    return lines;
  }

  private static String field(String record, String key) {
    Matcher m = Pattern.compile("(?:^|\\s)" + Pattern.quote(key) + "=(\\S*)").matcher(record);
    return m.find() ? m.group(1) : "(missing)";
  }

  @Test
  void theCommandsPrintWhatSlurmsPrint() {
    // a held job, as squeue and scontrol show it
    String slurmId = slurm("sbatch", "--parsable", "-H", "held.sh").out().trim().split(";")[0];
    String berthId = berth("sbatch", "--parsable", "-H", "held.sh").out().trim();
    assertEquals(
        normal(slurm("squeue", "-j", slurmId).out(), slurmId, "bench"),
        normal(berth("squeue", "-j", berthId).out(), berthId, "bench"),
        "squeue's default layout");
    assertEquals(
        normal(
            slurm("squeue", "-h", "-j", slurmId, "-o", "%i|%j|%u|%t|%M|%D|%R").out(), slurmId, ""),
        normal(
            berth("squeue", "-h", "-j", berthId, "-o", "%i|%j|%u|%t|%M|%D|%R").out(), berthId, ""),
        "squeue -o");
    String named = "Name,username:.10,StateCompact:4|,state:0|,timeused,NumNodes:.6,reasonlist";
    assertEquals(
        normal(slurm("squeue", "-j", slurmId, "-O", named).out(), slurmId, ""),
        normal(berth("squeue", "-j", berthId, "-O", named).out(), berthId, ""),
        "squeue -O, its header too");
    String slurmShown = slurm("scontrol", "show", "job", slurmId).out();
    String berthShown = berth("scontrol", "show", "job", berthId).out();
    // MinMemoryCPU is Slurm's key for the baseline's DefMemPerCPU; without one (as in Berth,
    // which has no default memory) Slurm's is MinMemoryNode too
    assertEquals(
        keys(slurmShown.replace("MinMemoryCPU=", "MinMemoryNode=")),
        keys(berthShown),
        "scontrol show job: its keys, in order");
    for (String key :
        List.of(
            "JobName",
            "JobState",
            "Reason",
            "Dependency",
            "Requeue",
            "Restarts",
            "BatchFlag",
            "ExitCode",
            "RunTime",
            "TimeLimit",
            "EligibleTime",
            "Partition",
            "NodeList",
            "NumNodes",
            "NumCPUs",
            "NumTasks",
            "CPUs/Task",
            "Features",
            "OverSubscribe",
            "WorkDir",
            "StdIn",
            "Power")) {
      assertEquals(field(slurmShown, key), field(berthShown, key), "scontrol show job " + key);
    }
    assertEquals(
        normal(slurm("scontrol", "show", "job", slurmId).out(), slurmId, "").lines().count(),
        normal(berth("scontrol", "show", "job", berthId).out(), berthId, "").lines().count());

    // what each prints for what is wrong, and how it exits
    for (String[] wrong :
        new String[][] {
          {"sbatch", "--bogus", "env.sh"},
          {"sbatch", "--time=abc", "env.sh"},
          {"scancel", "999999"},
          {"scancel", "-t", "PD", "999999"},
          {"scontrol", "frobnicate"},
          {"scontrol", "show", "job", "999999"},
          {"scontrol", "show", "colour"},
          {"scontrol", "hold", "999999"},
          {"squeue", "-t", "nosuchstate"},
          {"squeue", "-w", "vm,n[01-02]"}
        }) {
      String[] args = java.util.Arrays.copyOfRange(wrong, 1, wrong.length);
      TestCluster.Result s = slurm(wrong[0], args);
      TestCluster.Result b = berth(wrong[0], args);
      String what = String.join(" ", wrong);
      assertEquals(s.exit(), b.exit(), what + ": the exit status; Slurm's " + s + ", Berth's " + b);
      // getopt names the program as it was called: Slurm's by its path here, as a user's is not
      assertEquals(
          firstLine(s.err()).replace(SLURM_BIN, ""), firstLine(b.err()), what + ": the message");
      if (!wrong[0].equals("squeue")) { // Slurm's lists its every state; Berth's has fewer
        assertEquals(s.err().replace(SLURM_BIN, ""), b.err(), what + ": every line");
      }
    }

    // what needs no job
    for (String[] same :
        new String[][] {
          {"sinfo"},
          {"sinfo", "-o", "%P"},
          {"squeue", "-w", "vm"},
          {"sinfo", "-o", "%P %a %l %D %t %N"},
          {"sinfo", "-h", "-o", "%R|%T|%C|%F"},
          {"scontrol", "show", "hostnames", "n[01-03],login"},
          {"scontrol", "show", "hostlist", "n3,n1,n2"},
          {"scontrol", "show", "hostlistsorted", "n3,n1,n2"}
        }) {
      String[] args = java.util.Arrays.copyOfRange(same, 1, same.length);
      assertEquals(slurm(same[0], args).out(), berth(same[0], args).out(), String.join(" ", same));
    }
    slurm("scancel", slurmId);
    berth("scancel", berthId);
  }

  /** The keys of a {@code Key=Value} record, in order. */
  private static List<String> keys(String record) {
    List<String> keys = new ArrayList<>();
    Matcher m = Pattern.compile("(?:^|\\s)([A-Za-z_/:]+)=").matcher(record);
    while (m.find()) {
      keys.add(m.group(1));
    }
    return keys;
  }

  private static String firstLine(String text) {
    int nl = text.indexOf('\n');
    return nl < 0 ? text : text.substring(0, nl);
  }
}
