package dev.berth.server.mail;

/**
 * Torque's mail points: the letter {@code qsub -m} names (delete has none: its mail is always
 * forced) and the standard message a mail's {@code %m} stands for.
 */
public enum MailPoint {
  /** The system ended the job: it could not start, met a limit, lost its node, ... */
  ABORT('a', "Aborted by PBS Server "),
  BEGIN('b', "Begun execution"),
  END('e', "Execution terminated"),
  /** Someone other than its owner deleted the job. */
  DELETE('d', "job deleted");

  private final char letter;
  private final String message;

  MailPoint(char letter, String message) {
    this.letter = letter;
    this.message = message;
  }

  public char letter() {
    return letter;
  }

  /** Torque's standard message ({@code %m}, and {@code %r}): note abort's trailing space. */
  public String message() {
    return message;
  }
}
