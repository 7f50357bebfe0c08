package dev.berth.mom.os;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What the node has (CPUs, memory) and its current load, from /proc and /sys. */
public final class NodeFacts {
  private final Path proc;
  private final Path sys;

  public NodeFacts(Path proc, Path sys) {
    this.proc = proc;
    this.sys = sys;
  }

  public static NodeFacts linux() {
    return new NodeFacts(Path.of("/proc"), Path.of("/sys"));
  }

  /** The online CPU ids, e.g. {@code 0-3,6}. */
  public List<Integer> onlineCpus() {
    try {
      return parseCpuList(Files.readString(sys.resolve("devices/system/cpu/online")).trim());
    } catch (IOException e) {
      List<Integer> all = new ArrayList<>();
      for (int i = 0; i < Runtime.getRuntime().availableProcessors(); i++) {
        all.add(i);
      }
      return all;
    }
  }

  /** Total memory in bytes. */
  public long physmem() {
    return meminfo().getOrDefault("MemTotal", 0L);
  }

  /** Status items for pbsnodes: loadave, availmem, physmem, ncpus. */
  public Map<String, String> status() {
    Map<String, String> items = new LinkedHashMap<>();
    try {
      items.put("loadave", Files.readString(proc.resolve("loadavg")).split(" ")[0]);
    } catch (IOException e) {
      // no load figure then
    }
    Map<String, Long> mem = meminfo();
    items.put("physmem", mem.getOrDefault("MemTotal", 0L) / 1024 + "kb");
    items.put("availmem", mem.getOrDefault("MemAvailable", 0L) / 1024 + "kb");
    items.put("ncpus", Integer.toString(onlineCpus().size()));
    return items;
  }

  private Map<String, Long> meminfo() {
    Map<String, Long> result = new LinkedHashMap<>();
    try {
      for (String line : Files.readAllLines(proc.resolve("meminfo"))) {
        String[] f = line.split("[:\\s]+");
        if (f.length >= 2) {
          long n = Long.parseLong(f[1]);
          result.put(f[0], f.length >= 3 && f[2].equals("kB") ? n * 1024 : n);
        }
      }
    } catch (IOException | NumberFormatException e) {
      // report what was read
    }
    return result;
  }

  /** Parses Linux CPU list syntax ({@code 0-3,6,8-9}). */
  /**
   * A CPU list as the kernel writes them ({@code 0-3,8}).
   *
   * @throws IllegalArgumentException naming the part that is not a CPU id or an ascending range
   */
  public static List<Integer> parseCpuList(String text) {
    List<Integer> cpus = new ArrayList<>();
    if (text.isBlank()) {
      return cpus;
    }
    for (String part : text.split(",")) {
      if (!part.trim().matches("\\d+(-\\d+)?")) {
        throw new IllegalArgumentException(
            "'" + part.trim() + "' in '" + text + "' is not a CPU id or range (like 0-3,8)");
      }
      int dash = part.indexOf('-');
      int low = Integer.parseInt(part.substring(0, dash < 0 ? part.length() : dash).trim());
      int high = dash < 0 ? low : Integer.parseInt(part.substring(dash + 1).trim());
      if (high < low) {
        throw new IllegalArgumentException("the CPU range '" + part.trim() + "' runs backwards");
      }
      for (int c = low; c <= high; c++) {
        cpus.add(c);
      }
    }
    return cpus;
  }
}
