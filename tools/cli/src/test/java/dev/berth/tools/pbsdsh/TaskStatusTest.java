package dev.berth.tools.pbsdsh;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TaskStatusTest {
  @ParameterizedTest
  @CsvSource({
    "0, 0",
    "1, 1",
    "255, 255",
    "256, 128", // 256 + 0: no signal number; still "killed"
    "265, 137", // SIGKILL
    "271, 143", // SIGTERM
    "258, 130", // SIGINT
    "-1, 127", // could not start
    "100000, 255"
  })
  void normalisesAsAShellReports(int exitStatus, int expected) {
    assertEquals(expected, TaskStatus.normalise(exitStatus));
  }
}
