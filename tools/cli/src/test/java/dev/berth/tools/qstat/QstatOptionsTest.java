package dev.berth.tools.qstat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.Getopt;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class QstatOptionsTest {
  private static QstatOptions parse(String... args) throws Exception {
    return QstatOptions.parse(List.of(args), Map.of());
  }

  @Test
  void defaults() throws Exception {
    QstatOptions o = parse();
    assertEquals(QstatOptions.Mode.JOBS, o.mode());
    assertFalse(o.full());
    assertFalse(o.alternate());
    assertEquals(QstatOptions.Output.TEXT, o.output());
    assertEquals(List.of(), o.operands());
  }

  @Test
  void alternateFlagsSelectTheAlternateListing() throws Exception {
    for (String flag : List.of("-a", "-n", "-s", "-i", "-r", "-G", "-M")) {
      assertTrue(parse(flag).alternate(), flag);
    }
    QstatOptions o = parse("-u", "alice,bob", "12");
    assertTrue(o.alternate(), "-u alone shows the alternate listing, as in Torque");
    assertEquals(Set.of("alice", "bob"), o.users());
    assertEquals(List.of("12"), o.operands());
  }

  @Test
  void clusteredFlagsAndOneLine() throws Exception {
    QstatOptions o = parse("-an1", "-t", "batch");
    assertTrue(o.style().nodes());
    assertTrue(o.style().oneLine());
    assertTrue(o.subjobs());
    assertEquals(List.of("batch"), o.operands());
  }

  @Test
  void statesForInotRunningAndRunning() throws Exception {
    assertEquals(Set.of("E", "H", "Q", "T", "W"), parse("-i").states());
    assertEquals(Set.of("R", "S"), parse("-r").states());
  }

  @Test
  void fullWithUserFiltersWithoutTheAlternateListing() throws Exception {
    QstatOptions o = parse("-f", "-u", "alice");
    assertTrue(o.full());
    assertFalse(o.alternate());
    assertEquals(Set.of("alice"), o.users());
  }

  @Test
  void modesAndOutputs() throws Exception {
    assertEquals(QstatOptions.Mode.QUEUES, parse("-Q").mode());
    assertEquals(QstatOptions.Mode.QUEUES, parse("-q").mode());
    assertTrue(parse("-q").altQueues());
    assertEquals(QstatOptions.Mode.SERVER, parse("-Bf").mode());
    assertEquals(QstatOptions.Output.XML, parse("-x").output());
    assertEquals(QstatOptions.Output.JSON, parse("-f", "-F", "json").output());
    assertEquals(SizeUnit.GB, parse("-G").style().sizes());
  }

  @Test
  void noCompletedFromFlagOrEnvironment() throws Exception {
    assertTrue(parse("-c").noCompleted());
    assertTrue(QstatOptions.parse(List.of(), Map.of("PBS_QSTAT_NO_COMPLETE", "1")).noCompleted());
    assertFalse(parse().noCompleted());
  }

  @Test
  void conflictsAreRejectedAsTorqueRejectsThem() {
    for (String[] args :
        List.of(
            new String[] {"-f", "-a"},
            new String[] {"-a", "-i"},
            new String[] {"-i", "-r"},
            new String[] {"-q", "-f"},
            new String[] {"-G", "-M"},
            new String[] {"-1"},
            new String[] {"-a", "-1"},
            new String[] {"-B", "-Q"},
            new String[] {"-B", "-a"},
            new String[] {"-Q", "-n"},
            new String[] {"-x", "-F", "json"},
            new String[] {"-F", "dsv"},
            new String[] {"-Z"},
            new String[] {"-u"})) {
      assertThrows(Getopt.UsageException.class, () -> parse(args), String.join(" ", args));
    }
  }

  @Test
  void versionIsRecognized() {
    assertThrows(dev.berth.tools.cli.VersionRequested.class, () -> parse("--version"));
  }
}
