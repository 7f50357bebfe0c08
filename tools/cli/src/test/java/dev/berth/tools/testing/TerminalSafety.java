package dev.berth.tools.testing;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import dev.berth.core.ControlCharacters;
import dev.berth.proto.Job;
import dev.berth.proto.Variable;

/** What a command's output must be, whatever the values it shows hold. */
public final class TerminalSafety {
  /** A line a hostile job name tries to add to root's {@code qstat -f}. */
  public static final String FORGED = "    Job_Owner = root@head";

  private TerminalSafety() {}

  /**
   * Job 12 with control characters in every free-text field a user or a mom could fill: a name that
   * tries to forge a line and clear the screen, an account, a comment that sets the window title, a
   * variable with a C1 CSI, and an exit reason with a bidi override.
   */
  public static Job.Builder hostileJob() {
    return SampleJobs.queued()
        .setName("evil\u001b[2J\n" + FORGED.strip())
        .setAccount("acct\r\u0000")
        .setComment("done\u001b]0;owned\u0007")
        .addVariables(Variable.newBuilder().setName("X").setValue("a\n" + FORGED + "\u009b"))
        .setExitReason("walltime\u202e");
  }

  /**
   * Output that no value could have shaped: its only control characters are the newlines and tabs
   * of the layout, and no line is the forged one.
   */
  public static void assertSafe(String output) {
    for (int i = 0; i < output.length(); i++) {
      char c = output.charAt(i);
      if (ControlCharacters.is(c) && c != '\n' && c != '\t') {
        fail("raw " + ControlCharacters.escape(c) + " at " + i + " in:\n" + output);
      }
    }
    for (String line : output.split("\n")) {
      assertFalse(line.strip().equals(FORGED.strip()), "forged line in:\n" + output);
    }
  }
}
