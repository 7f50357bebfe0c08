package dev.berth.tools.format;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class AttrTextTest {
  // Test vectors: lines of a real Torque 6 `qstat -f` (adaptivecomputing/torque issue #373).
  private static final String ERROR_PATH =
      "node2804.banette.gent.vsc:/vscmnt/gent_vulpix/_/user/home/gent/vsc400/vsc40075/vsc-testing/"
          + "torque/test_cgroups_tasks_and_memory_limit.sh.e391";

  @Test
  void longValueWithoutCommasBreaksEverySeventyColumns() {
    assertEquals(
        "    Error_Path = node2804.banette.gent.vsc:/vscmnt/gent_vulpix/_/user/home/gen\n"
            + "\tt/vsc400/vsc40075/vsc-testing/torque/test_cgroups_tasks_and_memory_lim\n"
            + "\tit.sh.e391\n",
        AttrText.line(Attr.text("Error_Path", ERROR_PATH), ZoneOffset.UTC, AttrText.LINESIZE));
  }

  @Test
  void theBreakPointDependsOnTheNameLength() {
    String path = ERROR_PATH.replace(".e391", ".o391");
    assertEquals(
        "    Output_Path = node2804.banette.gent.vsc:/vscmnt/gent_vulpix/_/user/home/ge\n"
            + "\tnt/vsc400/vsc40075/vsc-testing/torque/test_cgroups_tasks_and_memory_li\n"
            + "\tmit.sh.o391\n",
        AttrText.line(Attr.text("Output_Path", path), ZoneOffset.UTC, AttrText.LINESIZE));
  }

  @Test
  void commaListsBreakBeforeAPieceThatDoesNotFit() {
    String value =
        "PBS_O_QUEUE=default,PBS_O_HOME=/user/home/gent/vsc400/vsc40075,PBS_O_LOGNAME=vsc40075,"
            + "PBS_O_PATH=/user/data/gent/vsc400/vsc40075/JUBE/bin:/user/home/gent/vsc400/vsc40075/"
            + ".cabal/bin:/user/home/gent/vsc400/vsc40075/bin:/usr/local/bin:/bin:/usr/bin";
    assertEquals(
        "    Variable_List = PBS_O_QUEUE=default,\n"
            + "\tPBS_O_HOME=/user/home/gent/vsc400/vsc40075,PBS_O_LOGNAME=vsc40075,\n"
            + "\tPBS_O_PATH=/user/data/gent/vsc400/vsc40075/JUBE/bin:/user/home/gent/v\n"
            + "\tsc400/vsc40075/.cabal/bin:/user/home/gent/vsc400/vsc40075/bin:/usr/loc\n"
            + "\tal/bin:/bin:/usr/bin\n",
        AttrText.line(Attr.text("Variable_List", value), ZoneOffset.UTC, AttrText.LINESIZE));
  }

  @Test
  void oneLineModeDoesNotFold() {
    assertEquals(
        "    Error_Path = " + ERROR_PATH + "\n",
        AttrText.line(Attr.text("Error_Path", ERROR_PATH), ZoneOffset.UTC, AttrText.NO_FOLD));
  }

  @Test
  void emptyPiecesAreDroppedAsStrtokDoes() {
    assertEquals(
        "    x = a,b\n", AttrText.line(Attr.text("x", "a,,b,"), ZoneOffset.UTC, AttrText.LINESIZE));
  }

  @Test
  void aValueEndingExactlyAtTheLimitLeavesTorquesTrailingTab() {
    // start = 1 + 7 = 8: the 70th character takes the column count to 78 > 77.
    String value = "y".repeat(70);
    assertEquals(
        "    x = " + value + "\n\t\n",
        AttrText.line(Attr.text("x", value), ZoneOffset.UTC, AttrText.LINESIZE));
  }

  @Test
  void aValueOneShorterFitsWithoutTheTab() {
    String value = "y".repeat(69);
    assertEquals(
        "    x = " + value + "\n",
        AttrText.line(Attr.text("x", value), ZoneOffset.UTC, AttrText.LINESIZE));
  }

  @Test
  void resourcesAndTimes() {
    assertEquals(
        "    Resource_List.walltime = 01:00:00\n",
        AttrText.line(Attr.text("Resource_List", "walltime", "01:00:00"), ZoneOffset.UTC, 77));
    assertEquals(
        "    ctime = Mon Nov 30 10:00:00 2026\n",
        AttrText.line(Attr.time("ctime", 1796032800L), ZoneOffset.UTC, 77));
    assertEquals(
        "    Walltime.Exceeded = -5\n",
        AttrText.line(Attr.number("Walltime", "Remaining", -5), ZoneOffset.UTC, 77));
  }

  @Test
  void blockHasTitleAndTrailingEmptyLine() {
    assertEquals(
        "Queue: batch\n    queue_type = Execution\n    total_jobs = 3\n\n",
        AttrText.block(
            "Queue: batch",
            List.of(Attr.text("queue_type", "Execution"), Attr.number("total_jobs", 3)),
            ZoneOffset.UTC,
            77));
  }
}
