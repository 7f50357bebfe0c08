package dev.berth.mom.os.cgroup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Job cgroups in the cgroup v2 (unified) hierarchy: {@code <parent>/<root>/<job id>}, with the
 * cpuset, memory and io (block I/O figures) controllers handed down from the parent where the host
 * offers them. Where it offers neither (a hybrid host whose controllers are bound to v1
 * hierarchies), the job cgroups only track processes: cgroup.kill, cgroup.events and cpu.stat work
 * without controllers. Devices are denied by a BPF program on the job's directory, which needs no
 * controller and is enforced on a hybrid host too, next to the v1 devices controller.
 */
public final class CgroupV2 implements CgroupDriver {
  static final String CPUSET = "cpuset";
  static final String MEMORY = "memory";
  static final String DEVICES = "devices";
  static final String IO = "io";
  static final String PIDS = "pids";

  private final Path parent;
  private final List<String> levels;
  private final Set<String> available;
  private final Set<String> offered;
  private final Kernel kernel;
  private final String movesNote;
  private final long taskCap;

  /**
   * Whether the parent is in a cgroup2 file system: only its directories take BPF programs, and a
   * plain directory tree standing in for one does not.
   */
  private final boolean takesPrograms;

  /** Peak memory sampled from memory.current where the kernel has no memory.peak (before 5.19). */
  private final Map<String, Long> sampledPeaks = new ConcurrentHashMap<>();

  private CgroupV2(
      Path parent, Set<String> offered, String root, Kernel kernel, String movesNote, long taskCap)
      throws IOException {
    this.parent = parent;
    this.levels = List.of(root.split("/"));
    this.kernel = kernel;
    this.movesNote = movesNote;
    this.taskCap = taskCap;
    this.offered = offered;
    this.available = usable(offered);
    this.takesPrograms = Files.getFileStore(parent).type().equals("cgroup2");
  }

  /** The driver for this process's mounts and cgroup. */
  public static CgroupV2 open(CgroupConfig config) throws IOException {
    return open(config, Path.of("/proc/self/mountinfo"), Path.of("/proc/self/cgroup"));
  }

  /** The driver for the mounts in {@code mountinfo} and the own cgroup in {@code selfCgroup}. */
  public static CgroupV2 open(CgroupConfig config, Path mountinfo, Path selfCgroup)
      throws IOException {
    return open(config, Mounts.read(mountinfo, selfCgroup), Kernel.LINUX);
  }

  static CgroupV2 open(CgroupConfig config, Mounts mounts, Kernel kernel) throws IOException {
    return open(config, mounts, kernel, TaskCap.system());
  }

  /** The driver whose jobs may have {@code taskCap} tasks together (0: no cap). */
  static CgroupV2 open(CgroupConfig config, Mounts mounts, Kernel kernel, long taskCap)
      throws IOException {
    Path parent = parentDir(config, mounts);
    Set<String> offered = ControlFiles.words(parent.resolve("cgroup.controllers"));
    String leaf = "";
    if (config.parentFor(CgroupConfig.UNIFIED) == null) {
      checkBesideLeaf(config.root());
      boolean root = mounts.own(CgroupConfig.UNIFIED).map("/"::equals).orElse(false);
      leaf = OwnLeaf.enter(parent, root, !usable(offered).isEmpty(), kernel);
    }
    return new CgroupV2(parent, offered, config.root(), kernel, leaf + mounts.movesNote(), taskCap);
  }

  /** The controllers of {@code offered} the job cgroups use. */
  private static Set<String> usable(Set<String> offered) {
    Set<String> usable = new LinkedHashSet<>(List.of(CPUSET, MEMORY, IO, PIDS));
    usable.retainAll(offered);
    return Collections.unmodifiableSet(usable);
  }

  /** The job cgroups' root must not be the leaf the mom's own processes may move to. */
  private static void checkBesideLeaf(String root) throws IOException {
    if (root.split("/")[0].equals(OwnLeaf.NAME)) {
      throw new IOException(
          "cgroup v2: the cgroup root "
              + root
              + " would hold the mom's own processes (its first level may not be "
              + OwnLeaf.NAME
              + ")");
    }
  }

  /** The directory of the parent of the job cgroups. */
  static Path parentDir(CgroupConfig config, Mounts mounts) throws IOException {
    List<Mounts.Mount> found = mounts.v2();
    if (found.isEmpty()) {
      throw new IOException("cgroup v2: no cgroup2 file system is mounted");
    }
    String path = config.parentFor(CgroupConfig.UNIFIED);
    if (path == null) {
      path =
          mounts
              .own(CgroupConfig.UNIFIED)
              .orElseThrow(
                  () -> new IOException("cgroup v2: the mom's cgroup file has no 0:: line"));
    }
    for (Mounts.Mount m : found) {
      Optional<Path> dir = m.dirOf(path);
      if (dir.isPresent()) {
        if (!Files.isDirectory(dir.get())) {
          throw new IOException(
              "cgroup v2: the parent of the job cgroups, " + dir.get() + ", does not exist");
        }
        return dir.get();
      }
    }
    throw new IOException(
        "cgroup v2: the cgroup " + path + " is not visible under " + found.get(0).mountPoint());
  }

  @Override
  public JobCgroup create(String jobId, List<Integer> cpus, long memoryLimit) throws IOException {
    V2Job job = job(CgroupNames.check(jobId, "job id"));
    require(CPUSET, !cpus.isEmpty(), "CPUs " + CpuList.format(cpus));
    require(MEMORY, memoryLimit > 0, "a memory limit");
    boolean existed = Files.isDirectory(job.dir());
    try {
      Path dir = parent;
      List<String> path = new ArrayList<>(levels);
      path.add(jobId);
      for (String level : path) {
        enableControllers(dir);
        dir = dir.resolve(level);
        kernel.mkdir(dir);
      }
      if (available.contains(PIDS) && taskCap > 0) {
        kernel.write(job.dir().getParent().resolve(TaskCap.FILE), Long.toString(taskCap));
      }
      if (!cpus.isEmpty()) {
        setCpus(job.dir(), cpus);
      }
      if (memoryLimit > 0) {
        kernel.write(job.dir().resolve("memory.max"), Long.toString(memoryLimit));
        Path swap = job.dir().resolve("memory.swap.max");
        if (Files.exists(swap)) {
          kernel.write(swap, "0");
        }
      }
    } catch (IOException | RuntimeException e) {
      if (!existed) {
        try {
          job.remove(Duration.ZERO);
        } catch (IOException | RuntimeException r) {
          e.addSuppressed(r);
        }
      }
      throw e;
    }
    return job;
  }

  private void require(String controller, boolean wanted, String what) throws IOException {
    if (wanted && !available.contains(controller)) {
      throw new IOException(
          "cgroup v2: cannot give a job "
              + what
              + ": the "
              + controller
              + " controller is not available in "
              + parent
              + " (cgroup.controllers: "
              + (offered.isEmpty() ? "none" : String.join(" ", offered))
              + "; on a hybrid host it is bound to cgroup v1, so use the v1 driver)");
    }
  }

  /**
   * Hands cpuset and memory to the children of {@code dir}. cgroup v2 lets only a cgroup without
   * processes do this (the root excepted), so the mom itself must not sit in the parent.
   */
  private void enableControllers(Path dir) throws IOException {
    Path control = dir.resolve("cgroup.subtree_control");
    Set<String> missing = new LinkedHashSet<>(available);
    missing.removeAll(ControlFiles.words(control));
    if (missing.isEmpty()) {
      return;
    }
    try {
      kernel.write(control, "+" + String.join(" +", missing));
    } catch (IOException e) {
      List<Long> pids = ControlFiles.pids(dir.resolve("cgroup.procs"));
      if (pids.isEmpty()) {
        throw e;
      }
      throw new IOException(
          "cgroup v2: cannot enable "
              + String.join(" ", missing)
              + " for the cgroups below "
              + dir
              + ": it holds processes ("
              + pids.size()
              + ", e.g. "
              + pids.get(0)
              + "), and only a cgroup without processes can hand controllers down; move the mom"
              + " into a leaf cgroup of its own (e.g. "
              + dir.resolve("mom")
              + ") or configure another parent",
          e);
    }
  }

  private void setCpus(Path job, List<Integer> cpus) throws IOException {
    Path above = job.getParent();
    String effective = ControlFiles.read(above.resolve("cpuset.cpus.effective"));
    if (!CpuList.parse(effective).containsAll(cpus)) {
      throw new IOException(
          "cgroup v2: CPUs "
              + CpuList.format(cpus)
              + " are not all in "
              + above.resolve("cpuset.cpus.effective")
              + " ("
              + effective
              + ")");
    }
    kernel.write(job.resolve("cpuset.cpus"), CpuList.format(cpus));
    kernel.write(
        job.resolve("cpuset.mems"), ControlFiles.read(above.resolve("cpuset.mems.effective")));
  }

  @Override
  public Optional<JobCgroup> find(String jobId) {
    V2Job job = job(CgroupNames.check(jobId, "job id"));
    return Files.isDirectory(job.dir()) ? Optional.of(job) : Optional.empty();
  }

  @Override
  public List<String> jobs() throws IOException {
    Set<String> ids = new TreeSet<>();
    Path base = base();
    if (Files.isDirectory(base)) {
      try (Stream<Path> list = Files.list(base)) {
        list.filter(Files::isDirectory).forEach(d -> ids.add(d.getFileName().toString()));
      }
    }
    return List.copyOf(ids);
  }

  /**
   * cpuset, memory and io where the parent offers them, and devices where BPF programs can be
   * loaded.
   */
  @Override
  public Set<String> controllers() {
    if (!takesPrograms || !BpfDevices.available()) {
      return available;
    }
    Set<String> all = new LinkedHashSet<>(available);
    all.add(DEVICES);
    return Collections.unmodifiableSet(all);
  }

  @Override
  public boolean removeRoot() throws IOException {
    return Teardown.removeLevels(kernel, parent, levels);
  }

  @Override
  public String describe() {
    String named = available.isEmpty() ? "none" : String.join(" ", new TreeSet<>(available));
    String controllers =
        !available.contains(CPUSET) && !available.contains(MEMORY)
            ? named
                + ", tracking only (cgroup.kill, cgroup.events, cpu.stat; "
                + parent
                + " offers "
                + (offered.isEmpty() ? "no controller" : String.join(" ", offered))
                + ")"
            : named;
    String tasks =
        available.contains(PIDS) && taskCap > 0
            ? ", the jobs' tasks capped at " + taskCap
            : " (no cap on the jobs' tasks: a fork bomb can take every process id)";
    return "cgroup v2: "
        + base()
        + ", controllers: "
        + controllers
        + tasks
        + devicesNote()
        + movesNote;
  }

  private String devicesNote() {
    if (!takesPrograms) {
      return "";
    }
    return BpfDevices.available()
        ? ", devices through BPF programs"
        : " (no devices: the native library that loads BPF programs is not loaded)";
  }

  private Path base() {
    return parent.resolve(String.join("/", levels));
  }

  private V2Job job(String jobId) {
    return new V2Job(jobId, base().resolve(jobId), kernel, sampledPeaks);
  }
}
