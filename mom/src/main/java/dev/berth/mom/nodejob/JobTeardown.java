package dev.berth.mom.nodejob;

import dev.berth.mom.Cleanup;
import dev.berth.mom.JobServices;
import dev.berth.mom.MomActor;
import dev.berth.mom.os.cgroup.CgroupUsage;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;

/**
 * What goes of a job on this node when it ends, on its mother superior and its sisters alike: its
 * GPUs' watch, its account's TMPDIR (into the trash), its cgroup (with anything left in it) and its
 * record. Each step is logged where it fails and the next still runs; a cgroup that cannot be ended
 * or removed is the node's trouble (it goes offline), since the node cannot promise a clean job.
 */
public final class JobTeardown {
  private final JobServices services;
  private final String jobId;
  private final Logger log;

  public JobTeardown(JobServices services, String jobId, Logger log) {
    this.services = services;
    this.jobId = jobId;
    this.log = log;
  }

  /**
   * The mother superior's end before the obit: the GPUs forgotten, the TMPDIR in the trash, and
   * whatever is left in the cgroup ended; the cgroup's directories go later ({@link
   * #removeCgroup}), once the obit is on its way.
   */
  public void end() {
    services.config().gpuMonitor().forget(jobId);
    releaseAccount();
    stopCgroup();
  }

  /**
   * A sister's end, before the mother superior hears that nothing of the job is left here:
   * everything, record included; what the cgroup measured, if it had one.
   */
  public Optional<CgroupUsage> clearAway() {
    services.config().gpuMonitor().forget(jobId);
    releaseAccount();
    Optional<CgroupUsage> usage = Optional.empty();
    try {
      usage = services.isolation().tearDown(jobId);
    } catch (IOException e) {
      cgroupLeft("remove", e);
    }
    removeRecord();
    return usage;
  }

  /**
   * The job's TMPDIR, into the trash (a rename: the node's {@link Cleanup} removes it later, off
   * the job's actor and as the job's owner).
   */
  public void releaseAccount() {
    String problem = NodeJob.release(services.config(), jobId);
    if (!problem.isEmpty()) {
      log.warn("job {}: {}", jobId, problem);
    }
  }

  /** Ends whatever is left in the cgroup; what it measured, if the job has one. */
  public Optional<CgroupUsage> stopCgroup() {
    try {
      return services.isolation().stop(jobId);
    } catch (IOException e) {
      cgroupLeft("end", e);
      return Optional.empty();
    }
  }

  /** The cgroup's directories, once nothing of the job runs (idempotent). */
  public void removeCgroup() {
    try {
      services.isolation().remove(jobId);
    } catch (IOException e) {
      cgroupLeft("remove", e);
    }
  }

  public void removeRecord() {
    try {
      services.records().remove(jobId);
    } catch (IOException e) {
      log.warn("job {}: cannot remove its record: {}", jobId, e.getMessage());
    }
  }

  /** The log and the node's trouble say that the job's cgroup could not be ended or removed. */
  private void cgroupLeft(String what, IOException e) {
    log.warn("job {}: cannot {} its cgroup: {}", jobId, what, e.getMessage());
    services
        .mom()
        .tell(new MomActor.Trouble("job " + jobId + " left a cgroup behind: " + e.getMessage()));
  }
}
