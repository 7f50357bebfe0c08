package dev.berth.mom.lifecycle;

import dev.berth.mom.os.Launcher;
import dev.berth.mom.os.StartSpec;
import dev.berth.mom.output.Outlet;
import dev.berth.mom.store.JobRecords;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;

/**
 * What the mom tells a job's owner ({@code =>> PBS: ...} lines: a limit passed, the walltime, an
 * OOM kill): on the terminal of an interactive job, else at the end of the job's stderr file,
 * written as the owner (never as root), else, for a job with neither, in the log.
 */
final class JobNotices {
  private final String jobId;
  private final Launcher launcher;
  private final JobRecords records;
  private final Logger log;

  JobNotices(String jobId, Launcher launcher, JobRecords records, Logger log) {
    this.jobId = jobId;
    this.launcher = launcher;
    this.records = records;
    this.log = log;
  }

  /**
   * Tells the owner {@code line}, through {@code screen} when the job has a terminal (null when it
   * has none), else into the output {@code spec} names (null before the job has one).
   */
  void tell(String line, StartSpec spec, Outlet screen) {
    if (screen != null) {
      screen.offer(("\r\n" + line + "\r\n").getBytes(StandardCharsets.UTF_8), () -> {});
      return;
    }
    if (spec == null || spec.stdout() == null) {
      log.info("job {}: {}", jobId, line);
      return;
    }
    Path file = spec.joinStderr() ? spec.stdout() : spec.stderr();
    try {
      StartSpec append =
          StartSpec.appendLine(
              spec.user(), spec.gid(), file, line, records.file(jobId, "notice.status"));
      launcher.start(append).exited().get(10, TimeUnit.SECONDS);
    } catch (IOException | ExecutionException | TimeoutException | RuntimeException e) {
      log.warn("job {}: cannot write to its stderr: {}", jobId, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      log.warn("job {}: cannot write to its stderr: interrupted", jobId);
    }
  }
}
