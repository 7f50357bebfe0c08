package dev.berth.tools.qsub;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class QsubFlagsTest {
  /**
   * The native client finds qsub's script by the same option letters, to send it with the first
   * request; a copy that drifted would cost `qsub job.pbs` its second round trip back.
   */
  @Test
  void theNativeClientReadsQsubsCommandLineWithTheSameOptions() throws IOException {
    Path source = Path.of("../tm/src/main/c/cmd/cmd-qsub.c");
    String c = Files.readString(source);
    assertTrue(
        c.contains("#define QSUB_OPTIONS \"" + QsubFlags.QSUB + "\""),
        source + " defines QSUB_OPTIONS as QsubFlags.QSUB, " + QsubFlags.QSUB);
  }
}
