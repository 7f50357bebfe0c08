package dev.berth.tools.qsub.session;

import dev.berth.core.JobIds;
import java.io.PrintStream;

/** {@link Voice#slurm}: Slurm's salloc or srun, on standard error. */
record SlurmVoice(String program, boolean allocation, boolean quiet) implements Voice {
  @Override
  public void submitted(String jobId, PrintStream out, PrintStream err) {}

  @Override
  public void waiting(String jobId, PrintStream out, PrintStream err) {
    if (quiet) {
      return;
    }
    if (allocation) {
      err.println(program + ": Pending job allocation " + JobIds.number(jobId));
    }
    err.println(program + ": job " + JobIds.number(jobId) + " queued and waiting for resources");
    err.flush();
  }

  @Override
  public void ready(String jobId, boolean waited, PrintStream out, PrintStream err) {
    if (quiet) {
      return;
    }
    if (waited) {
      err.println(program + ": job " + JobIds.number(jobId) + " has been allocated resources");
    }
    if (allocation) {
      err.println(program + ": Granted job allocation " + JobIds.number(jobId));
    }
    err.flush();
  }

  @Override
  public void ended(String jobId, PrintStream out, PrintStream err) {
    if (allocation && !quiet) {
      err.println(program + ": Relinquishing job allocation " + JobIds.number(jobId));
      err.flush();
    }
  }

  @Override
  public boolean asksBeforeGivingUp() {
    return false;
  }

  @Override
  public int gaveUp(String jobId, PrintStream out, PrintStream err) {
    err.println(program + ": Job allocation " + JobIds.number(jobId) + " has been revoked.");
    err.flush();
    return 1;
  }
}
