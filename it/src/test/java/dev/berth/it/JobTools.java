package dev.berth.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * pbsdsh and pbs_tmrsh where job scripts find them: a job script runs in a login shell, whose
 * profile sets PATH afresh, so the tools must be in a standard directory, as a package would put
 * them. ops/test links them into /usr/local/bin; when the tests run on their own it is done here,
 * the same way.
 */
final class JobTools {
  private static final Path BIN = Path.of("/usr/local/bin");

  private JobTools() {}

  static void ensureOnPath() throws IOException {
    for (String tool : new String[] {"pbsdsh", "pbs_tmrsh"}) {
      Path link = BIN.resolve(tool);
      Path target = TestCluster.ROOT.resolve("ops/bin").resolve(tool);
      if (Files.isSymbolicLink(link) && Files.readSymbolicLink(link).equals(target)) {
        continue;
      }
      Files.deleteIfExists(link);
      Files.createSymbolicLink(link, target);
    }
  }
}
