package dev.berth.it;

import static dev.berth.it.TestUsers.ALICE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A real workflow engine runs against Berth unchanged, in its Torque mode and in its Slurm mode:
 * Toil (Debian's package, which ops/test installs) with {@code --batchSystem torque} and with
 * {@code --batchSystem slurm} runs a small fan-out workflow as an ordinary user, calling pbsnodes,
 * qsub, qstat and qdel, or sbatch, squeue, sacct, scontrol and scancel, as it would on a Torque or
 * a Slurm cluster. Each call goes through a wrapper that logs its wall time, and the test prints
 * what the workflow spent in the commands.
 */
@Tag("integration")
class WorkflowEngineIT {
  private static final List<String> COMMANDS =
      List.of(
          "pbsnodes",
          "qsub",
          "qstat",
          "qdel",
          "sbatch",
          "squeue",
          "sacct",
          "scontrol",
          "scancel",
          "sinfo");

  static TestCluster cluster;
  static Path work;

  @BeforeAll
  static void start() throws IOException {
    assertTrue(
        Files.isExecutable(Path.of("/usr/bin/toil")),
        "Toil is not installed: ops/test installs Debian's toil package");
    TestUsers.ensure(ALICE);
    cluster = TestCluster.start();
    work = Files.createTempDirectory(Path.of("/tmp"), "berth-toil-");
    Path wrappers = Files.createDirectory(work.resolve("bin"));
    Path log = work.resolve("calls.log");
    for (String command : COMMANDS) {
      Path wrapper = wrappers.resolve(command);
      Files.writeString(
          wrapper,
          "#!/bin/sh\nstart=$(date +%s%N)\n\""
              + TestCluster.ROOT.resolve("ops/bin").resolve(command)
              + "\" \"$@\"\nstatus=$?\nend=$(date +%s%N)\necho \""
              + command
              + " $(( (end - start) / 1000 ))\" >> "
              + log
              + "\nexit $status\n");
      Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    try (InputStream in = WorkflowEngineIT.class.getResourceAsStream("/toil/workflow.py")) {
      Files.write(work.resolve("workflow.py"), in.readAllBytes());
    }
    Files.createDirectory(work.resolve("snakemake"));
    try (InputStream in = WorkflowEngineIT.class.getResourceAsStream("/snakemake/Snakefile")) {
      Files.write(work.resolve("snakemake/Snakefile"), in.readAllBytes());
    }
    TestCluster.exec(work, List.of("chown", "-R", ALICE, work.toString()));
  }

  @AfterAll
  static void stop() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
    if (work != null) {
      TestCluster.exec(Path.of("/"), List.of("rm", "-rf", work.toString()));
    }
  }

  @Test
  void toilRunsAFanOutWorkflowThroughTheTorqueCommands() throws IOException {
    toil("torque", "qsub", "qstat");
  }

  @Test
  void toilRunsItThroughTheSlurmCommands() throws IOException {
    toil("slurm", "sbatch", "squeue");
  }

  /**
   * Snakemake 7's own Slurm executor ({@code --slurm}): it finds the default partition with sinfo,
   * submits each job with sbatch and follows it with sacct, the workflow in a directory of its own.
   */
  @Test
  void snakemakeRunsItsWorkflowThroughTheSlurmCommands() throws IOException {
    assertTrue(
        Files.isExecutable(Path.of("/usr/bin/snakemake")),
        "Snakemake is not installed: ops/test installs Debian's snakemake package");
    Path dir = work.resolve("snakemake");
    Path log = work.resolve("calls.log");
    Files.deleteIfExists(log);
    long begin = System.nanoTime();
    List<String> argv = asAlice();
    argv.addAll(
        List.of(
            "snakemake",
            "--slurm",
            "--jobs",
            "3",
            "--default-resources",
            "runtime=5",
            "mem_mb=1000", // each job runs two Pythons of Snakemake's: the memory limit is real
            "--latency-wait",
            "10",
            // its Slurm executor checks every 33 s unless told at most once a second
            "--max-status-checks-per-second",
            "1"));
    TestCluster.Result run = TestCluster.exec(dir, argv);
    double seconds = (System.nanoTime() - begin) / 1e9;
    assertEquals(0, run.exit(), run.toString());
    assertEquals("sum=6\n", Files.readString(dir.resolve("sum.txt")));
    report("Snakemake (--slurm)", seconds, log, "sbatch", "sacct");
  }

  /**
   * The start of a command line that runs as alice's login would, with the commands' logging
   * wrappers first on PATH and this cluster's server.
   */
  private static List<String> asAlice() {
    List<String> argv = new ArrayList<>(TestUsers.loginEnv(ALICE));
    argv.addAll(
        List.of(
            "LANG=C.UTF-8",
            "PATH=" + work.resolve("bin") + ":/usr/bin:/bin",
            "BERTH_SERVER=" + cluster.socket));
    return argv;
  }

  /** Runs the workflow with Toil's {@code batchSystem}, which must submit and poll as named. */
  private static void toil(String batchSystem, String submit, String poll) throws IOException {
    Path log = work.resolve("calls.log");
    Files.deleteIfExists(log);
    long begin = System.nanoTime();
    List<String> argv = asAlice();
    argv.addAll(
        List.of(
            "TMPDIR=" + work, // Toil writes each job's wrapper script there and keeps it
            "python3",
            "workflow.py",
            "file:" + work.resolve("jobstore-" + batchSystem),
            "--batchSystem",
            batchSystem,
            "--workDir",
            work.toString(),
            "--statePollingWait",
            "1",
            "--disableCaching",
            "--clean",
            "always",
            "--logLevel",
            "INFO"));
    TestCluster.Result run = TestCluster.exec(work, argv);
    double seconds = (System.nanoTime() - begin) / 1e9;
    assertEquals(0, run.exit(), run.toString());
    assertTrue(run.out().contains("sum=14"), run.toString());

    report("Toil (" + batchSystem + ")", seconds, log, submit, poll);
  }

  /**
   * Checks that every job went through {@code submit} and was followed with {@code poll}, and
   * prints what the workflow spent in each command.
   */
  private static void report(String engine, double seconds, Path log, String submit, String poll)
      throws IOException {
    Map<String, List<Long>> calls = new TreeMap<>();
    for (String line : Files.readAllLines(log)) {
      String[] parts = line.split(" ");
      calls.computeIfAbsent(parts[0], c -> new ArrayList<>()).add(Long.parseLong(parts[1]));
    }
    assertTrue(
        calls.getOrDefault(submit, List.of()).size() >= 3,
        "every job went through " + submit + ": " + calls);
    assertTrue(calls.containsKey(poll), engine + " followed its jobs with " + poll + ": " + calls);
    long total = 0;
    StringBuilder report = new StringBuilder();
    for (var e : calls.entrySet()) {
      List<Long> micros = new ArrayList<>(e.getValue());
      micros.sort(null);
      long sum = micros.stream().mapToLong(Long::longValue).sum();
      total += sum;
      report.append(
          String.format(
              "  %-8s %3d calls, median %.1f ms, total %.1f ms%n",
              e.getKey(), micros.size(), micros.get(micros.size() / 2) / 1e3, sum / 1e3));
    }
    System.out.printf(
        "%s workflow through Berth: %.1f s, of it %.1f ms in the commands:%n%s",
        engine, seconds, total / 1e3, report);
  }
}
