package dev.berth.mom.output;

import dev.berth.mom.os.UserInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;

/**
 * A job's output after its script: each spooled stream delivered to its host, and what cannot be
 * delivered kept on this node in the undelivered directory, with a note for the job's comment and
 * tracejob saying where it is and why (Torque's undelivered output). Nothing is left in the spool.
 */
public final class StageOut {
  private StageOut() {}

  /**
   * Delivers the job's {@code spooled} streams through {@code courier}; returns the note on what
   * was kept, or "" when everything went where it should.
   *
   * @param ownerKnown whether this node knows the job's owner; when not, nothing can be read as
   *     them, and everything is kept
   * @param owner the job's owner, or null when the mom runs jobs as itself
   */
  public static String run(
      Path base,
      String jobId,
      String node,
      List<OutputFiles.Spooled> spooled,
      OutputCourier courier,
      boolean ownerKnown,
      UserInfo owner,
      int gid,
      Logger log) {
    Path spool = OutputSpool.directory(base, jobId);
    if (!Files.isDirectory(spool, LinkOption.NOFOLLOW_LINKS)) {
      return "";
    }
    List<String> failures = new ArrayList<>();
    if (!ownerKnown || courier == null) {
      failures.add(
          !ownerKnown
              ? "its owner is not known on " + node
              : "this mom has no credential to deliver output with");
    } else {
      for (OutputFiles.Spooled s : spooled) {
        if (!OutputSpool.holds(s.file())) {
          continue; // the script's file is gone, or its owner put something else there
        }
        long t0 = System.nanoTime();
        try {
          String where = courier.deliver(s.host(), jobId, s.stream(), s.file(), owner, gid);
          Files.deleteIfExists(s.file());
          log.info(
              "job {}: delivered {} to {}:{} in {} ms",
              jobId,
              name(s.stream()),
              s.host(),
              where,
              (System.nanoTime() - t0) / 1_000_000);
        } catch (IOException e) {
          log.warn(
              "job {}: cannot deliver {} to {}: {}",
              jobId,
              name(s.stream()),
              s.host(),
              e.getMessage());
          failures.add(name(s.stream()) + " for " + s.host() + ": " + e.getMessage());
        }
      }
    }
    try {
      if (failures.isEmpty()) {
        OutputSpool.remove(base, jobId);
        return "";
      }
      Path kept = OutputSpool.keep(base, jobId);
      return "output kept on " + node + " in " + kept + " (" + String.join("; ", failures) + ")";
    } catch (IOException e) {
      log.warn("job {}: cannot move its undelivered output: {}", jobId, e.getMessage());
      return "output left on " + node + " in " + spool + " (" + String.join("; ", failures) + ")";
    }
  }

  private static String name(String stream) {
    return stream.equals("o") ? "stdout" : "stderr";
  }
}
