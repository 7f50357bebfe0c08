package dev.berth.tools.qsub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.berth.proto.Attribute;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/** scontrol update's fields as qalter's attributes, and what it refuses (update_job.c's words). */
class ScontrolUpdateTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-12-07T10:00:00Z"), ZoneOffset.UTC);

  private static ScontrolUpdate.Update update(String... words) throws Exception {
    return ScontrolUpdate.of(List.of(words), CLOCK);
  }

  private static String refusal(String... words) {
    return assertThrows(ScontrolUpdate.RefusedException.class, () -> update(words)).getMessage();
  }

  @Test
  void fieldsBecomeAttributesWithSlurmsAbbreviationsInAnyCase() throws Exception {
    ScontrolUpdate.Update u =
        update(
            "jobid=12_3",
            "TimeL=1-2",
            "Name=renamed",
            "account",
            "physics",
            "Dependency=afterok:11",
            "StartTime=now+1hour",
            "MailType=END",
            "MailUser=a@b");
    assertEquals("12_3", u.jobs());
    assertNull(u.partition());
    assertEquals(
        List.of(
            "Resource_List.walltime=93600",
            "Job_Name=renamed",
            "Account_Name=physics",
            "depend=afterok:11",
            "Execution_Time=" + (CLOCK.instant().getEpochSecond() + 3600),
            "Mail_Points=e",
            "Mail_Users=a@b"),
        u.attributes().stream().map(ScontrolUpdateTest::text).toList());
  }

  @Test
  void aPartitionIsAMoveAndAnEmptyDependencyRemovesThem() throws Exception {
    ScontrolUpdate.Update u = update("JobId=5", "Partition=long", "Dependency=");
    assertEquals("long", u.partition());
    assertEquals(Attribute.Op.UNSET, u.attributes().get(0).getOp());
    assertEquals("depend", u.attributes().get(0).getName());
  }

  @Test
  void whatSlurmWouldRefuseIsRefusedInItsWords() {
    assertEquals(
        "Update of this parameter is not supported: Colour=red\nRequest aborted",
        refusal("JobId=5", "Colour=red"));
    assertEquals("Invalid input: TimeLimit\nRequest aborted", refusal("JobId=5", "TimeLimit"));
    assertEquals("No changes specified", refusal("JobId=5"));
    assertEquals("scontrol: error: Invalid TimeLimit value", refusal("JobId=5", "TimeLimit=1:x"));
    assertEquals("Invalid MailType: SOMETIMES", refusal("JobId=5", "MailType=SOMETIMES"));
    assertEquals(
        "No valid entity in update command\nInput line must include \"NodeName\","
            + " \"PartitionName\", \"Reservation\", \"JobId\", or \"SlurmctldDebug\"",
        refusal("TimeLimit=5"));
  }

  @Test
  void whatBerthCannotHonourIsRefusedByName() {
    assertEquals(
        "scontrol: error: NumNodes cannot be updated by Berth's scontrol yet (docs/slurm.md lists"
            + " what can)",
        refusal("JobId=5", "NumNodes=2"));
    assertEquals(
        "scontrol: error: Priority cannot be updated by Berth's scontrol yet (docs/slurm.md lists"
            + " what can)",
        refusal("JobId=5", "pr=9"));
    assertEquals(
        "scontrol: error: Berth's scontrol updates jobs only (yet), not NodeName",
        refusal("NodeName=n1", "State=DRAIN"));
    assertEquals(
        "scontrol: error: TimeLimit+= (adding or taking away) is not supported by Berth's"
            + " scontrol yet; give the new value",
        refusal("JobId=5", "TimeLimit+=10"));
    assertEquals(
        "scontrol: error: TimeLimit=UNLIMITED: Berth's scontrol cannot take a job's time limit"
            + " away; give a new one",
        refusal("JobId=5", "TimeLimit=UNLIMITED"));
    assertEquals(
        "scontrol: error: Dependency=singleton: singleton is not supported by Berth yet (after,"
            + " afterany, afterok and afternotok are; sbatch takes singleton)",
        refusal("JobId=5", "Dependency=singleton"));
    assertEquals(
        "scontrol: error: Berth's scontrol finds the job to update by its JobId only (yet)",
        refusal("JobName=x", "TimeLimit=5"));
  }

  private static String text(Attribute a) {
    return a.getName()
        + (a.getResource().isEmpty() ? "" : "." + a.getResource())
        + "="
        + a.getValue();
  }
}
