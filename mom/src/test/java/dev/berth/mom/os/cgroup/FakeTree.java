package dev.berth.mom.os.cgroup;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A cgroup file system in a temp dir: mounts (listed in a mountinfo file), their root control
 * files, and the test's "own" cgroups (a /proc/self/cgroup-style file). The mount directory has a
 * space in its name, so every test also goes through mountinfo's escaping.
 */
final class FakeTree {
  static final String MAX = "9223372036854771712";

  final Path top;
  final FakeKernel kernel;
  private final StringBuilder mountinfo = new StringBuilder();
  private final StringBuilder cgroupFile = new StringBuilder();
  private int nextId = 30;

  FakeTree(Path tmp) throws IOException {
    this.top = tmp.resolve("sys fs");
    Files.createDirectories(top);
    this.kernel = new FakeKernel(top);
    mountinfo.append("22 1 253:1 / / rw,relatime - ext4 /dev/vda rw\n");
    mountinfo.append("31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n");
  }

  /** This machine: cpuset, memory, cpuacct, freezer mounted apart, and the unified hierarchy. */
  static FakeTree hybrid(Path tmp, boolean memsw) throws IOException {
    FakeTree t = new FakeTree(tmp);
    t.v1("cpu", Map.of("cpu.shares", "1024"));
    t.v1("cpuacct", Map.of("cpuacct.usage", "0"));
    t.v1("cpuset", cpuset());
    t.cgroup(t.v1("memory", memory(memsw)), "process_api/abc");
    t.v1("freezer", Map.of("freezer.state", "THAWED"));
    t.v2("unified", Map.of("cgroup.controllers", "hugetlb"));
    t.own("6:freezer", "/");
    t.own("4:memory", "/process_api/abc");
    t.own("3:cpuset", "/");
    t.own("2:cpuacct", "/");
    t.own("1:cpu", "/");
    t.own("0:", "/");
    return t;
  }

  /** Makes a mount with its root control files; {@code options} are the controllers. */
  Path v1(String options, Map<String, String> files) throws IOException {
    return mount(options.replace(',', '+'), "cgroup", "rw," + options, files);
  }

  Path v2(String name, Map<String, String> files) throws IOException {
    Map<String, String> all = new LinkedHashMap<>(v2Core());
    all.putAll(files);
    return mount(name, "cgroup2", "rw,nsdelegate", all);
  }

  private Path mount(String name, String type, String options, Map<String, String> files)
      throws IOException {
    Path dir = top.resolve(name);
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("cgroup.procs"), "");
    for (Map.Entry<String, String> f : files.entrySet()) {
      Files.writeString(dir.resolve(f.getKey()), f.getValue());
    }
    String point = dir.toString().replace("\\", "\\134").replace(" ", "\\040");
    int id = nextId++;
    mountinfo.append(
        id
            + " 31 0:"
            + id
            + " / "
            + point
            + " rw,nosuid,nodev,noexec,relatime shared:"
            + id
            + " - "
            + type
            + " "
            + type
            + " "
            + options
            + "\n");
    return dir;
  }

  /** A line of the own-cgroup file, e.g. {@code own("4:memory", "/a")}; makes the directory. */
  void own(String idAndControllers, String path) {
    cgroupFile.append(idAndControllers).append(':').append(path).append('\n');
  }

  /** Makes {@code path} (a cgroup below {@code mount}) as the kernel would. */
  Path cgroup(Path mount, String path) throws IOException {
    Path dir = mount;
    for (String level : path.split("/")) {
      if (!level.isEmpty()) {
        dir = dir.resolve(level);
        kernel.mkdir(dir);
      }
    }
    return dir;
  }

  Mounts mounts() {
    return new Mounts(
        Mounts.parseMountinfo(mountinfo.toString()), Mounts.parseCgroupFile(cgroupFile.toString()));
  }

  Path mountinfoFile() {
    return write("mountinfo", mountinfo.toString());
  }

  Path cgroupFile() {
    return write("cgroup", cgroupFile.toString());
  }

  private Path write(String name, String text) {
    try {
      return Files.writeString(top.getParent().resolve(name), text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Map<String, String> cpuset() {
    return Map.of("cpuset.cpus", "0-3", "cpuset.mems", "0", "cgroup.clone_children", "0");
  }

  static Map<String, String> memory(boolean memsw) {
    Map<String, String> files = new LinkedHashMap<>();
    files.put("memory.limit_in_bytes", MAX);
    files.put("memory.max_usage_in_bytes", "0");
    if (memsw) {
      files.put("memory.memsw.limit_in_bytes", MAX);
      files.put("memory.memsw.max_usage_in_bytes", "0");
    }
    files.put("memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
    return files;
  }

  static Map<String, String> v2Core() {
    Map<String, String> files = new LinkedHashMap<>();
    files.put("cgroup.subtree_control", "");
    files.put("cgroup.events", "populated 0\nfrozen 0\n");
    files.put("cgroup.kill", "");
    files.put("cgroup.freeze", "0");
    files.put("cpu.stat", "usage_usec 0\nuser_usec 0\nsystem_usec 0\n");
    return files;
  }

  /** The files of a v2 hierarchy whose cpuset and memory controllers are available. */
  static Map<String, String> v2Controllers() {
    Map<String, String> files = new LinkedHashMap<>();
    files.put("cgroup.controllers", "cpuset cpu io memory pids");
    files.put("cpuset.cpus", "");
    files.put("cpuset.mems", "");
    files.put("cpuset.cpus.effective", "0-3");
    files.put("cpuset.mems.effective", "0");
    files.put("memory.max", "max");
    files.put("memory.swap.max", "max");
    files.put("memory.current", "0");
    files.put("memory.peak", "0");
    files.put("memory.swap.peak", "0");
    files.put("memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n");
    files.put("pids.max", "max");
    return files;
  }
}
