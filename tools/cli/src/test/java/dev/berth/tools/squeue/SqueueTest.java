package dev.berth.tools.squeue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.testing.FakeServer;
import dev.berth.proto.Holds;
import dev.berth.proto.Job;
import dev.berth.proto.JobList;
import dev.berth.proto.JobState;
import dev.berth.proto.Node;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.NodeGroup;
import dev.berth.proto.NodeList;
import dev.berth.proto.NodeStatus;
import dev.berth.proto.ResourceRequest;
import dev.berth.proto.Response;
import dev.berth.tools.slurm.SlurmJob;
import dev.berth.tools.slurm.SlurmTimes;
import dev.berth.tools.testing.FakeCli;
import dev.berth.tools.testing.Run;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** squeue over qsub's and sbatch's jobs, in Slurm 22.05's layouts and words. */
class SqueueTest {
  private static final long NOW = FakeCli.NOW;

  private static Job.Builder job(long number, String name, String user, JobState state) {
    return Job.newBuilder()
        .setId(number + ".srv")
        .setNumber(number)
        .setName(name)
        .setEuser(user)
        .setQueue("batch")
        .setState(state)
        .setResources(
            ResourceRequest.newBuilder()
                .addNodeGroups(NodeGroup.newBuilder().setCount(1).setPpn(2)));
  }

  private static NodeAllocation on(String node, Integer... cpus) {
    return NodeAllocation.newBuilder().setNode(node).addAllCpus(List.of(cpus)).build();
  }

  private static final List<Job> JOBS =
      List.of(
          job(12, "envdemo", "alice", JobState.RUNNING)
              .setStartTime(NOW - 65)
              .addExecNodes(on("n01", 0, 1))
              .build(),
          job(13, "train", "alice", JobState.QUEUED)
              .setComment("not enough free resources")
              .setResources(
                  ResourceRequest.newBuilder()
                      .addNodeGroups(NodeGroup.newBuilder().setCount(2).setPpn(4))
                      .setWalltime(3600))
              .build(),
          job(14, "held", "bob", JobState.HELD).setHolds(Holds.newBuilder().setUser(true)).build(),
          job(15, "done", "alice", JobState.COMPLETED).setExitStatus(3).build(),
          job(16, "sweep", "alice", JobState.QUEUED).setArrayRequest("1-4").build(),
          job(16, "sweep-1", "alice", JobState.RUNNING)
              .setArrayParent("16[].srv")
              .setArrayIndex(1)
              .setStartTime(NOW - 3700)
              .addExecNodes(on("n02", 0))
              .addExecNodes(on("n03", 0))
              .build(),
          job(16, "sweep-2", "alice", JobState.QUEUED)
              .setArrayParent("16[].srv")
              .setArrayIndex(2)
              .build(),
          job(16, "sweep-4", "alice", JobState.QUEUED)
              .setArrayParent("16[].srv")
              .setArrayIndex(4)
              .build());

  private static Run squeue(String... args) {
    FakeServer server =
        new FakeServer(
            r ->
                r.hasStatNodes()
                    ? Response.newBuilder()
                        .setNodes(
                            NodeList.newBuilder()
                                .addAllNodes(
                                    java.util.stream.Stream.of("n01", "n02", "n03")
                                        .map(
                                            n ->
                                                NodeStatus.newBuilder()
                                                    .setNode(Node.newBuilder().setName(n))
                                                    .build())
                                        .toList()))
                        .build()
                    : Response.newBuilder().setJobs(JobList.newBuilder().addAllJobs(JOBS)).build());
    return Run.of(Squeue::run, server, Map.of("TZ", "UTC", "USER", "bob"), "squeue", args);
  }

  @Test
  void slurmsDefaultLayoutPendingFirstEndedLeftOut() {
    Run r = squeue();
    assertEquals(0, r.status(), r.err());
    assertEquals(
        "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"
            + "                13     batch    train    alice PD       0:00      2 (Resources)\n"
            + "                14     batch     held      bob PD       0:00      1 (JobHeldUser)\n"
            + "          16_[2,4]     batch  sweep-2    alice PD       0:00      1 (None)\n"
            + "                12     batch  envdemo    alice  R       1:05      1 n01\n"
            + "              16_1     batch  sweep-1    alice  R    1:01:40      2 n[02-03]\n",
        r.out());
  }

  @Test
  void filtersAndFormats() {
    assertEquals("14\n", squeue("-h", "--me", "-o", "%i").out());
    assertEquals("15 F (NonZeroExitCode)\n", squeue("-h", "-t", "F", "-o", "%i %t %R").out());
    assertEquals(
        "16_2|PENDING|2|UNLIMITED\n16_4|PENDING|2|UNLIMITED\n16_1|RUNNING|2|UNLIMITED\n",
        squeue("-h", "-r", "-j", "16", "-o", "%i|%T|%C|%l").out());
    assertEquals("13  1:00:00 1:00:00\n", squeue("-h", "-j", "13", "-o", "%i %.8l %L").out());
    assertEquals("16_1 16\n", squeue("-h", "-t", "R", "-j", "16_1", "-o", "%i %A").out());
  }

  @Test
  void dashCapitalOFormatsByFieldNames() {
    assertEquals(
        "JOBID               NAME                ST\n13                  train               PD\n",
        squeue("-j", "13", "-O", "JobID,name,StateCompact:0").out(),
        "20 wide on the left unless said; names in any case");
    assertEquals(
        "      13|train|PENDING|1:00:00|\n",
        squeue("-h", "-j", "13", "-O", "jobarrayid:.8|,name:0|,state:0|,timelimit:0|").out(),
        "a size after a dot on the right; a suffix after the size");
    assertEquals("sweep-\n", squeue("-h", "-t", "R", "-j", "16_1", "-O", "name:6").out(), "cut");
    Run unknown = squeue("-O", "jobid,colour");
    assertEquals(1, unknown.status());
    assertEquals("squeue: error: Invalid job format specification: colour\n", unknown.err());
    Run notShown = squeue("-O", "qos");
    assertEquals(1, notShown.status());
    assertEquals(
        "squeue: error: the field qos is not supported by Berth's squeue yet (docs/slurm.md lists"
            + " the fields it shows)\n",
        notShown.err());
    assertEquals(
        "squeue: error: -O (--Format) is incompatible with -o (--format)\n",
        squeue("-o", "%i", "-O", "jobid").err());
    assertEquals(
        "squeue: error: -o (--format) is incompatible with -O (--Format)\n",
        squeue("--Format=jobid", "-o", "%i").err());
  }

  @Test
  void aTaskOfAnSbatchArrayIsNamedByItsOwnNumberToo() {
    Job task =
        job(20, "sweep", "alice", JobState.RUNNING)
            .setArrayParent("20[].srv")
            .setArrayIndex(7)
            .setTaskNumber(22)
            .build();
    SlurmJob j = new SlurmJob(task, NOW);
    assertTrue(j.answersTo("22") && j.answersTo("20_7") && j.answersTo("20"));
    assertFalse(j.answersTo("21") || new SlurmJob(JOBS.get(0), NOW).answersTo("0"));
  }

  @Test
  void dashSSortsByTheKeysGivenTheFirstTheMostSignificant() {
    assertEquals(
        "16_4\n16_2\n16_1\n14\n13\n12\n",
        squeue("-h", "-r", "-S", "-i", "-o", "%i").out(),
        "falling ids");
    assertEquals(
        "14 bob\n16_1 alice\n12 alice\n13 alice\n16_2 alice\n16_4 alice\n",
        squeue("-h", "-r", "-S", "-u,-M,+i", "-o", "%i %u").out(),
        "users falling, then the longest running first, then ids");
    assertEquals(
        "12\n13\n14\n16_1\n16_2\n16_4\n",
        squeue("-h", "-r", "-S", "c,i", "-o", "%i").out(),
        "c, as Slurm's, sorts by nothing");
    Run bad = squeue("-S", "x");
    assertEquals(1, bad.status());
    assertEquals("squeue: error: Invalid sort specification: x\n", bad.err());
    Run lacking = squeue("-S", "m");
    assertEquals(1, lacking.status());
    assertEquals(
        "squeue: error: sorting by %m is not supported by Berth's squeue yet\n", lacking.err());
  }

  @Test
  void dashIListsWithTheDateAndABlankLineAndSaysWhenToListAgain() {
    Run r = squeue("-i", "5", "-j", "13", "-o", "%i %t");
    assertEquals(0, r.status(), r.err());
    assertEquals(
        SlurmTimes.banner(NOW, java.time.ZoneOffset.UTC) + "\nJOBID ST\n13 PD\n\n", r.out());
    assertEquals("13 PD\n\n", squeue("-h", "--iterate=5", "-j", "13", "-o", "%i %t").out());
    assertEquals(OptionalInt.of(5), Squeue.repeatAfter(List.of("-hi", "5")));
    assertEquals(OptionalInt.of(7), Squeue.repeatAfter(List.of("--iterate=7s")), "as atoi reads");
    assertEquals(OptionalInt.empty(), Squeue.repeatAfter(List.of("-o", "%i")));
    Run zero = squeue("-i", "0");
    assertEquals(1, zero.status());
    assertEquals("squeue: error: --iterate=0\n\n", zero.err(), "Slurm's, its newline doubled");
    assertEquals(OptionalInt.empty(), Squeue.repeatAfter(List.of("-i", "x")));
  }

  @Test
  void whatItDoesNotHonourIsRefusedByName() {
    Run sorted = squeue("--steps");
    assertEquals(1, sorted.status());
    assertEquals(
        "squeue: error: --steps is not supported by Berth's squeue yet (docs/slurm.md lists"
            + " what is)\n",
        sorted.err());
    Run field = squeue("-o", "%i %q");
    assertEquals(1, field.status());
    assertEquals(
        "squeue: error: the field %q is not supported by Berth's squeue yet (docs/slurm.md lists"
            + " the fields it shows)\n",
        field.err());
    Run state = squeue("-t", "zombie");
    assertEquals("squeue: error: Invalid job state specified: zombie\n", state.err());
    assertEquals(1, squeue("--bogus").status());
  }

  @Test
  void jobsOnTheNodesOfAHostList() {
    Run r = squeue("-h", "-w", "n[02-03]", "-o", "%i %N");
    assertEquals(0, r.status(), r.err());
    assertEquals("16_1 n[02-03]\n", r.out());
    assertEquals(1, squeue("-w", "n[1-").status());
    Run unknown = squeue("-w", "n01,n09");
    assertEquals(1, unknown.status());
    assertEquals("squeue: error: Invalid node name n09\n", unknown.err(), "as Slurm's, measured");
  }
}
