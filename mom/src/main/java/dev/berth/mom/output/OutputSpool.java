package dev.berth.mom.output;

import dev.berth.mom.os.JobFiles;
import dev.berth.mom.os.Trash;
import dev.berth.mom.os.UserInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * A job's spool on its mother superior: a directory of the owner's (mode 0700) in the mom's
 * root-owned base, where the job writes the streams that go to another host afterwards. What cannot
 * be delivered moves to {@code undelivered/JOBID} beside it (Torque's undelivered directory), where
 * its owner finds it. A spool that goes is moved to the base's {@link Trash}, whatever its owner
 * left in it.
 */
public final class OutputSpool {
  private OutputSpool() {}

  /** The spool of job {@code jobId} below the mom's {@code base} (its TMPDIR base). */
  public static Path directory(Path base, String jobId) {
    return base.resolve(jobId + ".spool");
  }

  /** Makes the job's spool afresh, owned by {@code owner} (null: the mom's own user). */
  public static void create(Path dir, UserInfo owner, int gid) throws IOException {
    Trash.in(dir.getParent()).discard(dir); // an earlier run of the same job (requeued) left it
    JobFiles.createUserDirectory(dir, owner, gid);
  }

  /** Moves what is left in the job's spool to the undelivered directory; returns where. */
  public static Path keep(Path base, String jobId) throws IOException {
    Path undelivered = base.resolve("undelivered");
    JobFiles.prepareBase(undelivered);
    Path kept = undelivered.resolve(jobId);
    Trash.in(base).discard(kept); // an earlier run of the same job (requeued) left it
    Files.move(directory(base, jobId), kept);
    return kept;
  }

  /** Removes the job's spool (to the trash). */
  public static void remove(Path base, String jobId) throws IOException {
    Trash.in(base).discard(directory(base, jobId));
  }

  /** Whether the spool holds {@code file} (a regular file, not a link the owner put there). */
  public static boolean holds(Path file) {
    return Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS);
  }
}
