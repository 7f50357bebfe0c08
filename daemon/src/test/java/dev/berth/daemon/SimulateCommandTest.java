package dev.berth.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class SimulateCommandTest {
  @TempDir Path dir;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private PrintStream stdout;
  private PrintStream stderr;

  @BeforeEach
  void capture() {
    stdout = System.out;
    stderr = System.err;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @AfterEach
  void restore() {
    System.setOut(stdout);
    System.setErr(stderr);
  }

  private int berth(String... args) {
    return new CommandLine(new Berth()).execute(args);
  }

  @Test
  void printsWhatTheTraceGaveOnTheCluster() throws Exception {
    // one node of 4 CPUs: 1 (4 CPUs, 0-100), 2 (4 CPUs, waits 90 s, reserved for 100 from 10 on),
    // 3 (2 CPUs, waits 130 s, reserved for 150 from 100 on)
    Path trace = dir.resolve("small.swf");
    Files.writeString(
        trace,
        "; Version: 2.2\n"
            + "1 0 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n"
            + "2 10 -1 50 4 -1 -1 4 50 -1 1 1 1 -1 1 -1 -1 -1\n"
            + "3 20 -1 30 2 -1 -1 2 30 -1 1 1 1 -1 1 -1 -1 -1\n");
    assertEquals(0, berth("simulate", "--trace", trace.toString(), "--nodes", "1", "--cpus", "4"));
    String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
    assertEquals("small.swf on 1 nodes of 4 CPUs, policy backfill (depth 1)", lines[0]);
    assertEquals("jobs 3 (left out of the trace: 0, larger than the cluster: 0)", lines[1]);
    assertEquals("utilization 91.7%", lines[2]);
    assertEquals("wait mean 73 s, max 130 s", lines[3]);
    assertEquals("bounded slowdown (tau 10 s) mean 3.04", lines[4]);
    assertEquals(
        "reserved starts 2 jobs, 0 of them started after their first reserved start", lines[5]);
    assertTrue(lines[6].startsWith("scheduling cycles 5: p50 "), lines[6]);
  }

  @Test
  void priorityWeightsReorderTheQueue() throws Exception {
    // one node of 4 CPUs: user 1's first job runs 0-100; at 100, user 2's job (submitted after
    // user 1's second) goes first when fair share counts: user 1 has used everything so far
    Path trace = dir.resolve("fair.swf");
    Files.writeString(
        trace,
        "1 0 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n"
            + "2 10 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n"
            + "3 20 -1 100 4 -1 -1 4 100 -1 1 2 2 -1 1 -1 -1 -1\n");
    assertEquals(
        0,
        berth(
            "simulate",
            "--trace",
            trace.toString(),
            "--nodes",
            "1",
            "--cpus",
            "4",
            "--priority-weight-fairshare",
            "1000"));
    String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
    assertEquals(
        "fair.swf on 1 nodes of 4 CPUs, policy backfill (depth 1), priority weights age 0 (max"
            + " 604800 s), job size 0, fair share 1000 (half-life 604800 s)",
        lines[0]);
    assertEquals("wait mean 90 s, max 190 s", lines[3], "without fair share: max 180 s");
  }

  /** A synthetic trace without requested times, simulated as a recorded one would be. */
  @Test
  void aWorkloadOfTheModelIsWrittenAndSimulated() throws Exception {
    Path trace = dir.resolve("lublin.swf");
    assertEquals(
        0,
        berth(
            "workload",
            "--jobs",
            "200",
            "--processors",
            "32",
            "--seed",
            "7",
            "--out",
            trace.toString()));
    assertEquals(
        trace + ": 200 jobs for 32 processors, seed 7\n", out.toString(StandardCharsets.UTF_8));
    out.reset();
    assertEquals(
        0,
        berth(
            "simulate",
            "--trace",
            trace.toString(),
            "--nodes",
            "8",
            "--cpus",
            "4",
            "--missing-time",
            "runtime"));
    String report = out.toString(StandardCharsets.UTF_8);
    assertTrue(
        report.contains("jobs 200 (left out of the trace: 0, larger than the cluster: 0)"), report);
    assertTrue(report.contains("jobs without a requested time 200, planned with"), report);
    assertEquals(
        2, berth("workload", "--jobs", "5", "--processors", "0", "--out", trace.toString()));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("berth workload: a machine needs"));
  }

  @Test
  void badInputIsNamed() throws Exception {
    assertEquals(
        2,
        berth(
            "simulate",
            "--trace",
            dir.resolve("none.swf").toString(),
            "--nodes",
            "1",
            "--cpus",
            "4"));
    assertTrue(
        err.toString(StandardCharsets.UTF_8).contains("no trace " + dir.resolve("none.swf")));
    Path trace = Files.writeString(dir.resolve("bad.swf"), "1 2 3\n");
    assertEquals(2, berth("simulate", "--trace", trace.toString(), "--nodes", "0", "--cpus", "4"));
    assertTrue(
        err.toString(StandardCharsets.UTF_8)
            .contains("a cluster needs at least one node of one CPU, not 0 x 4"));
    assertEquals(2, berth("simulate", "--trace", trace.toString(), "--nodes", "1", "--cpus", "4"));
    assertTrue(
        err.toString(StandardCharsets.UTF_8).contains("bad.swf: line 1: 3 fields, a job has 18"));
    assertEquals(
        2,
        berth(
            "simulate",
            "--trace",
            trace.toString(),
            "--nodes",
            "1",
            "--cpus",
            "4",
            "--policy",
            "x"));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("no scheduling policy 'x'"));
  }
}
