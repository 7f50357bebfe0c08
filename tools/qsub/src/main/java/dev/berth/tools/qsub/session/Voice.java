package dev.berth.tools.qsub.session;

import java.io.PrintStream;

/**
 * What an interactive job's session tells its user on the way, and in whose words: qsub -I's,
 * Torque's ({@link #QSUB}), or salloc's and srun's, Slurm's ({@link #slurm}), as each prints them.
 */
public interface Voice {
  /** The command's name, which its error lines begin with. */
  String program();

  /** The job is submitted; it may not have started yet. */
  void submitted(String jobId, PrintStream out, PrintStream err);

  /** The job has not started within {@code InteractiveSession.Timing.patience}. */
  void waiting(String jobId, PrintStream out, PrintStream err);

  /**
   * The job has started: its terminal is the user's now; {@code waited}: after {@link #waiting}.
   */
  void ready(String jobId, boolean waited, PrintStream out, PrintStream err);

  /** The job's shell or command has ended. */
  void ended(String jobId, PrintStream out, PrintStream err);

  /**
   * Ctrl-C while the job waits: whether to ask before deleting it (Torque's qsub asks; Slurm's
   * commands give up at once).
   */
  boolean asksBeforeGivingUp();

  /** The job is deleted because the user gave up waiting; the status to exit with. */
  int gaveUp(String jobId, PrintStream out, PrintStream err);

  /** Torque's qsub -I, on standard output. */
  Voice QSUB =
      new Voice() {
        @Override
        public String program() {
          return "qsub";
        }

        @Override
        public void submitted(String jobId, PrintStream out, PrintStream err) {
          out.println("qsub: waiting for job " + jobId + " to start");
          out.flush();
        }

        @Override
        public void waiting(String jobId, PrintStream out, PrintStream err) {}

        @Override
        public void ready(String jobId, boolean waited, PrintStream out, PrintStream err) {
          out.print("qsub: job " + jobId + " ready\n\n");
          out.flush();
        }

        @Override
        public void ended(String jobId, PrintStream out, PrintStream err) {
          out.print("\nqsub: job " + jobId + " completed\n");
          out.flush();
        }

        @Override
        public boolean asksBeforeGivingUp() {
          return true;
        }

        @Override
        public int gaveUp(String jobId, PrintStream out, PrintStream err) {
          out.println("Job " + jobId + " is being deleted");
          out.flush();
          return 0;
        }
      };

  /**
   * Slurm 22.05's salloc ({@code allocation}: it says when it is granted and relinquished) or srun
   * (silent unless it waits), on standard error, naming the job by its number; with {@code quiet}
   * ({@code -Q}) only a revoked allocation is said.
   */
  static Voice slurm(String program, boolean allocation, boolean quiet) {
    return new SlurmVoice(program, allocation, quiet);
  }
}
