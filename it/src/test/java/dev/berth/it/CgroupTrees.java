package dev.berth.it;

import java.io.IOException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;

/** Test cleanup: whatever a test cluster left below its cgroup root, in every hierarchy. */
final class CgroupTrees {
  private static final Path ROOT = Path.of("/sys/fs/cgroup");

  private CgroupTrees() {}

  /**
   * Directories named {@code name} (at any depth) and everything below them, deepest first. Other
   * clusters' moms create and remove their own cgroups while this walks (the test classes run in
   * parallel), so a directory that vanishes under the walk is passed over, not an error.
   */
  static List<Path> below(String name) throws IOException {
    List<Path> found = new ArrayList<>();
    Files.walkFileTree(
        ROOT,
        EnumSet.noneOf(FileVisitOption.class),
        6,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
            if (dir.toString().contains("/" + name + "/")
                || dir.getFileName().toString().equals(name)) {
              found.add(dir);
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, IOException gone) {
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path dir, IOException gone) {
            return FileVisitResult.CONTINUE;
          }
        });
    found.sort(Comparator.comparingInt(Path::getNameCount).reversed());
    return found;
  }

  static void removeTree(String name) throws IOException {
    for (Path dir : below(name)) {
      Path procs = dir.resolve("cgroup.procs");
      try {
        for (String pid : Files.readAllLines(procs)) {
          ProcessHandle.of(Long.parseLong(pid.trim())).ifPresent(ProcessHandle::destroyForcibly);
        }
      } catch (NoSuchFileException gone) {
        continue;
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
