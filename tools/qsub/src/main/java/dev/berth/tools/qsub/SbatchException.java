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

  SbatchException(int exit, String lines) {
    super(lines);
    this.exit = exit;
  }

  /** {@code sbatch: error: MESSAGE}, exit 255. */
  static SbatchException badOption(String message) {
    return new SbatchException(BAD_OPTION, "sbatch: error: " + message);
  }

  /** {@code sbatch: error: MESSAGE}, exit 1. */
  static SbatchException failed(String message) {
    return new SbatchException(FAILED, "sbatch: error: " + message);
  }

  int exit() {
    return exit;
  }
}
