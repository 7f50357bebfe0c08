package dev.berth.tools.tm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.tools.tm.FakeTm.Script;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A task's exit status (TmExited's form) as pbsdsh exits with it: as a shell reports it. */
class TaskStatusTest {
  @TempDir Path dir;

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
  void normalisesAsAShellReports(int exitStatus, int expected) throws Exception {
    try (FakeTm tm =
        FakeTm.start(
            dir,
            FakeTm.job("n1:1"),
            spawn -> exitStatus < 0 ? Script.cannotStart("no") : Script.exits(exitStatus))) {
      Map<String, String> env = Map.of("BERTH_TM_SOCKET", tm.socket().toString());
      assertEquals(expected, TmProcess.run(dir, env, "", "pbsdsh", "work").status());
    }
  }
}
