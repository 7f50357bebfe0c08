package dev.berth.it;

import dev.berth.mom.os.JobFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Each user's directory for a test class's scripts and job output, in /tmp and owned by the user,
 * made on first use and removed with {@link #removeAll}: nothing is left in the test users' homes.
 */
final class WorkDirs {
  private final String prefix;
  private final Map<String, Path> dirs = new HashMap<>();

  /**
   * @param prefix the directories' names begin with it ({@code berth-users-})
   */
  WorkDirs(String prefix) {
    this.prefix = prefix;
  }

  synchronized Path of(String user) throws IOException {
    Path dir = dirs.get(user);
    if (dir == null) {
      dir = MultiNodeCluster.workFor(user, prefix);
      dirs.put(user, dir);
    }
    return dir;
  }

  synchronized void removeAll() throws IOException {
    for (Path dir : dirs.values()) {
      JobFiles.removeTree(dir);
    }
    dirs.clear();
  }
}
