package dev.berth.tools.qsub.session;

/**
 * qsub -I is done, with this exit status; whatever the user had to be told has been printed. Thrown
 * by the steps of a session (waiting, connecting) to end it from where they are.
 */
final class Ended extends Exception {
  private static final long serialVersionUID = 1L;

  private final int status;

  Ended(int status) {
    super("qsub ends with status " + status, null, false, false);
    this.status = status;
  }

  int status() {
    return status;
  }
}
