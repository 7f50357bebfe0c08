package dev.berth.mom.os.cgroup;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Makes the mom's own cgroup v2 able to hold its job cgroups. Only a cgroup without processes can
 * hand controllers down (the root excepted), and under systemd the mom's own cgroup is its
 * service's (system.slice/berth-mom.service, delegated to it with Delegate=yes), where the mom
 * itself runs. So the processes there move into a leaf of their own, {@value #NAME}, beside the job
 * cgroups' root, as systemd's delegation rules ask of a service that makes cgroups; a mom that
 * restarts in the service cgroup moves again.
 */
final class OwnLeaf {
  static final String NAME = "mom";

  private OwnLeaf() {}

  /**
   * Moves what runs in {@code own} into {@code own}/{@value #NAME} where {@code own} offers
   * controllers and holds processes; returns a note for the driver's description, or "" where
   * nothing needed to move.
   */
  static String enter(Path own, boolean root, boolean controllersOffered, Kernel kernel)
      throws IOException {
    List<Long> pids = ControlFiles.pids(own.resolve("cgroup.procs"));
    if (root || !controllersOffered || pids.isEmpty()) {
      return "";
    }
    Path leaf = own.resolve(NAME);
    kernel.mkdir(leaf);
    for (long pid : pids) {
      try {
        kernel.write(leaf.resolve("cgroup.procs"), Long.toString(pid));
      } catch (IOException gone) {
        // a process that ended meanwhile; one that cannot move shows when controllers are enabled
      }
    }
    return ", the mom's own processes moved to "
        + leaf
        + " (a cgroup that hands controllers down"
        + " holds none)";
  }
}
