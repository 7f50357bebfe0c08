package dev.berth.mom.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.pbs.ExitStatus;
import dev.berth.proto.ResourcesUsed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StarterStatusTest {
  @Test
  void exitLine() {
    StarterStatus s = StarterStatus.parse("exit 3 2500000 2048\n");
    assertEquals(StarterStatus.Kind.EXIT, s.kind());
    assertEquals(3, s.value());
    assertEquals(3, s.exitStatus());
    assertEquals(2_500_000, s.cpuMicros());
    assertEquals(2048, s.maxRssKb());
    assertEquals(
        ResourcesUsed.newBuilder().setCput(2).setMem(2048 * 1024).setWalltime(60).build(),
        s.usage(60));
  }

  @Test
  void signalLineIs256PlusTheSignal() {
    StarterStatus s = StarterStatus.parse("signal 9 10 20");
    assertEquals(StarterStatus.Kind.SIGNAL, s.kind());
    assertEquals(9, s.value());
    assertEquals(265, s.exitStatus());
  }

  @Test
  void usageIsOptional() {
    StarterStatus s = StarterStatus.parse("exit 0");
    assertEquals(StarterStatus.Kind.EXIT, s.kind());
    assertEquals(0, s.exitStatus());
    assertEquals(0, s.cpuMicros());
  }

  @Test
  void failedLineKeepsItsMessage() {
    StarterStatus s =
        StarterStatus.parse("failed cannot run /bin/nosh: No such file or directory\n");
    assertEquals(StarterStatus.Kind.FAILED, s.kind());
    assertEquals("cannot run /bin/nosh: No such file or directory", s.message());
    assertEquals(ExitStatus.EXEC_FAILED.code(), s.exitStatus());
    assertEquals(-1, s.exitStatus());
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "exit", "signal", "exit x 1 2", "exit 1 2 x", "bogus 1", "failed"})
  void garbageIsAFailure(String line) {
    StarterStatus s = StarterStatus.parse(line);
    assertEquals(StarterStatus.Kind.FAILED, s.kind());
    assertEquals(-1, s.exitStatus());
    assertTrue(s.message().contains("unreadable"), s.message());
  }
}
