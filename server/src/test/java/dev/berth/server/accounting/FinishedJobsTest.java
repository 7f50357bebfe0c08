package dev.berth.server.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.server.command.CommandException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FinishedJobsTest {
  /** docs/accounting.md's E record, and a subjob's with GPUs, I/O and an OOM kill. */
  static final String ENDED =
      "12/03/2026 10:15:09;E;14.head;user=alice group=alice account=proj jobname=train queue=batch"
          + " ctime=1796292902 qtime=1796292902 etime=1796292902 start_count=1 start=1796292902"
          + " owner=alice@login1 exec_host=n01/0-1 Resource_List.neednodes=1:ppn=2"
          + " Resource_List.nodect=1 Resource_List.nodes=1:ppn=2 Resource_List.walltime=00:10:00"
          + " session=41817 total_execution_slots=2 unique_node_count=1 end=1796292909"
          + " Exit_status=3 resources_used.cput=75 resources_used.mem=2104kb"
          + " resources_used.vmem=0kb resources_used.walltime=00:00:07";

  static final String SUBJOB =
      "12/03/2026 11:00:00;E;7[3].head;user=bob group=bob jobname=sweep queue=gpu ctime=1 qtime=1"
          + " etime=1 start_count=2 start=100 owner=bob@head exec_host=n01/0,2+n02/0-3"
          + " Resource_List.mem=1gb session=9 end=400 Exit_status=271 resources_used.cput=00:01:00"
          + " resources_used.mem=1048576kb resources_used.vmem=0kb resources_used.walltime=00:05:00"
          + " resources_used.oom_kills=1 resources_used.gpus=2 resources_used.io_read=10kb"
          + " resources_used.io_write=20kb resources_used.gpupercent=50 resources_used.gpumem=1024kb";

  /** A task of an sbatch array, with its own job number. */
  static final String SBATCH_TASK =
      "12/04/2026 09:00:00;E;20[2].head;user=bob group=bob jobname=sweep queue=batch ctime=1"
          + " qtime=1 etime=1 start_count=1 start=100 owner=bob@head task_number=22 end=200"
          + " Exit_status=0";

  @TempDir Path dir;

  @Test
  void anEndRecordReadsBackAsACompletedJob() {
    Job job = FinishedJobs.ofLine(ENDED).orElseThrow();
    assertEquals("14.head", job.getId());
    assertEquals(14, job.getNumber());
    assertEquals("train", job.getName());
    assertEquals("alice", job.getEuser());
    assertEquals("alice@login1", job.getOwner());
    assertEquals("proj", job.getAccount());
    assertEquals("batch", job.getQueue());
    assertEquals(JobState.COMPLETED, job.getState());
    assertEquals(3, job.getExitStatus());
    assertEquals(1796292902, job.getStartTime());
    assertEquals(1796292909, job.getCompTime());
    assertEquals(75, job.getResourcesUsed().getCput());
    assertEquals(2104L * 1024, job.getResourcesUsed().getMem());
    assertEquals(7, job.getResourcesUsed().getWalltime());
    assertEquals(600, job.getResources().getWalltime());
    assertEquals("1:ppn=2", job.getResources().getValuesOrThrow("nodes"));
    assertEquals("n01", job.getExecNodes(0).getNode());
    assertEquals(List.of(0, 1), job.getExecNodes(0).getCpusList());

    Job sub = FinishedJobs.ofLine(SUBJOB).orElseThrow();
    assertEquals(3, sub.getArrayIndex());
    assertEquals("7[].head", sub.getArrayParent());
    assertEquals(List.of(0, 2), sub.getExecNodes(0).getCpusList());
    assertEquals(List.of(0, 1, 2, 3), sub.getExecNodes(1).getCpusList());
    assertEquals(60, sub.getResourcesUsed().getCput(), "Torque's HH:MM:SS is read too");
    assertEquals(1, sub.getResourcesUsed().getOomKills());
    assertEquals(50, sub.getResourcesUsed().getGpuPercent());
    assertEquals(1L << 30, sub.getResources().getMem());
  }

  @Test
  void otherRecordsAndDamagedLinesArePassedOver() {
    assertTrue(FinishedJobs.ofLine("12/03/2026 10:15:02;Q;14.head;queue=batch").isEmpty());
    assertTrue(FinishedJobs.ofLine("12/03/2026 10:16:40;D;15.head;requestor=a@h").isEmpty());
    assertTrue(FinishedJobs.ofLine("garbage").isEmpty());
    assertTrue(FinishedJobs.ofLine(ENDED.replace("end=1796292909", "end=soon")).isEmpty());
    Job odd = FinishedJobs.ofLine(ENDED.replace("exec_host=n01/0-1", "exec_host=n01/x")).get();
    assertEquals(0, odd.getExecNodesCount(), "an exec_host it cannot read is left out");
  }

  @Test
  void daysDefaultToTheLastFourteenAndAreBounded() {
    LocalDate today = LocalDate.of(2026, 12, 7);
    List<String> last = FinishedJobs.days("", "", today);
    assertEquals(14, last.size());
    assertEquals("20261124", last.get(0));
    assertEquals("20261207", last.get(13));
    assertEquals(List.of("20261201", "20261202"), FinishedJobs.days("20261201", "20261202", today));
    assertTrue(
        assertThrows(CommandException.class, () -> FinishedJobs.days("2026-12-01", "", today))
            .getMessage()
            .contains("YYYYMMDD, not '2026-12-01'"));
    assertTrue(
        assertThrows(CommandException.class, () -> FinishedJobs.days("20200101", "", today))
            .getMessage()
            .contains("at most 366 days"));
    assertThrows(CommandException.class, () -> FinishedJobs.days("20261207", "20261201", today));
  }

  @Test
  void readingKeepsTheWantedJobsInOrderAndStopsAtItsBound() throws Exception {
    Files.writeString(dir.resolve("20261203"), ENDED + "\n" + SUBJOB + "\n");
    Files.writeString(dir.resolve("20261205"), ENDED.replace("14.head", "15.head") + "\n");
    List<String> days = List.of("20261203", "20261204", "20261205");
    List<Job> all = FinishedJobs.read(dir, days, FinishedJobs.Selection.ALL, j -> true, 10);
    assertEquals(List.of("14.head", "7[3].head", "15.head"), all.stream().map(Job::getId).toList());
    List<Job> alice =
        FinishedJobs.read(
            dir, days, FinishedJobs.Selection.ALL, j -> j.getEuser().equals("alice"), 10);
    assertEquals(2, alice.size());
    FinishedJobs.Selection bobs =
        new FinishedJobs.Selection(java.util.Set.of("bob"), java.util.Set.of());
    assertEquals(
        List.of("7[3].head"),
        FinishedJobs.read(dir, days, bobs, j -> true, 10).stream().map(Job::getId).toList());
    FinishedJobs.Selection one =
        new FinishedJobs.Selection(java.util.Set.of(), java.util.Set.of("15.head"));
    assertEquals(1, FinishedJobs.read(dir, days, one, j -> true, 10).size());
    Files.writeString(dir.resolve("20261204"), SBATCH_TASK + "\n");
    FinishedJobs.Selection ownNumber =
        new FinishedJobs.Selection(java.util.Set.of(), java.util.Set.of("22.head"));
    List<Job> task = FinishedJobs.read(dir, days, ownNumber, j -> true, 10);
    assertEquals(List.of("20[2].head"), task.stream().map(Job::getId).toList(), "by its own");
    assertEquals(22, task.get(0).getTaskNumber());
    FinishedJobs.Selection array =
        new FinishedJobs.Selection(java.util.Set.of(), java.util.Set.of("7.head", "20.head"));
    assertEquals(
        List.of("7[3].head", "20[2].head"),
        FinishedJobs.read(dir, days, array, j -> true, 10).stream().map(Job::getId).toList(),
        "an array's number names its tasks");
    assertTrue(
        assertThrows(
                CommandException.class,
                () -> FinishedJobs.read(dir, days, FinishedJobs.Selection.ALL, j -> true, 2))
            .getMessage()
            .contains("more than 2 finished jobs in these days"));
  }
}
