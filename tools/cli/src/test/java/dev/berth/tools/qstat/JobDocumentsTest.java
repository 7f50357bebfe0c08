package dev.berth.tools.qstat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Dependency;
import dev.berth.proto.Holds;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.Variable;
import dev.berth.tools.format.Attr;
import dev.berth.tools.format.AttrText;
import dev.berth.tools.testing.FakeCli;
import dev.berth.tools.testing.SampleJobs;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class JobDocumentsTest {
  static final String RUNNING_FULL =
      "Job Id: 12.srv\n"
          + "    Job_Name = STDIN\n"
          + "    Job_Owner = alice@login1\n"
          + "    resources_used.cput = 00:02:05\n"
          + "    resources_used.mem = 3072kb\n"
          + "    resources_used.vmem = 10240kb\n"
          + "    resources_used.walltime = 00:05:00\n"
          + "    job_state = R\n"
          + "    queue = batch\n"
          + "    server = srv\n"
          + "    Checkpoint = u\n"
          + "    ctime = Mon Nov 30 09:50:00 2026\n"
          + "    Error_Path = login1:/home/alice/STDIN.e12\n"
          + "    exec_host = n1/0-1\n"
          + "    Hold_Types = n\n"
          + "    Join_Path = n\n"
          + "    Keep_Files = n\n"
          + "    Mail_Points = a\n"
          + "    mtime = Mon Nov 30 09:55:00 2026\n"
          + "    Output_Path = login1:/home/alice/STDIN.o12\n"
          + "    Priority = 0\n"
          + "    qtime = Mon Nov 30 09:50:00 2026\n"
          + "    Rerunable = True\n"
          + "    Resource_List.nodect = 1\n"
          + "    Resource_List.nodes = 1:ppn=2\n"
          + "    Resource_List.walltime = 01:00:00\n"
          + "    session_id = 4242\n"
          + "    Variable_List = PBS_O_QUEUE=batch,PBS_O_HOME=/home/alice\n"
          + "    euser = alice\n"
          + "    egroup = users\n"
          + "    etime = Mon Nov 30 09:50:00 2026\n"
          + "    submit_args = -l nodes=1:ppn=2,walltime=1:00:00\n"
          + "    start_time = Mon Nov 30 09:55:00 2026\n"
          + "    Walltime.Remaining = 3300\n"
          + "    start_count = 1\n"
          + "    submit_host = login1\n"
          + "    init_work_dir = /home/alice\n"
          + "    cgroup_enable = False\n"
          + "\n";

  @Test
  void fullListingOfARunningJob() {
    assertEquals(
        RUNNING_FULL,
        JobDocuments.full(
            List.of(SampleJobs.running().build()), FakeCli.NOW, ZoneOffset.UTC, AttrText.LINESIZE));
  }

  @Test
  void completedJobCarriesExitAndBerthsAttributes() {
    Job job =
        SampleJobs.running()
            .setState(JobState.COMPLETED)
            .setExitStatus(271)
            .setCompTime(FakeCli.NOW)
            .setExitReason("walltime")
            .setCgroupEnable(true)
            .setWorkDir("/scratch/alice")
            .setHolds(Holds.newBuilder().setUser(true).setSystem(true))
            .addDependencies(
                Dependency.newBuilder().setType("afterok").addJobIds("10.srv").addJobIds("11.srv"))
            .putExtensions("umask", "022")
            .putExtensions("container_image", "/images/pytorch.sqsh")
            .build();
    String names =
        JobAttributeList.of(job, FakeCli.NOW).stream()
            .map(Attr::fullName)
            .collect(Collectors.joining(" "));
    assertEquals(
        "Job_Name Job_Owner resources_used.cput resources_used.mem resources_used.vmem"
            + " resources_used.walltime job_state queue server Checkpoint ctime depend Error_Path"
            + " exec_host Hold_Types Join_Path Keep_Files Mail_Points mtime Output_Path Priority qtime"
            + " Rerunable Resource_List.nodect Resource_List.nodes Resource_List.walltime session_id"
            + " Variable_List euser egroup etime exit_status submit_args umask start_time start_count"
            + " comp_time submit_host init_work_dir work_dir cgroup_enable exit_reason container_image",
        names,
        "Torque's order; no Walltime.Remaining once the job is not running");
    String text = JobDocuments.full(List.of(job), FakeCli.NOW, ZoneOffset.UTC, 77);
    assertTrue(text.contains("    depend = afterok:10.srv@srv:11.srv@srv\n"), text);
    assertTrue(text.contains("    Hold_Types = us\n"), text);
    assertTrue(text.contains("    exit_status = 271\n"), text);
    assertTrue(text.contains("    comp_time = Mon Nov 30 10:00:00 2026\n"), text);
    assertTrue(text.contains("    exit_reason = walltime\n"), text);
    assertTrue(text.contains("    cgroup_enable = True\n"), text);
  }

  @Test
  void aRunningJobWithoutAWalltimeShowsTheEstimateItIsPlannedWith() {
    Job open =
        SampleJobs.running()
            .setPlannedWalltime(5400)
            .setPlannedWalltimeSource("resources_max.walltime of queue batch")
            .build();
    String text = JobDocuments.full(List.of(open), FakeCli.NOW, ZoneOffset.UTC, 77);
    assertTrue(
        text.contains("    planned_walltime = 01:30:00 (resources_max.walltime of queue batch)\n"),
        text);
  }

  @Test
  void walltimeRemainingTurnsIntoExceeded() {
    Job late = SampleJobs.running().setStartTime(FakeCli.NOW - 3700).build();
    String text = JobDocuments.full(List.of(late), FakeCli.NOW, ZoneOffset.UTC, 77);
    assertTrue(text.contains("    Walltime.Exceeded = -100\n"), text);
  }

  @Test
  void aSuspendedJobShowsSAndItsWalltimeLeavesOutTheTimeSuspended() {
    // started 300 s ago, suspended 100 s ago after 50 s of an earlier suspension: ran 150 s
    Job suspended =
        SampleJobs.running()
            .setSuspendedAt(FakeCli.NOW - 100)
            .setSuspendedSeconds(50)
            .setSuspendedFor("13.srv")
            .build();
    String text = JobDocuments.full(List.of(suspended), FakeCli.NOW, ZoneOffset.UTC, 77);
    assertTrue(text.contains("    job_state = S\n"), text);
    assertTrue(text.contains("    Walltime.Remaining = 3450\n"), text);
  }

  @Test
  void variableListEscapesCommasInValues() {
    assertEquals(
        "A=x\\,y,B=",
        JobAttributeList.variableText(
            List.of(
                Variable.newBuilder().setName("A").setValue("x,y").build(),
                Variable.newBuilder().setName("B").build())));
  }

  @Test
  void xmlAsTorque() {
    assertEquals(
        "<?xml version=\"1.0\"?>\n"
            + "<Data><Job><Job_Id>12.srv</Job_Id><Job_Name>STDIN</Job_Name>"
            + "<Job_Owner>alice@login1</Job_Owner><job_state>Q</job_state><queue>batch</queue>"
            + "<server>srv</server><Checkpoint>u</Checkpoint><ctime>1796032200</ctime>"
            + "<Error_Path>login1:/home/alice/STDIN.e12</Error_Path><Hold_Types>n</Hold_Types>"
            + "<Join_Path>n</Join_Path><Keep_Files>n</Keep_Files><Mail_Points>a</Mail_Points>"
            + "<mtime>1796032200</mtime><Output_Path>login1:/home/alice/STDIN.o12</Output_Path>"
            + "<Priority>0</Priority><qtime>1796032200</qtime><Rerunable>True</Rerunable>"
            + "<Resource_List><nodect>1</nodect><nodes>1:ppn=2</nodes><walltime>01:00:00</walltime>"
            + "</Resource_List><Variable_List>PBS_O_QUEUE=batch,PBS_O_HOME=/home/alice</Variable_List>"
            + "<euser>alice</euser><egroup>users</egroup><etime>1796032200</etime>"
            + "<submit_args>-l nodes=1:ppn=2,walltime=1:00:00</submit_args>"
            + "<submit_host>login1</submit_host><init_work_dir>/home/alice</init_work_dir>"
            + "<cgroup_enable>False</cgroup_enable></Job></Data>\n",
        JobDocuments.xml(List.of(SampleJobs.queued().build()), FakeCli.NOW));
    assertEquals(
        "<?xml version=\"1.0\"?>\n<Data></Data>\n", JobDocuments.xml(List.of(), FakeCli.NOW));
  }

  @Test
  void jsonAsOpenPbs() {
    String json =
        JobDocuments.json(
            List.of(SampleJobs.running().setName("say \"hi\"").build()),
            "srv",
            "1.2.3",
            FakeCli.NOW,
            ZoneOffset.UTC);
    assertEquals(
        "{\n"
            + "    \"timestamp\":1796032800,\n"
            + "    \"pbs_version\":\"1.2.3\",\n"
            + "    \"pbs_server\":\"srv\",\n"
            + "    \"Jobs\":{\n"
            + "        \"12.srv\":{\n"
            + "            \"Job_Name\":\"say \\\"hi\\\"\",\n"
            + "            \"Job_Owner\":\"alice@login1\",\n"
            + "            \"resources_used\":{\n"
            + "                \"cput\":\"00:02:05\",\n"
            + "                \"mem\":\"3072kb\",\n"
            + "                \"vmem\":\"10240kb\",\n"
            + "                \"walltime\":\"00:05:00\"\n"
            + "            },\n"
            + "            \"job_state\":\"R\",\n"
            + "            \"queue\":\"batch\",\n"
            + "            \"server\":\"srv\",\n"
            + "            \"Checkpoint\":\"u\",\n"
            + "            \"ctime\":\"Mon Nov 30 09:50:00 2026\",\n"
            + "            \"Error_Path\":\"login1:/home/alice/STDIN.e12\",\n"
            + "            \"exec_host\":\"n1/0-1\",\n"
            + "            \"Hold_Types\":\"n\",\n"
            + "            \"Join_Path\":\"n\",\n"
            + "            \"Keep_Files\":\"n\",\n"
            + "            \"Mail_Points\":\"a\",\n"
            + "            \"mtime\":\"Mon Nov 30 09:55:00 2026\",\n"
            + "            \"Output_Path\":\"login1:/home/alice/STDIN.o12\",\n"
            + "            \"Priority\":0,\n"
            + "            \"qtime\":\"Mon Nov 30 09:50:00 2026\",\n"
            + "            \"Rerunable\":\"True\",\n"
            + "            \"Resource_List\":{\n"
            + "                \"nodect\":\"1\",\n"
            + "                \"nodes\":\"1:ppn=2\",\n"
            + "                \"walltime\":\"01:00:00\"\n"
            + "            },\n"
            + "            \"session_id\":4242,\n"
            + "            \"Variable_List\":{\n"
            + "                \"PBS_O_QUEUE\":\"batch\",\n"
            + "                \"PBS_O_HOME\":\"/home/alice\"\n"
            + "            },\n"
            + "            \"euser\":\"alice\",\n"
            + "            \"egroup\":\"users\",\n"
            + "            \"etime\":\"Mon Nov 30 09:50:00 2026\",\n"
            + "            \"submit_args\":\"-l nodes=1:ppn=2,walltime=1:00:00\",\n"
            + "            \"start_time\":\"Mon Nov 30 09:55:00 2026\",\n"
            + "            \"Walltime\":{\n"
            + "                \"Remaining\":3300\n"
            + "            },\n"
            + "            \"start_count\":1,\n"
            + "            \"submit_host\":\"login1\",\n"
            + "            \"init_work_dir\":\"/home/alice\",\n"
            + "            \"cgroup_enable\":\"False\"\n"
            + "        }\n"
            + "    }\n"
            + "}\n",
        json);
  }

  @Test
  void emptyJsonListingStillNamesTheServer() {
    assertEquals(
        "{\n"
            + "    \"timestamp\":1796032800,\n"
            + "    \"pbs_version\":\"v\",\n"
            + "    \"pbs_server\":\"srv\",\n"
            + "    \"Jobs\":{}\n"
            + "}\n",
        JobDocuments.json(List.of(), "srv", "v", FakeCli.NOW, ZoneOffset.UTC));
  }
}
