package dev.berth.mom.lifecycle;

import dev.berth.mom.MomConfig;
import dev.berth.mom.nodejob.NodeJob;
import dev.berth.mom.output.OutputSpool;
import dev.berth.mom.output.StageOut;
import java.io.IOException;
import org.slf4j.Logger;

/**
 * The job's output files where they are spooled on this node (their path is another host's, or the
 * site keeps output local until the end; {@link LaunchHook} makes the spool with the script's
 * start): at the end its files are delivered to their hosts, or kept here with a note for the obit.
 * A job that did not start drops its spool, unless a prologue aborted it: then what the prologue
 * wrote is the owner's only word of why, and is delivered.
 */
final class OutputHook {
  private final String jobId;
  private final MomConfig config;
  private final LaunchHook launch;
  private final Logger log;

  OutputHook(String jobId, MomConfig config, LaunchHook launch, Logger log) {
    this.jobId = jobId;
    this.config = config;
    this.launch = launch;
    this.log = log;
  }

  /** The spooled output delivered to its hosts, or kept here: the note says what was kept. */
  String deliver() {
    NodeJob nodeJob = launch.nodeJob();
    return StageOut.run(
        config.tmpBase(),
        jobId,
        config.name(),
        launch.spooled(),
        config.courier(),
        nodeJob != null,
        nodeJob == null ? null : nodeJob.runAs(),
        nodeJob == null ? 0 : nodeJob.gid(),
        log);
  }

  /** The spool of a script that did not run goes. */
  void drop() {
    try {
      OutputSpool.remove(config.tmpBase(), jobId);
    } catch (IOException e) {
      log.warn("job {}: cannot remove its output spool: {}", jobId, e.getMessage());
    }
  }
}
