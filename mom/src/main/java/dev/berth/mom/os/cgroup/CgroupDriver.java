package dev.berth.mom.os.cgroup;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A mom's job cgroups: one per job below {@code <parent>/<root>} in every hierarchy the driver
 * uses. The parent is, by default, the mom's own cgroup in that hierarchy, so job memory stays
 * inside whatever limit the mom's host placed on the mom; the root (e.g. {@code berth/n1}) lets
 * several moms share a host.
 */
public interface CgroupDriver {
  /**
   * Creates (or finds, idempotently) the job's cgroup. The job gets exactly {@code cpus} (empty:
   * the parent's CPUs, not confined), the parent's memory nodes, and a memory limit in bytes that
   * swap cannot escape where the host accounts swap (0: no limit). A cgroup left half-made by a
   * failure here is removed again before the exception is thrown.
   *
   * @throws IOException when a hierarchy refuses (CPUs not in the parent, a controller this host
   *     does not offer, a parent that does not exist), with the path and the reason
   */
  JobCgroup create(String jobId, List<Integer> cpus, long memoryLimit) throws IOException;

  /** The job's cgroup if it exists in any hierarchy (for a mom that restarts). */
  Optional<JobCgroup> find(String jobId);

  /** Ids of the job cgroups that exist below this mom's root (orphan cleanup at mom start). */
  List<String> jobs() throws IOException;

  /**
   * The controllers {@link #create} can apply here: {@code cpuset} (CPUs) and {@code memory} (a
   * limit), and {@code devices} where {@link JobCgroup#denyDevices} works. A cgroup v2 host whose
   * controllers are bound to cgroup v1 offers neither cpuset nor memory: its job cgroups only track
   * processes (kill all, CPU time, empty) and, with the mom's native library, deny devices.
   */
  Set<String> controllers();

  /**
   * Removes this mom's root levels (e.g. {@code berth/n1}, then {@code berth}) where no cgroup is
   * left below them, at mom stop; a level another mom still uses stays. Returns whether this mom's
   * root is gone.
   */
  boolean removeRoot() throws IOException;

  /** For logs: the version, the directory in each hierarchy and what is not available. */
  String describe();
}
