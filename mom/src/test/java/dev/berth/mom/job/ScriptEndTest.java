package dev.berth.mom.job;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.core.pbs.ExitStatus;
import dev.berth.proto.JobObitReport;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The obit a script's end makes, for each way a script ends, without a process or a mom. */
class ScriptEndTest {
  private static JobObitReport obit(
      String line, String killReason, boolean walltime, UsageLimits.Over over, boolean hungUp) {
    return new ScriptEnd(
            "n1",
            "7.srv",
            1_700_000_123_456L,
            Optional.ofNullable(line),
            61_500,
            killReason,
            walltime,
            over,
            hungUp)
        .obit()
        .build();
  }

  @Test
  void anExitReportsItsCodeAndTheStartersFigures() {
    JobObitReport o = obit("exit 3 2500000 2048", null, false, null, false);
    assertEquals(3, o.getExitStatus());
    assertEquals("", o.getReason());
    assertEquals(1_700_000_123L, o.getEndTime());
    assertEquals(2, o.getResourcesUsed().getCput());
    assertEquals(2048L * 1024, o.getResourcesUsed().getMem());
    assertEquals(61, o.getResourcesUsed().getWalltime(), "the time it ran, not suspended");
  }

  @Test
  void aSignalIsTwoHundredFiftySixAndTheSignal() {
    assertEquals(256 + 15, obit("signal 15 0 0", "qdel", false, null, false).getExitStatus());
  }

  @Test
  void aStarterThatCouldNotStartTheScriptSaysWhereAndWhy() {
    JobObitReport o = obit("failed no such shell /bin/zsh", null, false, null, false);
    assertEquals(ExitStatus.EXEC_FAILED.code(), o.getExitStatus());
    assertEquals("could not start on n1: no such shell /bin/zsh", o.getReason());
  }

  @Test
  void withoutAStatusLineAKilledJobWasKilledAndAnyOtherLost() {
    assertEquals(256 + 9, obit(null, "qdel", false, null, false).getExitStatus());
    JobObitReport lost = obit(null, null, false, null, false);
    assertEquals(ExitStatus.LOST.code(), lost.getExitStatus());
    assertEquals("the job's processes ended while the mom could not watch them", lost.getReason());
  }

  @Test
  void theMomsOwnEndOfTheJobIsWhatTheObitSays() {
    String walltime = "job killed: walltime 61 exceeded limit 60 (00:01:00)";
    JobObitReport over = obit("signal 15 0 0", walltime, true, null, false);
    assertEquals(ExitStatus.OVER_WALLTIME.code(), over.getExitStatus());
    assertEquals(walltime, over.getReason());

    UsageLimits.Over cput = new UsageLimits.Over("cput 11 exceeded limit 10", -12);
    JobObitReport limit = obit(null, "job killed: cput 11 exceeded limit 10", false, cput, false);
    assertEquals(-12, limit.getExitStatus());
    assertEquals("job killed: cput 11 exceeded limit 10", limit.getReason());

    JobObitReport hungUp = obit("signal 1 0 0", "its qsub -I went away", false, null, true);
    assertEquals(256 + 1, hungUp.getExitStatus(), "the hang-up's own status");
    assertEquals("its qsub -I went away", hungUp.getReason());
  }
}
