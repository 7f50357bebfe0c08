package dev.berth.tools.qsub;

/**
 * Why sbatch submits nothing: the lines it prints on stderr, as Slurm's sbatch words them, and the
 * status it exits with (255 for a bad option or value, 1 otherwise, as Slurm's).
 */
final class SbatchException extends Exception {
  /** Slurm's sbatch exits 255 ({@code exit(-1)}) for a bad option or option value. */
  static final int BAD_OPTION = 255;

  /** And 1 for everything else. */
  static final int FAILED = 1;

  private final int exit;
  private final String reason;

  SbatchException(int exit, String lines) {
    this(exit, lines, lines);
  }

  private SbatchException(int exit, String lines, String reason) {
    super(lines);
    this.exit = exit;
    this.reason = reason;
  }

  /** {@code sbatch: error: MESSAGE}, exit 255. */
  static SbatchException badOption(String message) {
    return new SbatchException(BAD_OPTION, "sbatch: error: " + message, message);
  }

  /** {@code sbatch: error: MESSAGE}, exit 1. */
  static SbatchException failed(String message) {
    return new SbatchException(FAILED, "sbatch: error: " + message, message);
  }

  /**
   * The lines as {@code program} prints them: salloc and srun read sbatch's options with sbatch's
   * code, and say what is wrong in its words with their own name where sbatch's stands.
   */
  String lines(String program) {
    return getMessage()
        .replace("sbatch: ", program + ": ")
        .replace("Berth's sbatch", "Berth's " + program);
  }

  /** What is wrong, without sbatch's name: for another command that reads the same value. */
  String reason() {
    return reason;
  }

  int exit() {
    return exit;
  }
}
