package dev.berth.mom.os.cgroup;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A kernel over a plain directory tree, close enough to cgroupfs for the drivers: a new cgroup
 * directory gets its parent's control files (cpusets empty, no processes), a busy cgroup cannot be
 * removed, memsw can never be below the memory limit, cgroup.kill empties a cgroup, a freeze
 * completes at once unless {@link #stuckFreezing}, and a v2 cgroup with processes cannot hand
 * controllers down. Every write and kill is recorded.
 */
final class FakeKernel implements Kernel {
  private static final Set<String> STARTS_EMPTY =
      Set.of("cpuset.cpus", "cpuset.mems", "cgroup.procs", "tasks", "cgroup.subtree_control");

  private final Path top;
  final List<String> writes = new ArrayList<>();
  final List<Long> killed = new ArrayList<>();

  /** Also recorded in {@link #writes}, so the order of freezing and killing can be checked. */
  boolean recordKills = true;

  /** A process that cannot freeze yet: v1 reads FREEZING, v2's cgroup.events says not frozen. */
  boolean stuckFreezing;

  FakeKernel(Path top) {
    this.top = top;
  }

  @Override
  public void write(Path file, String value) throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new NoSuchFileException(file.toString());
    }
    String name = file.getFileName().toString();
    Path dir = file.getParent();
    writes.add(top.relativize(file) + "=" + value);
    switch (name) {
      case "memory.limit_in_bytes" -> {
        Path memsw = dir.resolve("memory.memsw.limit_in_bytes");
        if (Files.exists(memsw) && Long.parseLong(value) > number(memsw)) {
          throw new IOException("Invalid argument: limit above memsw");
        }
        Files.writeString(file, value);
      }
      case "memory.memsw.limit_in_bytes" -> {
        if (Long.parseLong(value) < number(dir.resolve("memory.limit_in_bytes"))) {
          throw new IOException("Invalid argument: memsw below limit");
        }
        Files.writeString(file, value);
      }
      case "cgroup.procs" -> join(dir, Long.parseLong(value.strip()));
      case "cgroup.kill" -> {
        Files.writeString(dir.resolve("cgroup.procs"), "");
        setEvent(dir, "populated", 0);
      }
      case "cgroup.freeze" -> {
        Files.writeString(file, value);
        setEvent(dir, "frozen", stuckFreezing ? 0 : Integer.parseInt(value.strip()));
      }
      case "freezer.state" ->
          Files.writeString(file, stuckFreezing && value.equals("FROZEN") ? "FREEZING" : value);
      case "cgroup.subtree_control" -> {
        if (!Files.readString(dir.resolve("cgroup.procs")).isBlank()) {
          throw new FileSystemException(file.toString(), null, "Device or resource busy");
        }
        Set<String> on = new LinkedHashSet<>(ControlFiles.words(file));
        for (String w : value.split("\\s+")) {
          if (w.startsWith("+")) {
            on.add(w.substring(1));
          } else if (w.startsWith("-")) {
            on.remove(w.substring(1));
          }
        }
        Files.writeString(file, String.join(" ", on));
      }
      default -> Files.writeString(file, value);
    }
  }

  @Override
  public void mkdir(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return;
    }
    Files.createDirectory(dir);
    try (Stream<Path> files = Files.list(dir.getParent())) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        String name = f.getFileName().toString();
        String content =
            STARTS_EMPTY.contains(name)
                ? ""
                : name.equals("cgroup.events")
                    ? "populated 0\nfrozen 0\n"
                    : name.endsWith("max_usage_in_bytes")
                            || name.equals("cpuacct.usage")
                            || name.equals("memory.peak")
                        ? "0"
                        : Files.readString(f);
        Files.writeString(dir.resolve(name), content);
      }
    }
  }

  @Override
  public void rmdir(Path dir) throws IOException {
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      throw new NoSuchFileException(dir.toString());
    }
    try (Stream<Path> list = Files.list(dir)) {
      List<Path> entries = list.toList();
      Path procs = dir.resolve("cgroup.procs");
      if (entries.stream().anyMatch(Files::isDirectory)
          || (Files.exists(procs) && !Files.readString(procs).isBlank())) {
        throw new FileSystemException(dir.toString(), null, "Device or resource busy");
      }
      for (Path f : entries) {
        Files.delete(f);
      }
    }
    Files.delete(dir);
  }

  @Override
  public void kill(long pid) {
    killed.add(pid);
    if (recordKills) {
      writes.add("kill " + pid);
    }
    try (Stream<Path> all = Files.walk(top)) {
      for (Path procs : all.filter(p -> p.endsWith("cgroup.procs")).toList()) {
        List<String> left =
            Files.readAllLines(procs).stream()
                .filter(l -> !l.isBlank() && Long.parseLong(l.strip()) != pid)
                .toList();
        Files.writeString(procs, left.isEmpty() ? "" : String.join("\n", left) + "\n");
        if (left.isEmpty()) {
          setEvent(procs.getParent(), "populated", 0);
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Puts a process into the cgroup {@code dir}, as a real write to cgroup.procs would. */
  void join(Path dir, long pid) throws IOException {
    Files.writeString(
        dir.resolve("cgroup.procs"), Files.readString(dir.resolve("cgroup.procs")) + pid + "\n");
    setEvent(dir, "populated", 1);
  }

  /** The recorded writes to files named {@code name}, as {@code path=value}. */
  List<String> writesTo(String name) {
    return writes.stream().filter(w -> w.contains(name + "=")).toList();
  }

  private static void setEvent(Path dir, String key, int value) throws IOException {
    Path events = dir.resolve("cgroup.events");
    if (Files.exists(events)) {
      List<String> lines = new ArrayList<>();
      for (String line : Files.readAllLines(events)) {
        lines.add(line.startsWith(key + " ") ? key + " " + value : line);
      }
      Files.writeString(events, String.join("\n", lines) + "\n");
    }
  }

  private static long number(Path file) throws IOException {
    return Long.parseLong(Files.readString(file).strip());
  }
}
