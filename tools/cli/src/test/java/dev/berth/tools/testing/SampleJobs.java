package dev.berth.tools.testing;

import dev.berth.client.testing.FakeServer;
import dev.berth.proto.Holds;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.NodeGroup;
import dev.berth.proto.ResourceRequest;
import dev.berth.proto.ResourcesUsed;
import dev.berth.proto.Variable;

/** Hand-made jobs for format tests. Times are around {@link FakeServer#NOW}. */
public final class SampleJobs {
  public static final long CTIME = FakeCli.NOW - 600; // Mon Nov 30 09:50:00 2026 UTC
  public static final long START = FakeCli.NOW - 300; // 09:55:00

  private SampleJobs() {}

  /**
   * Job 12, queued, as qsub makes it from {@code echo hi | qsub -l nodes=1:ppn=2,walltime=1:00:00}.
   */
  public static Job.Builder queued() {
    return Job.newBuilder()
        .setId("12.srv")
        .setNumber(12)
        .setName("STDIN")
        .setOwner("alice@login1")
        .setEuser("alice")
        .setEgroup("users")
        .setState(JobState.QUEUED)
        .setQueue("batch")
        .setServer("srv")
        .setCtime(CTIME)
        .setQtime(CTIME)
        .setMtime(CTIME)
        .setEtime(CTIME)
        .setResources(
            ResourceRequest.newBuilder()
                .putValues("nodes", "1:ppn=2")
                .putValues("walltime", "01:00:00")
                .putValues("nodect", "1")
                .addNodeGroups(NodeGroup.newBuilder().setCount(1).setPpn(2))
                .setWalltime(3600))
        .setOutputPath("login1:/home/alice/STDIN.o12")
        .setErrorPath("login1:/home/alice/STDIN.e12")
        .setJoinPath("n")
        .setKeepFiles("n")
        .setHolds(Holds.getDefaultInstance())
        .setMailPoints("a")
        .setRerunnable(true)
        .addVariables(Variable.newBuilder().setName("PBS_O_QUEUE").setValue("batch"))
        .addVariables(Variable.newBuilder().setName("PBS_O_HOME").setValue("/home/alice"))
        .setInitWorkDir("/home/alice")
        .setSubmitArgs("-l nodes=1:ppn=2,walltime=1:00:00")
        .setSubmitHost("login1")
        .setCheckpoint("u");
  }

  /** Job 12 running on n1 (CPUs 0-1) since {@link #START}. */
  public static Job.Builder running() {
    return queued()
        .setState(JobState.RUNNING)
        .setStartTime(START)
        .setMtime(START)
        .setSessionId(4242)
        .setRunCount(1)
        .addExecNodes(NodeAllocation.newBuilder().setNode("n1").addCpus(0).addCpus(1))
        .setResourcesUsed(
            ResourcesUsed.newBuilder()
                .setCput(125)
                .setMem(3 * 1024 * 1024)
                .setVmem(10 * 1024 * 1024)
                .setWalltime(300));
  }
}
