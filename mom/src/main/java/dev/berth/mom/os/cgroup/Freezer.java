package dev.berth.mom.os.cgroup;

import java.io.IOException;
import java.time.Duration;

/**
 * A cgroup's freezer: holds every process in the cgroup where it is, those it forks and those that
 * join it included, and lets them go on. Teardown freezes a cgroup while it kills its processes; a
 * job's suspension keeps it frozen until the job resumes.
 */
interface Freezer {
  /**
   * Asks the kernel to freeze the cgroup and waits until it reports every process frozen, or until
   * {@code wait} has passed: a process in uninterruptible sleep (e.g. on NFS) freezes only when it
   * comes out of it. Returns whether the cgroup is frozen; asking again goes on waiting.
   */
  boolean freeze(Duration wait) throws IOException;

  void thaw() throws IOException;

  /** No freezer: nothing is frozen (teardown then kills the processes as they run). */
  Freezer NONE =
      new Freezer() {
        @Override
        public boolean freeze(Duration wait) {
          return false;
        }

        @Override
        public void thaw() {}
      };
}
