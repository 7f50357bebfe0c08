package dev.berth.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Test cleanup: whatever a test cluster left below its cgroup root, in every hierarchy. */
final class Cgroups {
  private static final Path ROOT = Path.of("/sys/fs/cgroup");

  private Cgroups() {}

  /** Directories named {@code name} (at any depth) and everything below them, deepest first. */
  static List<Path> below(String name) throws IOException {
    try (Stream<Path> all = Files.walk(ROOT, 6)) {
      return all.filter(Files::isDirectory)
          .filter(
              p ->
                  p.toString().contains("/" + name + "/")
                      || p.getFileName().toString().equals(name))
          .sorted(Comparator.comparingInt(Path::getNameCount).reversed())
          .toList();
    }
  }

  static void removeTree(String name) throws IOException {
    for (Path dir : below(name)) {
      Path procs = dir.resolve("cgroup.procs");
      if (Files.exists(procs)) {
        for (String pid : Files.readAllLines(procs)) {
          ProcessHandle.of(Long.parseLong(pid.trim())).ifPresent(ProcessHandle::destroyForcibly);
        }
      }
      for (int i = 0; i < 50 && Files.exists(dir); i++) {
        try {
          Files.delete(dir);
        } catch (IOException busy) {
          TestCluster.sleep(100);
        }
      }
    }
  }
}
