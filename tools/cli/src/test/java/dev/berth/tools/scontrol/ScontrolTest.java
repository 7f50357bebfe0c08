package dev.berth.tools.scontrol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.testing.FakeServer;
import dev.berth.proto.Error;
import dev.berth.proto.Holds;
import dev.berth.proto.Job;
import dev.berth.proto.JobList;
import dev.berth.proto.JobState;
import dev.berth.proto.Node;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.NodeGroup;
import dev.berth.proto.NodeJobSlot;
import dev.berth.proto.NodeList;
import dev.berth.proto.NodeStatus;
import dev.berth.proto.Queue;
import dev.berth.proto.QueueList;
import dev.berth.proto.QueueStatus;
import dev.berth.proto.Request;
import dev.berth.proto.ResourceRequest;
import dev.berth.proto.Response;
import dev.berth.proto.ServerStatus;
import dev.berth.proto.Variable;
import dev.berth.tools.testing.FakeCli;
import dev.berth.tools.testing.Run;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * scontrol's records, messages and requests, against the output of Slurm 22.05 measured on this
 * machine (docs/slurm.md, scontrol).
 */
class ScontrolTest {
  private static final long NOW = FakeCli.NOW;

  private static final Job HELD =
      Job.newBuilder()
          .setId("12.srv")
          .setNumber(12)
          .setName("heldjob")
          .setEuser("alice")
          .setEgroup("alice")
          .setQueue("batch")
          .setState(JobState.HELD)
          .setHolds(Holds.newBuilder().setUser(true))
          .setRerunnable(true)
          .setQtime(NOW - 60)
          .setEtime(NOW - 60)
          .setSubmitHost("login1")
          .setSubmitStyle("sbatch")
          .setSubmitArgs("-H job.sh")
          .setWorkDir("/home/alice/work")
          .setOutputPath("login1:/home/alice/work/held-%j.out")
          .setErrorPath("login1:/home/alice/work/held-%j.out")
          .setJoinPath("oe")
          .setResources(
              ResourceRequest.newBuilder()
                  .addNodeGroups(NodeGroup.newBuilder().setCount(1).setPpn(1))
                  .setMem(1L << 30))
          .addVariables(Variable.newBuilder().setName("SLURM_NTASKS").setValue("1"))
          .build();

  private static final Job RUNNING =
      Job.newBuilder()
          .setId("13.srv")
          .setNumber(13)
          .setName("train")
          .setEuser("bob")
          .setEgroup("bob")
          .setQueue("batch")
          .setState(JobState.RUNNING)
          .setRerunnable(true)
          .setRunCount(1)
          .setQtime(NOW - 120)
          .setEtime(NOW - 120)
          .setStartTime(NOW - 65)
          .setSubmitHost("login1")
          .setWorkDir("/home/bob")
          .setOutputPath("login1:/home/bob/train.o13")
          .setErrorPath("login1:/home/bob/train.e13")
          .setJoinPath("n")
          .setResources(
              ResourceRequest.newBuilder()
                  .addNodeGroups(NodeGroup.newBuilder().setCount(2).setPpn(2))
                  .setWalltime(1800))
          .addExecNodes(NodeAllocation.newBuilder().setNode("n01").addCpus(0).addCpus(1))
          .addExecNodes(NodeAllocation.newBuilder().setNode("n02").addCpus(0).addCpus(1))
          .build();

  private final FakeServer server =
      new FakeServer(
          r ->
              switch (r.getBodyCase()) {
                case STAT_JOBS ->
                    Response.newBuilder()
                        .setJobs(JobList.newBuilder().addJobs(HELD).addJobs(RUNNING))
                        .build();
                case STAT_QUEUES ->
                    Response.newBuilder()
                        .setQueues(
                            QueueList.newBuilder()
                                .addQueues(
                                    QueueStatus.newBuilder()
                                        .setQueue(
                                            Queue.newBuilder()
                                                .setName("batch")
                                                .putAttributes("enabled", "True")
                                                .putAttributes("started", "True")
                                                .putAttributes(
                                                    "resources_max.walltime", "24:00:00"))))
                        .build();
                case STAT_NODES ->
                    Response.newBuilder()
                        .setNodes(
                            NodeList.newBuilder().addNodes(node("n01", 2)).addNodes(node("n02", 0)))
                        .build();
                case STAT_SERVER ->
                    Response.newBuilder()
                        .setServer(
                            ServerStatus.newBuilder().putAttributes("default_queue", "batch"))
                        .build();
                case HOLD, RELEASE, ALTER, MOVE, RERUN, SIGNAL ->
                    r.getBodyCase() == Request.BodyCase.SIGNAL
                        ? FakeServer.error(
                            Error.Code.PERMISSION, "only operators and managers may suspend jobs")
                        : FakeServer.ack();
                default -> Response.getDefaultInstance();
              });

  private static NodeStatus node(String name, int used) {
    NodeStatus.Builder n =
        NodeStatus.newBuilder()
            .setNode(
                Node.newBuilder()
                    .setName(name)
                    .addAllCpuIds(IntStream.range(0, 2).boxed().toList())
                    .setPhysmem(4096L << 20)
                    .putStatus("loadave", "0.5")
                    .putStatus("availmem", "2097152kb"))
            .setState("free");
    for (int c = 0; c < used; c++) {
      n.addJobs(NodeJobSlot.newBuilder().setCpu(c).setJobId("13.srv"));
    }
    return n.build();
  }

  private Run scontrol(String... args) {
    return Run.of(Scontrol::run, server, Map.of("TZ", "UTC", "USER", "alice"), "scontrol", args);
  }

  @Test
  void aHeldJobAsSlurmShowsIt() {
    Run r = scontrol("show", "job", "12");
    assertEquals(0, r.status(), r.err());
    assertEquals(
        "JobId=12 JobName=heldjob\n"
            + "   UserId=alice GroupId=alice MCS_label=N/A\n"
            + "   Priority=0 Nice=0 Account=(null) QOS=(null)\n"
            + "   JobState=PENDING Reason=JobHeldUser Dependency=(null)\n"
            + "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
            + "   RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A\n"
            + "   SubmitTime=2026-11-30T09:59:00 EligibleTime=Unknown\n"
            + "   AccrueTime=Unknown\n"
            + "   StartTime=Unknown EndTime=Unknown Deadline=N/A\n"
            + "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=Unknown Scheduler=Main\n"
            + "   Partition=batch AllocNode:Sid=login1:0\n"
            + "   ReqNodeList=(null) ExcNodeList=(null)\n"
            + "   NodeList=\n"
            + "   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
            + "   TRES=cpu=1,mem=1G,node=1,billing=1\n"
            + "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
            + "   MinCPUsNode=1 MinMemoryNode=1G MinTmpDiskNode=0\n"
            + "   Features=(null) DelayBoot=00:00:00\n"
            + "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
            + "   Command=/home/alice/work/job.sh\n"
            + "   WorkDir=/home/alice/work\n"
            + "   StdErr=/home/alice/work/held-12.out\n"
            + "   StdIn=/dev/null\n"
            + "   StdOut=/home/alice/work/held-12.out\n"
            + "   Power=\n"
            + "   \n"
            + "\n",
        r.out());
  }

  @Test
  void aRunningJobWithItsNodesAndDetailsOnOneLine() {
    Run r = scontrol("-d", "show", "job", "13", "--oneliner");
    assertEquals(0, r.status(), r.err());
    String line = r.out();
    assertTrue(line.endsWith(" Power= \n"), line);
    assertEquals(1, line.split("\n").length, line);
    for (String part :
        List.of(
            "JobState=RUNNING Reason=None",
            "Restarts=0",
            "RunTime=00:01:05 TimeLimit=00:30:00",
            "EndTime=2026-11-30T10:28:55",
            "NodeList=n[01-02] BatchHost=n01",
            "NumNodes=2 NumCPUs=4 NumTasks=4",
            "TRES=cpu=4,node=2,billing=4",
            "JOB_GRES=(null)   Nodes=n01 CPU_IDs=0-1 Mem=0 GRES= ",
            "Command=(null)",
            "StdErr=/home/bob/train.e13 StdIn=/dev/null StdOut=/home/bob/train.o13")) {
      assertTrue(line.contains(part), part + " in " + line);
    }
  }

  @Test
  void everyJobWithoutAnIdAndSlurmsWordsForIdsThatNameNone() {
    Run all = scontrol("show", "jobs");
    assertTrue(all.out().startsWith("JobId=12 "), all.out());
    assertTrue(all.out().contains("\n   \n\nJobId=13 "), all.out());
    Run unknown = scontrol("show", "job", "99");
    assertEquals(1, unknown.status());
    assertEquals("slurm_load_jobs error: Invalid job id specified\n", unknown.err());
    Run bad = scontrol("show", "job", "abc");
    assertEquals("scontrol_print_job error: Invalid job id specified\n", bad.err());
    assertEquals("too many arguments for keyword:show\n", scontrol("show", "job", "1", "2").err());
    assertEquals("too few arguments for keyword:show\n", scontrol("show").err());
    assertEquals("invalid entity:colour for keyword:show \n", scontrol("show", "colour").err());
    assertEquals("invalid keyword: frobnicate\n", scontrol("frobnicate").err());
    assertEquals(
        "scontrol: error: ping is not supported by Berth's scontrol yet (docs/slurm.md lists what"
            + " is)\n",
        scontrol("ping").err());
  }

  @Test
  void nodesAndPartitions() {
    Run n = scontrol("show", "node", "n01");
    assertEquals(0, n.status(), n.err());
    assertEquals(
        "NodeName=n01 CoresPerSocket=2 \n"
            + "   CPUAlloc=2 CPUEfctv=2 CPUTot=2 CPULoad=0.50\n"
            + "   AvailableFeatures=(null)\n"
            + "   ActiveFeatures=(null)\n"
            + "   Gres=(null)\n"
            + "   RealMemory=4096 AllocMem=0 FreeMem=2048 Sockets=1 Boards=1\n"
            + "   State=ALLOCATED ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A\n"
            + "   Partitions=batch \n"
            + "   BootTime=None SlurmdStartTime=None\n"
            + "   LastBusyTime=Unknown\n"
            + "   CfgTRES=cpu=2,mem=4G,billing=2\n"
            + "   AllocTRES=cpu=2\n"
            + "   CapWatts=n/a\n"
            + "   CurrentWatts=0 AveWatts=0\n"
            + "   ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s\n"
            + "\n",
        n.out());
    Run missing = scontrol("show", "node", "n[02-03]");
    assertEquals(1, missing.status());
    assertTrue(missing.out().startsWith("NodeName=n02 "), missing.out());
    assertTrue(missing.out().endsWith("\nNode n03 not found\n"), missing.out());
    Run p = scontrol("show", "partition");
    assertEquals(
        "PartitionName=batch\n"
            + "   AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL\n"
            + "   AllocNodes=ALL Default=YES QoS=N/A\n"
            + "   DefaultTime=NONE DisableRootJobs=NO ExclusiveUser=NO GraceTime=0 Hidden=NO\n"
            + "   MaxNodes=UNLIMITED MaxTime=1-00:00:00 MinNodes=0 LLN=NO MaxCPUsPerNode=UNLIMITED\n"
            + "   Nodes=n[01-02]\n"
            + "   PriorityJobFactor=0 PriorityTier=1 RootOnly=NO ReqResv=NO OverSubscribe=NO\n"
            + "   OverTimeLimit=NONE PreemptMode=OFF\n"
            + "   State=UP TotalCPUs=4 TotalNodes=2 SelectTypeParameters=NONE\n"
            + "   JobDefaults=(null)\n"
            + "   DefMemPerNode=UNLIMITED MaxMemPerNode=UNLIMITED\n"
            + "   TRES=cpu=4,mem=8G,node=2,billing=4\n"
            + "\n",
        p.out());
    Run none = scontrol("show", "partition", "gpu");
    assertEquals("Partition gpu not found\n", none.out());
    assertEquals(1, none.status());
  }

  @Test
  void hostListsNeedNoServer() {
    Run names = scontrol("show", "hostnames", "n[01-02],login");
    assertEquals("n01\nn02\nlogin\n", names.out());
    Run fromJob =
        Run.of(
            Scontrol::run,
            FakeServer.unreachable(),
            Map.of("SLURM_NODELIST", "gpu[7-8]"),
            "scontrol",
            "show",
            "hostnames");
    assertEquals("gpu7\ngpu8\n", fromJob.out());
    Run invalid = scontrol("show", "hostnames", "n[1-");
    assertEquals(0, invalid.status()); // as Slurm's
    assertEquals("Invalid hostlist: n[1-\n", invalid.err());
    assertEquals("n[3,1-2]\n", scontrol("show", "hostlist", "n3,n1,n2").out());
    assertEquals("n[1-3]\n", scontrol("show", "hostlistsorted", "n3,n1,n2").out());
    Run file = scontrol("show", "hostlist", "/etc/hosts");
    assertEquals(1, file.status(), "Slurm's reads a file of names there; Berth's refuses it");
    assertTrue(file.err().contains("a file of names is not supported"), file.err());
  }

  @Test
  void jobChangesAreTheRequestsOfQholdQrlsQrerunAndQalter() {
    assertEquals(0, scontrol("hold", "12", "JobId=13").status());
    List<Request> holds = server.requests().stream().filter(Request::hasHold).toList();
    assertEquals("12.srv", holds.get(0).getHold().getJobId());
    assertEquals("u", holds.get(0).getHold().getHoldTypes()); // alice's own job
    assertEquals("o", holds.get(1).getHold().getHoldTypes()); // bob's: an operator's hold
    scontrol("uhold", "13");
    assertEquals("u", server.requests().get(server.requests().size() - 1).getHold().getHoldTypes());
    scontrol("release", "12");
    assertEquals("u", last().getRelease().getHoldTypes());
    scontrol("requeue", "13");
    assertEquals("13.srv", last().getRerun().getJobId());
    Run update =
        scontrol("update", "JobId=12", "TimeLimit=1:00:00", "Partition=long", "Name=renamed");
    assertEquals(0, update.status(), update.err());
    List<Request> tail =
        server.requests().subList(server.requests().size() - 2, server.requests().size());
    assertEquals(
        List.of("Resource_List.walltime=3600", "Job_Name=renamed"),
        tail.get(0).getAlter().getAttributesList().stream()
            .map(
                a ->
                    a.getName()
                        + (a.getResource().isEmpty() ? "" : "." + a.getResource())
                        + "="
                        + a.getValue())
            .toList());
    assertEquals("long", tail.get(1).getMove().getDestination());
  }

  @Test
  void failuresNameTheJobAndTheOthersStillChange() {
    Run r = scontrol("hold", "99", "12");
    assertEquals(1, r.status());
    assertEquals(
        "Invalid job id specified for job 99\nslurm_suspend error: Invalid job id specified\n",
        r.err());
    assertEquals("12.srv", last().getHold().getJobId());
    Run suspend = scontrol("suspend", "13");
    assertEquals(1, suspend.status());
    assertEquals("only operators and managers may suspend jobs for job 13\n", suspend.err());
    assertEquals("", scontrol("-Q", "suspend", "13").err());
    assertEquals("too few arguments for keyword:hold\n", scontrol("hold").err());
    assertEquals(
        "Update of this parameter is not supported: Colour=red\nRequest aborted\n",
        scontrol("update", "JobId=12", "Colour=red").err());
  }

  private Request last() {
    return server.requests().get(server.requests().size() - 1);
  }
}
