package dev.berth.mom.os.cgroup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Reading cgroup control files: a value, a keyed line, the pids of a cgroup.procs file. */
final class ControlFiles {
  private ControlFiles() {}

  static String read(Path file) throws IOException {
    return Files.readString(file).strip();
  }

  static long readLong(Path file) throws IOException {
    return Long.parseLong(read(file));
  }

  /** A number from a file of {@code key value} lines (memory.events, cpu.stat), or -1. */
  static long field(Path file, String key) throws IOException {
    for (String line : Files.readAllLines(file)) {
      String[] f = line.strip().split("\\s+");
      if (f.length == 2 && f[0].equals(key)) {
        return Long.parseLong(f[1]);
      }
    }
    return CgroupUsage.UNKNOWN;
  }

  /** The pids in a cgroup.procs file; none if the cgroup is gone. */
  static List<Long> pids(Path procs) throws IOException {
    List<Long> pids = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(procs)) {
        if (!line.isBlank()) {
          pids.add(Long.parseLong(line.strip()));
        }
      }
    } catch (NoSuchFileException e) {
      // the cgroup is gone, so nothing is in it
    }
    return pids;
  }

  /** The pids in any of the files. */
  static Set<Long> pids(Collection<Path> procsFiles) throws IOException {
    Set<Long> all = new LinkedHashSet<>();
    for (Path p : procsFiles) {
      all.addAll(pids(p));
    }
    return all;
  }

  /** The space-separated words of a file such as cgroup.controllers; none if it is missing. */
  static Set<String> words(Path file) throws IOException {
    Set<String> words = new LinkedHashSet<>();
    if (Files.exists(file)) {
      for (String w : read(file).split("\\s+")) {
        if (!w.isEmpty()) {
          words.add(w.startsWith("+") ? w.substring(1) : w);
        }
      }
    }
    return words;
  }
}
