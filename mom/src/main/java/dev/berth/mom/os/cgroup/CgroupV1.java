package dev.berth.mom.os.cgroup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Job cgroups in the cgroup v1 hierarchies of cpuset and memory (required) and cpuacct, freezer,
 * devices, blkio and pids (used when mounted), whether each has its own mount or several share one
 * ({@code cpuset,memory}, {@code cpu,cpuacct}). A job's cgroup is {@code <parent>/<root>/<job id>}
 * in each; in the pids hierarchy the root holds {@link TaskCap}.
 */
public final class CgroupV1 implements CgroupDriver {
  static final String CPUSET = "cpuset";
  static final String MEMORY = "memory";
  static final String CPUACCT = "cpuacct";
  static final String FREEZER = "freezer";
  static final String DEVICES = "devices";
  static final String BLKIO = "blkio";
  static final String PIDS = "pids";
  private static final List<String> REQUIRED = List.of(CPUSET, MEMORY);
  private static final List<String> USED =
      List.of(CPUSET, MEMORY, CPUACCT, FREEZER, DEVICES, BLKIO, PIDS);

  private static final Path SYS_BLOCK = Path.of("/sys/block");

  /** Controller to the directory of the parent cgroup in its hierarchy. */
  private final Map<String, Path> parents;

  private final List<String> levels;
  private final Kernel kernel;
  private final String movesNote;
  private final long taskCap;

  CgroupV1(Map<String, Path> parents, String root, Kernel kernel, String movesNote, long taskCap) {
    this.parents = Map.copyOf(parents);
    this.levels = List.of(root.split("/"));
    this.kernel = kernel;
    this.movesNote = movesNote;
    this.taskCap = taskCap;
  }

  /** The driver for this process's mounts and cgroups. */
  public static CgroupV1 open(CgroupConfig config) throws IOException {
    return open(config, Path.of("/proc/self/mountinfo"), Path.of("/proc/self/cgroup"));
  }

  /** The driver for the mounts in {@code mountinfo} and the own cgroups in {@code selfCgroup}. */
  public static CgroupV1 open(CgroupConfig config, Path mountinfo, Path selfCgroup)
      throws IOException {
    return open(config, Mounts.read(mountinfo, selfCgroup), Kernel.LINUX);
  }

  static CgroupV1 open(CgroupConfig config, Mounts mounts, Kernel kernel) throws IOException {
    return open(config, mounts, kernel, TaskCap.system());
  }

  /** The driver whose jobs may have {@code taskCap} tasks together (0: no cap). */
  static CgroupV1 open(CgroupConfig config, Mounts mounts, Kernel kernel, long taskCap)
      throws IOException {
    Map<String, Path> parents = new LinkedHashMap<>();
    for (String controller : USED) {
      Optional<Path> parent = parentDir(config, mounts, controller);
      if (parent.isPresent()) {
        parents.put(controller, parent.get());
      } else if (REQUIRED.contains(controller)) {
        throw new IOException("cgroup v1: no " + controller + " hierarchy is mounted");
      }
    }
    return new CgroupV1(parents, config.root(), kernel, mounts.movesNote(), taskCap);
  }

  /** Whether the hierarchies this driver needs are mounted. */
  static boolean usable(Mounts mounts) {
    return REQUIRED.stream().noneMatch(c -> mounts.v1(c).isEmpty());
  }

  private static Optional<Path> parentDir(CgroupConfig config, Mounts mounts, String controller)
      throws IOException {
    List<Mounts.Mount> found = mounts.v1(controller);
    if (found.isEmpty()) {
      return Optional.empty();
    }
    String path = config.parentFor(controller);
    if (path == null) {
      path =
          mounts
              .own(controller)
              .orElseThrow(
                  () ->
                      new IOException(
                          "cgroup v1: "
                              + controller
                              + " is mounted but the mom's cgroup file names no "
                              + controller
                              + " cgroup"));
    }
    for (Mounts.Mount m : found) {
      if (m.options().contains("noprefix")) {
        throw new IOException(
            "cgroup v1: " + m.mountPoint() + " is mounted with noprefix, which is not supported");
      }
      Optional<Path> dir = m.dirOf(path);
      if (dir.isPresent()) {
        if (!Files.isDirectory(dir.get())) {
          throw new IOException(
              "cgroup v1: the parent of the job cgroups, " + dir.get() + ", does not exist");
        }
        return dir;
      }
    }
    throw new IOException(
        "cgroup v1: the "
            + controller
            + " cgroup "
            + path
            + " is not visible under "
            + found.stream().map(m -> m.mountPoint().toString()).collect(Collectors.joining(", ")));
  }

  @Override
  public JobCgroup create(String jobId, List<Integer> cpus, long memoryLimit) throws IOException {
    V1Job job = job(CgroupNames.check(jobId, "job id"));
    boolean existed = job.exists();
    try {
      for (Map.Entry<Path, Set<String>> h : hierarchies().entrySet()) {
        makeLevels(h.getKey(), jobId, h.getValue().contains(CPUSET) ? cpus : null);
        if (h.getValue().contains(PIDS) && taskCap > 0) {
          Path base = h.getKey().resolve(String.join("/", levels));
          kernel.write(base.resolve(TaskCap.FILE), Long.toString(taskCap));
        }
      }
      if (memoryLimit > 0) {
        MemoryLimits.apply(kernel, job.dir(MEMORY), memoryLimit);
      }
      if (job.dir(BLKIO) != null) {
        BlockIo.countV1(kernel, job.dir(BLKIO), BlockIo.disks(SYS_BLOCK));
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

  /**
   * Makes the job's directory in one hierarchy, and first the root levels above it where they are
   * not there or not whole (they are, but for the first job: one check costs less than a failed
   * mkdir for each level and job). In a cpuset hierarchy ({@code cpus} not null) a new directory
   * has no CPUs and no memory nodes, and no process can join it or any cgroup below it, so every
   * level gets its parent's, and the job its own CPUs.
   */
  private void makeLevels(Path parent, String jobId, List<Integer> cpus) throws IOException {
    Path base = parent.resolve(String.join("/", levels));
    if (!Files.isDirectory(base, LinkOption.NOFOLLOW_LINKS)
        || (cpus != null && ControlFiles.read(base.resolve("cpuset.cpus")).isEmpty())) {
      // missing, or a cpuset level that a mom stopped before it had its CPUs
      Path dir = parent;
      for (String level : levels) {
        Path child = dir.resolve(level);
        kernel.mkdir(child);
        if (cpus != null) {
          inheritCpuset(dir, child, false);
        }
        dir = child;
      }
    }
    Path job = base.resolve(jobId);
    kernel.mkdir(job);
    if (cpus != null && !cpus.isEmpty()) {
      setCpus(base, job, cpus);
    } else if (cpus != null) {
      inheritCpuset(base, job, true);
    }
  }

  private void setCpus(Path parent, Path job, List<Integer> cpus) throws IOException {
    String offered = ControlFiles.read(parent.resolve("cpuset.cpus"));
    if (!CpuList.parse(offered).containsAll(cpus)) {
      throw new IOException(
          "cgroup v1: CPUs "
              + CpuList.format(cpus)
              + " are not all in "
              + parent.resolve("cpuset.cpus")
              + " ("
              + offered
              + ")");
    }
    kernel.write(job.resolve("cpuset.cpus"), CpuList.format(cpus));
    kernel.write(job.resolve("cpuset.mems"), ControlFiles.read(parent.resolve("cpuset.mems")));
  }

  private void inheritCpuset(Path parent, Path child, boolean always) throws IOException {
    for (String file : List.of("cpuset.cpus", "cpuset.mems")) {
      if (always || ControlFiles.read(child.resolve(file)).isEmpty()) {
        kernel.write(child.resolve(file), ControlFiles.read(parent.resolve(file)));
      }
    }
  }

  @Override
  public Optional<JobCgroup> find(String jobId) {
    V1Job job = job(CgroupNames.check(jobId, "job id"));
    return job.exists() ? Optional.of(job) : Optional.empty();
  }

  @Override
  public List<String> jobs() throws IOException {
    Set<String> ids = new TreeSet<>();
    for (Path parent : hierarchies().keySet()) {
      Path base = parent.resolve(String.join("/", levels));
      if (Files.isDirectory(base)) {
        try (Stream<Path> list = Files.list(base)) {
          list.filter(Files::isDirectory).forEach(d -> ids.add(d.getFileName().toString()));
        }
      }
    }
    return List.copyOf(ids);
  }

  @Override
  public Set<String> controllers() {
    return parents.containsKey(DEVICES) ? Set.of(CPUSET, MEMORY, DEVICES) : Set.of(CPUSET, MEMORY);
  }

  @Override
  public boolean removeRoot() throws IOException {
    boolean gone = true;
    for (Path parent : hierarchies().keySet()) {
      gone &= Teardown.removeLevels(kernel, parent, levels);
    }
    return gone;
  }

  @Override
  public String describe() {
    StringBuilder s = new StringBuilder("cgroup v1:");
    String sep = " ";
    for (String c : USED) {
      Path parent = parents.get(c);
      s.append(sep).append(c).append('=');
      s.append(parent == null ? "not mounted" : parent.resolve(String.join("/", levels)));
      sep = ", ";
    }
    if (!Files.exists(parents.get(MEMORY).resolve(MemoryLimits.MEMSW))) {
      s.append(" (no swap accounting: swap use is not limited)");
    }
    if (!parents.containsKey(CPUACCT)) {
      s.append(" (no CPU time from cgroups)");
    }
    if (!parents.containsKey(FREEZER)) {
      s.append(" (killing without a freezer)");
    }
    if (!parents.containsKey(BLKIO)) {
      s.append(" (no block I/O figures)");
    }
    if (!parents.containsKey(PIDS) || taskCap == 0) {
      s.append(" (no cap on the jobs' tasks: a fork bomb can take every process id)");
    } else {
      s.append(" (the jobs' tasks capped at ").append(taskCap).append(')');
    }
    return s.append(movesNote).toString();
  }

  /** Each distinct parent directory with the controllers it holds. */
  private Map<Path, Set<String>> hierarchies() {
    Map<Path, Set<String>> result = new LinkedHashMap<>();
    for (String c : USED) {
      Path parent = parents.get(c);
      if (parent != null) {
        result.computeIfAbsent(parent, p -> new LinkedHashSet<>()).add(c);
      }
    }
    return result;
  }

  V1Job job(String jobId) {
    Map<String, Path> dirs = new LinkedHashMap<>();
    for (String c : USED) {
      Path parent = parents.get(c);
      if (parent != null) {
        dirs.put(c, parent.resolve(String.join("/", levels)).resolve(jobId));
      }
    }
    return new V1Job(jobId, dirs, kernel);
  }
}
